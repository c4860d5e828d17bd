package perf

import (
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/corruptfake"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/twmb/franz-go/pkg/kgo"
)

// corruptTopic serves topic "cr" as four batches of 25 records (values of
// 12 bytes, keys of 2 or 3), batch 2 changed by edit without a new CRC.
func corruptTopic(t *testing.T, edit func(b []byte)) []string {
	t.Helper()
	c, err := corruptfake.Cluster("cr", corruptfake.Log(4, 25, func(i int, b []byte) []byte {
		if i == 2 {
			edit(b)
		}
		return b
	}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()
}

// flipValue changes a value byte: the CRC no longer matches, the records
// still parse.
func flipValue(b []byte) { corruptfake.FlipLastByte(b) }

// breakRecord changes the first record's length varint (20 -> 21 bytes):
// the CRC does not match and Java's parser refuses the record.
func breakRecord(b []byte) { b[61] += 2 }

// TestApacheConsumerReadsWhatJavaReads: kafka-consumer-perf-test does not
// check CRCs (Java forces check.crcs=false): a batch whose CRC no longer
// matches is counted as long as Java parses its records; a record Java
// cannot parse ends the run with Java's exception.
func TestApacheConsumerReadsWhatJavaReads(t *testing.T) {
	run := func(addrs []string) (*ApacheConsumerResult, error) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		cl := client(t, addrs, kgo.ConsumerGroup("g"), kgo.ConsumeTopics("cr"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		cfg := ApacheConsumerConfig{NumRecords: 100, TimeoutMs: 3000, ReportingIntervalMs: 5000, MaxPollRecords: 500, DateFormat: func(int64) string { return "" }}
		return RunApacheConsumer(ctx, cl, &RebalanceTimer{}, NowMs(), cfg, io.Discard)
	}
	res, err := run(corruptTopic(t, flipValue))
	if err != nil || res.Records != 100 || res.Bytes != 1460 { // keys k0-k24, values of 12 bytes
		t.Fatalf("value flipped: %v, %+v", err, res)
	}
	res, err = run(corruptTopic(t, breakRecord))
	var corr *integrity.Corruption
	if !errors.As(err, &corr) || res != nil || corr.Offset != 50 || corr.Java == nil {
		t.Fatalf("record broken: %v", err)
	}
	if got := corr.ApacheCause(false); got != "org.apache.kafka.common.InvalidRecordException: Invalid record size: expected to read 21 bytes in record payload, but instead read 20" {
		t.Fatalf("record broken: %s", got)
	}
}

// TestConsumeStopsAtCorruptBatch: kbox perf consume ends with the batch
// named instead of running dry.
func TestConsumeStopsAtCorruptBatch(t *testing.T) {
	addrs := corruptTopic(t, flipValue)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl := client(t, addrs, kgo.ConsumerGroup("g"), kgo.ConsumeTopics("cr"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	res, err := Consume(ctx, []*kgo.Client{cl}, ConsumeConfig{Topic: "cr", Records: 100, IdleTimeout: 10 * time.Second, Interval: time.Hour}, nil)
	var corr *integrity.Corruption
	if !errors.As(err, &corr) || corr.Offset != 50 || corr.Last != 74 || !corr.CRCMismatch() || res == nil || res.Records != 50 {
		t.Fatalf("%v, %+v", err, res)
	}
	if ctx.Err() != nil {
		t.Fatal("ran until the deadline")
	}
}
