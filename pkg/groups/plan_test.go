package groups

import (
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
)

func samplePlan() *ResetPlan {
	c := func(v int64) *int64 { return &v }
	return &ResetPlan{Kind: ShiftBy, Groups: []GroupReset{
		{Group: "active", State: "Stable", Refused: true},
		{Group: "app", State: "Empty", Partitions: []PartitionReset{
			{Topic: "orders", Partition: 0, Current: c(100), New: 40, Requested: 40},
			{Topic: "orders", Partition: 1, Current: c(10), New: 0, Requested: -50, Clamped: "earliest"},
			{Topic: "orders", Partition: 2, Current: nil, New: 7, Requested: 7},
		}},
		{Group: "fresh", State: "Dead", Partitions: []PartitionReset{{Topic: "orders", Partition: 0, New: 5, Requested: 5}}},
		{Group: "odd", State: "Unknown", Refused: true},
	}}
}

func TestPlanDiff(t *testing.T) {
	p := NewPlan(samplePlan(), lagBase)
	if !p.Refused() {
		t.Error("a refused group makes the plan refused")
	}
	app := p.Groups[1]
	if app.Partitions[0].RecordsReplayed != 60 || app.Partitions[0].RecordsSkipped != 0 {
		t.Errorf("p0: %+v", app.Partitions[0])
	}
	if got := app.Partitions[1].Change(); got != "replay 10 (clamped to earliest)" {
		t.Errorf("p1 change %q", got)
	}
	if got := app.Partitions[2].Change(); got != "new commit" {
		t.Errorf("p2 change %q", got)
	}
	if !strings.Contains(p.Groups[0].Reason, "is active (state Stable)") {
		t.Errorf("active reason %q", p.Groups[0].Reason)
	}
	if !strings.Contains(p.Groups[3].Reason, "state Unknown, which kbox does not reset") {
		t.Errorf("odd state reason %q", p.Groups[3].Reason)
	}
	if !strings.Contains(p.Groups[2].Reason, "does not exist") {
		t.Errorf("dead group note %q", p.Groups[2].Reason)
	}
	n, skipped, replayed := p.Totals()
	if n != 4 || skipped != 0 || replayed != 70 {
		t.Errorf("totals %d %d %d", n, skipped, replayed)
	}
	rows := p.Rows()
	if rows[0][5] != "refused: state Stable" || rows[1][5] != "replay 60" {
		t.Errorf("rows %v", rows)
	}
	wide := p.WideRows()
	if len(wide) != len(rows) || wide[1][1] != "Empty" || wide[1][7] != "60" || wide[0][8] != "refused: state Stable" {
		t.Errorf("wide rows %v", wide)
	}
	golden.JSON(t, "plan.json.golden", p)
}

func TestPlanRoundTrip(t *testing.T) {
	p := NewPlan(samplePlan(), lagBase)
	back, err := ReadPlan(strings.NewReader(string(p.Marshal())))
	if err != nil {
		t.Fatal(err)
	}
	if string(back.Marshal()) != string(p.Marshal()) {
		t.Errorf("round trip differs:\n%s\n%s", back.Marshal(), p.Marshal())
	}
	// Replay against what is committed now.
	back.Rebase(map[string]map[TopicPartition]int64{"app": {{"orders", 0}: 40, {"orders", 2}: 1}})
	ps := back.Groups[1].Partitions
	if ps[0].Change() != "unchanged" || ps[1].CurrentOffset != nil || ps[2].RecordsSkipped != 6 {
		t.Errorf("rebased: %+v", ps)
	}
	rp := back.ResetPlan()
	if len(rp.Groups) != 4 || !rp.Groups[0].Refused || rp.Groups[1].Partitions[0].New != 40 {
		t.Errorf("reset plan %+v", rp)
	}
}

func TestReadPlanErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{`nope`, "not a kbox reset plan"},
		{`{"format_version":2,"groups":[]}`, "format_version 2"},
		{`{"format_version":1,"groups":[{"group":""}]}`, "without a name"},
		{`{"format_version":1,"groups":[{"group":"a"},{"group":"a"}]}`, "appears twice"},
		{`{"format_version":1,"groups":[{"group":"a","partitions":[{"topic":"t","partition":0,"new_offset":-1}]}]}`, "bad partition"},
		{`{"format_version":1,"groups":[{"group":"a","partitions":[{"topic":"t","partition":0,"new_offset":1},{"topic":"t","partition":0,"new_offset":2}]}]}`, "t-0 appears twice"},
		{`{"format_version":1,"surprise":1}`, "unknown field"},
	} {
		_, err := ReadPlan(strings.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.in, err, c.want)
		}
	}
	p, err := ReadPlan(strings.NewReader(`{"format_version":1,"spec":"to-offset","created":"2026-01-01T00:00:00Z","executed":false,"groups":[{"group":"a","state":"Empty","refused":false}]}`))
	if err != nil || p.Groups[0].Partitions == nil || !p.Created.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("minimal plan: %+v %v", p, err)
	}
}

// A saved plan records the committed offsets it was computed from; a
// replay compares them with the offsets committed now.
func TestPlanDrifts(t *testing.T) {
	p := NewPlan(samplePlan(), lagBase)
	back, err := ReadPlan(strings.NewReader(string(p.Marshal())))
	if err != nil {
		t.Fatal(err)
	}
	// Unchanged: app at 100, 10 and nothing on orders-2; fresh has none.
	same := map[string]map[TopicPartition]int64{"app": {{"orders", 0}: 100, {"orders", 1}: 10}}
	if ds := back.Drifts(same); len(ds) != 0 {
		t.Fatalf("unchanged offsets drifted: %+v", ds)
	}
	// orders-0 moved on to 2131, orders-2 got a commit, fresh was created.
	moved := map[string]map[TopicPartition]int64{"app": {{"orders", 0}: 2131, {"orders", 1}: 10, {"orders", 2}: 3}, "fresh": {{"orders", 0}: 1}}
	ds := back.Drifts(moved)
	rows := DriftRows(ds)
	want := [][]string{{"app", "orders", "0", "100", "2131"}, {"app", "orders", "2", "none", "3"}, {"fresh", "orders", "0", "none", "1"}}
	if len(rows) != len(want) {
		t.Fatalf("drifts %v, want %v", rows, want)
	}
	for i := range want {
		if strings.Join(rows[i], "|") != strings.Join(want[i], "|") {
			t.Errorf("drift %d: %v, want %v", i, rows[i], want[i])
		}
	}
	// The refused groups (active, odd) are not compared.
	for _, d := range ds {
		if d.Group == "active" || d.Group == "odd" {
			t.Errorf("refused group compared: %+v", d)
		}
	}
	// A plan without current_offset (written by hand) records nothing:
	// every partition is a drift, even when the offsets happen to match.
	hand, err := ReadPlan(strings.NewReader(`{"format_version":1,"groups":[{"group":"app","partitions":[{"topic":"orders","partition":0,"new_offset":5},{"topic":"orders","partition":1,"current_offset":null,"new_offset":5}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	ds = hand.Drifts(map[string]map[TopicPartition]int64{"app": {{"orders", 0}: 7}})
	if len(ds) != 1 || !ds[0].Unrecorded || DriftRows(ds)[0][3] != "not recorded" {
		t.Fatalf("hand-written plan: %+v", ds)
	}
}
