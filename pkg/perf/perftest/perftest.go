// Package perftest holds the results the perf packages' tests share: the
// sample the JSON goldens print and results of a chosen size.
package perftest

import (
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Histogram normalizes the encoded HdrHistogram in a golden: an opaque
// compressed blob (its bytes follow the compressor of the Go release); the
// goldens pin that it is there.
var Histogram = golden.Replace(`"histogram": "[^"]+"`, `"histogram": "<base64 HdrHistogram>"`)

// Sample is the result the JSON goldens print: a produce run of 1000
// records over 2 s with one interval.
func Sample(t testing.TB) *perf.Result {
	t.Helper()
	h := perf.NewLatency()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * 10 * time.Microsecond)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &perf.Result{Kind: "produce", Topic: "perf", Clients: 2, MeasureStart: start, MeasureEnd: start.Add(2 * time.Second),
		Records: 1000, Bytes: 1000 * 512, WarmupRecords: 100, Failed: 1, TargetRate: 500, LatencyBasis: perf.BasisIntended,
		Settings:  []string{"acks=all", "linger.ms=5"},
		Intervals: []perf.Interval{{ElapsedSec: 1, Records: 500, RecordsPerSec: 500, MBPerSec: 0.244, P50Ms: 5.1, P99Ms: 9.9, MaxMs: 10}}}
	if err := r.Complete(h); err != nil {
		t.Fatal(err)
	}
	return r
}

// Result is a produce result of records latencies (1 to 50 times ms),
// measured for one second from start.
func Result(t testing.TB, records int, ms time.Duration, start time.Time) *perf.Result {
	t.Helper()
	h := perf.NewLatency()
	for i := 0; i < records; i++ {
		h.Record(time.Duration(i%50+1) * ms)
	}
	r := &perf.Result{Kind: "produce", Topic: "t", Clients: 1, Records: int64(records), Bytes: int64(records) * 10,
		MeasureStart: start, MeasureEnd: start.Add(time.Second)}
	if err := r.Complete(h); err != nil {
		t.Fatal(err)
	}
	return r
}

// Client is a kgo client on addrs (an in-process kfake cluster), closed
// when the test ends.
func Client(t testing.TB, addrs []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Run is a produce run of 100 records at rate records/s whose latencies
// spread from lat to twice lat.
func Run(t testing.TB, rate float64, lat time.Duration) *perf.Result {
	t.Helper()
	h := perf.NewLatency()
	for i := 0; i < 100; i++ {
		h.Record(lat + time.Duration(i)*lat/100)
	}
	r := &perf.Result{Kind: "produce", Records: 100, Bytes: 10000, RecordsPerSec: rate, MBPerSec: rate * 100 / (1 << 20)}
	r.MeasureEnd = r.MeasureStart.Add(time.Second)
	if err := r.Complete(h); err != nil {
		t.Fatal(err)
	}
	r.RecordsPerSec = rate
	return r
}
