package verify

import (
	"runtime"
	"strconv"
	"testing"
)

// TestCheckerHeapIsFlat: the checker's own state after 1,000,000 records
// (ack, record_data, polls) is a few MiB and grows far slower than the
// records: from 200,000 to 1,000,000 records by less than 16 bytes per
// record (the batch checker kept ~1.35 KiB per record; measured here:
// about 1 byte). The bound leaves room for what other goroutines of the
// test binary allocate between the two readings. The 2,000,000
// record bounds of the binaries are in test/integration/verifymem.
func TestCheckerHeapIsFlat(t *testing.T) {
	heap := func(n int) uint64 {
		runtime.GC()
		var before runtime.MemStats
		runtime.ReadMemStats(&before)
		c := NewChecker(Options{})
		p, cons := c.Producer("p"), c.Consumer("c")
		cons.Add(Event{Name: EvAssigned, Parts: []PartitionData{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "t", Partition: 2}}})
		var off [3]int64
		for i := 0; i < n; i++ {
			v := "0." + strconv.Itoa(i)
			part := int32(i / 1000 % 3)
			o := off[part]
			off[part]++
			p.Add(Event{Timestamp: int64(i), Name: EvSendSuccess, Value: &v, Topic: "t", Partition: part, Offset: o})
			cons.Add(Event{Timestamp: int64(i), Name: EvRecordData, Value: &v, Topic: "t", Partition: part, Offset: o})
			if o%500 == 499 {
				cons.Add(Event{Timestamp: int64(i), Name: EvRecordsConsumed, Count: 500, Parts: []PartitionData{{Topic: "t", Partition: part, Count: 500, MinOffset: o - 499, MaxOffset: o}}})
				cons.Add(Event{Timestamp: int64(i), Name: EvOffsetsCommitted, Success: bp(true), Offsets: []CommitData{{"t", part, o + 1}}})
			}
		}
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		if sn := c.Snapshot(); sn.Acked != int64(n) || sn.Pending != 0 {
			t.Fatalf("snapshot %+v", sn)
		}
		runtime.KeepAlive(c)
		return after.HeapInuse - min(after.HeapInuse, before.HeapInuse)
	}
	small, big := heap(200_000), heap(1_000_000)
	t.Logf("checker heap: %d KiB at 200,000 records, %d KiB at 1,000,000", small>>10, big>>10)
	if big > 8<<20 {
		t.Errorf("checker heap %d KiB after 1,000,000 records, want < 8 MiB", big>>10)
	}
	if big > small && (big-small)/800_000 >= 16 {
		t.Errorf("checker heap grows %d bytes per record", (big-small)/800_000)
	}
}
