package groups

import (
	"context"
	"reflect"
	"testing"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// orderCluster is a kfake cluster whose coordinator answers DescribeGroups
// for "cl" and ConsumerGroupDescribe for "cg" with members in an order no
// sort would produce (a captured broker answer: the coordinator's own
// order), and reports any other group unknown.
func orderCluster(t *testing.T) *Client {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(2, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.ControlKey(int16(kmsg.DescribeGroups), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.DescribeGroupsRequest)
		resp := req.ResponseKind().(*kmsg.DescribeGroupsResponse)
		for _, g := range req.Groups {
			rg := kmsg.NewDescribeGroupsResponseGroup()
			rg.Group = g
			if g != "cl" {
				rg.State = "Dead"
				resp.Groups = append(resp.Groups, rg)
				continue
			}
			rg.State, rg.ProtocolType, rg.Protocol = "Stable", "consumer", "range"
			for _, m := range []struct {
				id, inst string
				p        int32
			}{{"zeta", "", 0}, {"alpha", "i-b", 1}, {"mid", "i-a", -1}} {
				rm := kmsg.NewDescribeGroupsResponseGroupMember()
				rm.MemberID, rm.ClientID, rm.ClientHost = m.id, "c-"+m.id, "/127.0.0.1"
				if m.inst != "" {
					inst := m.inst
					rm.InstanceID = &inst
				}
				a := kmsg.NewConsumerMemberAssignment()
				if m.p >= 0 {
					a.Topics = []kmsg.ConsumerMemberAssignmentTopic{{Topic: "t", Partitions: []int32{m.p}}}
				}
				rm.MemberAssignment = a.AppendTo(nil)
				rg.Members = append(rg.Members, rm)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil, true
	})
	c.ControlKey(int16(kmsg.ConsumerGroupDescribe), func(kr kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		req := kr.(*kmsg.ConsumerGroupDescribeRequest)
		resp := req.ResponseKind().(*kmsg.ConsumerGroupDescribeResponse)
		for _, g := range req.Groups {
			rg := kmsg.NewConsumerGroupDescribeResponseGroup()
			rg.Group = g
			if g != "cg" {
				rg.ErrorCode = 69 // GROUP_ID_NOT_FOUND
				resp.Groups = append(resp.Groups, rg)
				continue
			}
			rg.State, rg.Epoch, rg.AssignmentEpoch, rg.AssignorName = "Stable", 3, 3, "uniform"
			for i, id := range []string{"zz", "bb", "mm"} {
				rm := kmsg.NewConsumerGroupDescribeResponseGroupMember()
				rm.MemberID, rm.ClientID, rm.ClientHost, rm.MemberEpoch = id, "c-"+id, "/127.0.0.1", 3
				if i < 2 {
					tp := kmsg.AssignmentTopicPartition{Topic: "t", Partitions: []int32{int32(i)}}
					rm.Assignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
					rm.TargetAssignment.TopicPartitions = []kmsg.AssignmentTopicPartition{tp}
				}
				rg.Members = append(rg.Members, rm)
			}
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil, true
	})
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return New(cl)
}

func memberIDs(ms []Member) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.MemberID)
	}
	return out
}

// Members keep the coordinator's order (Apache prints them so); kadm
// would sort them by instance id, then member id.
func TestDescribeKeepsBrokerMemberOrder(t *testing.T) {
	c := orderCluster(t)
	ds, err := c.Describe(context.Background(), []string{"cl", "cg", "nope"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds) != 3 || ds[0].Group != "cg" || ds[1].Group != "cl" || ds[2].Group != "nope" {
		t.Fatalf("groups %+v", ds)
	}
	if got := memberIDs(ds[0].Members); !reflect.DeepEqual(got, []string{"zz", "bb", "mm"}) {
		t.Errorf("consumer group members %v, want the broker's order", got)
	}
	if ds[0].Type != TypeConsumer || ds[0].Err != nil {
		t.Errorf("cg: %+v", ds[0])
	}
	if got := memberIDs(ds[1].Members); !reflect.DeepEqual(got, []string{"zeta", "alpha", "mid"}) {
		t.Errorf("classic members %v, want the broker's order", got)
	}
	if ds[1].Type != TypeClassic || ds[1].Members[1].InstanceID != "i-b" || !reflect.DeepEqual(ds[1].Members[1].Assignment, []TopicPartition{{"t", 1}}) {
		t.Errorf("cl: %+v", ds[1])
	}
	if _, ok := ds[2].Err.(*ErrGroupNotFound); !ok {
		t.Errorf("nope: err %v", ds[2].Err)
	}
}

// --offsets lists members with more partitions first and, among members
// with as many, keeps the broker's order (Java's stable sort).
func TestOffsetsMemberOrder(t *testing.T) {
	c := orderCluster(t)
	for _, g := range []string{"cl", "cg"} {
		var os kadm.Offsets
		os.AddOffset("t", 0, 0, -1)
		os.AddOffset("t", 1, 0, -1)
		if err := c.Adm.CommitAllOffsets(context.Background(), g, os); err != nil {
			t.Fatalf("commit %s: %v", g, err)
		}
	}
	gs, err := c.Offsets(context.Background(), []string{"cl", "cg"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string][]string{"cg": {"zz", "bb"}, "cl": {"zeta", "alpha"}}
	for _, g := range gs {
		var got []string
		for _, p := range g.Partitions {
			got = append(got, p.MemberID)
		}
		if !reflect.DeepEqual(got, want[g.Group.Group]) {
			t.Errorf("%s: partition members %v, want %v (err %v)", g.Group.Group, got, want[g.Group.Group], g.Err)
		}
	}
}
