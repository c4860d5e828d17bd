// Package segment reads Kafka log segment files offline: the record
// batches of a .log file (streamed, one batch in memory at a time), their
// records (decompressed), and the .index and .timeindex files beside it.
// It is what kafka-dump-log (Apache's DumpLogSegments) prints from, and
// prints nothing itself.
package segment

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
)

// Sizes of the batch framing (Kafka's Records and DefaultRecordBatch).
const (
	logOverhead       = 12 // offset int64 + size int32
	headerUpToMagic   = 17 // logOverhead + partitionLeaderEpoch/crc int32 + magic int8
	minRecordOverhead = 14 // LegacyRecord.RECORD_OVERHEAD_V0
	batchOverhead     = 61 // DefaultRecordBatch.RECORD_BATCH_OVERHEAD
	crcOffset         = 17
	attributesOffset  = 21
)

// Attribute bits of a v2 batch.
const (
	attrCompression   = 0x07
	attrLogAppendTime = 0x08
	attrTransactional = 0x10
	attrControl       = 0x20
	attrDeleteHorizon = 0x40
)

// NoTimestamp is RecordBatch.NO_TIMESTAMP.
const NoTimestamp int64 = -1

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch is one record batch as stored in a segment: its header fields and
// its raw bytes (valid until the next batch is read).
type Batch struct {
	Position int64 // byte position in the file
	Raw      []byte
	Magic    int8
}

func (b *Batch) i64(at int) int64 { return int64(binary.BigEndian.Uint64(b.Raw[at:])) }
func (b *Batch) i32(at int) int32 { return int32(binary.BigEndian.Uint32(b.Raw[at:])) }
func (b *Batch) i16(at int) int16 { return int16(binary.BigEndian.Uint16(b.Raw[at:])) }

// has says whether the raw batch holds n bytes (a v2 batch shorter than
// its header reads as zeros, where Java would fail on the field).
func (b *Batch) has(n int) bool { return len(b.Raw) >= n }

// Size is sizeInBytes: the framing plus the batch length.
func (b *Batch) Size() int { return len(b.Raw) }

// BaseOffset is the batch's first offset (a legacy entry's offset).
func (b *Batch) BaseOffset() int64 {
	if b.Magic < 2 {
		return b.LastOffset() // legacy: the wrapper's offset is the last one
	}
	return b.i64(0)
}

// LastOffset is the offset of the batch's last record.
func (b *Batch) LastOffset() int64 {
	if b.Magic < 2 || !b.has(27) {
		return b.i64(0)
	}
	return b.i64(0) + int64(b.LastOffsetDelta())
}

func (b *Batch) field32(at int) int32 {
	if !b.has(at + 4) {
		return 0
	}
	return b.i32(at)
}

func (b *Batch) field64(at int) int64 {
	if !b.has(at + 8) {
		return 0
	}
	return b.i64(at)
}

// PartitionLeaderEpoch is the v2 batch's leader epoch.
func (b *Batch) PartitionLeaderEpoch() int32 { return b.field32(12) }

// Attributes are the v2 batch's attributes (a legacy entry's in the low byte).
func (b *Batch) Attributes() int16 {
	if b.Magic < 2 {
		if !b.has(18) {
			return 0
		}
		return int16(b.Raw[17])
	}
	if !b.has(23) {
		return 0
	}
	return b.i16(attributesOffset)
}

// LastOffsetDelta is the v2 field.
func (b *Batch) LastOffsetDelta() int32 { return b.field32(23) }

// BaseTimestamp is the v2 field.
func (b *Batch) BaseTimestamp() int64 { return b.field64(27) }

// MaxTimestamp is the batch's max timestamp (v2: the stored field; a legacy
// v1 entry: its timestamp; v0: NoTimestamp).
func (b *Batch) MaxTimestamp() int64 {
	switch b.Magic {
	case 0:
		return NoTimestamp
	case 1:
		return b.field64(18)
	}
	return b.field64(35)
}

// ProducerID is the v2 field.
func (b *Batch) ProducerID() int64 { return b.field64(43) }

// ProducerEpoch is the v2 field.
func (b *Batch) ProducerEpoch() int16 {
	if !b.has(53) {
		return 0
	}
	return b.i16(51)
}

// BaseSequence is the v2 field.
func (b *Batch) BaseSequence() int32 { return b.field32(53) }

// Count is the v2 record count.
func (b *Batch) Count() int32 { return b.field32(57) }

// LastSequence is DefaultRecordBatch.lastSequence: -1 without a base
// sequence, else the base plus the last offset delta, wrapping at MaxInt32.
func (b *Batch) LastSequence() int32 {
	base := b.BaseSequence()
	if base == -1 {
		return -1
	}
	return incrementSequence(base, b.LastOffsetDelta())
}

func incrementSequence(seq, inc int32) int32 {
	if int64(seq) > int64(0x7fffffff)-int64(inc) {
		return inc - (0x7fffffff - seq) - 1
	}
	return seq + inc
}

// Transactional says whether the batch is transactional.
func (b *Batch) Transactional() bool { return b.Magic >= 2 && b.Attributes()&attrTransactional != 0 }

// Control says whether the batch holds control records.
func (b *Batch) Control() bool { return b.Magic >= 2 && b.Attributes()&attrControl != 0 }

// DeleteHorizon is the batch's delete horizon (its base timestamp) when
// the batch has one.
func (b *Batch) DeleteHorizon() (int64, bool) {
	if b.Magic < 2 || b.Attributes()&attrDeleteHorizon == 0 {
		return 0, false
	}
	return b.BaseTimestamp(), true
}

// TimestampType is TimestampType's name: CreateTime, LogAppendTime or
// NoTimestampType (magic 0).
func (b *Batch) TimestampType() string {
	if b.Magic == 0 {
		return "NoTimestampType"
	}
	if b.Magic == 1 {
		if b.Attributes()&attrLogAppendTime != 0 {
			return "LogAppendTime"
		}
		return "CreateTime"
	}
	if b.Attributes()&attrLogAppendTime != 0 {
		return "LogAppendTime"
	}
	return "CreateTime"
}

// Codec is the compression codec number (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).
func (b *Batch) Codec() int { return int(b.Attributes() & attrCompression) }

// CompressionName is CompressionType.name.
func (b *Batch) CompressionName() string { return CodecName(b.Codec()) }

// CodecName names a compression codec as Kafka's CompressionType does.
func CodecName(c int) string {
	switch c {
	case 0:
		return "none"
	case 1:
		return "gzip"
	case 2:
		return "snappy"
	case 3:
		return "lz4"
	case 4:
		return "zstd"
	}
	return fmt.Sprintf("unknown(%d)", c)
}

// Checksum is the stored CRC (unsigned).
func (b *Batch) Checksum() uint32 {
	at := crcOffset
	if b.Magic < 2 {
		at = 12
	}
	if !b.has(at + 4) {
		return 0
	}
	return binary.BigEndian.Uint32(b.Raw[at:])
}

// ComputedChecksum is the CRC computed over the stored bytes (CRC-32C from
// the attributes for v2, CRC-32 from the magic byte for a legacy entry).
func (b *Batch) ComputedChecksum() uint32 {
	if b.Magic < 2 {
		return crc32.ChecksumIEEE(b.Raw[16:])
	}
	if !b.has(attributesOffset) {
		return 0
	}
	return crc32.Checksum(b.Raw[attributesOffset:], castagnoli)
}

// Valid is isValid: a v2 batch at least as long as its header whose CRC
// matches; a legacy entry whose CRC matches.
func (b *Batch) Valid() bool {
	if b.Magic >= 2 && len(b.Raw) < batchOverhead {
		return false
	}
	return b.Checksum() == b.ComputedChecksum()
}
