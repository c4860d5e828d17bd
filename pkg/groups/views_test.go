package groups

import (
	"errors"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kerr"
)

func TestViewGoldens(t *testing.T) {
	golden.JSON(t, "list.json.golden", NewGroupList([]Listing{
		{Group: "app", Type: TypeConsumer, State: "Stable", ProtocolType: "consumer", Coordinator: 1},
		{Group: "old", Type: TypeClassic, State: "Empty", ProtocolType: "consumer", Coordinator: 2},
	}))
	if l := NewGroupList(nil); l.Groups == nil {
		t.Error("empty list is null")
	}

	i := func(v int64) *int64 { return &v }
	ep := int32(3)
	d := NewDescription([]GroupOffsets{
		{Group: Group{Group: "app", Type: TypeConsumer, State: "Stable", Coordinator: Coordinator{ID: 1, Host: "h", Port: 9092}, AssignmentStrategy: "uniform",
			GroupEpoch: &ep, TargetAssignmentEpoch: &ep,
			Members: []Member{{MemberID: "m1", ClientID: "c1", Host: "/10.0.0.1", Assignment: []TopicPartition{{"orders", 0}}, Epoch: &ep}, {MemberID: "m2", ClientID: "c2", Host: "/10.0.0.2"}}},
			Partitions: []PartitionLag{{Group: "app", Topic: "orders", Partition: 0, Committed: i(5), LogEnd: i(9), Lag: i(4), MemberID: "m1", Host: "/10.0.0.1", ClientID: "c1", Assigned: true}}},
		{Group: Group{Group: "gone", Err: &ErrGroupNotFound{Group: "gone"}}},
		{Group: Group{Group: "broken", Err: errors.New("coordinator not available")}},
	})
	if d.Groups[1].State != "Dead" || d.Groups[1].Error != "the group does not exist" || d.Groups[1].Members == nil || d.Groups[0].Members[1].Assignment == nil {
		t.Errorf("description: %+v", d.Groups)
	}
	rows := d.WideRows()
	if len(rows) != 3 || rows[0][6] != "4" || rows[0][9] != "m1" || rows[2][2] != "error: coordinator not available" {
		t.Errorf("rows %v", rows)
	}
	golden.JSON(t, "describe.json.golden", d)

	del := NewDeleteReport([]DeleteResult{{Group: "a"}, {Group: "b", Err: kerr.NonEmptyGroup}, {Group: "c", Err: kerr.GroupIDNotFound}})
	if del.Failed() != 2 || del.Groups[1].Error != "the group has active members: stop its consumers first" {
		t.Errorf("delete %+v", del)
	}
	golden.JSON(t, "delete.json.golden", del)
}
