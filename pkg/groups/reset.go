package groups

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// ResetKind is an offset reset specification (Apache's --to-earliest, ...).
type ResetKind string

// The eight reset specifications.
const (
	ToEarliest ResetKind = "to-earliest"
	ToLatest   ResetKind = "to-latest"
	ToCurrent  ResetKind = "to-current"
	ToOffset   ResetKind = "to-offset"
	ShiftBy    ResetKind = "shift-by"
	ToDatetime ResetKind = "to-datetime"
	ByDuration ResetKind = "by-duration"
	FromFile   ResetKind = "from-file"
)

// ResetSpec says which offsets of which groups to reset to what.
type ResetSpec struct {
	Groups []string
	// Scope: AllTopics (every partition the group has committed) or
	// Topics ("t" for all its partitions, "t:0,1" for some). FromFile
	// needs no scope.
	AllTopics bool
	Topics    []string
	Kind      ResetKind
	// Offset is the target of ToOffset, the delta of ShiftBy.
	Offset int64
	// TimestampMs is the time of ToDatetime and ByDuration (resolved by
	// the caller: ByDuration is now minus the duration).
	TimestampMs int64
	// File is FromFile's plan: group → partition → requested offset.
	File map[string]map[TopicPartition]int64
}

// PartitionReset is one partition of a reset plan.
type PartitionReset struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Current   *int64 `json:"current_offset"` // committed offset, nil when none
	New       int64  `json:"new_offset"`
	// Requested is the offset asked for before clamping to the log
	// (ToOffset, ShiftBy, FromFile); Clamped says "earliest" or "latest"
	// when it was moved to the log start or end.
	Requested int64  `json:"requested_offset"`
	Clamped   string `json:"clamped,omitempty"`
	// NoRecordAtTime: no record at or after the timestamp (ToDatetime,
	// ByDuration); the new offset is the log end.
	NoRecordAtTime bool `json:"no_record_at_time,omitempty"`
}

// GroupReset is the plan of one group.
type GroupReset struct {
	Group string `json:"group"`
	State string `json:"state"` // as described; "Dead" for an unknown group
	// Refused: the group is active (not Empty or Dead); no partitions.
	Refused bool `json:"refused,omitempty"`
	// NoFilePlan: FromFile has no line for this group; no partitions.
	NoFilePlan bool             `json:"no_file_plan,omitempty"`
	Partitions []PartitionReset `json:"partitions"` // sorted by topic, partition
}

// ResetPlan is a planned reset, group by group (in name order).
type ResetPlan struct {
	Kind   ResetKind    `json:"spec"`
	Groups []GroupReset `json:"groups"`
}

// ArgError is a bad reset scope or argument found while planning (Apache
// prints it with its usage).
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return e.Msg }

// ErrNoScope: neither AllTopics nor Topics, and not FromFile.
var ErrNoScope = errors.New("no reset scope: all topics or a list of topics is needed")

// ErrNoSpec: the spec has no Kind.
var ErrNoSpec = errors.New("no reset specification")

// UnknownPartitionsError: partitions of the scope that do not exist
// (MissingTopics: their topics do not exist at all).
type UnknownPartitionsError struct {
	Partitions    []TopicPartition
	MissingTopics []string
}

func (e *UnknownPartitionsError) Error() string {
	return fmt.Sprintf("The partitions \"%s\" do not exist", joinTPs(e.Partitions))
}

// UnknownTopicError is a --topic (without partitions) the cluster does
// not have. It is kerr.UnknownTopicOrPartition to errors.Is: the drop-in
// prints Apache's text for it.
type UnknownTopicError struct{ Topic string }

func (e *UnknownTopicError) Error() string { return "topic " + e.Topic + " not found" }

func (e *UnknownTopicError) Unwrap() error { return kerr.UnknownTopicOrPartition }

// NoLeaderError: partitions of the scope without a leader.
type NoLeaderError struct{ Partitions []TopicPartition }

func (e *NoLeaderError) Error() string {
	return fmt.Sprintf("The partitions \"%s\" have no leader", joinTPs(e.Partitions))
}

func joinTPs(tps []TopicPartition) string {
	var s []string
	for _, tp := range tps {
		s = append(s, tp.String())
	}
	return strings.Join(s, ",")
}

// ParseTopicArg parses a --topic value "t" or "t:0,1,2" (Apache's rules:
// exactly one ':'; partitions are Java ints). Partitions is nil for "t".
func ParseTopicArg(arg string) (string, []int32, error) {
	if !strings.Contains(arg, ":") {
		return arg, nil, nil
	}
	parts := javaSplit(arg, ":")
	if len(parts) != 2 {
		return "", nil, &ArgError{Msg: "Invalid topic arg '" + arg + "', expected topic name and partitions"}
	}
	var ps []int32
	for _, p := range strings.Split(parts[1], ",") {
		n, err := strconv.ParseInt(p, 10, 32)
		if err != nil {
			return "", nil, &ArgError{Msg: "Invalid partition '" + p + "' specified in topic arg '" + arg + "''"}
		}
		ps = append(ps, int32(n))
	}
	return parts[0], ps, nil
}

// javaSplit is String.split(sep) for a literal separator: trailing empty
// strings are dropped.
func javaSplit(s, sep string) []string {
	parts := strings.Split(s, sep)
	for len(parts) > 0 && parts[len(parts)-1] == "" {
		parts = parts[:len(parts)-1]
	}
	return parts
}

// PlanReset plans a reset. Active groups are refused (Refused, with their
// state); unknown groups are planned (committing creates them). Offsets
// are clamped to the log start and end as Apache does.
func (c *Client) PlanReset(ctx context.Context, spec ResetSpec) (*ResetPlan, error) {
	ds, err := c.Describe(ctx, spec.Groups)
	if err != nil {
		return nil, err
	}
	plan := &ResetPlan{Kind: spec.Kind}
	for _, d := range ds {
		var nf *ErrGroupNotFound
		switch {
		case d.Err == nil && (d.State == "Empty" || d.State == "Dead"):
		case errors.As(d.Err, &nf):
		case d.Err != nil:
			return nil, d.Err
		default:
			plan.Groups = append(plan.Groups, GroupReset{Group: d.Group, State: d.State, Refused: true})
			continue
		}
		state := d.State
		if state == "" {
			state = "Dead"
		}
		gr, err := c.planGroup(ctx, d.Group, spec)
		if err != nil {
			return nil, err
		}
		gr.State = state
		plan.Groups = append(plan.Groups, *gr)
	}
	return plan, nil
}

func (c *Client) committed(ctx context.Context, group string) (map[TopicPartition]int64, error) {
	rs, err := c.Adm.FetchOffsets(ctx, group)
	if err != nil {
		return nil, err
	}
	out := map[TopicPartition]int64{}
	var ferr error
	rs.Each(func(o kadm.OffsetResponse) {
		if o.Err != nil {
			ferr = o.Err
			return
		}
		if o.At >= 0 {
			out[TopicPartition{o.Topic, o.Partition}] = o.At
		}
	})
	return out, ferr
}

// scope returns the partitions to reset.
func (c *Client) scope(ctx context.Context, spec ResetSpec, committed map[TopicPartition]int64) ([]TopicPartition, error) {
	if spec.AllTopics {
		var out []TopicPartition
		for tp := range committed {
			out = append(out, tp)
		}
		return sortedTPs(out), nil
	}
	var out, whole []TopicPartition
	var topics []string
	for _, a := range spec.Topics {
		t, ps, err := ParseTopicArg(a)
		if err != nil {
			return nil, err
		}
		if ps == nil {
			topics = append(topics, t)
			continue
		}
		for _, p := range ps {
			out = append(out, TopicPartition{t, p})
		}
	}
	if len(topics) > 0 {
		tds, err := c.Adm.ListTopics(ctx, topics...)
		if err != nil {
			return nil, err
		}
		for _, t := range topics {
			td, ok := tds[t]
			if !ok || errors.Is(td.Err, kerr.UnknownTopicOrPartition) {
				return nil, &UnknownTopicError{Topic: t}
			}
			if td.Err != nil {
				return nil, fmt.Errorf("topic %s: %w", t, td.Err)
			}
			for _, p := range td.Partitions.Sorted() {
				whole = append(whole, TopicPartition{t, p.Partition})
			}
		}
	}
	return dedupTPs(append(out, whole...)), nil
}

func dedupTPs(in []TopicPartition) []TopicPartition {
	seen := map[TopicPartition]bool{}
	var out []TopicPartition
	for _, tp := range in {
		if !seen[tp] {
			seen[tp] = true
			out = append(out, tp)
		}
	}
	return out
}

func (c *Client) planGroup(ctx context.Context, group string, spec ResetSpec) (*GroupReset, error) {
	gr := &GroupReset{Group: group}
	committed, err := c.committed(ctx, group)
	if err != nil {
		return nil, err
	}
	if !spec.AllTopics && len(spec.Topics) == 0 && spec.Kind != FromFile {
		return nil, ErrNoScope
	}
	scope, err := c.scope(ctx, spec, committed)
	if err != nil {
		return nil, err
	}
	// checkAllTopicPartitionsValid.
	li, err := c.logInfo(ctx, topicsOf(scope))
	if err != nil {
		return nil, err
	}
	if err := checkPartitionsValid(scope, li); err != nil {
		return nil, err
	}
	cur := func(tp TopicPartition) *int64 {
		if v, ok := committed[tp]; ok {
			return &v
		}
		return nil
	}
	add := func(tp TopicPartition, requested, nw int64, clamped string) {
		gr.Partitions = append(gr.Partitions, PartitionReset{Topic: tp.Topic, Partition: tp.Partition, Current: cur(tp), Requested: requested, New: nw, Clamped: clamped})
	}
	// clamp is checkOffsetsRange.
	clamp := func(req map[TopicPartition]int64) error {
		keys := make([]TopicPartition, 0, len(req))
		for tp := range req {
			keys = append(keys, tp)
		}
		info, err := c.logInfo(ctx, topicsOf(keys))
		if err != nil {
			return err
		}
		for _, tp := range sortedTPs(keys) {
			o := req[tp]
			i := info[tp]
			switch {
			case i.end != nil && o > *i.end:
				add(tp, o, *i.end, "latest")
			case i.start != nil && o < *i.start:
				add(tp, o, *i.start, "earliest")
			default:
				add(tp, o, o, "")
			}
		}
		return nil
	}
	switch spec.Kind {
	case ToEarliest, ToLatest:
		for _, tp := range scope {
			v := li[tp].start
			what := "starting"
			if spec.Kind == ToLatest {
				v, what = li[tp].end, "ending"
			}
			if v == nil {
				return nil, &ArgError{Msg: fmt.Sprintf("Error getting %s offset of topic partition: %s", what, tp)}
			}
			add(tp, *v, *v, "")
		}
	case ToOffset:
		req := map[TopicPartition]int64{}
		for _, tp := range scope {
			req[tp] = spec.Offset
		}
		if err := clamp(req); err != nil {
			return nil, err
		}
	case ShiftBy:
		req := map[TopicPartition]int64{}
		for _, tp := range scope {
			v, ok := committed[tp]
			if !ok {
				return nil, &ArgError{Msg: fmt.Sprintf("Cannot shift offset for partition %s since there is no current committed offset", tp)}
			}
			req[tp] = v + spec.Offset
		}
		if err := clamp(req); err != nil {
			return nil, err
		}
	case ToDatetime, ByDuration:
		at, err := c.offsetsForTime(ctx, scope, spec.TimestampMs)
		if err != nil {
			return nil, err
		}
		for _, tp := range scope {
			o, ok := at[tp]
			if ok && o >= 0 {
				add(tp, o, o, "")
				continue
			}
			e := li[tp].end
			if e == nil {
				return nil, &ArgError{Msg: fmt.Sprintf("Error getting offset by timestamp of topic partition: %s", tp)}
			}
			add(tp, *e, *e, "")
			gr.Partitions[len(gr.Partitions)-1].NoRecordAtTime = true
		}
	case FromFile:
		fp, ok := spec.File[group]
		if !ok {
			gr.NoFilePlan = true
			return gr, nil
		}
		if err := clamp(fp); err != nil {
			return nil, err
		}
	case ToCurrent:
		for _, tp := range scope {
			if v, ok := committed[tp]; ok {
				add(tp, v, v, "")
				continue
			}
			e := li[tp].end
			if e == nil {
				return nil, fmt.Errorf("Error getting ending offset of topic partition: %s", tp)
			}
			add(tp, *e, *e, "")
		}
	case "":
		return nil, ErrNoSpec
	default:
		return nil, fmt.Errorf("unknown reset specification %q", spec.Kind)
	}
	sort.SliceStable(gr.Partitions, func(i, j int) bool {
		a, b := gr.Partitions[i], gr.Partitions[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return gr, nil
}

// checkPartitionsValid is checkAllTopicPartitionsValid: every partition
// of the scope exists and has a leader.
func checkPartitionsValid(scope []TopicPartition, li map[TopicPartition]logInfo) error {
	var missing, noLeader []TopicPartition
	var missingTopics []string
	topicExists := map[string]bool{}
	for tp := range li {
		topicExists[tp.Topic] = true
	}
	for _, tp := range scope {
		info, ok := li[tp]
		switch {
		case !ok:
			missing = append(missing, tp)
			if !topicExists[tp.Topic] {
				missingTopics = append(missingTopics, tp.Topic)
			}
		case !info.hasLeader:
			noLeader = append(noLeader, tp)
		}
	}
	if len(missing) > 0 {
		return &UnknownPartitionsError{Partitions: missing, MissingTopics: missingTopics}
	}
	if len(noLeader) > 0 {
		return &NoLeaderError{Partitions: noLeader}
	}
	return nil
}

func topicsOf(tps []TopicPartition) []string {
	m := map[string]bool{}
	for _, tp := range tps {
		m[tp.Topic] = true
	}
	return keys(m)
}

// offsetsForTime lists, per partition, the first offset whose timestamp
// is at or after ms (-1: none, the partition has no such record).
func (c *Client) offsetsForTime(ctx context.Context, tps []TopicPartition, ms int64) (map[TopicPartition]int64, error) {
	out := map[TopicPartition]int64{}
	if len(tps) == 0 {
		return out, nil
	}
	req := kmsg.NewPtrListOffsetsRequest()
	req.ReplicaID = -1
	byTopic := map[string][]int32{}
	for _, tp := range tps {
		byTopic[tp.Topic] = append(byTopic[tp.Topic], tp.Partition)
	}
	for _, t := range keys(boolKeys(byTopic)) {
		rt := kmsg.NewListOffsetsRequestTopic()
		rt.Topic = t
		for _, p := range byTopic[t] {
			rp := kmsg.NewListOffsetsRequestTopicPartition()
			rp.Partition = p
			rp.CurrentLeaderEpoch = -1
			rp.Timestamp = ms
			rt.Partitions = append(rt.Partitions, rp)
		}
		req.Topics = append(req.Topics, rt)
	}
	for _, sh := range c.Kgo.RequestSharded(ctx, req) {
		if sh.Err != nil {
			return nil, sh.Err
		}
		resp := sh.Resp.(*kmsg.ListOffsetsResponse)
		for _, t := range resp.Topics {
			for _, p := range t.Partitions {
				if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
					return nil, err
				}
				out[TopicPartition{t.Topic, p.Partition}] = p.Offset
			}
		}
	}
	return out, nil
}

func boolKeys[V any](m map[string]V) map[string]bool {
	out := make(map[string]bool, len(m))
	for k := range m {
		out[k] = true
	}
	return out
}

// ApplyReset commits the plan's new offsets, group by group (refused
// groups and groups without a file plan are skipped).
func (c *Client) ApplyReset(ctx context.Context, plan *ResetPlan) error {
	for _, g := range plan.Groups {
		if g.Refused || g.NoFilePlan || len(g.Partitions) == 0 {
			continue
		}
		os := make(kadm.Offsets)
		for _, p := range g.Partitions {
			os.Add(kadm.Offset{Topic: p.Topic, Partition: p.Partition, At: p.New, LeaderEpoch: -1})
		}
		rs, err := c.Adm.CommitOffsets(ctx, g.Group, os)
		if err != nil {
			return err
		}
		if err := rs.Error(); err != nil {
			return err
		}
	}
	return nil
}
