package integrity

import (
	"context"
	"errors"
	"fmt"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Unreadable says whether a fetch error means the partition's data at the
// consumer's position cannot be read: franz-go's batch parse failures (a
// CRC mismatch first), untyped errors on a partition. Kafka's own errors,
// franz-go's informational ones (data loss, group session, a closed
// client) and context errors are not.
func Unreadable(fe kgo.FetchError) bool {
	if fe.Topic == "" || fe.Partition < 0 || fe.Err == nil {
		return false
	}
	if errors.Is(fe.Err, context.Canceled) || errors.Is(fe.Err, context.DeadlineExceeded) || errors.Is(fe.Err, kgo.ErrClientClosed) {
		return false
	}
	var (
		ke  *kerr.Error
		dl  *kgo.ErrDataLoss
		gs  *kgo.ErrGroupSession
		eof *kgo.ErrFirstReadEOF
	)
	return !errors.As(fe.Err, &ke) && !errors.As(fe.Err, &dl) && !errors.As(fe.Err, &gs) && !errors.As(fe.Err, &eof)
}

// Stuck returns the partitions of one poll that a consumer cannot read
// past: an Unreadable error and no record in the same poll. The records
// franz-go parsed before the bad batch arrive with the error (in one poll,
// or in several with PollRecords); once they are drained the client
// fetches the same offset again, and the error comes back alone. A batch
// too large to decompress is stuck at once: franz-go does not fetch it
// again.
func Stuck(fs kgo.Fetches) []kgo.FetchError {
	var out []kgo.FetchError
	for _, fe := range fs.Errors() {
		if !Unreadable(fe) {
			continue
		}
		var tooLarge *kgo.ErrDecompressTooLarge
		if !errors.As(fe.Err, &tooLarge) && hasRecords(fs, fe.Topic, fe.Partition) {
			continue
		}
		out = append(out, fe)
	}
	return out
}

func hasRecords(fs kgo.Fetches, topic string, partition int32) bool {
	for _, f := range fs {
		for _, t := range f.Topics {
			if t.Topic != topic {
				continue
			}
			for _, p := range t.Partitions {
				if p.Partition == partition && len(p.Records) > 0 {
					return true
				}
			}
		}
	}
	return false
}

// TP is a topic partition.
type TP struct {
	Topic     string
	Partition int32
}

// Positions are the offsets a consumer reads next, partition by
// partition, as far as its records tell.
type Positions map[TP]int64

// See notes a record read.
func (p Positions) See(r *kgo.Record) { p[TP{r.Topic, r.Partition}] = r.Offset + 1 }

// Next is the offset the consumer reads next in a partition, if known.
func (p Positions) Next(topic string, partition int32) (int64, bool) {
	n, ok := p[TP{topic, partition}]
	return n, ok
}

// StartPosition is where a consumer of cl stands in a partition of which
// it read no record yet: its group's committed offset (as fetched when it
// joined), else the log start.
func StartPosition(ctx context.Context, cl *kgo.Client, topic string, partition int32) (int64, error) {
	if o, ok := cl.CommittedOffsets()[topic][partition]; ok && o.Offset >= 0 {
		return o.Offset, nil
	}
	starts, err := kadm.NewClient(cl).ListStartOffsets(ctx, topic)
	if err != nil {
		return 0, err
	}
	lo, ok := starts.Lookup(topic, partition)
	if !ok {
		return 0, fmt.Errorf("partition %s-%d not found", topic, partition)
	}
	return lo.Offset, lo.Err
}

// Diagnose names what a consumer is stuck on (fe, from Stuck) at offset
// at: the corrupt batch Find reads in the log. When the log reads cleanly
// from there, or cannot be read, the Corruption carries the client's error
// alone (Last < Offset).
func Diagnose(ctx context.Context, log Fetcher, fe kgo.FetchError, at int64) *Corruption {
	if corr, err := Find(ctx, log, fe.Topic, fe.Partition, at); err == nil && corr != nil {
		return corr
	}
	return &Corruption{Topic: fe.Topic, Partition: fe.Partition, Offset: at, Last: -1, Position: at, Client: fe.Err}
}
