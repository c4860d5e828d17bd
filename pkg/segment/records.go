package segment

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
	"github.com/pierrec/lz4/v4"
)

// Header is one record header.
type Header struct {
	Key   string
	Value []byte // nil for a null value
}

// Record is one record of a batch.
type Record struct {
	Offset     int64
	Timestamp  int64
	KeySize    int32 // -1 for a null key
	ValueSize  int32 // -1 for a null value
	Key        []byte
	Value      []byte
	Sequence   int32
	Headers    []Header
	Attributes int8
}

// HasKey says whether the record has a (non-null) key.
func (r *Record) HasKey() bool { return r.KeySize >= 0 }

// HasValue says whether the record has a (non-null) value.
func (r *Record) HasValue() bool { return r.ValueSize >= 0 }

// Records calls fn on each record of a v2 batch in order, decompressing
// the batch first. A legacy (magic 0 or 1) batch is not decoded here.
func (b *Batch) Records(fn func(*Record) error) error {
	if b.Magic < 2 {
		return errors.New("records of message format v0 and v1 are not supported")
	}
	if len(b.Raw) < batchOverhead {
		return &CorruptError{Msg: fmt.Sprintf("Record batch is corrupt (the size %d is smaller than the minimum allowed overhead %d)", len(b.Raw), batchOverhead)}
	}
	data := b.Raw[batchOverhead:]
	if c := b.Codec(); c != 0 {
		var err error
		if data, err = decompress(c, data); err != nil {
			return err
		}
	}
	rd := reader{b: data}
	base, baseTS, baseSeq := b.i64(0), b.BaseTimestamp(), b.BaseSequence()
	logAppend := b.Attributes()&attrLogAppendTime != 0
	for i := int32(0); i < b.Count(); i++ {
		var r Record
		if err := rd.record(&r); err != nil {
			return err
		}
		off := r.Offset
		r.Offset = base + off
		if logAppend {
			r.Timestamp = b.MaxTimestamp()
		} else {
			r.Timestamp += baseTS
		}
		r.Sequence = -1
		if baseSeq != -1 {
			r.Sequence = incrementSequence(baseSeq, int32(off))
		}
		if err := fn(&r); err != nil {
			return err
		}
	}
	return nil
}

var errShort = &CorruptError{Msg: "Found invalid record structure"}

type reader struct {
	b   []byte
	pos int
}

func (r *reader) varlong() (int64, error) {
	v, n := binary.Varint(r.b[r.pos:])
	if n <= 0 {
		return 0, errShort
	}
	r.pos += n
	return v, nil
}

func (r *reader) bytes(n int64) ([]byte, error) {
	if n < 0 {
		return nil, nil
	}
	if int64(len(r.b)-r.pos) < n {
		return nil, errShort
	}
	v := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return v, nil
}

func (r *reader) record(rec *Record) error {
	length, err := r.varlong()
	if err != nil {
		return err
	}
	if length < 0 || int64(len(r.b)-r.pos) < length {
		return errShort
	}
	sub := reader{b: r.b[r.pos : r.pos+int(length)]}
	r.pos += int(length)
	return sub.body(rec)
}

func (r *reader) body(rec *Record) error {
	if r.pos >= len(r.b) {
		return errShort
	}
	rec.Attributes = int8(r.b[r.pos])
	r.pos++
	var vals [4]int64
	for i := range 3 { // timestamp delta, offset delta, key length
		v, err := r.varlong()
		if err != nil {
			return err
		}
		vals[i] = v
	}
	rec.Timestamp, rec.Offset = vals[0], vals[1]
	var err error
	rec.KeySize = int32(max(vals[2], -1))
	if rec.Key, err = r.bytes(vals[2]); err != nil {
		return err
	}
	if vals[3], err = r.varlong(); err != nil {
		return err
	}
	rec.ValueSize = int32(max(vals[3], -1))
	if rec.Value, err = r.bytes(vals[3]); err != nil {
		return err
	}
	n, err := r.varlong()
	if err != nil || n < 0 {
		return errShort
	}
	for range n {
		kl, err := r.varlong()
		if err != nil || kl < 0 {
			return errShort
		}
		k, err := r.bytes(kl)
		if err != nil {
			return err
		}
		vl, err := r.varlong()
		if err != nil {
			return err
		}
		v, err := r.bytes(vl)
		if err != nil {
			return err
		}
		rec.Headers = append(rec.Headers, Header{Key: string(k), Value: v})
	}
	return nil
}

var xerial = []byte{0x82, 'S', 'N', 'A', 'P', 'P', 'Y', 0}

func decompress(codec int, data []byte) ([]byte, error) {
	switch codec {
	case 1:
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		return io.ReadAll(zr)
	case 2:
		return unsnappy(data)
	case 3:
		return io.ReadAll(lz4.NewReader(bytes.NewReader(data)))
	case 4:
		zr, err := zstd.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return io.ReadAll(zr)
	}
	return nil, fmt.Errorf("Unknown compression type id: %d", codec)
}

// unsnappy decodes Kafka's snappy: xerial's framing (a magic header, then
// length-prefixed blocks) or one raw block.
func unsnappy(data []byte) ([]byte, error) {
	if !bytes.HasPrefix(data, xerial) {
		return s2.Decode(nil, data)
	}
	var out []byte
	for p := 16; p < len(data); {
		if p+4 > len(data) {
			return nil, errShort
		}
		n := int(binary.BigEndian.Uint32(data[p:]))
		p += 4
		if n < 0 || p+n > len(data) {
			return nil, errShort
		}
		blk, err := s2.Decode(nil, data[p:p+n])
		if err != nil {
			return nil, err
		}
		out = append(out, blk...)
		p += n
	}
	return out, nil
}
