package quorum

import (
	"errors"
	"testing"

	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func replica(id int32, end, fetch, caught int64) kmsg.DescribeQuorumResponseTopicPartitionReplicaState {
	r := kmsg.NewDescribeQuorumResponseTopicPartitionReplicaState()
	r.ReplicaID, r.LogEndOffset, r.LastFetchTimestamp, r.LastCaughtUpTimestamp = id, end, fetch, caught
	return r
}

func response(p kmsg.DescribeQuorumResponseTopicPartition) *kmsg.DescribeQuorumResponse {
	resp := kmsg.NewPtrDescribeQuorumResponse()
	t := kmsg.NewDescribeQuorumResponseTopic()
	t.Topic = MetadataTopic
	t.Partitions = append(t.Partitions, p)
	resp.Topics = append(resp.Topics, t)
	return resp
}

// Lag is measured from the leader's log end (not the high watermark),
// voters and observers sorted by id; unknown timestamps are null.
func TestFromResponse(t *testing.T) {
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = 2, 7, 95
	p.CurrentVoters = append(p.CurrentVoters, replica(3, 90, 1000, 900), replica(2, 100, -1, -1), replica(1, 100, 1001, 1001))
	p.Observers = append(p.Observers, replica(4, 120, 1002, 1002))
	q, err := fromResponse(response(p))
	if err != nil {
		t.Fatal(err)
	}
	if q.LeaderID != 2 || q.LeaderEpoch != 7 || q.HighWatermark != 95 || len(q.Voters) != 3 || len(q.Observers) != 1 {
		t.Fatalf("%+v", q)
	}
	for i, want := range []struct {
		id  int32
		lag int64
	}{{1, 0}, {2, 0}, {3, 10}} {
		if v := q.Voters[i]; v.ID != want.id || v.Lag != want.lag {
			t.Errorf("voter %d: %+v, want id %d lag %d", i, v, want.id, want.lag)
		}
	}
	if q.Voters[1].LastFetchMs != nil || q.Voters[1].LastCaughtUpMs != nil || *q.Voters[2].LastCaughtUpMs != 900 {
		t.Errorf("timestamps: %+v", q.Voters)
	}
	if q.Observers[0].Lag != 0 { // ahead of the leader's end: never negative
		t.Errorf("observer lag %d", q.Observers[0].Lag)
	}
}

func TestFromResponseErrors(t *testing.T) {
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.ErrorCode = kerr.NotLeaderForPartition.Code
	if _, err := fromResponse(response(p)); !errors.Is(err, kerr.NotLeaderForPartition) {
		t.Fatalf("partition error: %v", err)
	}
	resp := kmsg.NewPtrDescribeQuorumResponse()
	msg := "no controller"
	resp.ErrorCode, resp.ErrorMessage = kerr.ClusterAuthorizationFailed.Code, &msg
	if _, err := fromResponse(resp); !errors.Is(err, kerr.ClusterAuthorizationFailed) || err.Error() == kerr.ClusterAuthorizationFailed.Error() {
		t.Fatalf("top-level error: %v", err)
	}
	if _, err := fromResponse(kmsg.NewPtrDescribeQuorumResponse()); err == nil {
		t.Fatal("empty answer: no error")
	}
}
