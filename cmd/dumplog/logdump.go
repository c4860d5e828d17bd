package dumplog

import (
	"encoding/binary"
	"fmt"
	"math"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/kboxdev/kbox/pkg/segment"
)

// parseFunc decodes a record into the key and the payload printed (ok
// false: nothing printed for it).
type parseFunc func(r *segment.Record) (key string, hasKey bool, payload string, hasPayload bool, err error)

const stringDecoder = "org.apache.kafka.tools.api.StringDecoder"

// messageParser is the options' messageParser: a decoder option, else the
// key and value decoder classes.
func (d *dumper) messageParser() (parseFunc, error) {
	switch {
	case d.s.Has("offsets-decoder"):
		return coordinatorParser(segment.DecodeOffsets), nil
	case d.s.Has("transaction-log-decoder"):
		return transactionParser, nil
	case d.s.Has("cluster-metadata-decoder"):
		return metadataParser, nil
	case d.s.Has("remote-log-metadata-decoder"):
		return remoteParser, nil
	case d.s.Has("share-group-state-decoder"):
		return coordinatorParser(segment.DecodeShareGroupState), nil
	}
	kd, err := d.decoder("key-decoder-class")
	if err != nil {
		return nil, err
	}
	vd, err := d.decoder("value-decoder-class")
	if err != nil {
		return nil, err
	}
	return func(r *segment.Record) (k string, hasKey bool, v string, hasValue bool, err error) {
		if r.HasKey() {
			if k, err = kd(r.Key); err != nil {
				return
			}
		}
		if r.HasValue() {
			if v, err = vd(r.Value); err != nil {
				return
			}
		}
		return k, r.HasKey(), v, r.HasValue(), nil
	}, nil
}

func (d *dumper) decoder(opt string) (func([]byte) (string, error), error) {
	class := stringDecoder
	if v, ok, err := d.s.Value(opt); err != nil {
		return nil, &javaException{"joptsimple.OptionException", err.Error()}
	} else if ok && v != "" {
		class = v
	}
	switch class {
	case stringDecoder:
		return func(b []byte) (string, error) { return javaString(b), nil }, nil
	case "org.apache.kafka.tools.api.IntegerDecoder":
		return func(b []byte) (string, error) { return fixed(b, 4) }, nil
	case "org.apache.kafka.tools.api.DefaultDecoder":
		// a byte[] printed by String.valueOf: its identity hash varies by run
		return func(b []byte) (string, error) {
			d.arrays++
			return fmt.Sprintf("[B@%x", 0x1b6d3586+d.arrays*0x9e3779), nil
		}, nil
	case "org.apache.kafka.tools.api.LongDecoder":
		return func(b []byte) (string, error) { return fixed(b, 8) }, nil
	}
	return nil, &javaException{"java.lang.RuntimeException", "Failed to load decoder class"}
}

// fixed is ByteBuffer.getInt/getLong of the first bytes.
func fixed(b []byte, n int) (string, error) {
	if len(b) < n {
		return "", &javaException{class: "java.nio.BufferUnderflowException"}
	}
	if n == 4 {
		return strconv.FormatInt(int64(int32(binary.BigEndian.Uint32(b))), 10), nil
	}
	return strconv.FormatInt(int64(binary.BigEndian.Uint64(b)), 10), nil
}

// javaString is new String(bytes, UTF_8): invalid bytes become U+FFFD.
func javaString(b []byte) string {
	if utf8.Valid(b) {
		return string(b)
	}
	var w strings.Builder
	for len(b) > 0 {
		r, n := utf8.DecodeRune(b)
		w.WriteRune(r)
		b = b[n:]
	}
	return w.String()
}

func coordinatorParser(decode func(k, v []byte) (*segment.CoordinatorRecord, error)) parseFunc {
	return func(r *segment.Record) (string, bool, string, bool, error) {
		if !r.HasKey() {
			return "", false, "", false, &javaException{"java.lang.RuntimeException",
				fmt.Sprintf("Failed to decode message at offset %d using the specified decoder (message had a missing key)", r.Offset)}
		}
		var value []byte
		if r.HasValue() {
			value = r.Value
		}
		c, err := decode(r.Key, value)
		if ut, ok := err.(*segment.UnknownTypeError); ok {
			return fmt.Sprintf("Unknown record type %d at offset %d, skipping.", ut.Type, r.Offset), true, "", false, nil
		} else if err != nil {
			return fmt.Sprintf("Error at offset %d, skipping. %s", r.Offset, err), true, "", false, nil
		}
		if c.Value == "" {
			c.Value = "<DELETE>"
		}
		return c.Key, true, c.Value, true, nil
	}
}

var transactionParser = coordinatorParser(segment.DecodeTransactionLog)

// metadataParser is the cluster metadata decoder: no key, the record's
// JSON as the payload.
func metadataParser(r *segment.Record) (string, bool, string, bool, error) {
	j, err := segment.DecodeMetadata(r.Value)
	if err != nil {
		j = fmt.Sprintf("Error at %d, skipping. %s", r.Offset, err)
	}
	return "", false, j, true, nil
}

// remoteParser is the remote log metadata decoder: no key, the metadata
// object's text as the payload.
func remoteParser(r *segment.Record) (string, bool, string, bool, error) {
	j, err := segment.DecodeRemoteLogMetadata(r.Value)
	if err != nil {
		j = fmt.Sprintf("Error at offset %d, skipping. %s", r.Offset, err)
	}
	return "", false, j, true, nil
}

// dumpLog prints a .log file: its batches, and with deep iteration their records.
func (d *dumper) dumpLog(name string) error {
	parse, err := d.messageParser()
	if err != nil {
		return err
	}
	maxBytes := int64(math.MaxInt32)
	if v, ok, err := d.s.Int("max-bytes"); err != nil {
		return &javaException{"joptsimple.OptionArgumentConversionException", err.Error()}
	} else if ok {
		maxBytes = v
	}
	if err := d.logHeading(name); err != nil {
		return err
	}
	fh, size, err := open(name)
	if err != nil {
		return err
	}
	defer fh.Close()
	end := min(size, max(maxBytes, 0))
	sc := segment.NewScanner(fh, name, 0, end)
	var valid int64
	last := int64(-1)
	for sc.Next() {
		b := sc.Batch()
		d.printBatch(b, valid)
		if d.deep {
			if err := d.records(b, name, &last, parse); err != nil {
				return err
			}
		}
		valid += int64(b.Size())
	}
	if err := sc.Err(); err != nil {
		if ce, ok := err.(*segment.CorruptError); ok {
			return &javaException{"org.apache.kafka.common.errors.CorruptRecordException", ce.Msg}
		}
		return err
	}
	if trailing := end - valid; trailing > 0 && maxBytes == math.MaxInt32 {
		fmt.Fprintf(d.out, "Found %d invalid bytes at the end of %s\n", trailing, fileName(name))
	}
	return nil
}

// logHeading is the line before a log's batches: its base offset, or a
// KRaft snapshot's end offset and epoch (from its name).
func (d *dumper) logHeading(name string) error {
	if strings.HasSuffix(name, ".log") {
		base, err := startOffset(name)
		if err != nil {
			return err
		}
		fmt.Fprintf(d.out, "Log starting offset: %d\n", base)
		return nil
	}
	base := filepath.Base(name)
	if base == "bootstrap.checkpoint" {
		fmt.Fprintln(d.out, "KRaft bootstrap snapshot")
		return nil
	}
	var off int64
	var epoch int32
	if n, err := fmt.Sscanf(base, "%20d-%10d.checkpoint", &off, &epoch); err != nil || n != 2 || len(base) != len("00000000000000000000-0000000000.checkpoint") {
		return &javaException{"java.util.NoSuchElementException", "No value present"}
	}
	fmt.Fprintf(d.out, "Snapshot end offset: %d, epoch: %d\n", off, epoch)
	return nil
}

func fileName(name string) string {
	if i := strings.LastIndex(name, "/"); i >= 0 {
		return name[i+1:]
	}
	return name
}

func (d *dumper) printBatch(b *segment.Batch, position int64) {
	w := d.out
	if b.Magic >= 2 {
		horizon := "OptionalLong.empty"
		if h, ok := b.DeleteHorizon(); ok {
			horizon = fmt.Sprintf("OptionalLong[%d]", h)
		}
		fmt.Fprintf(w, "baseOffset: %d lastOffset: %d count: %d baseSequence: %d lastSequence: %d producerId: %d producerEpoch: %d partitionLeaderEpoch: %d isTransactional: %t isControl: %t deleteHorizonMs: %s",
			b.BaseOffset(), b.LastOffset(), b.Count(), b.BaseSequence(), b.LastSequence(), b.ProducerID(), b.ProducerEpoch(),
			b.PartitionLeaderEpoch(), b.Transactional(), b.Control(), horizon)
	} else {
		fmt.Fprintf(w, "offset: %d", b.LastOffset())
	}
	fmt.Fprintf(w, " position: %d %s: %d size: %d magic: %d compresscodec: %s crc: %d isvalid: %t\n",
		position, b.TimestampType(), b.MaxTimestamp(), b.Size(), b.Magic, b.CompressionName(), b.Checksum(), b.Valid())
}

func (d *dumper) records(b *segment.Batch, name string, last *int64, parse parseFunc) error {
	if b.Magic < 2 {
		return fmt.Errorf("records of message format v%d are not supported by kbox yet", b.Magic)
	}
	err := b.Records(func(r *segment.Record) error {
		if r.Offset != *last+1 {
			d.gaps.add(absPath(name), *last, r.Offset)
		}
		*last = r.Offset
		if !d.skipMeta {
			d.printRecordMetadata(b, r)
		}
		if d.printData && !b.Control() {
			prefix := " "
			if d.skipMeta {
				prefix = "| "
			}
			k, hasKey, v, hasV, err := parse(r)
			if err != nil {
				return err
			}
			if hasKey {
				fmt.Fprintf(d.out, "%skey: %s", prefix, k)
				prefix = " "
			}
			if hasV {
				fmt.Fprintf(d.out, "%spayload: %s", prefix, v)
			}
		}
		d.out.WriteByte('\n')
		return nil
	})
	if ce, ok := err.(*segment.CorruptError); ok {
		return &javaException{"org.apache.kafka.common.errors.CorruptRecordException", ce.Msg}
	}
	return err
}

func (d *dumper) printRecordMetadata(b *segment.Batch, r *segment.Record) {
	fmt.Fprintf(d.out, "| offset: %d %s: %d keySize: %d valueSize: %d", r.Offset, b.TimestampType(), r.Timestamp, r.KeySize, r.ValueSize)
	keys := make([]string, len(r.Headers))
	for i, h := range r.Headers {
		keys[i] = h.Key
	}
	fmt.Fprintf(d.out, " sequence: %d headerKeys: [%s]", r.Sequence, strings.Join(keys, ","))
	if b.Control() {
		d.printControl(r)
	}
}

var controlTypes = map[int16]string{0: "ABORT", 1: "COMMIT", 2: "LEADER_CHANGE", 3: "SNAPSHOT_HEADER", 4: "SNAPSHOT_FOOTER", 5: "KRAFT_VERSION", 6: "KRAFT_VOTERS"}

func (d *dumper) printControl(r *segment.Record) {
	var id int16 = -1
	if len(r.Key) >= 4 {
		id = int16(binary.BigEndian.Uint16(r.Key[2:]))
	}
	name, ok := controlTypes[id]
	if !ok {
		name = "UNKNOWN"
	}
	if (id == 0 || id == 1) && len(r.Value) >= 6 {
		fmt.Fprintf(d.out, " endTxnMarker: %s coordinatorEpoch: %d", name, int32(binary.BigEndian.Uint32(r.Value[2:])))
		return
	}
	if label, j, ok, err := segment.DecodeControl(id, r.Value); ok && err == nil {
		fmt.Fprintf(d.out, " %s %s", label, j)
		return
	}
	fmt.Fprintf(d.out, " controlType: %s(%d)", name, id)
}
