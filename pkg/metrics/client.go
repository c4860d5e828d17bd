package metrics

import (
	"context"
	"math"
	"net"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
)

// Recorder turns franz-go hook calls into the Java client's metrics for a
// producer or a consumer. Install it with kgo.WithHooks before the client
// is built. The metrics it keeps (Java names, groups and tags):
//
//	<role>-metrics {client-id}: outgoing-byte-rate/-total, incoming-byte-rate/-total,
//	  request-rate/-total, response-rate/-total, request-size-avg/-max,
//	  connection-creation-rate/-total, connection-close-rate/-total, connection-count
//	<role>-node-metrics {client-id, node-id}: the same byte, request, response and
//	  request-size metrics per broker, and request-latency-avg/-max (produce
//	  requests for a producer, fetch requests for a consumer, as in Java)
//	producer-metrics: record-send-rate/-total, record-error-rate/-total,
//	  request-latency-avg/-max, batch-size-avg/-max
//	producer-topic-metrics {client-id, topic}: record-send-rate/-total,
//	  record-error-rate/-total, byte-rate/-total
//	consumer-fetch-manager-metrics {client-id}: fetch-rate/-total,
//	  fetch-latency-avg/-max, bytes-consumed-rate/-total,
//	  records-consumed-rate/-total, records-lag-max; per topic {client-id, topic}
//	  bytes-consumed-rate/-total, records-consumed-rate/-total; per partition
//	  {client-id, topic, partition} records-lag, records-lag-avg, records-lag-max
//
// records-consumed counts the records polls return; the records-lag
// metrics are fed by Polled; bytes-consumed counts the records' bytes
// (Java's record sizeInBytes, without batch headers) when their batch is
// fetched, so it includes records fetched but never polled.
type Recorder struct {
	reg      *Registry
	role     string // producer | consumer
	clientID string
	tags     []Tag
	// ReadCommitted measures lag to the last stable offset (Java's
	// partitionLag under isolation.level=read_committed).
	ReadCommitted bool

	mu    sync.Mutex
	conns int
	// polled counts records returned by polls per topic until the next
	// flush (a registry update per record would slow consuming down).
	polled sync.Map // topic → *atomic.Int64
}

// Roles a Recorder measures.
const (
	Producer = "producer"
	Consumer = "consumer"
)

// NewRecorder returns a recorder for a client of role (Producer or
// Consumer) with client.id clientID, registering the client-level metrics
// (Java registers them when the client starts: 0, or NaN for an average or
// maximum of nothing).
func NewRecorder(reg *Registry, role, clientID string) *Recorder {
	r := &Recorder{reg: reg, role: role, clientID: clientID, tags: []Tag{{"client-id", clientID}}}
	g := r.group()
	for _, b := range []struct {
		base string
		k    kind
	}{
		{"connection-close", meterCount}, {"connection-creation", meterCount},
		{"outgoing-byte", meterSum}, {"request", meterCount}, {"request-size", avgMax},
		{"incoming-byte", meterSum}, {"response", meterCount},
	} {
		reg.ensure(g, b.base, b.k, r.tags)
	}
	reg.ensure(g, "connection-count", value, r.tags)
	switch role {
	case Producer:
		reg.ensure(g, "record-send", meterSum, r.tags)
		reg.ensure(g, "record-error", meterSum, r.tags)
		reg.ensure(g, "request-latency", avgMax, r.tags)
		reg.ensure(g, "batch-size", avgMax, r.tags)
	case Consumer:
		f := "consumer-fetch-manager-metrics"
		reg.ensure(f, "fetch", meterCount, r.tags)
		reg.ensure(f, "fetch-latency", avgMax, r.tags)
		reg.ensure(f, "bytes-consumed", meterSum, r.tags)
		reg.ensure(f, "records-consumed", meterSum, r.tags)
	}
	return r
}

// Registry is the registry the recorder feeds.
func (r *Recorder) Registry() *Registry { return r.reg }

// ClientID is the client.id the metrics are tagged with.
func (r *Recorder) ClientID() string { return r.clientID }

func (r *Recorder) group() string { return r.role + "-metrics" }

func (r *Recorder) nodeTags(id int32) []Tag {
	// franz-go numbers the bootstrap brokers from MinInt32; Java's
	// bootstrap nodes are -1, -2, ...
	if id < math.MinInt32+1<<20 {
		id = -(id - math.MinInt32 + 1)
	}
	return []Tag{{"client-id", r.clientID}, {"node-id", "node-" + strconv.Itoa(int(id))}}
}

func (r *Recorder) topicTags(topic string) []Tag {
	return []Tag{{"client-id", r.clientID}, {"topic", topic}}
}

var (
	_ kgo.HookBrokerConnect           = (*Recorder)(nil)
	_ kgo.HookBrokerDisconnect        = (*Recorder)(nil)
	_ kgo.HookBrokerWrite             = (*Recorder)(nil)
	_ kgo.HookBrokerRead              = (*Recorder)(nil)
	_ kgo.HookBrokerE2E               = (*Recorder)(nil)
	_ kgo.HookProduceBatchWritten     = (*Recorder)(nil)
	_ kgo.HookProduceRecordUnbuffered = (*Recorder)(nil)
	_ kgo.HookFetchBatchRead          = (*Recorder)(nil)
	_ kgo.HookFetchRecordUnbuffered   = (*Recorder)(nil)
	_ kgo.HookPollStart               = (*Recorder)(nil)
)

// Snapshot measures every metric now, in registration order.
func (r *Recorder) Snapshot() []Value {
	r.flushPolled()
	return r.reg.Snapshot()
}

// OnBrokerConnect counts new connections.
func (r *Recorder) OnBrokerConnect(_ kgo.BrokerMetadata, _ time.Duration, _ net.Conn, err error) {
	if err != nil {
		return
	}
	r.reg.record(r.group(), "connection-creation", meterCount, r.tags, 1)
	r.mu.Lock()
	r.conns++
	n := r.conns
	r.mu.Unlock()
	r.reg.record(r.group(), "connection-count", value, r.tags, float64(n))
}

// OnBrokerDisconnect counts closed connections.
func (r *Recorder) OnBrokerDisconnect(kgo.BrokerMetadata, net.Conn) {
	r.reg.record(r.group(), "connection-close", meterCount, r.tags, 1)
	r.mu.Lock()
	r.conns = max(r.conns-1, 0)
	n := r.conns
	r.mu.Unlock()
	r.reg.record(r.group(), "connection-count", value, r.tags, float64(n))
}

// groupTags is a metric group with its tags.
type groupTags struct {
	group string
	tags  []Tag
}

// clientAndNode are the two places Java records a network metric: the
// client's group, and the per-node group tagged with the node.
func (r *Recorder) clientAndNode(node int32) [2]groupTags {
	return [2]groupTags{{r.group(), r.tags}, {r.role + "-node-metrics", r.nodeTags(node)}}
}

// OnBrokerWrite counts requests and the bytes sent.
func (r *Recorder) OnBrokerWrite(meta kgo.BrokerMetadata, _ int16, n int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	for _, gt := range r.clientAndNode(meta.NodeID) {
		g, tags := gt.group, gt.tags
		r.reg.record(g, "outgoing-byte", meterSum, tags, float64(n))
		r.reg.record(g, "request", meterCount, tags, 1)
		r.reg.record(g, "request-size", avgMax, tags, float64(n))
	}
}

// OnBrokerRead counts responses, the bytes received and, for a consumer,
// fetches.
func (r *Recorder) OnBrokerRead(meta kgo.BrokerMetadata, key int16, n int, _, _ time.Duration, err error) {
	if err != nil {
		return
	}
	for _, gt := range r.clientAndNode(meta.NodeID) {
		g, tags := gt.group, gt.tags
		r.reg.record(g, "incoming-byte", meterSum, tags, float64(n))
		r.reg.record(g, "response", meterCount, tags, 1)
	}
	if r.role == Consumer && key == 1 {
		r.reg.record("consumer-fetch-manager-metrics", "fetch", meterCount, r.tags, 1)
	}
}

// OnBrokerE2E measures request latency: produce requests for a producer,
// fetch requests for a consumer (what Java's Sender and Fetcher record).
func (r *Recorder) OnBrokerE2E(meta kgo.BrokerMetadata, key int16, e kgo.BrokerE2E) {
	if e.Err() != nil || e.BytesRead == 0 {
		return // failed, or a produce request with acks=0 (no response)
	}
	ms := float64((e.WriteWait + e.DurationE2E()).Milliseconds())
	switch {
	case r.role == Producer && key == 0:
		r.reg.record(r.group(), "request-latency", avgMax, r.tags, ms)
	case r.role == Consumer && key == 1:
		r.reg.record("consumer-fetch-manager-metrics", "fetch-latency", avgMax, r.tags, ms)
	default:
		return
	}
	r.reg.record(r.role+"-node-metrics", "request-latency", avgMax, r.nodeTags(meta.NodeID), ms)
}

// recordBatchOverhead is the size of a v2 record batch header, which
// franz-go's batch sizes leave out and Java's include.
const recordBatchOverhead = 61

// OnProduceBatchWritten counts records and batches acknowledged.
func (r *Recorder) OnProduceBatchWritten(_ kgo.BrokerMetadata, topic string, _ int32, m kgo.ProduceBatchMetrics) {
	size := float64(m.CompressedBytes + recordBatchOverhead)
	r.reg.record(r.group(), "record-send", meterSum, r.tags, float64(m.NumRecords))
	r.reg.record(r.group(), "batch-size", avgMax, r.tags, size)
	tt := r.topicTags(topic)
	r.reg.ensure("producer-topic-metrics", "record-error", meterSum, tt)
	r.reg.record("producer-topic-metrics", "record-send", meterSum, tt, float64(m.NumRecords))
	r.reg.record("producer-topic-metrics", "byte", meterSum, tt, size)
}

// OnProduceRecordUnbuffered counts records whose send failed.
func (r *Recorder) OnProduceRecordUnbuffered(rec *kgo.Record, err error) {
	if err == nil {
		return
	}
	r.reg.record(r.group(), "record-error", meterSum, r.tags, 1)
	r.reg.record("producer-topic-metrics", "record-error", meterSum, r.topicTags(rec.Topic), 1)
}

// OnFetchBatchRead counts the bytes of the records fetched.
func (r *Recorder) OnFetchBatchRead(_ kgo.BrokerMetadata, topic string, _ int32, m kgo.FetchBatchMetrics) {
	f := "consumer-fetch-manager-metrics"
	r.reg.record(f, "bytes-consumed", meterSum, r.tags, float64(m.UncompressedBytes))
	r.reg.record(f, "bytes-consumed", meterSum, r.topicTags(topic), float64(m.UncompressedBytes))
}

// OnFetchRecordUnbuffered counts the records a poll returns.
func (r *Recorder) OnFetchRecordUnbuffered(rec *kgo.Record, polled bool) {
	if !polled {
		return
	}
	c, ok := r.polled.Load(rec.Topic)
	if !ok {
		c, _ = r.polled.LoadOrStore(rec.Topic, new(atomic.Int64))
	}
	c.(*atomic.Int64).Add(1)
}

// OnPollStart records the records the previous poll returned.
func (r *Recorder) OnPollStart(context.Context) { r.flushPolled() }

func (r *Recorder) flushPolled() {
	f := "consumer-fetch-manager-metrics"
	r.polled.Range(func(k, v any) bool {
		if n := v.(*atomic.Int64).Swap(0); n > 0 {
			r.reg.record(f, "records-consumed", meterSum, r.tags, float64(n))
			r.reg.record(f, "records-consumed", meterSum, r.topicTags(k.(string)), float64(n))
		}
		return true
	})
}

// Polled records each partition's lag after a poll: the high watermark
// (the last stable offset under read_committed) less the position after
// the records returned (Java records it as it hands records out). Only a
// caller that sees the fetches (the consumer perf test) can feed it; the
// lag metrics appear once it does.
func (r *Recorder) Polled(fs kgo.Fetches) {
	f := "consumer-fetch-manager-metrics"
	fs.EachPartition(func(p kgo.FetchTopicPartition) {
		n := len(p.Records)
		if n == 0 {
			return
		}
		end := p.HighWatermark
		if r.ReadCommitted {
			end = p.LastStableOffset
		}
		lag := float64(max(end-(p.Records[n-1].Offset+1), 0))
		pt := []Tag{{"client-id", r.clientID}, {"topic", p.Topic}, {"partition", strconv.Itoa(int(p.Partition))}}
		r.reg.record(f, "records-lag", maxOnly, r.tags, lag)
		r.reg.record(f, "records-lag", value, pt, lag)
		r.reg.record(f, "records-lag", avgMax, pt, lag)
	})
}
