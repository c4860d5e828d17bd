package reassign

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/pkg/javaerr"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Throttle config names (QuotaConfig).
const (
	LeaderRate       = "leader.replication.throttled.rate"
	FollowerRate     = "follower.replication.throttled.rate"
	LogDirRate       = "replica.alter.log.dirs.io.max.bytes.per.second"
	LeaderReplicas   = "leader.replication.throttled.replicas"
	FollowerReplicas = "follower.replication.throttled.replicas"
)

// BrokerThrottles and TopicThrottles are the configs --verify and --cancel
// clear.
var (
	BrokerThrottles = []string{LeaderRate, FollowerRate, LogDirRate}
	TopicThrottles  = []string{LeaderReplicas, FollowerReplicas}
)

// Service runs the reassignment requests on one admin client.
type Service struct {
	Client *kgo.Client
	Admin  *kadm.Client
}

// KafkaError is a per-partition or per-resource error from a broker: the
// Java exception's class and message.
type KafkaError struct {
	Code    int16
	Message string
}

// Error is Throwable.getMessage.
func (e *KafkaError) Error() string { return e.Message }

// JavaString is Throwable.toString: "<class>: <message>".
func (e *KafkaError) JavaString() string { return javaerr.String(e.Code, e.Message) }

func kafkaErr(code int16, msg *string) error {
	if code == 0 {
		return nil
	}
	m := ""
	if msg != nil {
		m = *msg
	}
	if m == "" {
		var e *kerr.Error
		if errors.As(kerr.ErrorForCode(code), &e) {
			m = e.Description
		}
	}
	return &KafkaError{Code: code, Message: m}
}

// Brokers returns the registered brokers in the cluster's order, with racks.
func (s *Service) Brokers(ctx context.Context) ([]Broker, error) {
	md, err := s.Admin.BrokerMetadata(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]Broker, 0, len(md.Brokers))
	for _, b := range md.Brokers {
		br := Broker{ID: b.NodeID}
		if b.Rack != nil {
			br.Rack = *b.Rack
		}
		out = append(out, br)
	}
	return out, nil
}

// BrokerIDs returns the ids of brokers.
func BrokerIDs(bs []Broker) []int32 {
	out := make([]int32, len(bs))
	for i, b := range bs {
		out[i] = b.ID
	}
	return out
}

// TopicNotFoundError is a topic the cluster does not have.
type TopicNotFoundError struct{ Topic string }

func (e *TopicNotFoundError) Error() string { return "Topic " + e.Topic + " not found." }

// PartitionsNotFoundError lists partitions the cluster does not have.
type PartitionsNotFoundError struct{ Missing []TP }

func (e *PartitionsNotFoundError) Error() string {
	parts := make([]string, len(e.Missing))
	for i, tp := range e.Missing {
		parts[i] = tp.String()
	}
	return "Unable to find partition: " + strings.Join(parts, ", ")
}

// Assignment returns the replicas of every partition of topics; a missing
// topic is a *TopicNotFoundError (the first in Java HashMap order, as
// Apache reports it).
func (s *Service) Assignment(ctx context.Context, topics []string) (map[TP][]int32, error) {
	out := map[TP][]int32{}
	if len(topics) == 0 {
		return out, nil
	}
	md, err := s.Admin.Metadata(ctx, topics...)
	if err != nil {
		return nil, err
	}
	for _, t := range javafmt.HashMapOrder(topics, -1) {
		td, ok := md.Topics[t]
		if !ok || td.Err != nil {
			if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				return nil, &TopicNotFoundError{Topic: t}
			}
			return nil, td.Err
		}
		for _, p := range td.Partitions {
			out[TP{t, p.Partition}] = append([]int32(nil), p.Replicas...)
		}
	}
	return out, nil
}

// PartitionAssignment returns the replicas of the given partitions; any
// missing partition is a *PartitionsNotFoundError.
func (s *Service) PartitionAssignment(ctx context.Context, tps []TP) (map[TP][]int32, error) {
	seen := map[string]bool{}
	var topics []string
	for _, tp := range tps {
		if !seen[tp.Topic] {
			seen[tp.Topic] = true
			topics = append(topics, tp.Topic)
		}
	}
	all, err := s.Assignment(ctx, topics)
	if err != nil {
		return nil, err
	}
	out := map[TP][]int32{}
	var missing []TP
	for _, tp := range tps {
		if r, ok := all[tp]; ok {
			out[tp] = r
		} else {
			missing = append(missing, tp)
		}
	}
	if len(missing) > 0 {
		return nil, &PartitionsNotFoundError{Missing: tpSetOrder(missing)}
	}
	return out, nil
}

// tpSetOrder returns tps in the iteration order of a HashSet built from
// them.
func tpSetOrder(tps []TP) []TP {
	hs := make([]int32, len(tps))
	for i, tp := range tps {
		hs[i] = tp.JavaHash()
	}
	out := make([]TP, len(tps))
	for i, j := range javafmt.HashOrder(hs, javafmt.HashSetCopyCapacity(len(tps))) {
		out[i] = tps[j]
	}
	return out
}

// ReplicaDir is where a replica lives: its current log dir and, during a
// move between dirs, the future one. Size is the current replica's bytes.
type ReplicaDir struct {
	Current, Future string
	Size            int64
}

// ReplicaDirs describes the log dirs of the given partitions' replicas on
// every broker that answers.
func (s *Service) ReplicaDirs(ctx context.Context, tps []TP) (map[Replica]ReplicaDir, error) {
	out := map[Replica]ReplicaDir{}
	if len(tps) == 0 {
		return out, nil
	}
	set := kadm.TopicsSet{}
	for _, tp := range tps {
		set.Add(tp.Topic, tp.Partition)
	}
	all, err := s.Admin.DescribeAllLogDirs(ctx, set)
	if err != nil && len(all) == 0 {
		return nil, err
	}
	for _, dirs := range all {
		dirs.Each(func(d kadm.DescribedLogDir) {
			if d.Err != nil {
				return
			}
			d.Topics.Each(func(p kadm.DescribedLogDirPartition) {
				r := Replica{p.Topic, p.Partition, p.Broker}
				rd := out[r]
				if p.IsFuture {
					rd.Future = p.Dir
				} else {
					rd.Current = p.Dir
					rd.Size = p.Size
				}
				out[r] = rd
			})
		})
	}
	return out, nil
}

// CurrentDirs returns the current log dir of each replica of assign that
// a broker reports (getReplicaToLogDir).
func (s *Service) CurrentDirs(ctx context.Context, assign map[TP][]int32) (map[Replica]string, error) {
	rd, err := s.ReplicaDirs(ctx, SortedTPs(assign))
	if err != nil {
		return nil, err
	}
	out := map[Replica]string{}
	for tp, reps := range assign {
		for _, b := range reps {
			r := Replica{tp.Topic, tp.Partition, b}
			if d := rd[r]; d.Current != "" {
				out[r] = d.Current
			}
		}
	}
	return out, nil
}

// Ongoing is a reassignment in progress.
type Ongoing struct {
	Replicas, Adding, Removing []int32
}

// ListReassignments returns the reassignments in progress: of tps, or of
// every partition when tps is nil.
func (s *Service) ListReassignments(ctx context.Context, tps []TP) (map[TP]Ongoing, error) {
	req := kmsg.NewPtrListPartitionReassignmentsRequest()
	req.TimeoutMillis = 30000
	if tps != nil {
		byTopic := map[string][]int32{}
		var order []string
		for _, tp := range tps {
			if _, ok := byTopic[tp.Topic]; !ok {
				order = append(order, tp.Topic)
			}
			byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
		}
		for _, t := range order {
			rt := kmsg.NewListPartitionReassignmentsRequestTopic()
			rt.Topic = t
			rt.Partitions = byTopic[t]
			req.Topics = append(req.Topics, rt)
		}
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	if err := kafkaErr(resp.ErrorCode, resp.ErrorMessage); err != nil {
		return nil, err
	}
	out := map[TP]Ongoing{}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			out[TP{t.Topic, p.Partition}] = Ongoing{Replicas: p.Replicas, Adding: p.AddingReplicas, Removing: p.RemovingReplicas}
		}
	}
	return out, nil
}

// Alter starts reassignments (replicas non-nil) or cancels them (nil
// replicas); it returns the per-partition errors. allowRFChange false
// asks the controller to refuse a change of replication factor.
func (s *Service) Alter(ctx context.Context, targets map[TP][]int32, allowRFChange bool) (map[TP]error, error) {
	req := kmsg.NewPtrAlterPartitionAssignmentsRequest()
	req.TimeoutMillis = 60000
	req.AllowReplicationFactorChange = allowRFChange
	byTopic := map[string]*kmsg.AlterPartitionAssignmentsRequestTopic{}
	for _, tp := range SortedTPs(targets) {
		rt := byTopic[tp.Topic]
		if rt == nil {
			t := kmsg.NewAlterPartitionAssignmentsRequestTopic()
			t.Topic = tp.Topic
			req.Topics = append(req.Topics, t)
			rt = &req.Topics[len(req.Topics)-1]
			byTopic[tp.Topic] = rt
		}
		rp := kmsg.NewAlterPartitionAssignmentsRequestTopicPartition()
		rp.Partition = tp.Partition
		rp.Replicas = targets[tp]
		rt.Partitions = append(rt.Partitions, rp)
		// req.Topics may have grown: re-point every cached topic.
		for i := range req.Topics {
			byTopic[req.Topics[i].Topic] = &req.Topics[i]
		}
	}
	resp, err := req.RequestWith(ctx, s.Client)
	if err != nil {
		return nil, err
	}
	errs := map[TP]error{}
	if top := kafkaErr(resp.ErrorCode, resp.ErrorMessage); top != nil {
		for tp := range targets {
			errs[tp] = top
		}
		return errs, nil
	}
	for _, t := range resp.Topics {
		for _, p := range t.Partitions {
			if e := kafkaErr(p.ErrorCode, p.ErrorMessage); e != nil {
				errs[TP{t.Topic, p.Partition}] = e
			}
		}
	}
	return errs, nil
}

// PartitionMove is the brokers a partition moves from and to.
type PartitionMove struct {
	Sources, Destinations map[int32]bool
}

// MoveMap is calculateProposedMoveMap: the ongoing reassignments' moves,
// then each proposed partition's (sources: the ongoing move's sources, or
// the current replicas; destinations: the new replicas not among them).
func MoveMap(ongoing map[TP]Ongoing, proposed, current map[TP][]int32) (map[TP]PartitionMove, error) {
	m := map[TP]PartitionMove{}
	for tp, o := range ongoing {
		src := set(o.Replicas)
		for _, a := range o.Adding {
			delete(src, a)
		}
		m[tp] = PartitionMove{Sources: src, Destinations: set(o.Adding)}
	}
	for _, tp := range SortedTPs(proposed) {
		var src map[int32]bool
		if mv, ok := m[tp]; ok {
			src = mv.Sources
		} else if cur, ok := current[tp]; ok {
			src = set(cur)
		} else {
			return nil, fmt.Errorf("Trying to reassign a topic partition %s with 0 replicas", tp)
		}
		dst := set(proposed[tp])
		for b := range src {
			delete(dst, b)
		}
		m[tp] = PartitionMove{Sources: src, Destinations: dst}
	}
	return m, nil
}

func set(ids []int32) map[int32]bool {
	s := make(map[int32]bool, len(ids))
	for _, id := range ids {
		s[id] = true
	}
	return s
}

// TopicThrottleValues returns, per topic, the leader and follower
// throttled-replicas values ("p:b,..." sorted as strings, as Java's
// TreeSet of "%d:%d").
func TopicThrottleValues(moves map[TP]PartitionMove) (leader, follower map[string]string) {
	lt := map[string][]string{}
	ft := map[string][]string{}
	for tp, mv := range moves {
		if _, ok := lt[tp.Topic]; !ok {
			lt[tp.Topic] = nil
			ft[tp.Topic] = nil
		}
		for b := range mv.Sources {
			lt[tp.Topic] = append(lt[tp.Topic], fmt.Sprintf("%d:%d", tp.Partition, b))
		}
		for b := range mv.Destinations {
			if !mv.Sources[b] {
				ft[tp.Topic] = append(ft[tp.Topic], fmt.Sprintf("%d:%d", tp.Partition, b))
			}
		}
	}
	join := func(m map[string][]string) map[string]string {
		out := map[string]string{}
		for t, cs := range m {
			sort.Strings(cs)
			out[t] = strings.Join(cs, ",")
		}
		return out
	}
	return join(lt), join(ft)
}

// ReassigningBrokers is every source and destination broker, sorted.
func ReassigningBrokers(moves map[TP]PartitionMove) []int32 {
	s := map[int32]bool{}
	for _, mv := range moves {
		for b := range mv.Sources {
			s[b] = true
		}
		for b := range mv.Destinations {
			s[b] = true
		}
	}
	return sortedIDs(s)
}

func sortedIDs(s map[int32]bool) []int32 {
	out := make([]int32, 0, len(s))
	for b := range s {
		out = append(out, b)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func firstAlterErr(rs kadm.AlterConfigsResponses, err error) error {
	if err != nil {
		return err
	}
	for _, r := range rs {
		if r.Err != nil {
			if r.ErrMessage != "" {
				return fmt.Errorf("%s: %s", r.Name, r.ErrMessage)
			}
			return fmt.Errorf("%s: %w", r.Name, r.Err)
		}
	}
	return nil
}

// SetTopicThrottles sets the leader and follower throttled replicas of
// each topic.
func (s *Service) SetTopicThrottles(ctx context.Context, leader, follower map[string]string) error {
	topics := map[string]bool{}
	for t := range leader {
		topics[t] = true
	}
	for t := range follower {
		topics[t] = true
	}
	for t := range topics {
		var cs []kadm.AlterConfig
		if v, ok := leader[t]; ok {
			cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: LeaderReplicas, Value: &v})
		}
		if v, ok := follower[t]; ok {
			cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: FollowerReplicas, Value: &v})
		}
		if err := firstAlterErr(s.Admin.AlterTopicConfigs(ctx, cs, t)); err != nil {
			return err
		}
	}
	return nil
}

// SetBrokerConfigs sets each name to value on every broker.
func (s *Service) SetBrokerConfigs(ctx context.Context, brokers []int32, value int64, names ...string) error {
	v := strconv.FormatInt(value, 10)
	var cs []kadm.AlterConfig
	for _, n := range names {
		cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: n, Value: &v})
	}
	for _, b := range brokers {
		if err := firstAlterErr(s.Admin.AlterBrokerConfigs(ctx, cs, b)); err != nil {
			return err
		}
	}
	return nil
}

// ClearBrokerThrottles deletes the three throttle rates on every broker.
func (s *Service) ClearBrokerThrottles(ctx context.Context, brokers []int32) error {
	var cs []kadm.AlterConfig
	for _, n := range BrokerThrottles {
		cs = append(cs, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: n})
	}
	for _, b := range brokers {
		if err := firstAlterErr(s.Admin.AlterBrokerConfigs(ctx, cs, b)); err != nil {
			return err
		}
	}
	return nil
}

// ClearTopicThrottles deletes the throttled-replicas configs of topics.
func (s *Service) ClearTopicThrottles(ctx context.Context, topics []string) error {
	var cs []kadm.AlterConfig
	for _, n := range TopicThrottles {
		cs = append(cs, kadm.AlterConfig{Op: kadm.DeleteConfig, Name: n})
	}
	if len(topics) == 0 {
		return nil
	}
	return firstAlterErr(s.Admin.AlterTopicConfigs(ctx, cs, topics...))
}

// AlterReplicaDirs asks brokers to move replicas to the given dirs and
// returns the replicas whose move started; a replica the broker does not
// host yet (ReplicaNotAvailable) is left for a retry.
func (s *Service) AlterReplicaDirs(ctx context.Context, moves map[Replica]string) ([]Replica, error) {
	byBroker := map[int32]kadm.AlterReplicaLogDirsReq{}
	for r, d := range moves {
		req := byBroker[r.Broker]
		if req == nil {
			req = kadm.AlterReplicaLogDirsReq{}
			byBroker[r.Broker] = req
		}
		ts := kadm.TopicsSet{}
		ts.Add(r.Topic, r.Partition)
		req.Add(d, ts)
	}
	var started []Replica
	for b, req := range byBroker {
		rs, err := s.Admin.AlterBrokerReplicaLogDirs(ctx, b, req)
		if err != nil {
			return started, err
		}
		for _, r := range rs.Sorted() {
			rep := Replica{r.Topic, r.Partition, b}
			switch {
			case r.Err == nil:
				started = append(started, rep)
			case errors.Is(r.Err, kerr.ReplicaNotAvailable):
			default:
				return started, fmt.Errorf("Failed to alter dir for %s: %w", rep, r.Err)
			}
		}
	}
	sort.Slice(started, func(i, j int) bool { return LessReplica(started[i], started[j]) })
	return started, nil
}
