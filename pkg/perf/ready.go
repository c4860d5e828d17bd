package perf

import (
	"context"
	"fmt"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// WaitTopicReady returns when topic has partitions partitions, each with a
// leader in the metadata, and each has acknowledged one write: a record
// with the ReadinessHeader (which consume runs skip), produced through
// prod, a client with a manual partitioner. It polls the metadata every
// 100 ms for at most timeout.
func WaitTopicReady(ctx context.Context, adm *kadm.Client, prod *kgo.Client, topic string, partitions int, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	why := ""
	for {
		why = leadersMissing(ctx, adm, topic, partitions)
		if why == "" {
			break
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("no leader for every partition within %s: %s", timeout, why)
		case <-time.After(100 * time.Millisecond):
		}
	}
	recs := make([]*kgo.Record, partitions)
	for p := range recs {
		recs[p] = &kgo.Record{Topic: topic, Partition: int32(p), Headers: []kgo.RecordHeader{{Key: ReadinessHeader}}}
	}
	if err := prod.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return fmt.Errorf("one write per partition: %w", err)
	}
	return nil
}

// leadersMissing says what is missing for every partition to have a
// leader, or "" when nothing is.
func leadersMissing(ctx context.Context, adm *kadm.Client, topic string, partitions int) string {
	md, err := adm.Metadata(ctx, topic)
	if err != nil {
		return err.Error()
	}
	td, ok := md.Topics[topic]
	switch {
	case !ok:
		return "topic not in the metadata"
	case td.Err != nil:
		return td.Err.Error()
	case len(td.Partitions) != partitions:
		return fmt.Sprintf("%d of %d partitions in the metadata", len(td.Partitions), partitions)
	}
	for _, p := range td.Partitions {
		if p.Err != nil {
			return fmt.Sprintf("partition %d: %v", p.Partition, p.Err)
		}
		if p.Leader < 0 {
			return fmt.Sprintf("partition %d has no leader", p.Partition)
		}
	}
	return ""
}
