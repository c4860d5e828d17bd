package quorum

import (
	"reflect"
	"testing"
	"time"
)

func TestProblems(t *testing.T) {
	now := time.UnixMilli(100_000)
	at := func(ms int64) *int64 { return &ms }
	voter := func(id int32, lag int64, caught int64) Replica {
		return Replica{ID: id, Lag: lag, LastCaughtUpMs: at(caught)}
	}
	healthy := &Quorum{LeaderID: 1, Voters: []Replica{voter(1, 0, 100_000), voter(2, 5, 99_500), voter(3, 0, 99_900)}}
	if p := Problems(healthy, now); len(p) != 0 {
		t.Errorf("healthy: %q", p)
	}
	single := &Quorum{LeaderID: 1, Voters: []Replica{voter(1, 0, 100_000)}}
	if p := Problems(single, now); len(p) != 0 {
		t.Errorf("single voter: %q", p)
	}
	lagging := &Quorum{LeaderID: 1, Voters: []Replica{voter(1, 0, 100_000), voter(2, 1500, 99_000), voter(3, 0, 40_000)}}
	want := []string{
		"quorum: voter 2 is 1500 records behind the leader (more than 1000)",
		"quorum: voter 3 last caught up 1m0s ago (more than 30s)",
		"quorum: 1 of 3 voters caught up, fewer than a majority (2)",
	}
	if p := Problems(lagging, now); !reflect.DeepEqual(p, want) {
		t.Errorf("lagging:\n%q\nwant\n%q", p, want)
	}
	one := &Quorum{LeaderID: 1, Voters: []Replica{voter(1, 0, 100_000), voter(2, 0, 99_000), voter(3, 0, 1_000)}}
	if p := Problems(one, now); len(p) != 2 || p[1] != "quorum: 2 of 3 voters caught up, a majority with none to spare" {
		t.Errorf("one voter behind: %q", p)
	}
	five := &Quorum{LeaderID: 1, Voters: []Replica{voter(1, 0, 0), voter(2, 0, 99_000), voter(3, 0, 99_000), voter(4, 2000, 99_000), voter(5, 0, 99_000)}}
	if p := Problems(five, now); len(p) != 1 {
		t.Errorf("five voters, one lagging (4 of 5 caught up, one to spare): %q", p)
	}
}
