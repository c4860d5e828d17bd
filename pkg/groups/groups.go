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
// classic DescribeGroups.
func (c *Client) Describe(ctx context.Context, groups []string) ([]Group, error) {
	groups = uniqSorted(groups)
	if len(groups) == 0 {
		return nil, nil
	}
	res := map[string]Group{}
	var classic []string
	cgs, err := c.Adm.DescribeConsumerGroups(ctx, groups...)
	if err != nil && len(cgs) == 0 {
		var se *kadm.ShardErrors
		if !errors.As(err, &se) {
			return nil, err
		}
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
		res[g] = fromConsumer(d)
	}
	if len(classic) > 0 {
		ds, err := c.Adm.DescribeGroups(ctx, classic...)
		if err != nil && len(ds) == 0 {
			return nil, err
		}
		for _, g := range classic {
			d, ok := ds[g]
			switch {
			case !ok:
				res[g] = Group{Group: g, Err: fmt.Errorf("group %s: no response", g)}
			case d.Err != nil:
				res[g] = Group{Group: g, Err: d.Err}
			case d.State == "Dead":
				res[g] = Group{Group: g, State: "Dead", Err: &ErrGroupNotFound{Group: g}}
			default:
				res[g] = fromClassic(d)
			}
		}
	}
	out := make([]Group, 0, len(groups))
	for _, g := range groups {
		out = append(out, res[g])
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

func coordinator(b kadm.BrokerDetail) Coordinator {
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

func fromConsumer(d kadm.DescribedConsumerGroup) Group {
	ge, te := d.Epoch, d.AssignmentEpoch
	g := Group{Group: d.Group, Type: TypeConsumer, State: d.State, Coordinator: coordinator(d.Coordinator),
		AssignmentStrategy: d.AssignorName, GroupEpoch: &ge, TargetAssignmentEpoch: &te}
	for _, m := range d.Members {
		ep := m.MemberEpoch
		mm := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost,
			Assignment: tps(m.Assignment), Target: tps(m.TargetAssignment), Epoch: &ep}
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

func fromClassic(d kadm.DescribedGroup) Group {
	g := Group{Group: d.Group, Type: TypeClassic, State: d.State, Coordinator: coordinator(d.Coordinator), AssignmentStrategy: d.Protocol}
	for _, m := range d.Members {
		mm := Member{MemberID: m.MemberID, ClientID: m.ClientID, Host: m.ClientHost}
		if m.InstanceID != nil {
			mm.InstanceID = *m.InstanceID
		}
		if a, ok := m.Assigned.AsConsumer(); ok {
			for _, t := range a.Topics {
				ps := append([]int32(nil), t.Partitions...)
				sort.Slice(ps, func(i, j int) bool { return ps[i] < ps[j] })
				for _, p := range ps {
					mm.Assignment = append(mm.Assignment, TopicPartition{Topic: t.Topic, Partition: p})
				}
			}
		}
		g.Members = append(g.Members, mm)
	}
	return g
}
