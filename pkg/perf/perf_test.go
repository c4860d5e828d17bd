package perf

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

func TestPacerDue(t *testing.T) {
	s := time.Unix(100, 0)
	p := NewPacer(s, 10000)
	if got := p.Due(10000).Sub(s); got != time.Second {
		t.Fatalf("due %v", got)
	}
	if NewPacer(s, -1).Throttled() {
		t.Fatal("unthrottled")
	}
}

func TestHistogramMergeExact(t *testing.T) {
	a, b, all := NewLatency(), NewLatency(), NewLatency()
	for i := 1; i <= 10000; i++ {
		d := time.Duration(i) * time.Microsecond * 7
		if i%3 == 0 {
			a.Record(d)
		} else {
			b.Record(d)
		}
		all.Record(d)
	}
	ea, _ := a.Encode()
	eb, _ := b.Encode()
	ra := &Result{FormatVersion: FormatVersion, Kind: "produce", Records: a.Count(), Histogram: ea, MeasureStart: time.Unix(0, 0), MeasureEnd: time.Unix(10, 0)}
	rb := &Result{FormatVersion: FormatVersion, Kind: "produce", Records: b.Count(), Histogram: eb, MeasureStart: time.Unix(5, 0), MeasureEnd: time.Unix(20, 0)}
	m, err := Merge([]*Result{ra, rb})
	if err != nil {
		t.Fatal(err)
	}
	if m.Latency != all.Summary() {
		t.Fatalf("merged %+v\n   all %+v", m.Latency, all.Summary())
	}
	if m.Records != 10000 || m.ElapsedSec != 20 || m.RecordsPerSec != 500 {
		t.Fatalf("merged counts %+v", m)
	}
	if _, err := Merge([]*Result{ra, {FormatVersion: FormatVersion, Kind: "consume", Histogram: eb}}); err == nil || !strings.Contains(err.Error(), "cannot merge a consume result with a produce result") {
		t.Fatalf("err %v", err)
	}
}

func TestPayloadsDistinct(t *testing.T) {
	p := NewPayloads(1024, 0, false)
	seen := map[string]bool{}
	for i := int64(0); i < 2000; i++ {
		v := p.Value(i)
		if len(v) != 1024 || cap(v) != 1024 {
			t.Fatalf("len %d cap %d", len(v), cap(v))
		}
		seen[string(v)] = true
	}
	if len(seen) != 2000 {
		t.Fatalf("%d distinct of 2000", len(seen))
	}
	r := NewPayloads(16, 0, true)
	if !bytes.Equal(r.Value(0), r.Value(99)) {
		t.Fatal("repeat payload differs")
	}
	for _, c := range p.Value(5) {
		if c < 'A' || c > 'Z' {
			t.Fatalf("non A-Z byte %q", c)
		}
	}
}

func TestApacheStatsLines(t *testing.T) {
	var out bytes.Buffer
	now := int64(1000)
	clock := func() int64 { return now }
	s := NewApacheStats(&out, 4, 5000, false, clock)
	s.Record(10, 100, now)
	s.Record(20, 100, now)
	now = 6000 // 5 s later: window line
	s.Record(3, 100, now)
	s.Record(7, 100, now)
	now = 9000
	s.PrintTotal()
	want := "3 records sent, 0.6 records/sec (0.00 MB/sec), 11.0 ms avg latency, 20.0 ms max latency.\n" +
		"4 records sent, 0.500000 records/sec (0.00 MB/sec), 10.00 ms avg latency, 20.00 ms max latency, 10 ms 50th, 20 ms 95th, 20 ms 99th, 20 ms 99.9th.\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}
