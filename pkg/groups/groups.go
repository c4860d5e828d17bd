// Package groups is the consumer-group domain of kbox: listing groups,
// describing them (state, coordinator, members with their KIP-848 epochs
// and assignments), their committed offsets against the log end (lag),
// planning and applying offset resets, and deleting groups or offsets.
// It never prints; cmd/consumergroups (the kafka-consumer-groups drop-in)
// and the native `kbox groups` commands present its results.
package groups

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// Client runs group operations through an admin client.
type Client struct {
	Kgo *kgo.Client
	Adm *kadm.Client
}

// New returns a Client on a connected kgo client.
func New(cl *kgo.Client) *Client { return &Client{Kgo: cl, Adm: kadm.NewClient(cl)} }

// Group types, as Java's GroupType prints them.
const (
	TypeClassic  = "Classic"
	TypeConsumer = "Consumer"
)

// ErrGroupNotFound is the error of a group the coordinator does not know
// (Java's GroupIdNotFoundException "Group G not found.").
type ErrGroupNotFound struct{ Group string }

func (e *ErrGroupNotFound) Error() string { return "Group " + e.Group + " not found." }

// Listing is one listed group.
type Listing struct {
	Group        string `json:"group"`
	Type         string `json:"type"`  // Classic, Consumer ("" when the broker does not say)
	State        string `json:"state"` // Stable, Empty, ...
	ProtocolType string `json:"protocol_type"`
	Coordinator  int32  `json:"coordinator_id"`
}

// ListFilter restricts List: states (case-insensitive, Java names such as
// "Stable") and types ("classic", "consumer"); empty means all.
type ListFilter struct {
	States []string
	Types  []string
}

// List lists consumer groups (classic groups of protocol type "consumer"
// or "", and KIP-848 consumer groups), sorted by name.
func (c *Client) List(ctx context.Context, f ListFilter) ([]Listing, error) {
	types := f.Types
	if len(types) == 0 {
		types = []string{"classic", "consumer"}
	}
	var lower []string
	for _, t := range types {
		lower = append(lower, strings.ToLower(t))
	}
	var states []string
	for _, s := range f.States {
		states = append(states, javaStateName(s))
	}
	ls, err := c.Adm.ListGroupsByType(ctx, lower, states...)
	if err != nil {
		return nil, err
	}
	var out []Listing
	for _, g := range ls {
		if g.ProtocolType != "consumer" && g.ProtocolType != "" {
			continue
		}
		out = append(out, Listing{Group: g.Group, Type: typeName(g.GroupType), State: g.State, ProtocolType: g.ProtocolType, Coordinator: g.Coordinator})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Group < out[j].Group })
	return out, nil
}

// javaStateName maps a state as a user types it ("stable",
// "preparingrebalance") to the broker's name ("Stable").
func javaStateName(s string) string {
	for _, n := range States {
		if strings.EqualFold(n, s) {
			return n
		}
	}
	return s
}

// States are the consumer group states (Java's GroupState names valid for
// consumer groups).
var States = []string{"PreparingRebalance", "CompletingRebalance", "Stable", "Dead", "Empty", "Assigning", "Reconciling"}

func typeName(t string) string {
	switch strings.ToLower(t) {
	case "classic":
		return TypeClassic
	case "consumer":
		return TypeConsumer
	case "":
		return ""
	}
	return strings.ToUpper(t[:1]) + t[1:]
}

// TopicPartition names one partition.
type TopicPartition struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
}

func (tp TopicPartition) String() string { return fmt.Sprintf("%s-%d", tp.Topic, tp.Partition) }

// Member is one group member.
type Member struct {
	MemberID   string           `json:"member_id"`
	InstanceID string           `json:"group_instance_id,omitempty"`
	ClientID   string           `json:"client_id"`
	Host       string           `json:"host"`
	Assignment []TopicPartition `json:"assignment"`
	// KIP-848 only.
	Target   []TopicPartition `json:"target_assignment,omitempty"`
	Epoch    *int32           `json:"member_epoch,omitempty"`
	Upgraded *bool            `json:"upgraded,omitempty"` // a classic-protocol member of a consumer group: false
}

// Coordinator is a group's coordinator broker.
type Coordinator struct {
	ID   int32  `json:"id"`
	Host string `json:"host"`
	Port int32  `json:"port"`
}

// Group is one described group.
type Group struct {
	Group              string      `json:"group"`
	Type               string      `json:"type"`
	State              string      `json:"state"`
	Coordinator        Coordinator `json:"coordinator"`
	AssignmentStrategy string      `json:"assignment_strategy"`
	// KIP-848 only.
	GroupEpoch            *int32   `json:"group_epoch,omitempty"`
	TargetAssignmentEpoch *int32   `json:"target_assignment_epoch,omitempty"`
	Members               []Member `json:"members"`
	Err                   error    `json:"-"`
}

// Describe describes groups, in name order; a group that cannot be
// described carries Err (*ErrGroupNotFound for an unknown group). KIP-848
// groups are described with ConsumerGroupDescribe, the others with the
// classic DescribeGroups. Members keep the order the coordinator returns
// them in, as Apache's tool prints them (kadm would sort them), so the
// requests are issued here rather than through kadm.
func (c *Client) Describe(ctx context.Context, groups []string) ([]Group, error) {
	groups = uniqSorted(groups)
	if len(groups) == 0 {
		return nil, nil
	}
	res := map[string]Group{}
	var classic []string
	cgs := c.describeConsumer(ctx, groups)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	for _, g := range groups {
		d, ok := cgs[g]
		if !ok || d.Err != nil {
			if !ok || errors.Is(d.Err, kerr.GroupIDNotFound) || errors.Is(d.Err, kerr.UnsupportedVersion) {
				classic = append(classic, g)
				continue
			}
			res[g] = Group{Group: g, Err: d.Err}
			continue
		}
		res[g] = d
	}
	if len(classic) > 0 {
		ds, err := c.describeClassic(ctx, classic)
		if err != nil {
			return nil, err
		}
		for _, g := range classic {
			d, ok := ds[g]
			switch {
			case !ok:
				res[g] = Group{Group: g, Err: fmt.Errorf("group %s: no response", g)}
			case errors.Is(d.Err, kerr.GroupIDNotFound):
				res[g] = Group{Group: g, State: "Dead", Err: &ErrGroupNotFound{Group: g}}
			case d.Err != nil:
				res[g] = Group{Group: g, Err: d.Err}
			case d.State == "Dead":
				res[g] = Group{Group: g, State: "Dead", Err: &ErrGroupNotFound{Group: g}}
			default:
				res[g] = d
			}
		}
	}
	out := make([]Group, 0, len(groups))
	for _, g := range groups {
		out = append(out, res[g])
	}
	return out, nil
}

// describeConsumer issues ConsumerGroupDescribe to the groups'
// coordinators. A group whose request failed (an old broker, an
// unreachable coordinator) is left out, so that the caller falls back to
// DescribeGroups, which reports the failure.
func (c *Client) describeConsumer(ctx context.Context, groups []string) map[string]Group {
	req := kmsg.NewPtrConsumerGroupDescribeRequest()
	req.Groups = groups
	out := map[string]Group{}
	for _, sh := range c.Kgo.RequestSharded(ctx, req) {
		if sh.Err != nil {
			continue
		}
		resp, ok := sh.Resp.(*kmsg.ConsumerGroupDescribeResponse)
		if !ok {
			continue
		}
		for _, rg := range resp.Groups {
			if err := kerr.ErrorForCode(rg.ErrorCode); err != nil {
				out[rg.Group] = Group{Group: rg.Group, Err: err}
				continue
			}
			out[rg.Group] = fromConsumer(rg, sh.Meta)
		}
	}
	return out
}

// describeClassic issues DescribeGroups to the groups' coordinators. A
// group whose request failed carries that error; when every request failed
// the first error is returned.
func (c *Client) describeClassic(ctx context.Context, groups []string) (map[string]Group, error) {
	req := kmsg.NewPtrDescribeGroupsRequest()
	req.Groups = groups
	out := map[string]Group{}
	var firstErr error
	answered := false
	for _, sh := range c.Kgo.RequestSharded(ctx, req) {
		if sh.Err == nil {
			if resp, ok := sh.Resp.(*kmsg.DescribeGroupsResponse); ok {
				answered = true
				for _, rg := range resp.Groups {
					out[rg.Group] = fromClassic(rg, sh.Meta)
				}
				continue
			}
		}
		err := sh.Err
		if err == nil {
			err = fmt.Errorf("unexpected response %T", sh.Resp)
		}
		if firstErr == nil {
			firstErr = err
		}
		if r, ok := sh.Req.(*kmsg.DescribeGroupsRequest); ok {
			for _, g := range r.Groups {
				out[g] = Group{Group: g, Err: err}
			}
		}
	}
	if !answered && firstErr != nil {
		return nil, firstErr
	}
	return out, nil
}

func uniqSorted(in []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, s := range in {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

func coordinator(b kgo.BrokerMetadata) Coordinator {
	return Coordinator{ID: b.NodeID, Host: b.Host, Port: b.Port}
}

func tps(s kadm.TopicsSet) []TopicPartition {
	var out []TopicPartition
	for _, t := range s.Sorted() {
		for _, p := range t.Partitions {
			out = append(out, TopicPartition{Topic: t.Topic, Partition: p})
		}
	}
	return out
}

func fromConsumer(rg kmsg.ConsumerGroupDescribeResponseGroup, b kgo.BrokerMetadata) Group {
	ge, te := rg.Epoch, rg.AssignmentEpoch
	g := Group{Group: rg.Group, Type: TypeConsumer, State: rg.State, Coordinator: coordinator(b),
		AssignmentStrategy: rg.AssignorName, GroupEpoch: &ge, TargetAssignmentEpoch: &te}
	set := func(a []kmsg.AssignmentTopicPartition) []TopicPartition {
		s := make(kadm.TopicsSet)
		for _, tp := range a {
			s.Add(tp.Topic, tp.Partitions...)
		}
		return tps(s)
	}
	for _, m := range rg.Members {
		ep := m.MemberEpoch
		mm := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost,
			Assignment: set(m.Assignment.TopicPartitions), Target: set(m.TargetAssignment.TopicPartitions), Epoch: &ep}
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		switch m.MemberType {
		case 0:
			f := false
			mm.Upgraded = &f
		case 1:
			t := true
			mm.Upgraded = &t
		}
		g.Members = append(g.Members, mm)
	}
	return g
}

func fromClassic(rg kmsg.DescribeGroupsResponseGroup, b kgo.BrokerMetadata) Group {
	g := Group{Group: rg.Group, Type: TypeClassic, State: rg.State, Coordinator: coordinator(b), AssignmentStrategy: rg.Protocol,
		Err: kerr.ErrorForCode(rg.ErrorCode)}
	for _, m := range rg.Members {
		mm := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		if rg.ProtocolType == "consumer" {
			var a kmsg.ConsumerMemberAssignment
			if a.ReadFrom(m.MemberAssignment) == nil {
				for _, t := range a.Topics {
					ps := append([]int32(nil), t.Partitions...)
					sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
					for _, p := range ps {
						mm.Assignment = append(mm.Assignment, TopicPartition{Topic: t.Topic, Partition: p})
					}
				}
			}
		}
		g.Members = append(g.Members, mm)
	}
	return g
}
