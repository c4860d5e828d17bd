package verify

import (
	"fmt"
	"strings"
	"testing"
)

// TestCheckerOnline: events arrive as in a live run, a consumer's record
// before its producer's ack; Snapshot reports counts so far and the
// rules that need every ack judge once the producers are done.
func TestCheckerOnline(t *testing.T) {
	c := NewChecker(Options{})
	p, cons := c.Producer("producer-0"), c.Consumer("consumer-0")
	cons.Add(Event{Timestamp: 1, Name: EvAssigned, Parts: []PartitionData{{Topic: "t", Partition: 0}}})
	// offsets 0-9 acked; the consumer reads 0-4, then "skips" 5-6 and
	// reads 7-9, offset 8 with a value nobody acked there, before the
	// producer's acks for 7-9 arrive.
	for i := 0; i < 7; i++ {
		p.Add(Event{Timestamp: 10, Name: EvSendSuccess, Value: sp(fmt.Sprint(i)), Topic: "t", Offset: int64(i)})
	}
	for i := 0; i < 5; i++ {
		cons.Add(Event{Timestamp: 11, Name: EvRecordData, Value: sp(fmt.Sprint(i)), Topic: "t", Offset: int64(i)})
	}
	cons.Add(Event{Timestamp: 11, Name: EvRecordsConsumed, Count: 5, Parts: []PartitionData{{Topic: "t", Count: 5, MinOffset: 0, MaxOffset: 4}}})
	sn := c.Snapshot()
	if sn.Acked != 7 || sn.Consumed != 5 || sn.UniqueConsumed != 5 || sn.Pending != 2 || len(sn.Anomalies) != 0 {
		t.Fatalf("snapshot %+v", sn)
	}
	for i := 7; i < 10; i++ {
		v := fmt.Sprint(i)
		if i == 8 {
			v = "eight"
		}
		cons.Add(Event{Timestamp: 12, Name: EvRecordData, Value: sp(v), Topic: "t", Offset: int64(i)})
	}
	cons.Add(Event{Timestamp: 12, Name: EvRecordsConsumed, Count: 3, Parts: []PartitionData{{Topic: "t", Count: 3, MinOffset: 7, MaxOffset: 9}}})
	for i := 7; i < 10; i++ {
		p.Add(Event{Timestamp: 13, Name: EvSendSuccess, Value: sp(fmt.Sprint(i)), Topic: "t", Offset: int64(i)})
	}
	sn = c.Snapshot()
	if sn.Anomalies[AnInconsistentOffset] != 1 || sn.FirstSeenMs[AnInconsistentOffset] != 12 || sn.Anomalies[AnPollSkip] != 0 {
		t.Fatalf("snapshot %+v", sn)
	}
	c.ProducersDone()
	if sn = c.Snapshot(); sn.Anomalies[AnPollSkip] != 1 || sn.FirstSeenMs[AnPollSkip] != 12 {
		t.Fatalf("after the producers: %+v", sn)
	}
	r := c.Finish()
	txt := dump(r)
	for _, want := range []string{
		`FAIL inconsistent-offsets: 1`, `t-0 offset 8: acked "8", consumer-0 consumed "eight"`,
		`FAIL poll-skip: 1`, `consumer-0 t-0: skipped acked offsets 5-6 (batch starts at 7)`,
		`FAIL lost: 3`, `value "5" acked at t-0 offset 5`,
	} {
		if !strings.Contains(txt, want) {
			t.Errorf("no %q in\n%s", want, txt)
		}
	}
	if c.Finish() != r {
		t.Error("Finish is not idempotent")
	}
}

// TestAddFault: a fault added at its end counts the acks already seen
// after it (from the short history) and the ones that follow.
func TestAddFault(t *testing.T) {
	c := NewChecker(Options{MinAcks: 1})
	p, cons := c.Producer("p"), c.Consumer("c")
	cons.Add(Event{Timestamp: 1, Name: EvAssigned, Parts: []PartitionData{{Topic: "t", Partition: 0}}})
	ack := func(ts int64, i int) {
		p.Add(Event{Timestamp: ts, Name: EvSendSuccess, Value: sp(fmt.Sprint(i)), Topic: "t", Offset: int64(i)})
	}
	for i := 0; i < 10; i++ {
		ack(int64(1000+i*100), i) // 1000 .. 1900
	}
	c.AddFault(FaultWindow{StartMs: 1000, EndMs: 1450}) // 1500..1900: 5 acks so far
	ack(2000, 10)
	ack(100_000, 11) // after the 30 s window
	c.AddFault(FaultWindow{StartMs: 50_000, EndMs: 60_000})
	cons.Add(Event{Timestamp: 100_001, Name: EvRecordsConsumed, Count: 12, Parts: []PartitionData{{Topic: "t", Count: 12, MinOffset: 0, MaxOffset: 11}}})
	r := c.Finish()
	if len(r.Faults) != 2 || r.Faults[0].AcksAfterFault != 6 || !r.Faults[0].Judged || r.Faults[1].AcksAfterFault != 0 || r.Faults[1].Judged {
		t.Fatalf("faults %+v\n%s", r.Faults, dump(r))
	}
	if r.Liveness == nil || *r.Liveness != r.Faults[0] || r.Count(AnLivenessUnjudged) != 1 || !r.Valid {
		t.Fatalf("liveness %+v\n%s", r.Liveness, dump(r))
	}
}

// BenchmarkChecker: the checker's cost per record of a run (an ack, a
// record_data, and a 500-record poll with its commit per 500 records).
func BenchmarkChecker(b *testing.B) {
	c := NewChecker(Options{})
	p, cons := c.Producer("p"), c.Consumer("c")
	cons.Add(Event{Name: EvAssigned, Parts: []PartitionData{{Topic: "t", Partition: 0}, {Topic: "t", Partition: 1}, {Topic: "t", Partition: 2}}})
	vals := make([]string, b.N)
	for i := range vals {
		vals[i] = "0." + fmt.Sprint(i)
	}
	b.ReportAllocs()
	b.ResetTimer()
	var off [3]int64
	for i := 0; i < b.N; i++ {
		part := int32(i / 200 % 3)
		o := off[part]
		off[part]++
		p.Add(Event{Timestamp: int64(i), Name: EvSendSuccess, Value: &vals[i], Topic: "t", Partition: part, Offset: o})
		cons.Add(Event{Timestamp: int64(i), Name: EvRecordData, Value: &vals[i], Topic: "t", Partition: part, Offset: o})
		if o%500 == 499 {
			cons.Add(Event{Timestamp: int64(i), Name: EvRecordsConsumed, Count: 500, Parts: []PartitionData{{Topic: "t", Partition: part, Count: 500, MinOffset: o - 499, MaxOffset: o}}})
			cons.Add(Event{Timestamp: int64(i), Name: EvOffsetsCommitted, Success: bp(true), Offsets: []CommitData{{"t", part, o + 1}}})
		}
	}
	if r := c.Finish(); r.Stats.Acked != b.N {
		b.Fatal(dump(r))
	}
}
