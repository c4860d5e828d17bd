package integrity

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Log is one raw read of a partition's log.
type Log struct {
	// Batches from the one holding the offset asked for on.
	Batches []Batch
	// Raw is the partition's part of the Fetch response.
	Raw            *kmsg.FetchResponseTopicPartition
	HighWatermark  int64
	LogStartOffset int64
}

// fetchBytes is how much one raw read asks for (the broker returns at
// least one whole batch, however large).
const fetchBytes = 1 << 20

// Fetcher reads a partition's raw log.
type Fetcher interface {
	// ReadLog returns the log from the batch holding offset on.
	ReadLog(ctx context.Context, topic string, partition int32, offset int64) (*Log, error)
}

// Reader reads raw logs through cl.
func Reader(cl *kgo.Client) Fetcher { return reader{cl} }

type reader struct{ cl *kgo.Client }

// ReadLog fetches partition's log from offset on, from its leader, with a
// Fetch request of kbox's own (read_uncommitted: every batch, markers and
// aborted data included). Nothing is validated: that is the point.
func (r reader) ReadLog(ctx context.Context, topic string, partition int32, offset int64) (*Log, error) {
	cl := r.cl
	mreq := kmsg.NewPtrMetadataRequest()
	mt := kmsg.NewMetadataRequestTopic()
	mt.Topic = kmsg.StringPtr(topic)
	mreq.Topics = append(mreq.Topics, mt)
	mresp, err := mreq.RequestWith(ctx, cl)
	if err != nil {
		return nil, err
	}
	leader, id := int32(-1), [16]byte{}
	for _, t := range mresp.Topics {
		if t.Topic == nil || *t.Topic != topic {
			continue
		}
		if err := kerr.ErrorForCode(t.ErrorCode); err != nil {
			return nil, fmt.Errorf("topic %s: %w", topic, err)
		}
		id = t.TopicID
		for _, p := range t.Partitions {
			if p.Partition == partition {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, fmt.Errorf("partition %s-%d: %w", topic, partition, err)
				}
				leader = p.Leader
			}
		}
	}
	if leader < 0 {
		return nil, fmt.Errorf("partition %s-%d has no leader", topic, partition)
	}
	req := kmsg.NewPtrFetchRequest()
	req.ReplicaID = -1
	req.MaxWaitMillis = 0
	req.MinBytes = 1
	req.MaxBytes = fetchBytes
	req.IsolationLevel = 0
	req.SessionEpoch = -1 // no fetch session
	ft := kmsg.NewFetchRequestTopic()
	ft.Topic, ft.TopicID = topic, id
	fp := kmsg.NewFetchRequestTopicPartition()
	fp.Partition = partition
	fp.FetchOffset = offset
	fp.PartitionMaxBytes = fetchBytes
	ft.Partitions = append(ft.Partitions, fp)
	req.Topics = append(req.Topics, ft)
	kresp, err := cl.Broker(int(leader)).Request(ctx, req)
	if err != nil {
		return nil, err
	}
	resp := kresp.(*kmsg.FetchResponse)
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, err
	}
	for i := range resp.Topics {
		t := &resp.Topics[i]
		if t.Topic != topic && t.TopicID != id {
			continue
		}
		for j := range t.Partitions {
			rp := &t.Partitions[j]
			if rp.Partition != partition {
				continue
			}
			if err := kerr.ErrorForCode(rp.ErrorCode); err != nil {
				return nil, fmt.Errorf("partition %s-%d at offset %d: %w", topic, partition, offset, err)
			}
			return &Log{Batches: Batches(rp.RecordBatches), Raw: rp, HighWatermark: rp.HighWatermark, LogStartOffset: rp.LogStartOffset}, nil
		}
	}
	return nil, fmt.Errorf("partition %s-%d: the leader's fetch response does not hold it", topic, partition)
}
