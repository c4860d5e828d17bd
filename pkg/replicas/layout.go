// Package replicas compares the copies of a partition that its replicas
// hold. It reads every replica's log with Fetch requests of its own (as a
// debugging consumer, replica id -2, which a follower answers) and offers
// two comparisons: Apache's ReplicaVerificationTool's (the stored batch
// checksums and offsets of every replica, round after round; Watch) and
// kbox's verdict (every batch's CRC recomputed on every replica and the
// batches compared byte for byte up to the high watermark; Verify).
package replicas

import (
	"context"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// TP names a partition.
type TP struct {
	Topic     string
	Partition int32
}

// String is Java's TopicPartition.toString: "topic-partition".
func (tp TP) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Partition is what the metadata says of one partition.
type Partition struct {
	TP
	TopicID  [16]byte
	Leader   int32
	Replicas []int32
	ISR      []int32
}

// Layout is the cluster's brokers and the partitions of the topics
// selected, topics in name order, partitions in number order.
type Layout struct {
	Brokers    []int32
	Partitions []Partition
}

// Describe reads the layout of every topic, internal ones included, that
// include allows (nil: every topic), with one Metadata request.
func Describe(ctx context.Context, cl *kgo.Client, include func(string) bool) (*Layout, error) {
	req := kmsg.NewPtrMetadataRequest()
	req.Topics = nil // every topic
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	l := &Layout{}
	for _, b := range resp.Brokers {
		l.Brokers = append(l.Brokers, b.NodeID)
	}
	sort.Slice(l.Brokers, func(i, j int) bool { return l.Brokers[i] < l.Brokers[j] })
	topics := resp.Topics
	sort.Slice(topics, func(i, j int) bool { return name(topics[i].Topic) < name(topics[j].Topic) })
	for _, t := range topics {
		n := name(t.Topic)
		if include != nil && !include(n) {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("topic %s: %w", n, err)
		}
		parts := t.Partitions
		sort.Slice(parts, func(i, j int) bool { return parts[i].Partition < parts[j].Partition })
		for _, p := range parts {
			l.Partitions = append(l.Partitions, Partition{
				TP: TP{n, p.Partition}, TopicID: t.TopicID, Leader: p.Leader,
				Replicas: append([]int32(nil), p.Replicas...), ISR: append([]int32(nil), p.ISR...),
			})
		}
	}
	return l, nil
}

// Topics are the layout's topics, in order.
func (l *Layout) Topics() []string {
	var out []string
	for i, p := range l.Partitions {
		if i == 0 || l.Partitions[i-1].Topic != p.Topic {
			out = append(out, p.Topic)
		}
	}
	return out
}

func name(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// Fetched is one replica's answer for one partition.
type Fetched struct {
	HighWatermark  int64
	LogStartOffset int64
	// Records is the partition's record data (whole batches, and perhaps
	// one cut short at the end).
	Records []byte
	// Err is the partition's error code as an error (nil for none).
	Err error
}

// FetchOptions are a Fetch request's limits.
type FetchOptions struct {
	// PartitionBytes is each partition's byte limit; MaxBytes the
	// response's (0: PartitionBytes times the partitions asked for).
	PartitionBytes int32
	MaxBytes       int32
	MaxWaitMs      int32
	MinBytes       int32
}

// FetchFrom sends one Fetch request to broker as a debugging consumer
// (replica id -2: a follower answers too) for parts, each from
// offsets[tp], and returns what each partition got.
func FetchFrom(ctx context.Context, cl *kgo.Client, broker int32, parts []Partition, offsets map[TP]int64, o FetchOptions) (map[TP]Fetched, error) {
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -2
	req.ReplicaState.ID = -2
	req.ReplicaState.Epoch = -1
	req.MaxWaitMillis = o.MaxWaitMs
	req.MinBytes = o.MinBytes
	req.MaxBytes = o.MaxBytes
	if req.MaxBytes == 0 {
		total := int64(o.PartitionBytes) * int64(len(parts))
		req.MaxBytes = int32(min(total, 1<<31-1))
	}
	req.SessionEpoch = -1 // no fetch session
	byID := map[[16]byte]string{}
	idx := map[string]int{}
	for _, p := range parts {
		i, ok := idx[p.Topic]
		if !ok {
			ft := kmsg.NewFetchRequestTopic()
			ft.Topic, ft.TopicID = p.Topic, p.TopicID
			req.Topics = append(req.Topics, ft)
			i = len(req.Topics) - 1
			idx[p.Topic] = i
			byID[p.TopicID] = p.Topic
		}
		fp := kmsg.NewFetchRequestTopicPartition()
		fp.Partition = p.Partition
		fp.FetchOffset = offsets[p.TP]
		fp.LogStartOffset = -1
		fp.CurrentLeaderEpoch = -1
		fp.LastFetchedEpoch = -1
		fp.PartitionMaxBytes = o.PartitionBytes
		req.Topics[i].Partitions = append(req.Topics[i].Partitions, fp)
	}
	kresp, err := cl.Broker(int(broker)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	out := make(map[TP]Fetched, len(parts))
	for _, t := range resp.Topics {
		topic := t.Topic
		if n, ok := byID[t.TopicID]; ok && topic == "" {
			topic = n
		}
		for _, p := range t.Partitions {
			out[TP{topic, p.Partition}] = Fetched{
				HighWatermark: p.HighWatermark, LogStartOffset: p.LogStartOffset,
				Records: p.RecordBatches, Err: kerr.ErrorForCode(p.ErrorCode),
			}
		}
	}
	return out, nil
}
