package integrity

import (
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"
)

// JavaRecord is what Java's consumer reads of one record.
type JavaRecord struct {
	Offset int64
	// KeySize and ValueSize are -1 for a null key or value.
	KeySize, ValueSize int
}

// JavaException is an exception Java's record parser throws.
type JavaException struct {
	// Class is the exception's class name.
	Class   string
	Message string
}

func (e *JavaException) String() string { return e.Class + ": " + e.Message }

const invalidRecord = "org.apache.kafka.common.InvalidRecordException"

func invalid(format string, a ...any) *JavaException {
	return &JavaException{Class: invalidRecord, Message: fmt.Sprintf(format, a...)}
}

// JavaRecords reads a v2 batch's records as Java's consumer does without
// CRC checks (check.crcs=false, which kafka-consumer-perf-test forces):
// DefaultRecordBatch's record iterator over DefaultRecord.readFrom. It
// returns the records read before the first one Java refuses, and that
// exception (nil when every record reads). A compressed batch is
// decompressed first and read with the same rules (Java reads it from a
// stream, whose messages for a truncated record differ).
func (b *Batch) JavaRecords() ([]JavaRecord, *JavaException) {
	if b.Magic < 2 || len(b.Raw) < batchOverhead {
		return nil, nil
	}
	if b.NumRecords < 0 {
		return nil, invalid("Found invalid record count %d in magic v%d batch", b.NumRecords, b.Magic)
	}
	body := b.Raw[batchOverhead:]
	if c := b.Compression(); c != 0 {
		out, err := kgo.DefaultDecompressor().Decompress(body, kgo.CompressionCodecType(c))
		if err != nil {
			return nil, &JavaException{Class: "org.apache.kafka.common.KafkaException", Message: err.Error()}
		}
		body = out
	}
	r := &javaBuf{b: body}
	var recs []JavaRecord
	for i := int32(0); i < b.NumRecords; i++ {
		rec, exc := r.record(b.Base)
		if exc != nil {
			return recs, exc
		}
		if i == b.NumRecords-1 && r.remaining() > 0 {
			return recs, invalid("Incorrect declared batch size, records still remaining in file")
		}
		recs = append(recs, rec)
	}
	return recs, nil
}

// Java's ByteBuffer failures: reading past the limit, and a varint longer
// than its type (both caught by DefaultRecord.readFrom).
var (
	errUnderflow = errors.New("java.nio.BufferUnderflowException")
	errIllegal   = errors.New("java.lang.IllegalArgumentException")
)

// javaBuf is a ByteBuffer positioned in a batch's records.
type javaBuf struct {
	b   []byte
	pos int
}

func (r *javaBuf) remaining() int { return len(r.b) - r.pos }

func (r *javaBuf) get() (byte, error) {
	if r.pos >= len(r.b) {
		return 0, errUnderflow
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// varint is ByteUtils.readVarint: an unsigned varint of at most 5 bytes,
// zigzag-decoded.
func (r *javaBuf) varint() (int32, error) {
	var v uint32
	for i := 0; ; i++ {
		c, err := r.get()
		if err != nil {
			return 0, err
		}
		if i == 4 && c&0x80 != 0 {
			return 0, errIllegal
		}
		v |= uint32(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			break
		}
	}
	return int32(v>>1) ^ -int32(v&1), nil
}

// varlong is ByteUtils.readVarlong: at most 10 bytes.
func (r *javaBuf) varlong() (int64, error) {
	var v uint64
	for i := 0; ; i++ {
		c, err := r.get()
		if err != nil {
			return 0, err
		}
		if i == 9 && c&0x80 != 0 {
			return 0, errIllegal
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c&0x80 == 0 {
			break
		}
	}
	return int64(v>>1) ^ -int64(v&1), nil
}

// skip is Utils.readBytes: a negative size is null; more than remains is
// an IllegalArgumentException (ByteBuffer.limit).
func (r *javaBuf) skip(n int32) error {
	if n < 0 {
		return nil
	}
	if int(n) > r.remaining() {
		return errIllegal
	}
	r.pos += int(n)
	return nil
}

// record is DefaultRecord.readFrom(ByteBuffer, ...) behind the uncompressed
// iterator's readNext.
func (r *javaBuf) record(base int64) (JavaRecord, *JavaException) {
	size, err := r.varint()
	if err != nil {
		// readNext turns an underflow into a declared-size error; a too
		// long varint escapes Java's parser (reported as structure).
		if err == errUnderflow {
			return JavaRecord{}, invalid("Incorrect declared batch size, premature EOF reached")
		}
		return JavaRecord{}, invalid("Found invalid record structure")
	}
	if int64(r.remaining()) < int64(size) {
		return JavaRecord{}, invalid("Invalid record size: expected %d bytes in record payload, but instead the buffer has only %d remaining bytes.", size, r.remaining())
	}
	rec, exc, err := r.body(base, size)
	if err != nil {
		return JavaRecord{}, invalid("Found invalid record structure")
	}
	return rec, exc
}

// body reads one record's body; err is a buffer failure Java turns into
// "Found invalid record structure".
func (r *javaBuf) body(base int64, size int32) (JavaRecord, *JavaException, error) {
	start := r.pos
	if _, err := r.get(); err != nil { // attributes
		return JavaRecord{}, nil, err
	}
	if _, err := r.varlong(); err != nil { // timestamp delta
		return JavaRecord{}, nil, err
	}
	offsetDelta, err := r.varint()
	if err != nil {
		return JavaRecord{}, nil, err
	}
	rec := JavaRecord{Offset: base + int64(offsetDelta)}
	keySize, err := r.varint()
	if err != nil {
		return JavaRecord{}, nil, err
	}
	if err := r.skip(keySize); err != nil {
		return JavaRecord{}, nil, err
	}
	valueSize, err := r.varint()
	if err != nil {
		return JavaRecord{}, nil, err
	}
	if err := r.skip(valueSize); err != nil {
		return JavaRecord{}, nil, err
	}
	rec.KeySize, rec.ValueSize = int(max(keySize, -1)), int(max(valueSize, -1))
	numHeaders, err := r.varint()
	if err != nil {
		return JavaRecord{}, nil, err
	}
	if numHeaders < 0 {
		return JavaRecord{}, invalid("Found invalid number of record headers %d", numHeaders), nil
	}
	if int(numHeaders) > r.remaining() {
		return JavaRecord{}, invalid("Found invalid number of record headers. %d is larger than the remaining size of the buffer", numHeaders), nil
	}
	for range numHeaders {
		ks, err := r.varint()
		if err != nil {
			return JavaRecord{}, nil, err
		}
		if ks < 0 {
			return JavaRecord{}, invalid("Invalid negative header key size %d", ks), nil
		}
		if err := r.skip(ks); err != nil {
			return JavaRecord{}, nil, err
		}
		vs, err := r.varint()
		if err != nil {
			return JavaRecord{}, nil, err
		}
		if err := r.skip(vs); err != nil {
			return JavaRecord{}, nil, err
		}
	}
	if read := r.pos - start; read != int(size) {
		return JavaRecord{}, invalid("Invalid record size: expected to read %d bytes in record payload, but instead read %d", size, read), nil
	}
	return rec, nil, nil
}
