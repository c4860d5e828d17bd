package integrity_test

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/corruptfake"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

func values(from, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf("value-%06d", from+i)
	}
	return out
}

var logOf = corruptfake.Log

// fetcher serves a log as a broker would: from the first batch whose last
// offset is at or past the offset asked for.
type fetcher struct {
	batches []integrity.Batch
	start   int64
}

func newFetcher(log []byte) *fetcher { return &fetcher{batches: integrity.Batches(log)} }

func (f *fetcher) ReadLog(_ context.Context, _ string, _ int32, offset int64) (*integrity.Log, error) {
	lg := &integrity.Log{HighWatermark: f.batches[len(f.batches)-1].Last + 1, LogStartOffset: f.start}
	for _, b := range f.batches {
		if b.Last >= offset && len(lg.Batches) < 2 {
			lg.Batches = append(lg.Batches, b)
		}
	}
	return lg, nil
}

func TestFindCRCMismatch(t *testing.T) {
	log := logOf(4, 10, func(i int, b []byte) []byte {
		if i == 2 {
			return corruptfake.FlipLastByte(b)
		}
		return b
	})
	bs := integrity.Batches(log)
	if len(bs) != 4 || bs[2].CRCOK() || !bs[1].CRCOK() || bs[2].Base != 20 || bs[2].Last != 29 {
		t.Fatalf("batches: %+v", bs)
	}
	stored := binary.BigEndian.Uint32(bs[2].Raw[17:])
	computed := crc32.Checksum(bs[2].Raw[21:], crc32.MakeTable(crc32.Castagnoli))
	for _, pos := range []int64{0, 20, 25} {
		c, err := integrity.Find(context.Background(), newFetcher(log), "cr", 0, pos)
		if err != nil || c == nil {
			t.Fatalf("position %d: %v %v", pos, c, err)
		}
		if c.Offset != 20 || c.Last != 29 || c.StoredCRC != stored || c.ComputedCRC != computed || !c.CRCMismatch() {
			t.Errorf("position %d: %+v", pos, c)
		}
		want := fmt.Sprintf("partition cr-0: record batch at offset 20 (offsets 20-29) is corrupt: stored crc = %d, computed crc = %d", stored, computed)
		if c.Error() != want {
			t.Errorf("got  %s\nwant %s", c.Error(), want)
		}
		apache := fmt.Sprintf("org.apache.kafka.common.KafkaException: Record batch for partition cr-0 at offset 20 is invalid, cause: Record is corrupt (stored crc = %d, computed crc = %d)", stored, computed)
		if got := c.ApacheCause(true); got != apache {
			t.Errorf("got  %s\nwant %s", got, apache)
		}
		// Without a CRC check Java reads the records (one value changed).
		if c.Java != nil || int64(len(c.Records)) != 30-max(pos, 20) {
			t.Errorf("position %d: java %v, %d records", pos, c.Java, len(c.Records))
		}
	}
	if c, err := integrity.Find(context.Background(), newFetcher(log), "cr", 0, 30); c != nil || err != nil {
		t.Errorf("past the batch: %v %v", c, err)
	}
}

// TestJavaRecords: the messages of Java's record parser (Kafka 4.4's
// DefaultRecord.readFrom) for a batch whose bytes were changed under a
// matching CRC (as when check.crcs=false lets Java parse them).
func TestJavaRecords(t *testing.T) {
	recAt := func(b []byte, n int) int { // offset in b of record n's length varint
		pos := 61
		for i := 0; i < n; i++ {
			l, used := binary.Varint(b[pos:])
			pos += used + int(l)
		}
		return pos
	}
	cases := []struct {
		name string
		edit func(b []byte)
		want string
		read int
	}{
		{"size", func(b []byte) { b[recAt(b, 3)] += 4 }, "Invalid record size: expected to read 22 bytes in record payload, but instead read 20", 3},
		{"size-beyond", func(b []byte) { b[recAt(b, 9)] = 0x7e }, "Invalid record size: expected 63 bytes in record payload, but instead the buffer has only 20 remaining bytes.", 9},
		{"headers", func(b []byte) { b[len(b)-1] = 0x01 }, "Found invalid number of record headers -1", 9},
		{"count", func(b []byte) { binary.BigEndian.PutUint32(b[57:], 11) }, "Incorrect declared batch size, premature EOF reached", 10},
		{"count-short", func(b []byte) { binary.BigEndian.PutUint32(b[57:], 9) }, "Incorrect declared batch size, records still remaining in file", 8},
		{"count-negative", func(b []byte) { binary.BigEndian.PutUint32(b[57:], 0xffffffff) }, "Found invalid record count -1 in magic v2 batch", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			b := corruptfake.Batch(100, values(0, 10)...)
			tc.edit(b)
			bs := integrity.Batches(b)
			recs, exc := bs[0].JavaRecords()
			if exc == nil || exc.Class != "org.apache.kafka.common.InvalidRecordException" || exc.Message != tc.want {
				t.Fatalf("got %v, want %q", exc, tc.want)
			}
			if len(recs) != tc.read || (tc.read > 0 && (recs[0].Offset != 100 || recs[0].KeySize != 2 || recs[0].ValueSize != 12)) {
				t.Errorf("records read: %+v", recs)
			}
		})
	}
	recs, exc := integrity.Batches(corruptfake.Batch(7, values(0, 3)...))[0].JavaRecords()
	if exc != nil || len(recs) != 3 || recs[2].Offset != 9 {
		t.Errorf("intact: %v %+v", exc, recs)
	}
}

func TestExplainGap(t *testing.T) {
	ctx := context.Background()
	// 0-9, a commit marker at 10, 11-20, 21-30.
	var txn []byte
	txn = append(txn, corruptfake.Batch(0, values(0, 10)...)...)
	txn = append(txn, corruptfake.Marker(10)...)
	txn = append(txn, corruptfake.Batch(11, values(11, 10)...)...)
	txn = append(txn, corruptfake.Batch(21, values(21, 10)...)...)
	if g, err := integrity.ExplainGap(ctx, newFetcher(txn), "t", 0, 9, 11, false); g != nil || err != nil {
		t.Errorf("marker: %v %v", g, err)
	}
	if g, _ := integrity.ExplainGap(ctx, newFetcher(txn), "t", 0, 9, 12, false); g == nil || !strings.Contains(g.Error(), "offsets jump from 9 to 12 (2 skipped): the log holds records at offsets 11-11 that were not read") {
		t.Errorf("record skipped: %v", g)
	}
	// Reading committed data, a transactional batch may be aborted.
	aborted := append([]byte{}, txn...)
	bs := integrity.Batches(aborted)
	binary.BigEndian.PutUint16(bs[2].Raw[21:], 0x10)
	corruptfake.Seal(bs[2].Raw)
	if g, _ := integrity.ExplainGap(ctx, newFetcher(aborted), "t", 0, 9, 21, true); g != nil {
		t.Errorf("aborted: %v", g)
	}
	if g, _ := integrity.ExplainGap(ctx, newFetcher(aborted), "t", 0, 9, 21, false); g == nil {
		t.Error("aborted batch read uncommitted: no gap")
	}
	// A batch's base offset corrupted forward (20 -> 28): offsets 20-27
	// are in no batch; backward (20 -> 16): the batch after it leaves 26-29
	// uncovered, and the corrupt one overlaps the one before.
	fwd := logOf(3, 10, func(i int, b []byte) []byte {
		if i == 2 {
			return corruptfake.SetBase(b, 28)
		}
		return b
	})
	g, err := integrity.ExplainGap(ctx, newFetcher(fwd), "cb", 0, 19, 28, false)
	if err != nil || g == nil || g.Error() != "partition cb-0: offsets jump from 19 to 28 (8 skipped): no batch in the log holds offsets 20-27 (the batch after offset 19 starts at 28: a corrupt base offset?)" {
		t.Errorf("forward: %v %v", g, err)
	}
	back := logOf(4, 10, func(i int, b []byte) []byte {
		if i == 2 {
			return corruptfake.SetBase(b, 16)
		}
		return b
	})
	if g, _ := integrity.ExplainGap(ctx, newFetcher(back), "cb", 0, 25, 30, false); g == nil || !strings.Contains(g.Reason, "no batch in the log holds offsets 26-29") {
		t.Errorf("backward: %v", g)
	}
	if g, _ := integrity.ExplainGap(ctx, newFetcher(back), "cb", 0, 15, 16, false); g != nil {
		t.Errorf("no jump: %v", g)
	}
	if g, _ := integrity.ExplainGap(ctx, newFetcher(back), "cb", 0, 19, 20, false); g != nil {
		t.Errorf("no jump: %v", g)
	}
	f := newFetcher(back)
	f.batches = f.batches[1:]
	f.start = 10
	if g, _ := integrity.ExplainGap(ctx, f, "cb", 0, 5, 10, false); g != nil {
		t.Errorf("below the log start: %v", g)
	}
}

// TestStuckKfake: a franz-go consumer reading a log with a corrupt batch
// gets the records before it, then an Unreadable error alone; Find, through
// the client's own Fetch, names the batch.
func TestStuckKfake(t *testing.T) {
	c, err := corruptfake.Cluster("cr", logOf(5, 20, func(i int, b []byte) []byte {
		if i == 3 {
			return corruptfake.FlipLastByte(b)
		}
		return b
	}))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{"cr": {0: kgo.NewOffset().At(0)}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	pos := integrity.Positions{}
	var stuck []kgo.FetchError
	for len(stuck) == 0 && ctx.Err() == nil {
		fs := cl.PollRecords(ctx, 7)
		fs.EachRecord(pos.See)
		stuck = integrity.Stuck(fs)
	}
	next, _ := pos.Next("cr", 0)
	if len(stuck) != 1 || next != 60 {
		t.Fatalf("stuck %v at %d", stuck, next)
	}
	corr, err := integrity.Find(ctx, integrity.Reader(cl), "cr", 0, next)
	if err != nil || corr == nil || corr.Offset != 60 || corr.Last != 79 || !corr.CRCMismatch() {
		t.Fatalf("find: %v %v", corr, err)
	}
}

// TestWatcherCheck: a partition stuck where the log reads cleanly is
// returned once per position (the log is not read again until the
// position moves); a corrupt batch is named from the position the
// records set, else the seeded start.
func TestWatcherCheck(t *testing.T) {
	stuckAt := func(topic string) kgo.Fetches {
		return kgo.Fetches{{Topics: []kgo.FetchTopic{{Topic: topic, Partitions: []kgo.FetchPartition{{Partition: 0, Err: errors.New("unknown magic 9")}}}}}}
	}
	clean := newFetcher(logOf(3, 10, nil))
	reads := 0
	w := &integrity.Watcher{Log: countReads{clean, &reads}}
	w.Seed("t", 0, 5)
	for i := 0; i < 3; i++ {
		corrupt, unconfirmed := w.Check(context.Background(), stuckAt("t"))
		if len(corrupt) != 0 || len(unconfirmed) != map[bool]int{true: 1, false: 0}[i == 0] {
			t.Fatalf("check %d: %v %v", i, corrupt, unconfirmed)
		}
	}
	if reads == 0 || reads > 2 {
		t.Errorf("the log was read %d times", reads)
	}
	w.See(&kgo.Record{Topic: "t", Partition: 0, Offset: 12})
	if _, unconfirmed := w.Check(context.Background(), stuckAt("t")); len(unconfirmed) != 1 {
		t.Errorf("moved position: %v", unconfirmed)
	}
	bad := newFetcher(logOf(3, 10, func(i int, b []byte) []byte {
		if i == 1 {
			return corruptfake.FlipLastByte(b)
		}
		return b
	}))
	w = &integrity.Watcher{Log: bad}
	w.Seed("t", 0, 15)
	corrupt, _ := w.Check(context.Background(), stuckAt("t"))
	if len(corrupt) != 1 || corrupt[0].Offset != 10 || corrupt[0].Position != 15 {
		t.Fatalf("seeded: %+v", corrupt)
	}
	// Records of the partition in the same poll: not stuck yet.
	fs := stuckAt("t")
	fs[0].Topics[0].Partitions[0].Records = []*kgo.Record{{Topic: "t", Offset: 9}}
	if corrupt, unconfirmed := (&integrity.Watcher{Log: bad}).Check(context.Background(), fs); len(corrupt)+len(unconfirmed) != 0 {
		t.Errorf("with records: %v %v", corrupt, unconfirmed)
	}
}

type countReads struct {
	integrity.Fetcher
	n *int
}

func (c countReads) ReadLog(ctx context.Context, topic string, partition int32, offset int64) (*integrity.Log, error) {
	*c.n++
	return c.Fetcher.ReadLog(ctx, topic, partition, offset)
}
