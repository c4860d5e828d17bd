package groups

import (
	"context"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
)

// DeleteResult is the outcome of deleting one group.
type DeleteResult struct {
	Group string `json:"group"`
	Err   error  `json:"-"`
}

// Delete deletes groups; each result says whether its group was deleted
// (a group with members fails with kerr.NonEmptyGroup).
func (c *Client) Delete(ctx context.Context, groups []string) ([]DeleteResult, error) {
	groups = uniqSorted(groups)
	if len(groups) == 0 {
		return nil, nil
	}
	rs, err := c.Adm.DeleteGroups(ctx, groups...)
	if err != nil && len(rs) == 0 {
		return nil, err
	}
	out := make([]DeleteResult, 0, len(groups))
	for _, g := range groups {
		r, ok := rs[g]
		if !ok {
			out = append(out, DeleteResult{Group: g, Err: err})
			continue
		}
		out = append(out, DeleteResult{Group: g, Err: r.Err})
	}
	return out, nil
}

// OffsetDeletion is one partition of DeleteOffsets. Partition is -1 for a
// topic that could not be described (Err says why).
type OffsetDeletion struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Err       error  `json:"-"`
}

// OffsetsDeleted is the result of DeleteOffsets.
type OffsetsDeleted struct {
	Group string
	// Err is the request's top-level error (group unknown, not empty,
	// or a partition-level failure such as GroupSubscribedToTopic).
	Err        error
	Partitions []OffsetDeletion // sorted by topic, partition
}

// DeleteOffsets deletes a group's committed offsets of topics ("t" for all
// its partitions, "t:0,1" for some).
func (c *Client) DeleteOffsets(ctx context.Context, group string, topics []string) (*OffsetsDeleted, error) {
	res := &OffsetsDeleted{Group: group}
	set := make(kadm.TopicsSet)
	var whole []string
	for _, a := range topics {
		t, ps, err := ParseTopicArg(a)
		if err != nil {
			return nil, err
		}
		if ps == nil {
			whole = append(whole, t)
			continue
		}
		set.Add(t, ps...)
	}
	if len(whole) > 0 {
		tds, err := c.Adm.ListTopics(ctx, whole...)
		if err != nil {
			return nil, err
		}
		for _, t := range uniqSorted(whole) {
			td, ok := tds[t]
			switch {
			case !ok:
				res.Partitions = append(res.Partitions, OffsetDeletion{Topic: t, Partition: -1, Err: kerr.UnknownTopicOrPartition})
			case td.Err != nil:
				res.Partitions = append(res.Partitions, OffsetDeletion{Topic: t, Partition: -1, Err: td.Err})
			default:
				for _, p := range td.Partitions {
					set.Add(t, p.Partition)
				}
			}
		}
	}
	var asked []OffsetDeletion
	for _, t := range set.Sorted() {
		for _, p := range t.Partitions {
			asked = append(asked, OffsetDeletion{Topic: t.Topic, Partition: p})
		}
	}
	if len(asked) > 0 {
		rs, err := c.Adm.DeleteOffsets(ctx, group, set)
		if err != nil {
			if _, ok := err.(*kerr.Error); !ok {
				if _, auth := err.(*kadm.AuthError); !auth {
					return nil, err
				}
			}
			res.Err = err
			for i := range asked {
				asked[i].Err = err
			}
		} else {
			for i, a := range asked {
				if pe, ok := rs[a.Topic][a.Partition]; ok && pe != nil {
					asked[i].Err = pe
					if res.Err == nil {
						res.Err = pe
					}
				}
			}
		}
	}
	res.Partitions = append(res.Partitions, asked...)
	sort.SliceStable(res.Partitions, func(i, j int) bool {
		a, b := res.Partitions[i], res.Partitions[j]
		if a.Topic != b.Topic {
			return a.Topic < b.Topic
		}
		return a.Partition < b.Partition
	})
	return res, nil
}
