package reassign

import (
	"testing"

	"github.com/kboxdev/kbox/internal/golden"
)

func TestMergeAndPruneEntries(t *testing.T) {
	for _, c := range []struct{ cur, add, want string }{
		{"", "0:1,0:2", "0:1,0:2"},
		{"1:3", "0:1", "0:1,1:3"},
		{"0:1, 1:3", "0:1", "0:1,1:3"},
		{"*", "0:1", "*"},
	} {
		if got := MergeEntries(c.cur, c.add); got != c.want {
			t.Errorf("MergeEntries(%q, %q) = %q, want %q", c.cur, c.add, got, c.want)
		}
	}
	drop0 := func(p int32) bool { return p == 0 }
	for _, c := range []struct {
		v, want string
		changed bool
	}{
		{"0:1,0:2", "", true},
		{"0:1,1:2,0:3", "1:2", true},
		{"1:2", "1:2", false},
		{"*", "*", false},
		{"x:1,0:1", "x:1", true},
	} {
		if got, ch := PruneEntries(c.v, drop0); got != c.want || ch != c.changed {
			t.Errorf("PruneEntries(%q) = %q %v, want %q %v", c.v, got, ch, c.want, c.changed)
		}
	}
}

func TestLedgerSaw(t *testing.T) {
	l := NewLedger()
	if !l.Empty() {
		t.Fatal("new ledger answers for something")
	}
	l.Saw(TP{"t", 0}, Ongoing{Replicas: []int32{3, 2, 1}, Adding: []int32{3}, Removing: []int32{1}})
	if got := JoinIDs(l.Brokers(), ","); got != "1,2,3" {
		t.Errorf("brokers %s", got)
	}
	if ps := l.Partitions(); len(ps) != 1 || ps[0] != (TP{"t", 0}) {
		t.Errorf("partitions %v", ps)
	}
}

func TestReleasedLines(t *testing.T) {
	r := &Released{ClearedBrokers: []int32{1, 3}, RestoredBrokers: []int32{2}, ClearedTopics: []string{"mid"}, KeptBrokers: []int32{}, KeptTopics: []string{},
		Kept: "rates on brokers 1,2,3 (moves of topic big are still in progress)"}
	if got := r.ClearedLine(); got != "Throttles cleared: rates on brokers 1,3; rates put back to their earlier values on broker 2; throttled replicas of topic mid." {
		t.Errorf("cleared line %q", got)
	}
	if got := r.KeptLine(); got != "Throttles kept: rates on brokers 1,2,3 (moves of topic big are still in progress)." {
		t.Errorf("kept line %q", got)
	}
	if !r.Anything() || (&Released{}).Anything() || (&Released{}).ClearedLine() != "" || (&Released{}).KeptLine() != "" {
		t.Error("empty release")
	}
	w := &WatchSummary{Done: true, ElapsedSec: 12.5, Topics: []string{"big", "mid"}, Brokers: []int32{}}
	w.SetReleased(&Released{ClearedBrokers: []int32{}, RestoredBrokers: []int32{}, ClearedTopics: []string{"mid"}, KeptBrokers: []int32{1, 2, 3}, KeptTopics: []string{"big"},
		Kept: "rates on brokers 1,2,3 (moves of topic big are still in progress)"})
	if !w.ThrottlesCleared || len(w.Brokers) != 0 {
		t.Errorf("summary %+v", w)
	}
	golden.JSON(t, "watch-summary.json.golden", w)
}
