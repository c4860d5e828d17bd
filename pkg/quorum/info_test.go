package quorum

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kmsg"
)

func infoFixture() *Info {
	p := kmsg.NewDescribeQuorumResponseTopicPartition()
	p.LeaderID, p.LeaderEpoch, p.HighWatermark = 2, 7, 95
	v3 := replica(3, 90, 1000, 900)
	v3.ReplicaDirectoryID = [16]byte{1}
	p.CurrentVoters = append(p.CurrentVoters, replica(1, 100, 1001, 1001), replica(2, 100, 1002, 1002), v3)
	p.Observers = append(p.Observers, replica(4, 100, -1, -1))
	resp := response(p)
	n := kmsg.NewDescribeQuorumResponseNode()
	n.NodeID = 2
	l := kmsg.NewDescribeQuorumResponseNodeListener()
	l.Name, l.Host, l.Port = "CONTROLLER", "::1", 9093
	n.Listeners = append(n.Listeners, l)
	resp.Nodes = append(resp.Nodes, n)
	info := &Info{ClusterID: "c1"}
	fillInfo(info, resp, p)
	return info
}

// The Apache texts: describe --status's lines (a zero directory id left
// out, IPv6 in brackets), --replication's table (leader first, tabs after
// every padded cell, -1 for unknown times).
func TestApacheTexts(t *testing.T) {
	info := infoFixture()
	if info.MaxFollowerLag != 10 || info.MaxFollowerLagTimeMs != 102 {
		t.Errorf("max follower lag %d, %d ms", info.MaxFollowerLag, info.MaxFollowerLagTimeMs)
	}
	var b bytes.Buffer
	if err := info.WriteStatus(&b); err != nil {
		t.Fatal(err)
	}
	want := `ClusterId:              c1
LeaderId:               2
LeaderEpoch:            7
HighWatermark:          95
MaxFollowerLag:         10
MaxFollowerLagTimeMs:   102
CurrentVoters:          [{"id": 1}, {"id": 2, "endpoints": ["CONTROLLER://[::1]:9093"]}, {"id": 3, "directoryId": "AQAAAAAAAAAAAAAAAAAAAA"}]
CurrentObservers:       [{"id": 4}]
`
	if b.String() != want {
		t.Errorf("status:\n%s\nwant:\n%s", b.String(), want)
	}
	rows, err := info.ReplicationRows(false, time.UnixMilli(2000))
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	if err := WriteTable(&b, ReplicationHeader, rows); err != nil {
		t.Fatal(err)
	}
	want = "NodeId\tDirectoryId           \tLogEndOffset\tLag\tLastFetchTimestamp\tLastCaughtUpTimestamp\tStatus  \t\n" +
		"2     \tAAAAAAAAAAAAAAAAAAAAAA\t100         \t0  \t1002              \t1002                 \tLeader  \t\n" +
		"1     \tAAAAAAAAAAAAAAAAAAAAAA\t100         \t0  \t1001              \t1001                 \tFollower\t\n" +
		"3     \tAQAAAAAAAAAAAAAAAAAAAA\t90          \t10 \t1000              \t900                  \tFollower\t\n" +
		"4     \tAAAAAAAAAAAAAAAAAAAAAA\t100         \t0  \t-1                \t-1                   \tObserver\t\n"
	if b.String() != want {
		t.Errorf("replication:\n%q\nwant:\n%q", b.String(), want)
	}
	rows, err = info.ReplicationRows(true, time.UnixMilli(2000))
	if err != nil || rows[0][4] != "998 ms ago" || rows[3][4] != "-1" {
		t.Errorf("human: %v %v", rows, err)
	}
	var ce *ClockError
	if _, err := info.ReplicationRows(true, time.UnixMilli(1001)); !errors.As(err, &ce) ||
		!strings.HasPrefix(err.Error(), "Error while computing relative time, possible drift in system clock.\nCurrent timestamp is 1001, last fetch timestamp is 1002") {
		t.Errorf("clock: %v", err)
	}
}

func TestInfoJSON(t *testing.T) {
	golden.JSON(t, "info.json.golden", infoFixture())
}

func TestUUID(t *testing.T) {
	if _, err := ParseUUID("xyz"); err == nil || err.Error() != "Input string `xyz` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID" {
		t.Errorf("xyz: %v", err)
	}
	u, err := ParseUUID("A0y-o1ZpL4e8JDOG_pA6Zg")
	if err != nil || UUID(u) != "A0y-o1ZpL4e8JDOG_pA6Zg" {
		t.Errorf("round trip: %v %v", UUID(u), err)
	}
}

func TestQuorumError(t *testing.T) {
	empty := ""
	if s := (&QuorumError{Code: 6, Message: &empty}).Error(); s != "org.apache.kafka.common.errors.NotLeaderOrFollowerException: " {
		t.Errorf("%q", s)
	}
}
