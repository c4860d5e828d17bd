// Package quorum describes a KRaft cluster's metadata quorum
// (DescribeQuorum): its leader (the active controller), epoch, high
// watermark, and how far each voter and observer is behind the leader.
package quorum

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// MetadataTopic is the metadata log's topic.
const MetadataTopic = "__cluster_metadata"

// Replica is one voter or observer of the quorum.
type Replica struct {
	ID           int32 `json:"id"`
	LogEndOffset int64 `json:"log_end_offset"`
	// Lag is how many records the replica is behind the leader's log end
	// (kafka-metadata-quorum's Lag; 0 for the leader).
	Lag int64 `json:"lag"`
	// LastFetchMs and LastCaughtUpMs are the Unix milliseconds of the
	// replica's last fetch and of the last time it was caught up with the
	// leader, as the leader saw them; null when unknown.
	LastFetchMs    *int64 `json:"last_fetch_ms"`
	LastCaughtUpMs *int64 `json:"last_caught_up_ms"`
}

// Quorum is the state of the metadata quorum.
type Quorum struct {
	LeaderID      int32     `json:"leader_id"`
	LeaderEpoch   int32     `json:"leader_epoch"`
	HighWatermark int64     `json:"high_watermark"`
	Voters        []Replica `json:"voters"`
	Observers     []Replica `json:"observers"`
}

// ErrNotKRaft: the cluster does not answer DescribeQuorum (ZooKeeper
// mode, or a broker too old).
var ErrNotKRaft = errors.New("the cluster does not describe a metadata quorum (not KRaft, or too old)")

// Describe asks the cluster for its metadata quorum (brokers forward the
// request to the active controller).
func Describe(ctx context.Context, cl *kgo.Client) (*Quorum, error) {
	req := kmsg.NewPtrDescribeQuorumRequest()
	t := kmsg.NewDescribeQuorumRequestTopic()
	t.Topic = MetadataTopic
	t.Partitions = append(t.Partitions, kmsg.NewDescribeQuorumRequestTopicPartition())
	req.Topics = append(req.Topics, t)
	resp, err := req.RequestWith(ctx, cl)
	if err != nil {
		if errors.Is(err, kerr.UnsupportedVersion) {
			return nil, ErrNotKRaft
		}
		return nil, err
	}
	return fromResponse(resp)
}

func fromResponse(resp *kmsg.DescribeQuorumResponse) (*Quorum, error) {
	if err := kerr.ErrorForCode(resp.ErrorCode); err != nil {
		return nil, withMessage(err, resp.ErrorMessage)
	}
	if len(resp.Topics) != 1 || len(resp.Topics[0].Partitions) != 1 {
		return nil, errors.New("DescribeQuorum: no partition of " + MetadataTopic + " in the answer")
	}
	p := resp.Topics[0].Partitions[0]
	if err := kerr.ErrorForCode(p.ErrorCode); err != nil {
		return nil, withMessage(err, p.ErrorMessage)
	}
	q := &Quorum{LeaderID: p.LeaderID, LeaderEpoch: p.LeaderEpoch, HighWatermark: p.HighWatermark, Voters: []Replica{}, Observers: []Replica{}}
	leaderEnd := p.HighWatermark
	for _, v := range p.CurrentVoters {
		if v.ReplicaID == p.LeaderID {
			leaderEnd = v.LogEndOffset
		}
	}
	conv := func(rs []kmsg.DescribeQuorumResponseTopicPartitionReplicaState) []Replica {
		out := make([]Replica, 0, len(rs))
		for _, r := range rs {
			out = append(out, Replica{ID: r.ReplicaID, LogEndOffset: r.LogEndOffset, Lag: max(leaderEnd-r.LogEndOffset, 0),
				LastFetchMs: ms(r.LastFetchTimestamp), LastCaughtUpMs: ms(r.LastCaughtUpTimestamp)})
		}
		sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
		return out
	}
	q.Voters, q.Observers = conv(p.CurrentVoters), conv(p.Observers)
	return q, nil
}

func ms(v int64) *int64 {
	if v < 0 {
		return nil
	}
	return &v
}

func withMessage(err error, msg *string) error {
	if msg != nil && *msg != "" {
		return fmt.Errorf("%w: %s", err, *msg)
	}
	return err
}
