package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/klauspost/compress/s2"
	"github.com/klauspost/compress/zstd"
)

// rec builds one v2 record body (attributes, deltas, key, value, headers).
func rec(offDelta int64, key, value []byte, headers ...string) []byte {
	var b []byte
	b = append(b, 0)
	b = binary.AppendVarint(b, offDelta*10) // timestamp delta
	b = binary.AppendVarint(b, offDelta)
	for _, x := range [][]byte{key, value} {
		if x == nil {
			b = binary.AppendVarint(b, -1)
		} else {
			b = binary.AppendVarint(b, int64(len(x)))
			b = append(b, x...)
		}
	}
	b = binary.AppendVarint(b, int64(len(headers)))
	for _, h := range headers {
		b = binary.AppendVarint(b, int64(len(h)))
		b = append(b, h...)
		b = binary.AppendVarint(b, -1)
	}
	return append(binary.AppendVarint(nil, int64(len(b))), b...)
}

// batch builds a v2 batch of records with the given attributes.
func batch(base int64, attrs int16, baseSeq int32, records ...[]byte) []byte {
	body := bytes.Join(records, nil)
	switch attrs & attrCompression {
	case 2:
		body = append(append(append([]byte{}, xerial...), 0, 0, 0, 1, 0, 0, 0, 1), appendBlock(s2.EncodeSnappy(nil, body))...)
	case 4:
		enc, _ := zstd.NewWriter(nil)
		body = enc.EncodeAll(body, nil)
	}
	b := make([]byte, batchOverhead, batchOverhead+len(body))
	binary.BigEndian.PutUint64(b[0:], uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(batchOverhead+len(body)-logOverhead))
	b[16] = 2
	binary.BigEndian.PutUint16(b[21:], uint16(attrs))
	binary.BigEndian.PutUint32(b[23:], uint32(len(records)-1))
	binary.BigEndian.PutUint64(b[27:], 1000)
	binary.BigEndian.PutUint64(b[35:], 1000+uint64(len(records)-1)*10)
	binary.BigEndian.PutUint64(b[43:], 7)
	binary.BigEndian.PutUint32(b[53:], uint32(baseSeq))
	binary.BigEndian.PutUint32(b[57:], uint32(len(records)))
	b = append(b, body...)
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], castagnoli))
	return b
}

func appendBlock(blk []byte) []byte {
	return append(binary.BigEndian.AppendUint32(nil, uint32(len(blk))), blk...)
}

func scanAll(t *testing.T, data []byte) ([]Batch, []Record, error) {
	t.Helper()
	sc := NewScanner(bytes.NewReader(data), "f.log", 0, int64(len(data)))
	var bs []Batch
	var rs []Record
	for sc.Next() {
		b := *sc.Batch()
		b.Raw = append([]byte(nil), b.Raw...)
		bs = append(bs, b)
		if err := b.Records(func(r *Record) error { rs = append(rs, *r); return nil }); err != nil {
			return bs, rs, err
		}
	}
	return bs, rs, sc.Err()
}

func TestBatchesAndRecords(t *testing.T) {
	data := batch(0, 0, 0, rec(0, []byte("k"), []byte("v"), "h1", "h2"), rec(1, nil, []byte("w")))
	data = append(data, batch(2, 2|attrTransactional, 0x7fffffff, rec(0, nil, []byte("snappy")), rec(1, nil, nil))...)
	data = append(data, batch(4, 4, -1, rec(0, []byte("z"), []byte("zstd")))...)
	bs, rs, err := scanAll(t, data)
	if err != nil || len(bs) != 3 || len(rs) != 5 {
		t.Fatalf("batches %d records %d err %v", len(bs), len(rs), err)
	}
	for _, b := range bs {
		if !b.Valid() {
			t.Errorf("batch %d: crc %d, computed %d", b.BaseOffset(), b.Checksum(), b.ComputedChecksum())
		}
	}
	if got := bs[1].LastSequence(); got != 0 {
		t.Errorf("lastSequence wraps at MaxInt32 to 0, got %d", got)
	}
	if bs[1].CompressionName() != "snappy" || !bs[1].Transactional() || bs[2].LastSequence() != -1 {
		t.Errorf("batch 1 %s %t, batch 2 lastSequence %d", bs[1].CompressionName(), bs[1].Transactional(), bs[2].LastSequence())
	}
	r := rs[0]
	if string(r.Key) != "k" || string(r.Value) != "v" || len(r.Headers) != 2 || r.Headers[1].Key != "h2" || r.Timestamp != 1000 {
		t.Errorf("record 0: %+v", r)
	}
	if rs[1].KeySize != -1 || rs[1].Offset != 1 || rs[1].Timestamp != 1010 || rs[1].Sequence != 1 {
		t.Errorf("record 1: %+v", rs[1])
	}
	if string(rs[2].Value) != "snappy" || rs[3].ValueSize != -1 || rs[3].Sequence != 0 || string(rs[4].Value) != "zstd" {
		t.Errorf("compressed records: %+v", rs[2:])
	}
}

func TestTrailingAndCorrupt(t *testing.T) {
	one := batch(0, 0, 0, rec(0, nil, []byte("v")))
	// a partial batch at the end: the scan stops cleanly before it
	bs, _, err := scanAll(t, append(append([]byte{}, one...), one[:30]...))
	if err != nil || len(bs) != 1 {
		t.Fatalf("partial: %d batches, %v", len(bs), err)
	}
	// a size below any record's overhead is corrupt
	bad := append(append([]byte{}, one...), make([]byte, 20)...)
	_, _, err = scanAll(t, bad)
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Msg != "Found record size 0 smaller than minimum record overhead (14) in file f.log." {
		t.Fatalf("corrupt: %v", err)
	}
	// a flipped byte: the batch is read, its CRC no longer matches
	flip := append([]byte{}, one...)
	flip[len(flip)-2] ^= 0xff
	b, _ := FirstBatch(bytes.NewReader(flip), "f.log", 0, int64(len(flip)))
	if b == nil || b.Valid() {
		t.Fatalf("flipped byte still valid")
	}
}

func TestIndexes(t *testing.T) {
	var ix []byte
	for _, e := range [][2]uint32{{3, 0}, {7, 100}, {9, 200}, {0, 0}, {0, 0}} {
		ix = binary.BigEndian.AppendUint32(ix, e[0])
		ix = binary.BigEndian.AppendUint32(ix, e[1])
	}
	x := OffsetIndex(bytes.NewReader(ix), "/d/00000000000000000010.index", int64(len(ix)), 10)
	if x.Entries() != 5 {
		t.Fatalf("entries %d", x.Entries())
	}
	if off, pos, _ := x.Lookup(18); off != 17 || pos != 100 {
		t.Errorf("lookup 18: %d %d", off, pos)
	}
	if off, pos, _ := x.Lookup(5); off != 10 || pos != 0 {
		t.Errorf("lookup below the first entry: %d %d", off, pos)
	}
	if err := x.SanityCheck(); err != nil {
		t.Errorf("sanity: %v", err)
	}
	short := OffsetIndex(bytes.NewReader(ix[:12]), "/d/x.index", 12, 10)
	if err := short.SanityCheck(); err == nil || err.Error() != "Index file /d/x.index is corrupt, found 12 bytes which is neither positive nor a multiple of 8" {
		t.Errorf("sanity of 12 bytes: %v", err)
	}
	var tix []byte
	tix = binary.BigEndian.AppendUint64(tix, 500)
	tix = binary.BigEndian.AppendUint32(tix, 3)
	tix = append(tix, make([]byte, 12)...)
	ti := TimeIndex(bytes.NewReader(tix), "/d/t.timeindex", int64(len(tix)), 10)
	if off, ts, _ := ti.Entry(0); off != 13 || ts != 500 {
		t.Errorf("time entry: %d %d", off, ts)
	}
	if err := ti.SanityCheck(); err == nil || err.Error() != "Corrupt time index found, time index file (/d/t.timeindex) has non-zero size but the last timestamp is 0 which is less than the first timestamp 500" {
		t.Errorf("time sanity: %v", err)
	}
}

func TestDecoders(t *testing.T) {
	key := []byte{0, 2, 0, 2, 'g', '1'}
	c, err := DecodeOffsets(key, nil)
	if err != nil || c.Key != `{"type":"2","data":{"group":"g1"}}` || c.Value != "" {
		t.Fatalf("group key: %+v %v", c, err)
	}
	if _, err := DecodeOffsets([]byte{0, 9, 0, 0}, nil); !errors.As(err, new(*UnknownTypeError)) {
		t.Errorf("unknown type: %v", err)
	}
	// TopicRecord v0: frame 1, api key 2, version 0, name "t", a topic id, no tags
	v := append([]byte{1, 2, 0, 2, 't'}, make([]byte, 16)...)
	v = append(v, 0)
	j, err := DecodeMetadata(v)
	if err != nil || j != `{"type":"TOPIC_RECORD","version":0,"data":{"name":"t","topicId":"AAAAAAAAAAAAAAAAAAAAAA"}}` {
		t.Errorf("topic record: %s %v", j, err)
	}
	if JSONString("a\"\\\n\x01é") != `"a\"\\\n\u0001é"` {
		t.Errorf("json string: %s", JSONString("a\"\\\n\x01é"))
	}
}
