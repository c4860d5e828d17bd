package segment

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// ProducerEntry is one producer of a producer state snapshot (.snapshot).
type ProducerEntry struct {
	ProducerID            int64
	Epoch                 int16
	LastSequence          int32
	LastOffset            int64
	OffsetDelta           int32
	Timestamp             int64
	CoordinatorEpoch      int32
	CurrentTxnFirstOffset int64
}

// FirstSequence is the first sequence of the entry's last batch (the
// last one less the offset delta, wrapping past int32's maximum as the
// broker's sequences do).
func (e *ProducerEntry) FirstSequence() int32 {
	if e.LastSequence < e.OffsetDelta {
		return int32(int64(0x7fffffff) - int64(e.OffsetDelta-e.LastSequence) + 1)
	}
	return e.LastSequence - e.OffsetDelta
}

// CorruptSnapshotError is a producer snapshot that fails its version,
// schema or CRC check (Apache's CorruptSnapshotException, whose message
// this is).
type CorruptSnapshotError struct{ Msg string }

func (e *CorruptSnapshotError) Error() string { return e.Msg }

// ReadProducerSnapshot decodes a producer state snapshot: an int16
// version (1), a CRC-32C of the rest after it, and the ProducerSnapshot
// message.
func ReadProducerSnapshot(b []byte) ([]ProducerEntry, error) {
	if len(b) < 2 {
		return nil, &CorruptSnapshotError{"Snapshot failed schema validation: null"}
	}
	if v := int16(binary.BigEndian.Uint16(b)); v != 1 {
		return nil, &CorruptSnapshotError{fmt.Sprintf("Snapshot failed schema validation: Snapshot contained an unknown file version %d", v)}
	}
	r := &msgReader{b: b[2:]}
	stored, err := r.int(4)
	if err != nil {
		return nil, &CorruptSnapshotError{"Snapshot failed schema validation: null"}
	}
	stored = int64(uint32(stored))
	n, err := r.length(true)
	switch {
	case err != nil || n < 0 && n != -1:
		return nil, &CorruptSnapshotError{"Snapshot failed schema validation: null"}
	case n == -1:
		return nil, &CorruptSnapshotError{"Snapshot failed schema validation: non-nullable field producerEntries was serialized as null"}
	case n > len(r.b):
		return nil, &CorruptSnapshotError{fmt.Sprintf("Snapshot failed schema validation: Tried to allocate a collection of size %d, but there are only %d bytes remaining.", n, len(r.b))}
	case n*46 > len(r.b):
		return nil, &CorruptSnapshotError{"Snapshot failed schema validation: null"}
	}
	out := make([]ProducerEntry, n)
	for i := range out {
		e := &out[i]
		e.ProducerID, e.Epoch, e.LastSequence = r.i64(), int16(r.i(2)), int32(r.i(4))
		e.LastOffset, e.OffsetDelta, e.Timestamp = r.i64(), int32(r.i(4)), r.i64()
		e.CoordinatorEpoch, e.CurrentTxnFirstOffset = int32(r.i(4)), r.i64()
	}
	if computed := int64(crc32.Checksum(b[6:], crc32.MakeTable(crc32.Castagnoli))); computed != stored {
		return nil, &CorruptSnapshotError{fmt.Sprintf("Snapshot is corrupt (CRC is no longer valid). Stored crc: %d. Computed crc: %d", stored, computed)}
	}
	return out, nil
}

// i and i64 read integers whose room was checked before.
func (r *msgReader) i(size int) int64 { v, _ := r.int(size); return v }
func (r *msgReader) i64() int64       { return r.i(8) }

// AbortedTxn is an entry of a transaction index (.txnindex).
type AbortedTxn struct {
	Version                                               int16
	ProducerID, FirstOffset, LastOffset, LastStableOffset int64
}

// ReadTxnIndex decodes a transaction index's entries (34 bytes each; a
// partial entry at the end is ignored, as the broker does).
func ReadTxnIndex(b []byte) []AbortedTxn {
	var out []AbortedTxn
	for ; len(b) >= 34; b = b[34:] {
		out = append(out, AbortedTxn{
			Version:          int16(binary.BigEndian.Uint16(b)),
			ProducerID:       int64(binary.BigEndian.Uint64(b[2:])),
			FirstOffset:      int64(binary.BigEndian.Uint64(b[10:])),
			LastOffset:       int64(binary.BigEndian.Uint64(b[18:])),
			LastStableOffset: int64(binary.BigEndian.Uint64(b[26:])),
		})
	}
	return out
}
