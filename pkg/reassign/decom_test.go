package reassign

import (
	"fmt"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func planFixture() (map[TP][]int32, map[TP]int64, []Broker) {
	assign := map[TP][]int32{}
	sizes := map[TP]int64{}
	// 12 partitions RF 2 on brokers 1-3 (round robin), broker 4 empty.
	for p := int32(0); p < 12; p++ {
		a := 1 + p%3
		b := 1 + (p+1)%3
		assign[TP{"t", p}] = []int32{a, b}
		sizes[TP{"t", p}] = int64(100 * (p + 1))
	}
	brokers := []Broker{{1, "r1"}, {2, "r2"}, {3, "r1"}, {4, "r2"}}
	return assign, sizes, brokers
}

func checkValid(t *testing.T, p *BrokerPlan, assign map[TP][]int32) {
	t.Helper()
	for _, c := range p.Changes {
		if len(c.Proposed) != len(assign[TP{c.Topic, c.Partition}]) {
			t.Fatalf("%s-%d: RF changed %v -> %v", c.Topic, c.Partition, c.Current, c.Proposed)
		}
		seen := map[int32]bool{}
		for _, r := range c.Proposed {
			if seen[r] {
				t.Fatalf("%s-%d: duplicate broker %v", c.Topic, c.Partition, c.Proposed)
			}
			seen[r] = true
		}
		diff := 0
		for i := range c.Current {
			if c.Current[i] != c.Proposed[i] {
				diff++
			}
		}
		if diff != 1 {
			t.Fatalf("%s-%d: %d replicas moved, want 1 (least movement)", c.Topic, c.Partition, diff)
		}
	}
}

func TestPlanRemove(t *testing.T) {
	assign, sizes, brokers := planFixture()
	p, err := PlanRemove(assign, sizes, brokers, 3)
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, p, assign)
	want := 0
	var bytes int64
	for tp, reps := range assign {
		if contains(reps, 3) {
			want++
			bytes += sizes[tp]
		}
	}
	if len(p.Changes) != want || p.TotalBytes != bytes {
		t.Errorf("%d changes (%d bytes), want every partition on 3: %d (%d bytes)", len(p.Changes), p.TotalBytes, want, bytes)
	}
	n := map[int32]int{}
	for _, c := range p.Changes {
		for _, r := range c.Proposed {
			if r == 3 {
				t.Fatalf("replica left on 3: %+v", c)
			}
		}
	}
	for tp, reps := range assign {
		for _, r := range reps {
			n[r]++
		}
		_ = tp
	}
	for _, c := range p.Changes {
		for _, r := range c.Proposed {
			if !contains(c.Current, r) {
				n[r]++
			}
		}
	}
	// the new replicas go to the emptiest broker: 4 ends with the most
	// of them, and each partition's racks stay spread (1:r1 pairs with 2
	// or 4 in r2, never with 3's rack mate 1 when avoidable).
	if n[4] < 4 {
		t.Errorf("broker 4 got %d replicas, want at least 4: %+v", n[4], p.Changes)
	}
	if _, err := PlanRemove(assign, sizes, brokers, 9); err == nil {
		t.Error("unknown broker accepted")
	}
	if p, err := PlanRemove(map[TP][]int32{{"x", 0}: {1, 2}}, nil, []Broker{{1, ""}, {2, ""}}, 2); err != nil || p.Err() == nil {
		t.Errorf("RF 2 on 2 brokers: removing one cannot work: %v %+v", err, p)
	}
}

// Every partition that cannot leave the broker is counted and listed (not
// only the first), and the others are planned (--skip-blocked).
func TestPlanRemoveBlocked(t *testing.T) {
	brokers := []Broker{{1, ""}, {2, ""}, {3, ""}}
	assign := map[TP][]int32{
		{"a", 0}: {1, 2, 3}, // blocked
		{"a", 1}: {3, 1},    // movable to 2
		{"b", 0}: {2, 3, 1}, // blocked
		{"b", 1}: {1, 2},    // not on 3
		{"c", 0}: {3, 1, 2}, // blocked
		{"c", 1}: {3},       // movable
	}
	p, err := PlanRemove(assign, map[TP]int64{{"a", 1}: 10, {"c", 1}: 5}, brokers, 3)
	if err != nil {
		t.Fatal(err)
	}
	var blocked []string
	for _, b := range p.Blocked {
		blocked = append(blocked, fmt.Sprintf("%s-%d", b.Topic, b.Partition))
	}
	if strings.Join(blocked, ",") != "a-0,b-0,c-0" {
		t.Errorf("blocked %v, want a-0,b-0,c-0", blocked)
	}
	if len(p.Changes) != 2 || p.Changes[0].Topic != "a" || p.Changes[1].Topic != "c" || p.TotalBytes != 15 {
		t.Errorf("movable partitions not planned: %+v", p.Changes)
	}
	want := "cannot empty broker 3: 3 partitions have no other broker to take their replica on 3: " +
		"a-0 (replicas 1,2,3), b-0 (replicas 2,3,1), c-0 (replicas 3,1,2); --skip-blocked plans the other 2 partitions"
	if err := p.Err(); err == nil || err.Error() != want {
		t.Errorf("error\n got %v\nwant %s", err, want)
	}
	if got := p.BlockedLine(); got != "Left out 3 blocked partitions that cannot leave broker 3 (no other broker to take their replica): a-0, b-0, c-0." {
		t.Errorf("blocked line %q", got)
	}
	if strings.Contains(p.JSON(), `"partition":0`) {
		t.Errorf("plan JSON holds a blocked partition: %s", p.JSON())
	}
	// One blocked partition, one movable: singular words.
	p, _ = PlanRemove(map[TP][]int32{{"a", 0}: {1, 2, 3}, {"a", 1}: {3}}, nil, brokers, 3)
	if got := p.Err().Error(); got != "cannot empty broker 3: 1 partition has no other broker to take its replica on 3: a-0 (replicas 1,2,3); --skip-blocked plans the other 1 partition" {
		t.Errorf("singular: %s", got)
	}
	if rows := p.Rows(); rows[len(rows)-1][0] != "TOTAL (1 partition)" {
		t.Errorf("total row %v", rows[len(rows)-1])
	}
}

func TestPlanAdd(t *testing.T) {
	assign, sizes, brokers := planFixture()
	p, err := PlanAdd(assign, sizes, brokers, 4)
	if err != nil {
		t.Fatal(err)
	}
	checkValid(t, p, assign)
	// 24 replicas on 4 brokers: 6 move to broker 4, no more.
	if len(p.Changes) != 6 {
		t.Errorf("%d changes, want 6: %+v", len(p.Changes), p.Changes)
	}
	n := load(assign, brokers)
	for _, c := range p.Changes {
		for i := range c.Current {
			if c.Current[i] != c.Proposed[i] {
				n[c.Current[i]]--
				n[c.Proposed[i]]++
			}
		}
	}
	for b, c := range n {
		if c != 6 {
			t.Errorf("broker %d holds %d replicas after the plan, want 6 (%v)", b, c, n)
		}
	}
	if got := p.JSON(); got[:30] != `{"version":1,"partitions":[{"t` {
		t.Errorf("plan JSON %s", got)
	}
}

func TestPlanGolden(t *testing.T) {
	assign, sizes, brokers := planFixture()
	p, err := PlanRemove(assign, sizes, brokers, 3)
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "plan-remove.json.golden", p)
}
