// Package integrity finds what a consumer cannot read, or reads wrongly,
// in a partition's log: record batches whose bytes no longer match their
// CRC, records Java's parser refuses, and offsets that jump where the log
// has no reason to leave a gap. It reads the log's raw batches with its own
// Fetch request (franz-go reports a CRC mismatch as a bare error, without
// the batch's offset or the two CRCs), and knows Java's record format rules
// for the drop-ins that must print Java's exceptions.
package integrity

import (
	"encoding/binary"
	"hash/crc32"
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Batch attributes (record batch v2).
const (
	attrCompression   = 0x07
	attrTransactional = 0x10
	attrControl       = 0x20
)

// batchOverhead is the size of a v2 batch header (Java's
// DefaultRecordBatch.RECORD_BATCH_OVERHEAD).
const batchOverhead = 61

// Batch is one record batch as the broker stores it.
type Batch struct {
	// Base and Last are the batch's first and last offsets (for magic 0
	// and 1 message sets, the message's offset both).
	Base, Last int64
	Magic      int8
	Attrs      int16
	// NumRecords is the record count the header claims (magic 2).
	NumRecords int32
	// StoredCRC is the CRC in the header; ComputedCRC the CRC-32C of the
	// bytes it covers (equal for magic 0 and 1, which kbox does not check).
	StoredCRC, ComputedCRC uint32
	// Raw is the whole batch, header included.
	Raw []byte
}

// CRCOK says whether the batch's bytes match its stored CRC.
func (b *Batch) CRCOK() bool { return b.StoredCRC == b.ComputedCRC }

// Control says whether the batch holds a transaction marker.
func (b *Batch) Control() bool { return b.Magic >= 2 && b.Attrs&attrControl != 0 }

// Transactional says whether a transactional producer wrote the batch.
func (b *Batch) Transactional() bool { return b.Magic >= 2 && b.Attrs&attrTransactional != 0 }

// Compression is the batch's codec (0 none, 1 gzip, 2 snappy, 3 lz4, 4 zstd).
func (b *Batch) Compression() int { return int(b.Attrs & attrCompression) }

// Batches splits the record data of a fetched partition into its batches.
// A batch cut short at the end (the broker fills a fetch up to its size
// limit) is left out.
func Batches(raw []byte) []Batch {
	var out []Batch
	for len(raw) >= 17 {
		base := int64(binary.BigEndian.Uint64(raw))
		length := int64(int32(binary.BigEndian.Uint32(raw[8:])))
		total := 12 + length
		if length < 0 || int64(len(raw)) < total {
			break
		}
		b := Batch{Base: base, Last: base, Magic: int8(raw[16]), Raw: raw[:total]}
		if b.Magic >= 2 && total >= batchOverhead {
			b.StoredCRC = binary.BigEndian.Uint32(raw[17:])
			b.ComputedCRC = crc32.Checksum(raw[21:total], castagnoli)
			b.Attrs = int16(binary.BigEndian.Uint16(raw[21:]))
			b.Last = base + int64(int32(binary.BigEndian.Uint32(raw[23:])))
			b.NumRecords = int32(binary.BigEndian.Uint32(raw[57:]))
		}
		out = append(out, b)
		raw = raw[total:]
	}
	return out
}
