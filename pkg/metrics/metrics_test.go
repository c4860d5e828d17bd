package metrics

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// clock is a settable time source for a registry.
type clock struct{ ms int64 }

func testRegistry() (*Registry, *clock) {
	c := &clock{ms: 1_000_000}
	r := NewRegistry()
	r.now = func() int64 { return c.ms }
	return r, c
}

func valueOf(t *testing.T, r *Registry, name string) float64 {
	t.Helper()
	for _, v := range r.Snapshot() {
		if v.Name.String() == name {
			return v.Value
		}
	}
	t.Fatalf("no metric %s in %v", name, r.Snapshot())
	return 0
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

// The windowed statistics follow Java's SampledStat/Rate arithmetic
// (default 2 windows of 30 s).
func TestRateWindows(t *testing.T) {
	r, c := testRegistry()
	tags := []Tag{{"client-id", "c"}}
	start := c.ms
	r.record("g", "x", meterSum, tags, 2000)
	c.ms = start + 800
	// One sample 0.8 s old: Java counts Samples-1 = 1 more full window.
	if got, want := valueOf(t, r, "g:x-rate:{client-id=c}"), 2000/30.8; !near(got, want) {
		t.Errorf("rate after 0.8 s = %v, want %v", got, want)
	}
	if got := valueOf(t, r, "g:x-total:{client-id=c}"); got != 2000 {
		t.Errorf("total = %v", got)
	}
	// A record 31 s in starts a second window; 45 s in, 1 full window has
	// elapsed: no padding.
	c.ms = start + 31000
	r.record("g", "x", meterSum, tags, 1000)
	c.ms = start + 45000
	if got, want := valueOf(t, r, "g:x-rate:{client-id=c}"), 3000/45.0; !near(got, want) {
		t.Errorf("rate after 45 s = %v, want %v", got, want)
	}
	// 61 s in, the first window (last event at 0) is obsolete (>= 60 s).
	c.ms = start + 61000
	if got, want := valueOf(t, r, "g:x-rate:{client-id=c}"), 1000/30.0; !near(got, want) {
		t.Errorf("rate after 61 s = %v, want %v", got, want)
	}
	if got := valueOf(t, r, "g:x-total:{client-id=c}"); got != 3000 {
		t.Errorf("total after 61 s = %v", got)
	}
}

// Other windows (metrics.sample.window.ms=1000, metrics.num.samples=3):
// at least two full windows are counted.
func TestRateOtherWindows(t *testing.T) {
	r, c := testRegistry()
	r.cfg = Config{WindowMs: 1000, Samples: 3}
	tags := []Tag{{"client-id", "c"}}
	r.record("g", "x", meterSum, tags, 100)
	c.ms += 500
	if got, want := valueOf(t, r, "g:x-rate:{client-id=c}"), 100/2.5; !near(got, want) {
		t.Errorf("rate = %v, want %v", got, want)
	}
}

func TestAvgMaxCountAndEmpty(t *testing.T) {
	r, c := testRegistry()
	tags := []Tag{{"client-id", "c"}}
	r.ensure("g", "lat", avgMax, tags)
	r.ensure("g", "req", meterCount, tags)
	if v := valueOf(t, r, "g:lat-avg:{client-id=c}"); !math.IsNaN(v) {
		t.Errorf("avg of nothing = %v, want NaN", v)
	}
	if v := valueOf(t, r, "g:lat-max:{client-id=c}"); !math.IsNaN(v) {
		t.Errorf("max of nothing = %v, want NaN", v)
	}
	if v := valueOf(t, r, "g:req-rate:{client-id=c}"); v != 0 {
		t.Errorf("rate of nothing = %v, want 0", v)
	}
	for _, x := range []float64{4, 10, 1} {
		r.record("g", "lat", avgMax, tags, x)
		r.record("g", "req", meterCount, tags, 123) // counted, not summed
		c.ms += 100
	}
	if v := valueOf(t, r, "g:lat-avg:{client-id=c}"); v != 5 {
		t.Errorf("avg = %v, want 5", v)
	}
	if v := valueOf(t, r, "g:lat-max:{client-id=c}"); v != 10 {
		t.Errorf("max = %v, want 10", v)
	}
	if v := valueOf(t, r, "g:req-total:{client-id=c}"); v != 3 {
		t.Errorf("count total = %v, want 3", v)
	}
	// Everything older than 2 windows is forgotten: NaN again.
	c.ms += 60000
	if v := valueOf(t, r, "g:lat-max:{client-id=c}"); !math.IsNaN(v) {
		t.Errorf("max after the windows expired = %v, want NaN", v)
	}
}

// The table is ToolsUtils.printMetrics': sorted by the full name (String
// order: "node--1" before "node-1", a longer tag list before "}"), the
// header padded to the longest name, %.3f values, NaN as NaN.
func TestWriteTable(t *testing.T) {
	vs := []Value{
		{Name{"records-lag-max", "consumer-fetch-manager-metrics", []Tag{{"client-id", "c"}}}, 1000},
		{Name{"records-lag-max", "consumer-fetch-manager-metrics", []Tag{{"client-id", "c"}, {"topic", "t"}, {"partition", "0"}}}, 463},
		{Name{"records-lag", "consumer-fetch-manager-metrics", []Tag{{"client-id", "c"}, {"topic", "t"}, {"partition", "0"}}}, 0},
		{Name{"request-latency-avg", "producer-node-metrics", []Tag{{"client-id", "c"}, {"node-id", "node-1"}}}, 264.0905},
		{Name{"request-latency-avg", "producer-node-metrics", []Tag{{"client-id", "c"}, {"node-id", "node--1"}}}, math.NaN()},
		{Name{"outgoing-byte-rate", "producer-metrics", []Tag{{"client-id", "c"}}}, 7062.0065},
	}
	var b strings.Builder
	if err := WriteTable(&b, vs); err != nil {
		t.Fatal(err)
	}
	want := `
Metric Name                                                                          Value
consumer-fetch-manager-metrics:records-lag-max:{client-id=c, topic=t, partition=0} : 463.000
consumer-fetch-manager-metrics:records-lag-max:{client-id=c}                       : 1000.000
consumer-fetch-manager-metrics:records-lag:{client-id=c, topic=t, partition=0}     : 0.000
producer-metrics:outgoing-byte-rate:{client-id=c}                                  : 7062.007
producer-node-metrics:request-latency-avg:{client-id=c, node-id=node--1}           : NaN
producer-node-metrics:request-latency-avg:{client-id=c, node-id=node-1}            : 264.091
`
	if b.String() != want {
		t.Errorf("table:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := WriteTable(&b, nil); err != nil || b.Len() != 0 {
		t.Errorf("no metrics printed %q, want nothing", b.String())
	}
}

// The recorder maps hook calls onto Java's names, groups and tags.
func TestRecorder(t *testing.T) {
	r, _ := testRegistry()
	p := NewRecorder(r, Producer, "pc")
	seed := kgo.BrokerMetadata{NodeID: math.MinInt32} // the first bootstrap broker
	b1 := kgo.BrokerMetadata{NodeID: 1}
	p.OnBrokerConnect(seed, 0, nil, nil)
	p.OnBrokerWrite(seed, 3, 50, 0, 0, nil)
	p.OnBrokerRead(seed, 3, 400, 0, 0, nil)
	p.OnBrokerWrite(b1, 0, 1000, 0, 0, nil)
	p.OnBrokerWrite(b1, 0, 999, 0, 0, errTest) // failed writes are not sent bytes
	p.OnBrokerE2E(b1, 0, kgo.BrokerE2E{BytesWritten: 1000, BytesRead: 60, WriteWait: time.Millisecond, TimeToWrite: time.Millisecond, ReadWait: 5 * time.Millisecond})
	p.OnBrokerE2E(b1, 3, kgo.BrokerE2E{BytesWritten: 10, BytesRead: 60, ReadWait: 50 * time.Millisecond}) // not a produce request
	p.OnProduceBatchWritten(b1, "t", 0, kgo.ProduceBatchMetrics{NumRecords: 10, UncompressedBytes: 1100, CompressedBytes: 1100})
	p.OnProduceRecordUnbuffered(&kgo.Record{Topic: "t"}, errTest)
	p.OnProduceRecordUnbuffered(&kgo.Record{Topic: "t"}, nil)
	p.OnBrokerDisconnect(seed, nil)
	for name, want := range map[string]float64{
		"producer-metrics:outgoing-byte-total:{client-id=pc}":                       1050,
		"producer-metrics:incoming-byte-total:{client-id=pc}":                       400,
		"producer-metrics:request-total:{client-id=pc}":                             2,
		"producer-metrics:response-total:{client-id=pc}":                            1,
		"producer-metrics:request-size-max:{client-id=pc}":                          1000,
		"producer-node-metrics:outgoing-byte-total:{client-id=pc, node-id=node--1}": 50,
		"producer-node-metrics:outgoing-byte-total:{client-id=pc, node-id=node-1}":  1000,
		"producer-metrics:request-latency-max:{client-id=pc}":                       7,
		"producer-node-metrics:request-latency-avg:{client-id=pc, node-id=node-1}":  7,
		"producer-metrics:record-send-total:{client-id=pc}":                         10,
		"producer-topic-metrics:record-send-total:{client-id=pc, topic=t}":          10,
		"producer-topic-metrics:byte-total:{client-id=pc, topic=t}":                 1161,
		"producer-metrics:batch-size-avg:{client-id=pc}":                            1161,
		"producer-metrics:record-error-total:{client-id=pc}":                        1,
		"producer-topic-metrics:record-error-total:{client-id=pc, topic=t}":         1,
		"producer-metrics:connection-creation-total:{client-id=pc}":                 1,
		"producer-metrics:connection-close-total:{client-id=pc}":                    1,
		"producer-metrics:connection-count:{client-id=pc}":                          0,
	} {
		if got := valueOf(t, r, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}

	rc, _ := testRegistry()
	c := NewRecorder(rc, Consumer, "cc")
	c.OnBrokerRead(b1, 1, 5000, 0, 0, nil)
	c.OnBrokerE2E(b1, 1, kgo.BrokerE2E{BytesRead: 5000, ReadWait: 12 * time.Millisecond})
	c.OnFetchBatchRead(b1, "t", 0, kgo.FetchBatchMetrics{NumRecords: 3, UncompressedBytes: 330})
	recs := []*kgo.Record{{Topic: "t", Offset: 5}, {Topic: "t", Offset: 6}, {Topic: "t", Offset: 7}}
	if v := valueOf(t, rc, "consumer-fetch-manager-metrics:records-consumed-total:{client-id=cc}"); v != 0 {
		t.Errorf("records consumed before any poll: %v", v)
	}
	for _, rec := range recs {
		c.OnFetchRecordUnbuffered(rec, true)
	}
	c.OnFetchRecordUnbuffered(&kgo.Record{Topic: "t"}, false) // dropped, not polled
	c.Polled(kgo.Fetches{{Topics: []kgo.FetchTopic{{Topic: "t", Partitions: []kgo.FetchPartition{
		{Partition: 0, HighWatermark: 20, Records: recs},
		{Partition: 1, HighWatermark: 9}, // nothing returned: no lag recorded
	}}}}})
	for name, want := range map[string]float64{
		"consumer-fetch-manager-metrics:fetch-total:{client-id=cc}":                           1,
		"consumer-fetch-manager-metrics:fetch-latency-max:{client-id=cc}":                     12,
		"consumer-node-metrics:request-latency-max:{client-id=cc, node-id=node-1}":            12,
		"consumer-fetch-manager-metrics:bytes-consumed-total:{client-id=cc}":                  330,
		"consumer-fetch-manager-metrics:bytes-consumed-total:{client-id=cc, topic=t}":         330,
		"consumer-fetch-manager-metrics:records-lag-max:{client-id=cc}":                       12,
		"consumer-fetch-manager-metrics:records-lag:{client-id=cc, topic=t, partition=0}":     12,
		"consumer-fetch-manager-metrics:records-lag-avg:{client-id=cc, topic=t, partition=0}": 12,
		"consumer-metrics:incoming-byte-total:{client-id=cc}":                                 5000,
		"consumer-node-metrics:incoming-byte-total:{client-id=cc, node-id=node-1}":            5000,
	} {
		if got := valueOf(t, rc, name); got != want {
			t.Errorf("%s = %v, want %v", name, got, want)
		}
	}
	// records-consumed is flushed at the next poll or snapshot.
	n := 0
	defer func() {
		if n != 2 {
			t.Errorf("%d records-consumed-total metrics, want 2 (client and topic)", n)
		}
	}()
	for _, v := range c.Snapshot() {
		switch v.Name.String() {
		case "consumer-fetch-manager-metrics:records-consumed-total:{client-id=cc}",
			"consumer-fetch-manager-metrics:records-consumed-total:{client-id=cc, topic=t}":
			n++
			if v.Value != 3 {
				t.Errorf("%s = %v, want 3", v.Name, v.Value)
			}
		}
		if strings.Contains(v.Name.String(), "partition=1") {
			t.Errorf("partition without records has a metric: %s", v.Name)
		}
	}
}

type testErr struct{}

func (testErr) Error() string { return "boom" }

var errTest error = testErr{}

func kBroker(id int32) kgo.BrokerMetadata { return kgo.BrokerMetadata{NodeID: id} }
