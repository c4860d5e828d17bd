package perf

import (
	"bytes"
	"context"
	"io"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Random payload buffers are recycled once a record's promise has run: the
// broker must still get every record's own bytes, in Apache's sequence
// (one SplittableRandom fill per record), with a buffer bound small enough
// that buffers are reused many times.
func TestApacheProducerRecycledPayloads(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "recycle"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const n, size = 5000, 200
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.MaxBufferedBytes(8*size), kgo.ProducerLinger(0))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := RunApacheProducer(ctx, cl, ApacheProducerConfig{Topic: "recycle", NumRecords: n, RecordSize: size, Throughput: -1, Seed: 42}, io.Discard, nil)
	if err != nil || res.Sent != n || res.Failed != 0 {
		t.Fatalf("run: %v %+v", err, res)
	}
	cons, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...), kgo.ConsumeTopics("recycle"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	rnd := NewSplittableRandom(42)
	want := make([]byte, size)
	for got := 0; got < n; {
		fs := cons.PollFetches(ctx)
		if err := fs.Err0(); err != nil {
			t.Fatalf("after %d records: %v", got, err)
		}
		fs.EachRecord(func(r *kgo.Record) {
			rnd.FillUpper(want)
			if !bytes.Equal(r.Value, want) {
				t.Fatalf("record %d: %.20q..., want %.20q...", got, r.Value, want)
			}
			got++
		})
	}
}
