package replicas

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

// v2 batch layout: the CRC at [17,21) covers [21,end); the records start
// at 61.
const (
	crcStart     = 17
	crcEnd       = 21
	headerLength = 61
)

// Compare compares a replica's batch b with the reference replica's batch
// ref at the same place in their logs: nil when they are the same bytes
// and intact. Otherwise the divergence names the first offset whose record
// differs, and the replica at fault when a CRC tells it.
func Compare(refID int32, ref integrity.Batch, id int32, b integrity.Batch) *Divergence {
	if b.Base != ref.Base || b.Last != ref.Last {
		return &Divergence{Offset: min(b.Base, ref.Base), Replica: id, Reference: refID, Reason: "batches_differ",
			Detail: fmt.Sprintf("replica %d's batch holds offsets %d to %d, replica %d's %d to %d", id, b.Base, b.Last, refID, ref.Base, ref.Last)}
	}
	refOK, ok := ref.CRCOK(), b.CRCOK()
	if ok && refOK && bytes.Equal(ref.Raw, b.Raw) {
		return nil
	}
	if bytes.Equal(ref.Raw, b.Raw) { // the same corrupt bytes on both
		return nil // the caller reports the reference's own CRC
	}
	d := &Divergence{Offset: FirstDifference(ref, b), Replica: id, Reference: refID, Reason: "records_differ",
		Detail: fmt.Sprintf("both batches match their CRC (%08x and %08x)", ref.StoredCRC, b.StoredCRC)}
	switch {
	case !ok:
		d.Reason, d.Detail = "crc_mismatch", crcDetail(b)
	case !refOK:
		d.Replica, d.Reference = refID, id
		d.Reason, d.Detail = "crc_mismatch", crcDetail(ref)
	}
	return d
}

func crcDetail(b integrity.Batch) string {
	return fmt.Sprintf("the batch at offsets %d to %d stores CRC %08x, its bytes give %08x", b.Base, b.Last, b.StoredCRC, b.ComputedCRC)
}

// FirstDifference is the offset of the first record that differs between
// two batches covering the same offsets: the base offset when their
// headers (CRC aside) differ or their records cannot be split.
func FirstDifference(a, b integrity.Batch) int64 {
	if len(a.Raw) < headerLength || len(b.Raw) < headerLength ||
		!bytes.Equal(a.Raw[:crcStart], b.Raw[:crcStart]) || !bytes.Equal(a.Raw[crcEnd:headerLength], b.Raw[crcEnd:headerLength]) {
		return a.Base
	}
	ra, oka := records(a)
	rb, okb := records(b)
	for i := range min(len(ra), len(rb)) {
		if !bytes.Equal(ra[i].raw, rb[i].raw) {
			return a.Base + ra[i].delta
		}
	}
	if len(ra) != len(rb) || !oka || !okb {
		n := min(len(ra), len(rb))
		if n < len(ra) {
			return a.Base + ra[n].delta
		}
		if n < len(rb) {
			return a.Base + rb[n].delta
		}
	}
	return a.Base
}

type record struct {
	delta int64 // offset delta
	raw   []byte
}

// records splits a v2 batch's records (decompressed); ok is false when
// they could not all be split.
func records(b integrity.Batch) (recs []record, ok bool) {
	body := b.Raw[headerLength:]
	if c := b.Compression(); c != 0 {
		out, err := kgo.DefaultDecompressor().Decompress(body, kgo.CompressionCodecType(c))
		if err != nil {
			return nil, false
		}
		body = out
	}
	for len(body) > 0 {
		size, n := binary.Varint(body)
		if n <= 0 || size < 0 || int64(len(body)-n) < size {
			return recs, false
		}
		rec := body[n : n+int(size)]
		body = body[n+int(size):]
		// attributes (1 byte), timestamp delta (varlong), offset delta (varint)
		if len(rec) < 1 {
			return recs, false
		}
		_, m := binary.Varint(rec[1:])
		if m <= 0 {
			return recs, false
		}
		delta, k := binary.Varint(rec[1+m:])
		if k <= 0 {
			return recs, false
		}
		recs = append(recs, record{delta: delta, raw: rec})
	}
	return recs, true
}
