package reassign

import (
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func TestPreview(t *testing.T) {
	ps := []PartitionLeader{
		{TP: TP{"a", 0}, Replicas: []int32{1, 2, 3}, ISR: []int32{1, 2, 3}, Leader: 2}, // electable
		{TP: TP{"a", 1}, Replicas: []int32{2, 3, 1}, ISR: []int32{2, 3, 1}, Leader: 2}, // balanced
		{TP: TP{"a", 2}, Replicas: []int32{1, 3}, ISR: []int32{3}, Leader: 3},          // preferred out of sync
		{TP: TP{"b", 0}, Replicas: []int32{3}, ISR: []int32{}, Leader: -1},             // offline
	}
	b := Preview(ps, []int32{1, 2, 3, 4})
	if len(b.Partitions) != 3 || !b.Partitions[0].Electable || b.Partitions[1].Electable || b.Partitions[2].Electable {
		t.Fatalf("partitions %+v", b.Partitions)
	}
	want := []BrokerLeaders{{1, 2, 0, 1}, {2, 1, 2, 1}, {3, 1, 1, 1}, {4, 0, 0, 0}}
	for i, w := range want {
		if b.Brokers[i] != w {
			t.Errorf("broker row %d: %+v, want %+v", i, b.Brokers[i], w)
		}
	}
	golden.JSON(t, "balance-preview.json.golden", b)
	yes := true
	b.Executed = true
	b.Partitions[0].Elected = &yes
	golden.JSON(t, "balance-execute.json.golden", b)
}
