package transactions

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxBatch is how many topics or partitions one request asks about (the
// tool's MAX_BATCH_SIZE).
const maxBatch = 500

// StepError is a failed step of a search, named as Apache's tool names it
// ("Failed to list topics", "Failed to describe 3 topics", ...).
type StepError struct {
	Step string
	Err  error
}

func (e *StepError) Error() string { return e.Step + ": " + e.Err.Error() }
func (e *StepError) Unwrap() error { return e.Err }

func step(err error, format string, a ...any) error {
	if err == nil {
		return nil
	}
	return &StepError{Step: fmt.Sprintf(format, a...), Err: err}
}

// Scope limits a search: a broker (the partitions it has a replica of),
// a topic, or one partition of a topic. Nothing set: every partition.
type Scope struct {
	Broker    *int32
	Topic     string
	Partition *int32
}

// partitions lists the partitions in scope, in Apache's order: the given
// partition, else the topics (all, internal ones too, when none is given)
// described in batches, each topic's partitions in order.
func partitions(ctx context.Context, cl *kgo.Client, sc Scope) ([]Partition, map[Partition]int32, error) {
	if sc.Topic != "" && sc.Partition != nil {
		return []Partition{{sc.Topic, *sc.Partition}}, nil, nil
	}
	var topics []string
	if sc.Topic != "" {
		topics = []string{sc.Topic}
	} else {
		resp, err := kmsg.NewPtrMetadataRequest().RequestWith(ctx, cl)
		if err != nil {
			return nil, nil, step(err, "Failed to list topics")
		}
		var names []string
		for _, t := range resp.Topics {
			if t.Topic != nil && t.ErrorCode == 0 {
				names = append(names, *t.Topic)
			}
		}
		topics = javafmt.HashOrdered(names, javafmt.StringHash, -1) // a HashSet's names
	}
	var out []Partition
	leaders := map[Partition]int32{}
	for i := 0; i < len(topics); i += maxBatch {
		batch := topics[i:min(i+maxBatch, len(topics))]
		req := kmsg.NewPtrMetadataRequest()
		for _, t := range batch {
			rt := kmsg.NewMetadataRequestTopic()
			rt.Topic = kmsg.StringPtr(t)
			req.Topics = append(req.Topics, rt)
		}
		resp, err := req.RequestWith(ctx, cl)
		if err != nil {
			return nil, nil, step(err, "Failed to describe %d topics", len(batch))
		}
		byName := map[string]kmsg.MetadataResponseTopic{}
		for _, t := range resp.Topics {
			if t.Topic != nil {
				byName[*t.Topic] = t
			}
		}
		var found []string
		for _, name := range batch {
			t, ok := byName[name]
			if !ok {
				t.ErrorCode = kerr.UnknownTopicOrPartition.Code
			}
			if err := apiError(t.ErrorCode, nil); err != nil {
				return nil, nil, step(err, "Failed to describe %d topics", len(batch))
			}
			found = append(found, name)
		}
		// allTopicNames() is a HashMap of the batch's topics.
		for _, name := range javafmt.HashOrdered(found, javafmt.StringHash, -1) {
			t := byName[name]
			ps := make([]kmsg.MetadataResponseTopicPartition, len(t.Partitions))
			for _, p := range t.Partitions {
				if int(p.Partition) < len(ps) {
					ps[p.Partition] = p
				}
			}
			for _, p := range ps {
				if sc.Broker != nil && !hasReplica(p.Replicas, *sc.Broker) {
					continue
				}
				tp := Partition{name, p.Partition}
				out = append(out, tp)
				leaders[tp] = p.Leader
			}
		}
	}
	return out, leaders, nil
}

func hasReplica(replicas []int32, id int32) bool {
	for _, r := range replicas {
		if r == id {
			return true
		}
	}
	return false
}

// openTransactions describes the producers of parts in batches (on
// broker, else on the leaders) and returns the open transactions idle for
// more than idleMs (now minus the producer's last timestamp), in the
// order Apache's tool finds them. With skip, a partition that cannot be
// described is left out (listed in the second result) instead of failing
// the search.
func openTransactions(ctx context.Context, cl *kgo.Client, parts []Partition, broker *int32, idleMs int64, now func() time.Time, skip bool) ([]Producer, []Skipped, error) {
	var out []Producer
	var skipped []Skipped
	for i := 0; i < len(parts); i += maxBatch {
		batch := parts[i:min(i+maxBatch, len(parts))]
		var states map[Partition][]Producer
		var err error
		if skip {
			var failed map[Partition]error
			states, failed, err = describeProducers(ctx, cl, batch, broker)
			for _, p := range batch {
				if e := failed[p]; e != nil {
					skipped = append(skipped, Skipped{Topic: p.Topic, Partition: p.Partition, Error: e.Error()})
				}
			}
		} else {
			states, err = DescribeProducers(ctx, cl, batch, broker)
		}
		if err != nil {
			on := "Optional.empty"
			if broker != nil {
				on = fmt.Sprintf("Optional[%d]", *broker)
			}
			return nil, nil, step(err, "Failed to describe producers for %d partitions on broker %s", len(batch), on)
		}
		nowMs := now().UnixMilli()
		for _, p := range javafmt.HashOrdered(batch, Partition.javaHash, len(batch)) {
			for _, s := range states[p] {
				if s.Open() && nowMs-s.LastTimestamp > idleMs {
					out = append(out, s)
				}
			}
		}
	}
	return out, skipped, nil
}

// transactionalIDs maps producer ids to their transactional ids
// (ListTransactions filtered by the ids, on every broker).
func transactionalIDs(ctx context.Context, cl *kgo.Client, pids []int64) (map[int64]string, error) {
	ls, _, err := List(ctx, cl, ListOptions{ProducerIDs: pids})
	if err != nil {
		return nil, step(err, "Failed to list transactions for %d producers", len(pids))
	}
	want := map[int64]bool{}
	for _, p := range pids {
		want[p] = true
	}
	out := map[int64]string{}
	for _, l := range ls {
		for _, t := range l {
			if want[t.ProducerID] {
				out[t.ProducerID] = t.TransactionalID
			}
		}
	}
	return out, nil
}

// describeAll describes the transactional ids; an id the coordinator does
// not know maps to nil, any other failure fails the search.
func describeAll(ctx context.Context, cl *kgo.Client, ids []string) (map[string]*Description, error) {
	uniq := javafmt.HashOrdered(ids, javafmt.StringHash, -1)
	descs, errs, err := Describe(ctx, cl, uniq...)
	if err == nil {
		for _, id := range ids {
			var ae *APIError
			if e := errs[id]; e != nil && !(errors.As(e, &ae) && ae.Code == kerr.TransactionalIDNotFound.Code) {
				err = e
				break
			}
		}
	}
	if err != nil {
		return nil, step(err, "Failed to describe %d transactions", len(ids))
	}
	return descs, nil
}

// longHash is Long.hashCode.
func longHash(v int64) int32 { return int32(v ^ int64(uint64(v)>>32)) }

// FindHanging is Apache's find-hanging: the open transactions in scope
// idle for more than maxTimeout whose coordinator does not expect to
// finish them (no transactional id for the producer, an id the
// coordinator does not know, or a transaction that does not list the
// partition), in the tool's order (by producer id as a HashMap<Long,...>
// iterates). A failed step is a *StepError.
func FindHanging(ctx context.Context, cl *kgo.Client, sc Scope, maxTimeout time.Duration, now func() time.Time) ([]Producer, error) {
	parts, _, err := partitions(ctx, cl, sc)
	if err != nil {
		return nil, err
	}
	cands, _, err := openTransactions(ctx, cl, parts, sc.Broker, maxTimeout.Milliseconds(), now, false)
	if err != nil || len(cands) == 0 {
		return nil, err
	}
	byPID := map[int64][]Producer{}
	var pids []int64
	for _, c := range cands {
		if _, ok := byPID[c.ProducerID]; !ok {
			pids = append(pids, c.ProducerID)
		}
		byPID[c.ProducerID] = append(byPID[c.ProducerID], c)
	}
	pids = javafmt.HashOrdered(pids, longHash, -1)
	ids, err := transactionalIDs(ctx, cl, pids)
	if err != nil {
		return nil, err
	}
	var idList []string
	for _, pid := range javafmt.HashOrdered(keys(ids), longHash, -1) {
		idList = append(idList, ids[pid])
	}
	descs, err := describeAll(ctx, cl, idList)
	if err != nil {
		return nil, err
	}
	var out []Producer
	for _, pid := range pids {
		id, ok := ids[pid]
		d := descs[id]
		for _, c := range byPID[pid] {
			if !ok || d == nil || !d.Has(c.Partition) {
				out = append(out, c)
			}
		}
	}
	return out, nil
}

func keys[K comparable, V any](m map[K]V) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	return out
}
