package replicas

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/integrity"
)

// batch encodes a v2 batch of uncompressed records with values at base.
func batch(base int64, values ...string) []byte {
	var recs []byte
	for i, v := range values {
		var body []byte
		body = append(body, 0)                          // attributes
		body = binary.AppendVarint(body, 0)             // timestamp delta
		body = binary.AppendVarint(body, int64(i))      // offset delta
		body = binary.AppendVarint(body, -1)            // null key
		body = binary.AppendVarint(body, int64(len(v))) // value
		body = append(body, v...)
		body = binary.AppendVarint(body, 0) // no headers
		recs = binary.AppendVarint(recs, int64(len(body)))
		recs = append(recs, body...)
	}
	b := make([]byte, 61, 61+len(recs))
	binary.BigEndian.PutUint64(b, uint64(base))
	binary.BigEndian.PutUint32(b[8:], uint32(49+len(recs)))
	b[16] = 2
	binary.BigEndian.PutUint32(b[23:], uint32(len(values)-1))
	binary.BigEndian.PutUint64(b[43:], ^uint64(0)) // producer id -1
	binary.BigEndian.PutUint32(b[57:], uint32(len(values)))
	b = append(b, recs...)
	fixCRC(b)
	return b
}

func fixCRC(b []byte) {
	binary.BigEndian.PutUint32(b[17:], crc32.Checksum(b[21:], crc32.MakeTable(crc32.Castagnoli)))
}

func one(raw []byte) integrity.Batch { return integrity.Batches(raw)[0] }

// flip changes the last byte of record i's value.
func flip(raw []byte, i int) []byte {
	b := append([]byte(nil), raw...)
	pos := 61
	for k := 0; ; k++ {
		size, n := binary.Varint(b[pos:])
		if k == i {
			b[pos+n+int(size)-2] ^= 1
			return b
		}
		pos += n + int(size)
	}
}

func TestCompare(t *testing.T) {
	ref := batch(10, "a", "b", "c", "d")
	fixed := flip(ref, 2)
	fixCRC(fixed)
	cases := []struct {
		name       string
		ref, other []byte
		want       string // "" for none: offset/replica/reason
	}{
		{"same", ref, ref, ""},
		{"a follower's byte flipped", ref, flip(ref, 2), "12/2/crc_mismatch"},
		{"a follower's byte flipped, CRC fixed up", ref, fixed, "12/2/records_differ"},
		{"the leader's byte flipped", flip(ref, 1), ref, "11/1/crc_mismatch"},
		{"other offsets", ref, batch(10, "a", "b"), "10/2/batches_differ"},
	}
	for _, c := range cases {
		d := Compare(1, one(c.ref), 2, one(c.other))
		got := ""
		if d != nil {
			got = fmt.Sprintf("%d/%d/%s", d.Offset, d.Replica, d.Reason)
		}
		if got != c.want {
			t.Errorf("%s: %s, want %s (%+v)", c.name, got, c.want, d)
		}
	}
}

// fakeWatch is a Watch over one partition t-0 on replicas 1 and 2 whose
// fetches return the given records and high watermarks.
func fakeWatch(data map[int32][]byte, hw int64) *Watch {
	l := &Layout{Brokers: []int32{1, 2}, Partitions: []Partition{{TP: TP{"t", 0}, Leader: 1, Replicas: []int32{1, 2}, ISR: []int32{1, 2}}}}
	w := NewWatch(nil, l, map[TP]int64{{"t", 0}: 0}, FetchOptions{}, 0)
	w.fetch = func(_ context.Context, b int32, parts []Partition, _ map[TP]int64) (map[TP]Fetched, error) {
		return map[TP]Fetched{parts[0].TP: {HighWatermark: hw, Records: data[b]}}, nil
	}
	clock := time.Date(2026, 12, 2, 14, 5, 0, 0, time.Local)
	w.now = func() time.Time { clock = clock.Add(time.Millisecond); return clock }
	w.last = clock
	return w
}

func TestWatchRound(t *testing.T) {
	a := append(batch(0, "a", "b"), batch(2, "c")...)
	// Apache's tool compares the stored checksums: a flipped byte whose
	// CRC was not fixed goes unnoticed.
	w := fakeWatch(map[int32][]byte{1: a, 2: flip(a, 1)}, 3)
	lines, stop := w.Round(context.Background())
	if stop || len(lines) != 1 || !strings.HasSuffix(lines[0], ": max lag is 0 for partition t-0 at offset 3 among 1 partitions") {
		t.Errorf("unnoticed flip: %v %q", stop, lines)
	}
	// A fixed-up CRC is an unmatched checksum, reported at the batch's
	// last offset; the round goes on.
	b := append([]byte(nil), a...)
	copy(b, flip(a, 1))
	fixCRC(b[:len(batch(0, "a", "b"))])
	w = fakeWatch(map[int32][]byte{1: a, 2: b}, 3)
	lines, stop = w.Round(context.Background())
	if stop || len(lines) != 2 || !strings.Contains(lines[0], ": partition t-0 has unmatched checksum at offset 1; replica 1's checksum ") {
		t.Errorf("unmatched checksum: %v %q", stop, lines)
	}
	// Other offsets end the tool.
	w = fakeWatch(map[int32][]byte{1: a, 2: batch(0, "a", "b", "c")}, 3)
	lines, stop = w.Round(context.Background())
	if !stop || len(lines) != 1 || !strings.HasSuffix(lines[0], ": partition t-0: replica 1's offset 1 doesn't match replica 2's offset 2") {
		t.Errorf("offsets: %v %q", stop, lines)
	}
	// Below the high watermark only: nothing verified, lag 3 - 0.
	w = fakeWatch(map[int32][]byte{1: a, 2: a}, 1)
	lines, _ = w.Round(context.Background())
	if len(lines) != 1 || !strings.HasSuffix(lines[0], ": max lag is 1 for partition t-0 at offset 0 among 1 partitions") {
		t.Errorf("high watermark: %q", lines)
	}
}

// The report of the first partition Java's HashMap iterates when no lag
// differs: TopicPartition's hash order, not the metadata's.
func TestTPHashOrder(t *testing.T) {
	got := TPHashOrder([]TP{{"rv", 0}, {"rv", 1}, {"rv", 2}})
	if got[0] != (TP{"rv", 2}) {
		t.Errorf("%v: rv-2 first, as Apache's tool reports on the test bed", got)
	}
}

func TestReportJSON(t *testing.T) {
	r := &Report{Partitions: []PartitionResult{
		{Topic: "orders", Partition: 0, Leader: 1, Compared: []int32{1, 2, 3}, OutOfSync: []int32{}, HighWatermark: 235, VerifiedOffset: 0, Lag: 235,
			Status: StatusDiverged, Divergence: &Divergence{Offset: 2, Replica: 2, Reference: 1, Reason: "crc_mismatch", Detail: "the batch at offsets 0 to 234 stores CRC 013eda08, its bytes give 28d95b1a"}},
		{Topic: "orders", Partition: 1, Leader: 2, Compared: []int32{2, 1}, OutOfSync: []int32{3}, HighWatermark: 459, VerifiedOffset: 459, Status: StatusOK},
		{Topic: "orders", Partition: 2, Leader: 3, Compared: []int32{3, 1, 2}, OutOfSync: []int32{}, HighWatermark: 306, VerifiedOffset: 100, Lag: 206,
			Status: StatusIncomplete, Error: "stopped before the high watermark"},
	}, Diverged: 1, Incomplete: 1}
	golden.JSON(t, "report.json.golden", r)
}
