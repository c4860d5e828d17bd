package logdirs

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ReadOptions select what Read asks.
type ReadOptions struct {
	// Brokers are the brokers to ask; nil asks every broker the cluster
	// lists. When the cluster's brokers are listed (nil Brokers,
	// Registered or Leaders), an id it does not list is an
	// *UnknownBrokerError and nothing is asked.
	Brokers []int32
	// Registered lists the brokers registered with the controller
	// (DescribeCluster, fenced ones included) instead of metadata's live
	// brokers. A fenced broker is reported failed with ErrFenced, not
	// asked: a client cannot reach it.
	Registered bool
	// Leaders reads the partitions' leaders (one Metadata request, alongside
	// the log dirs when the brokers come from DescribeCluster) for the
	// logical sizes. Its failure is Input.LeadersErr, not Read's error.
	Leaders bool
	// Query tunes each broker's DescribeLogDirs (timeout, retries, the
	// partitions asked).
	Query QueryOptions
	// Keep selects the topics the reports include (nil: all).
	Keep func(topic string) bool
	// Now is the clock of Input.At (nil: time.Now).
	Now func() time.Time
}

// ErrFenced is the failure of a fenced broker (Read with Registered).
var ErrFenced = errors.New("fenced by the controller (broker stopped or not serving)")

// UnknownBrokerError is a requested broker id the cluster does not list.
type UnknownBrokerError struct {
	Missing []int32
	Cluster []int32 // sorted
}

func (e *UnknownBrokerError) Error() string {
	return fmt.Sprintf("unknown broker %s (cluster brokers: %s)", joinIDs(e.Missing), joinIDs(e.Cluster))
}

// Read is the one way kbox reads a cluster's log dirs (kbox log-dirs,
// kafka-topics --describe -o wide, kbox status and top, kbox ui): the
// brokers the cluster lists and their addresses (one Metadata or
// DescribeCluster request, when the caller did not name the brokers or
// wants leaders), every broker's DescribeLogDirs concurrently, and the
// partition leaders when asked. The brokers are asked in id order. A
// broker that does not answer is in Query.Failed (sorted by id); the
// error is only for brokers that could not be listed (or an unknown id).
func Read(ctx context.Context, cl *kgo.Client, o ReadOptions) (*Input, error) {
	now := o.Now
	if now == nil {
		now = time.Now
	}
	in := &Input{Hosts: map[int32]string{}, Keep: o.Keep}
	var listed []ClusterBroker
	// leaders, when not read by the listing request, is read alongside
	// the log dirs.
	var leaders func()
	switch {
	case o.Registered:
		reg, err := DescribeCluster(ctx, cl, true)
		if err != nil {
			return nil, err
		}
		listed = reg
		if o.Leaders {
			leaders = func() { _, in.Leaders, in.LeadersErr = metadata(ctx, cl, true) }
		}
	case o.Brokers == nil || o.Leaders:
		bs, ls, err := metadata(ctx, cl, o.Leaders)
		if err != nil {
			if o.Brokers == nil {
				return nil, err
			}
			// The brokers are known: only the leaders are missing.
			in.LeadersErr = err
			break
		}
		listed, in.Leaders = bs, ls
	}
	for _, b := range listed {
		in.Hosts[b.ID] = b.Host + ":" + strconv.Itoa(int(b.Port))
	}
	in.Brokers = listed
	targets := o.Brokers
	if listed != nil {
		var err error
		if targets, err = Targets(listed, o.Brokers); err != nil {
			return nil, err
		}
	} else {
		targets = uniqueSorted(targets)
	}
	fenced := map[int32]bool{}
	for _, b := range listed {
		if b.Fenced {
			fenced[b.ID] = true
		}
	}
	var live []int32
	var failed []BrokerFailure
	for _, id := range targets {
		if fenced[id] {
			failed = append(failed, BrokerFailure{Broker: id, Err: ErrFenced})
		} else {
			live = append(live, id)
		}
	}
	var wg sync.WaitGroup
	if leaders != nil {
		wg.Add(1)
		go func() {
			defer wg.Done()
			leaders()
		}()
	}
	in.Query = QueryBrokers(ctx, cl, live, o.Query)
	in.At = now()
	wg.Wait()
	in.Query.Failed = append(in.Query.Failed, failed...)
	sort.SliceStable(in.Query.Failed, func(i, j int) bool { return in.Query.Failed[i].Broker < in.Query.Failed[j].Broker })
	return in, nil
}

// Targets are the requested brokers the cluster lists, sorted and without
// repeats (nil requested: every broker listed); an id not listed is an
// *UnknownBrokerError.
func Targets(listed []ClusterBroker, requested []int32) ([]int32, error) {
	known := map[int32]bool{}
	all := make([]int32, 0, len(listed))
	for _, b := range listed {
		known[b.ID] = true
		all = append(all, b.ID)
	}
	all = uniqueSorted(all)
	if requested == nil {
		return all, nil
	}
	var missing []int32
	for _, id := range requested {
		if !known[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return nil, &UnknownBrokerError{Missing: missing, Cluster: all}
	}
	return uniqueSorted(requested), nil
}

func uniqueSorted(ids []int32) []int32 {
	out := append([]int32(nil), ids...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	n := 0
	for i, id := range out {
		if i == 0 || id != out[n-1] {
			out[n] = id
			n++
		}
	}
	return out[:n]
}

// metadata is one Metadata request: the live brokers, and with leaders
// every topic's partition leaders (-1: none).
func metadata(ctx context.Context, cl *kgo.Client, leaders bool) ([]ClusterBroker, map[string]map[int32]int32, error) {
	req := kmsg.NewPtrMetadataRequest()
	if !leaders {
		req.Topics = []kmsg.MetadataRequestTopic{} // none
	}
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		return nil, nil, err
	}
	bs := make([]ClusterBroker, 0, len(resp.Brokers))
	for _, b := range resp.Brokers {
		bs = append(bs, ClusterBroker{ID: b.NodeID, Host: b.Host, Port: b.Port})
	}
	if !leaders {
		return bs, nil, nil
	}
	ls := make(map[string]map[int32]int32, len(resp.Topics))
	for _, t := range resp.Topics {
		if t.Topic == nil || t.ErrorCode != 0 {
			continue
		}
		ps := make(map[int32]int32, len(t.Partitions))
		for _, p := range t.Partitions {
			ps[p.Partition] = p.Leader
		}
		ls[*t.Topic] = ps
	}
	return bs, ls, nil
}

// ReplicaSize is one replica's size on a broker.
type ReplicaSize struct {
	Broker int32
	Size   int64
}

// Sizes are the current (not future) replicas' sizes of the topics a
// Query answered, by topic and partition id (a topic's slice is as long
// as its highest partition id seen plus one).
type Sizes map[string][][]ReplicaSize

// Sizes indexes the answered replicas by topic and partition, for topics
// keep accepts (nil: all): one pass over every replica, so that a
// 10,000-partition topic's lookups stay linear.
func (q *Query) Sizes(keep func(topic string) bool) Sizes {
	out := Sizes{}
	if q == nil {
		return out
	}
	for _, bd := range q.Answered {
		for _, d := range bd.Dirs {
			for _, r := range d.Replicas {
				if r.IsFuture || r.Partition < 0 || (keep != nil && !keep(r.Topic)) {
					continue
				}
				ps := out[r.Topic]
				if int(r.Partition) >= len(ps) {
					grown := make([][]ReplicaSize, int(r.Partition)+1, max(int(r.Partition)+1, 2*len(ps)))
					copy(grown, ps)
					ps = grown
				}
				ps[r.Partition] = append(ps[r.Partition], ReplicaSize{Broker: bd.Broker, Size: r.Size})
				out[r.Topic] = ps
			}
		}
	}
	return out
}

// Of is one partition's replica sizes (nil when none answered).
func (s Sizes) Of(topic string, partition int32) []ReplicaSize {
	ps := s[topic]
	if partition < 0 || int(partition) >= len(ps) {
		return nil
	}
	return ps[partition]
}
