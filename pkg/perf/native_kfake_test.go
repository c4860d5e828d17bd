package perf

import (
	"context"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func fakeCluster(t *testing.T, partitions int32) []string {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(partitions, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

func client(t *testing.T, addrs []string, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(addrs...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

// Warm-up comes on top of --records in produce and consume runs, and
// readiness records are skipped by consume runs.
func TestWarmupOnTopAndReadiness(t *testing.T) {
	addrs := fakeCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	// Readiness: leaders and one acknowledged write per partition.
	ready := client(t, addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	if err := WaitTopicReady(ctx, kadm.NewClient(ready), ready, "t", 3, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if err := WaitTopicReady(ctx, kadm.NewClient(ready), ready, "t", 4, 300*time.Millisecond); err == nil {
		t.Fatal("4 partitions of a 3-partition topic: ready")
	}

	p1, p2 := client(t, addrs), client(t, addrs)
	res, err := Produce(ctx, []*kgo.Client{p1, p2}, ProduceConfig{Topic: "t", Records: 1000, WarmupRecords: 300, RecordSize: 10, Interval: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Records != 1000 || res.WarmupRecords != 300 || res.Latency.Count != 1000 {
		t.Fatalf("produce: records %d warm-up %d histogram %d, want 1000 + 300", res.Records, res.WarmupRecords, res.Latency.Count)
	}

	cons := client(t, addrs, kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	cres, err := Consume(ctx, []*kgo.Client{cons}, ConsumeConfig{Topic: "t", Records: 1200, WarmupRecords: 100, IdleTimeout: 5 * time.Second, Interval: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cres.Records != 1200 || cres.WarmupRecords != 100 {
		t.Fatalf("consume: records %d warm-up %d, want 1200 + 100 (the 3 readiness records skipped)", cres.Records, cres.WarmupRecords)
	}
	// Only 1300 records besides the readiness ones: asking for 1201
	// measured after 100 warm-up runs dry.
	cons2 := client(t, addrs, kgo.ConsumeTopics("t"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	cres, err = Consume(ctx, []*kgo.Client{cons2}, ConsumeConfig{Topic: "t", Records: 1201, WarmupRecords: 100, IdleTimeout: 500 * time.Millisecond, Interval: time.Hour}, nil)
	if err != ErrIdle || cres.Records != 1200 {
		t.Fatalf("consume past the end: %v, records %d", err, cres.Records)
	}
}

// --duration starts when the warm-up ends: a 300 ms warm-up and a 400 ms
// run measure about 400 ms, and the whole run lasts at least 700 ms.
func TestDurationAfterTimedWarmup(t *testing.T) {
	addrs := fakeCluster(t, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	res, err := Produce(ctx, []*kgo.Client{client(t, addrs)}, ProduceConfig{Topic: "t", Duration: 400 * time.Millisecond, WarmupDuration: 300 * time.Millisecond,
		RecordSize: 10, Rate: 2000, Interval: time.Hour}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if wall := time.Since(start); wall < 700*time.Millisecond {
		t.Fatalf("run took %s, want at least 700ms", wall)
	}
	if res.WarmupRecords < 300 || res.WarmupRecords > 900 || res.Records < 400 || res.ElapsedSec < 0.35 || res.ElapsedSec > 2 {
		t.Fatalf("warm-up %d records, measured %d records over %.3f s", res.WarmupRecords, res.Records, res.ElapsedSec)
	}
	if !res.MeasureStart.After(start.Add(299 * time.Millisecond)) {
		t.Fatalf("measuring started %s after the start, inside the warm-up", res.MeasureStart.Sub(start))
	}
}
