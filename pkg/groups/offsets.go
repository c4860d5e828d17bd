package groups

import (
	"context"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
)

// PartitionLag is one partition of a group: its committed offset against
// the log end, and the member it is assigned to. Absent values are nil
// (Apache prints "-").
type PartitionLag struct {
	Group       string `json:"group"`
	Topic       string `json:"topic"`
	Partition   int32  `json:"partition"`
	Committed   *int64 `json:"committed_offset"`
	LogEnd      *int64 `json:"log_end_offset"`
	Lag         *int64 `json:"lag"`
	MemberID    string `json:"member_id,omitempty"` // "" unassigned
	Host        string `json:"host,omitempty"`
	ClientID    string `json:"client_id,omitempty"`
	LeaderEpoch *int32 `json:"leader_epoch"`
	Assigned    bool   `json:"assigned"`
}

// GroupOffsets is a described group with its partitions.
type GroupOffsets struct {
	Group
	// Partitions in Apache's order: members with the most partitions
	// first, each member's partitions by topic and partition, then the
	// committed partitions no member holds.
	Partitions []PartitionLag `json:"partitions"`
}

// Offsets describes groups and their partitions (committed offset, log end
// offset, lag, member), in name order. A group that cannot be described
// carries Err and no partitions.
func (c *Client) Offsets(ctx context.Context, groups []string) ([]GroupOffsets, error) {
	ds, err := c.Describe(ctx, groups)
	if err != nil {
		return nil, err
	}
	out := make([]GroupOffsets, 0, len(ds))
	var live []string
	for _, d := range ds {
		if d.Err == nil {
			live = append(live, d.Group)
		}
	}
	committed := c.Adm.FetchManyOffsets(ctx, live...)
	// Every topic we need the log end of.
	topicSet := map[string]bool{}
	for _, d := range ds {
		if d.Err != nil {
			continue
		}
		for _, m := range d.Members {
			for _, tp := range m.Assignment {
				topicSet[tp.Topic] = true
			}
		}
		if r, ok := committed[d.Group]; ok {
			r.Fetched.Each(func(o kadm.OffsetResponse) { topicSet[o.Topic] = true })
		}
	}
	logs, err := c.logInfo(ctx, keys(topicSet))
	if err != nil {
		return nil, err
	}
	for _, d := range ds {
		g := GroupOffsets{Group: d}
		if d.Err != nil {
			out = append(out, g)
			continue
		}
		r := committed[d.Group]
		if r.Err != nil {
			g.Err = r.Err
			out = append(out, g)
			continue
		}
		type commit struct {
			at    int64
			epoch int32
		}
		cm := map[TopicPartition]commit{}
		r.Fetched.Each(func(o kadm.OffsetResponse) {
			if o.Err == nil && o.At >= 0 {
				cm[TopicPartition{o.Topic, o.Partition}] = commit{o.At, o.LeaderEpoch}
			}
		})
		row := func(tp TopicPartition, m *Member) PartitionLag {
			pl := PartitionLag{Group: d.Group, Topic: tp.Topic, Partition: tp.Partition}
			if m != nil {
				pl.MemberID, pl.Host, pl.ClientID, pl.Assigned = m.MemberID, m.Host, m.ClientID, true
			}
			if c, ok := cm[tp]; ok {
				at := c.at
				pl.Committed = &at
				if c.epoch >= 0 {
					e := c.epoch
					pl.LeaderEpoch = &e
				}
			}
			if li, ok := logs[tp]; ok && li.hasLeader && li.end != nil {
				e := *li.end
				pl.LogEnd = &e
				if pl.Committed != nil {
					lag := e - *pl.Committed
					pl.Lag = &lag
				}
			}
			return pl
		}
		members := append([]Member(nil), d.Members...)
		sort.SliceStable(members, func(i, j int) bool { return len(members[i].Assignment) > len(members[j].Assignment) })
		assigned := map[TopicPartition]bool{}
		for i := range members {
			m := &members[i]
			ps := sortedTPs(m.Assignment)
			for _, tp := range ps {
				assigned[tp] = true
				g.Partitions = append(g.Partitions, row(tp, m))
			}
		}
		var rest []TopicPartition
		for tp := range cm {
			if !assigned[tp] {
				rest = append(rest, tp)
			}
		}
		for _, tp := range sortedTPs(rest) {
			g.Partitions = append(g.Partitions, row(tp, nil))
		}
		out = append(out, g)
	}
	return out, nil
}

func sortedTPs(in []TopicPartition) []TopicPartition {
	out := append([]TopicPartition(nil), in...)
	sort.Slice(out, func(i, j int) bool {
		if out[i].Topic != out[j].Topic {
			return out[i].Topic < out[j].Topic
		}
		return out[i].Partition < out[j].Partition
	})
	return out
}

func keys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// logInfo is what the cluster says about a partition.
type logInfo struct {
	exists    bool
	hasLeader bool
	start     *int64
	end       *int64
}

// logInfo returns metadata, log start and log end offsets of the
// partitions of topics (missing topics are absent).
func (c *Client) logInfo(ctx context.Context, topics []string) (map[TopicPartition]logInfo, error) {
	out := map[TopicPartition]logInfo{}
	if len(topics) == 0 {
		return out, nil
	}
	tds, err := c.Adm.ListTopics(ctx, topics...)
	if err != nil {
		return nil, err
	}
	for _, td := range tds {
		if td.Err != nil {
			continue
		}
		for _, p := range td.Partitions {
			out[TopicPartition{td.Topic, p.Partition}] = logInfo{exists: true, hasLeader: p.Leader >= 0}
		}
	}
	ends, err := c.Adm.ListEndOffsets(ctx, topics...)
	if err != nil && len(ends) == 0 {
		return nil, err
	}
	starts, err := c.Adm.ListStartOffsets(ctx, topics...)
	if err != nil && len(starts) == 0 {
		return nil, err
	}
	ends.Each(func(o kadm.ListedOffset) {
		tp := TopicPartition{o.Topic, o.Partition}
		li, ok := out[tp]
		if !ok || o.Err != nil {
			return
		}
		v := o.Offset
		li.end = &v
		out[tp] = li
	})
	starts.Each(func(o kadm.ListedOffset) {
		tp := TopicPartition{o.Topic, o.Partition}
		li, ok := out[tp]
		if !ok || o.Err != nil {
			return
		}
		v := o.Offset
		li.start = &v
		out[tp] = li
	})
	return out, nil
}
