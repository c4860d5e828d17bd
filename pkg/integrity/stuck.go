package integrity

import (
	"context"
	"errors"
	"fmt"
	"sync"

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

// Watcher follows one consumer's positions and names the batch a
// partition is stuck on (Check). Its methods may be called from several
// goroutines (a group's revocation callbacks call Forget).
type Watcher struct {
	// Log reads the raw log (Reader of the consumer's client).
	Log Fetcher
	// StartOf is where a partition starts when none of its records was
	// read and no Seed says so (StartPosition); nil: offset 0.
	StartOf func(ctx context.Context, topic string, partition int32) (int64, error)

	mu      sync.Mutex
	pos     Positions
	starts  Positions
	checked Positions // the position each stuck partition was last read at
}

// NewWatcher watches a consumer of cl (Attach).
func NewWatcher(cl *kgo.Client) *Watcher { return new(Watcher).Attach(cl) }

// Attach makes w read cl's raw logs, and take StartPosition for a
// partition none of whose records was read; it returns w.
func (w *Watcher) Attach(cl *kgo.Client) *Watcher {
	w.Log = Reader(cl)
	w.StartOf = func(ctx context.Context, topic string, partition int32) (int64, error) {
		return StartPosition(ctx, cl, topic, partition)
	}
	return w
}

// See notes a record read.
func (w *Watcher) See(r *kgo.Record) { w.Set(r.Topic, r.Partition, r.Offset+1) }

// Set says the consumer reads a partition from next on (after a seek).
func (w *Watcher) Set(topic string, partition int32, next int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.pos == nil {
		w.pos = Positions{}
	}
	w.pos[TP{topic, partition}] = next
}

// Seed says where the consumer starts in a partition (assign mode): the
// position Check uses until a record is read there, not one Next gives.
func (w *Watcher) Seed(topic string, partition int32, at int64) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.starts == nil {
		w.starts = Positions{}
	}
	w.starts[TP{topic, partition}] = at
}

// Next is the offset after the last record read in a partition, if any.
func (w *Watcher) Next(topic string, partition int32) (int64, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.pos.Next(topic, partition)
}

// Forget drops what the watcher knows of partitions (revoked, lost, or
// moved by the client after data loss).
func (w *Watcher) Forget(parts map[string][]int32) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for t, ps := range parts {
		for _, p := range ps {
			delete(w.pos, TP{t, p})
			delete(w.starts, TP{t, p})
		}
	}
}

func (w *Watcher) position(ctx context.Context, topic string, partition int32) int64 {
	w.mu.Lock()
	at, ok := w.pos.Next(topic, partition)
	if !ok {
		at, ok = w.starts.Next(topic, partition)
	}
	w.mu.Unlock()
	if !ok && w.StartOf != nil {
		at, _ = w.StartOf(ctx, topic, partition)
	}
	return at
}

// Check looks at the partitions a poll shows stuck (Stuck): for each it
// reads the log from the partition's position and returns the corrupt
// batch there. A partition whose log reads cleanly from its position (the
// client's error stands alone: franz-go retries it) is returned in
// unconfirmed, once per position: the log is not read again until the
// position moves.
func (w *Watcher) Check(ctx context.Context, fs kgo.Fetches) (corrupt []*Corruption, unconfirmed []kgo.FetchError) {
	for _, fe := range Stuck(fs) {
		at := w.position(ctx, fe.Topic, fe.Partition)
		w.mu.Lock()
		last, seen := w.checked.Next(fe.Topic, fe.Partition)
		if w.checked == nil {
			w.checked = Positions{}
		}
		w.checked[TP{fe.Topic, fe.Partition}] = at
		w.mu.Unlock()
		if seen && last == at {
			continue
		}
		corr, err := Find(ctx, w.Log, fe.Topic, fe.Partition, at)
		if err != nil || corr == nil {
			unconfirmed = append(unconfirmed, fe)
			continue
		}
		corrupt = append(corrupt, corr)
	}
	return corrupt, unconfirmed
}

// Skip seeks cl past a corrupt batch and notes the new position.
func (w *Watcher) Skip(cl *kgo.Client, corr *Corruption) {
	cl.SetOffsets(map[string]map[int32]kgo.EpochOffset{corr.Topic: {corr.Partition: {Epoch: -1, Offset: corr.Last + 1}}})
	w.Set(corr.Topic, corr.Partition, corr.Last+1)
}
