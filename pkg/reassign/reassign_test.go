package reassign

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestFormatJSON(t *testing.T) {
	assign := map[TP][]int32{
		{"b", 0}:    {3, 1},
		{"a", 10}:   {1},
		{"a", 2}:    {2, 3},
		{"x\"y", 0}: {1},
	}
	dirs := map[Replica]string{{"b", 0, 1}: "/d/1"}
	got := FormatJSON(assign, dirs)
	want := `{"version":1,"partitions":[` +
		`{"topic":"a","partition":2,"replicas":[2,3],"log_dirs":["any","any"]},` +
		`{"topic":"a","partition":10,"replicas":[1],"log_dirs":["any"]},` +
		`{"topic":"b","partition":0,"replicas":[3,1],"log_dirs":["any","/d/1"]},` +
		`{"topic":"x\"y","partition":0,"replicas":[1],"log_dirs":["any"]}]}`
	if got != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	if got := FormatJSON(nil, nil); got != `{"version":1,"partitions":[]}` {
		t.Errorf("empty: %s", got)
	}
}

func TestParsePlan(t *testing.T) {
	p, err := ParsePlan([]byte(`{"partitions":[{"topic":"t","partition":1,"replicas":[3,2]},
		{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any","/data/b"]}],"version":1}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Moves) != 2 || p.Moves[0].Partition != 1 || !reflect.DeepEqual(p.Moves[0].LogDirs, []string{"any", "any"}) {
		t.Errorf("moves: %+v", p.Moves)
	}
	if got := p.DirMoves(); !reflect.DeepEqual(got, map[Replica]string{{"t", 0, 2}: "/data/b"}) {
		t.Errorf("dir moves: %v", got)
	}
	if err := p.ValidateExecute(); err != nil {
		t.Errorf("valid plan: %v", err)
	}
	for in, want := range map[string]string{
		`{"version":2,"partitions":[]}`: "Not supported version field value 2",
		`{"partitions":[{"topic":"t","partition":0,"replicas":[1,2],"log_dirs":["any"]}]}`: "Size of replicas list [1, 2] is different from size of log dirs list [any] for partition t-0",
		`{"partitions":[{"partition":0,"replicas":[1]}]}`:                                  "No such field exists: `topic`",
		`[1]`: "The input string is not a valid JSON",
	} {
		_, err := ParsePlan([]byte(in))
		if err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestValidateExecute(t *testing.T) {
	for in, want := range map[string]string{
		`{"partitions":[]}`: "Partition reassignment list cannot be empty",
		`{"partitions":[{"topic":"t","partition":0,"replicas":[]}]}`:                                                     "Partition replica list cannot be empty",
		`{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[2]}]}`:         "Partition reassignment contains duplicate topic partitions: t-0",
		`{"partitions":[{"topic":"t","partition":0,"replicas":[1,1,2,2]},{"topic":"u","partition":3,"replicas":[3,3]}]}`: "Partition replica lists may not contain duplicate entries: t-0 contains multiple entries for 1,2. u-3 contains multiple entries for 3",
	} {
		p, err := ParsePlan([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		if err := p.ValidateExecute(); err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %q", in, err, want)
		}
	}
}

func TestParseTopicsAndDuplicates(t *testing.T) {
	ts, err := ParseTopics([]byte(`{"topics":[{"topic":"b"},{"topic":"a"},{"topic":"b"}],"version":1}`))
	if err != nil || !reflect.DeepEqual(ts, []string{"b", "a", "b"}) {
		t.Fatalf("%v %v", ts, err)
	}
	if d := DuplicateTopics(ts); !reflect.DeepEqual(d, []string{"b"}) {
		t.Errorf("dups %v", d)
	}
	// HashSet<Integer> order: 17 hashes to bucket 1 of 16, before 5.
	if got := JavaIntSet(DuplicateBrokers([]int32{5, 17, 5, 17})); got != "[17, 5]" {
		t.Errorf("broker dups %s", got)
	}
}

// AdminRackAwareTest.testGetRackAlternatedBrokerListAndAssignReplicasToBrokers.
func TestPlacerRackAwareFixed(t *testing.T) {
	racks := map[int32]string{0: "rack1", 1: "rack3", 2: "rack3", 3: "rack2", 4: "rack2", 5: "rack1"}
	var bs []Broker
	for id := int32(0); id < 6; id++ {
		bs = append(bs, Broker{id, racks[id]})
	}
	if got := RackAlternated(bs); !reflect.DeepEqual(got, []int32{0, 3, 1, 5, 4, 2}) {
		t.Errorf("alternated %v", got)
	}
	got, err := Placer{Start: 0, Shift: 0}.Place(bs, 7, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{0, 3, 1}, {3, 1, 5}, {1, 5, 4}, {5, 4, 2}, {4, 2, 0}, {2, 0, 3}, {0, 4, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

func TestPlacerRackUnawareFixed(t *testing.T) {
	bs := []Broker{{0, ""}, {1, ""}, {2, ""}, {3, ""}, {4, ""}}
	got, err := Placer{Start: 0, Shift: 0}.Place(bs, 10, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int32{{0, 1, 2}, {1, 2, 3}, {2, 3, 4}, {3, 4, 0}, {4, 0, 1}, {0, 2, 3}, {1, 3, 4}, {2, 4, 0}, {3, 0, 1}, {4, 1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}

// Random start and shift (as Apache's): every partition placed, the
// replication factor kept, no broker twice, replicas on distinct racks
// while racks remain, and leaders spread evenly.
func TestPlacerRandomProperties(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	racks := []string{"a", "b", "c"}
	for iter := 0; iter < 300; iter++ {
		nb := 3 + r.IntN(7)
		rf := 1 + r.IntN(min(nb, 4))
		np := 1 + r.IntN(40)
		racked := iter%2 == 0
		var bs []Broker
		rackOf := map[int32]string{}
		for i := 0; i < nb; i++ {
			b := Broker{ID: int32(10 + i)}
			if racked {
				b.Rack = racks[i%len(racks)]
			}
			rackOf[b.ID] = b.Rack
			bs = append(bs, b)
		}
		got, err := Placer{Start: -1, Shift: -1, Rand: r}.Place(bs, np, rf)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != np {
			t.Fatalf("%d partitions placed, want %d", len(got), np)
		}
		leaders := map[int32]int{}
		for p, reps := range got {
			if len(reps) != rf {
				t.Fatalf("partition %d: %v, want rf %d", p, reps, rf)
			}
			seen, rs := map[int32]bool{}, map[string]bool{}
			for _, b := range reps {
				if _, ok := rackOf[b]; !ok || seen[b] {
					t.Fatalf("partition %d: %v: unknown or repeated broker", p, reps)
				}
				seen[b] = true
				rs[rackOf[b]] = true
			}
			if racked && len(rs) != min(rf, len(racks)) {
				t.Fatalf("partition %d: %v spans %d racks, want %d", p, reps, len(rs), min(rf, len(racks)))
			}
			leaders[reps[0]]++
		}
		lo, hi := np, 0
		for _, b := range bs {
			lo, hi = min(lo, leaders[b.ID]), max(hi, leaders[b.ID])
		}
		if hi-lo > 1 {
			t.Fatalf("leaders uneven: %v", leaders)
		}
	}
	if _, err := (Placer{Start: -1, Shift: -1}).Place([]Broker{{1, ""}}, 3, 2); err == nil ||
		err.Error() != "The target replication factor of 2 cannot be reached because only 1 broker(s) are registered or some brokers have all their log directories cordoned." {
		t.Errorf("rf > brokers: %v", err)
	}
	if _, err := (Placer{}).Place([]Broker{{1, "a"}, {2, ""}}, 3, 2); err == nil {
		t.Error("mixed racks accepted")
	}
}

func TestThrottleValues(t *testing.T) {
	ongoing := map[TP]Ongoing{{"t", 5}: {Replicas: []int32{4, 1, 2}, Adding: []int32{4}, Removing: []int32{2}}}
	proposed := map[TP][]int32{{"t", 0}: {3, 2}, {"t", 1}: {3, 1}, {"u", 0}: {2}}
	current := map[TP][]int32{{"t", 0}: {1, 2}, {"t", 1}: {2, 3}, {"u", 0}: {1}}
	moves, err := MoveMap(ongoing, proposed, current)
	if err != nil {
		t.Fatal(err)
	}
	leader, follower := TopicThrottleValues(moves)
	if want := map[string]string{"t": "0:1,0:2,1:2,1:3,5:1,5:2", "u": "0:1"}; !reflect.DeepEqual(leader, want) {
		t.Errorf("leader %v want %v", leader, want)
	}
	if want := map[string]string{"t": "0:3,1:1,5:4", "u": "0:2"}; !reflect.DeepEqual(follower, want) {
		t.Errorf("follower %v want %v", follower, want)
	}
	if got := ReassigningBrokers(moves); !reflect.DeepEqual(got, []int32{1, 2, 3, 4}) {
		t.Errorf("brokers %v", got)
	}
	if _, err := MoveMap(nil, map[TP][]int32{{"x", 0}: {1}}, nil); err == nil ||
		err.Error() != "Trying to reassign a topic partition x-0 with 0 replicas" {
		t.Errorf("missing current: %v", err)
	}
}

func TestStatesText(t *testing.T) {
	got := PartitionStatesText(map[TP]PartitionState{
		{"t", 1}: {Current: []int32{1, 2}, Target: []int32{2, 1}, Done: true},
		{"t", 0}: {Current: []int32{3}, Target: []int32{3}, Done: true},
		{"a", 0}: {Current: []int32{1, 2, 3}, Target: []int32{3}},
	})
	want := "Status of partition reassignment:\n" +
		"Reassignment of partition a-0 is still in progress.\n" +
		"Reassignment of partition t-0 is completed.\n" +
		"There is no active reassignment of partition t-1, but replica set is 1,2 rather than 2,1."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = DirStatesText(map[Replica]DirState{
		{"t", 0, 2}: {Kind: DirActive, Current: "/a", Future: "/b", Target: "/b"},
		{"t", 0, 1}: {Kind: DirCompleted, Current: "/b", Target: "/b"},
		{"t", 1, 1}: {Kind: DirCancelled, Current: "/a", Target: "/b"},
		{"t", 2, 1}: {Kind: DirMissingLogDir, Target: "/b"},
		{"t", 3, 2}: {Kind: DirActive, Current: "/a", Future: "/c", Target: "/b"},
	})
	want = "Reassignment of replica t-0-1 completed successfully.\n" +
		"Partition t-1 on broker 1 is not being moved from log dir /a to /b.\n" +
		"Partition t-2 is not found in any live log dir on broker 1. There is likely an offline log directory on the broker.\n" +
		"Reassignment of replica t-0-2 is still in progress.\n" +
		"Partition t-3 on broker 2 is being moved to log dir /c instead of /b."
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if DirStatesText(nil) != "" {
		t.Error("no moves: want empty text")
	}
}

// Apache prints "t1-1, t1-0" for a preferred election of t1-0 and t1-1
// (captured from the 4.4 tool): HashSet order by TopicPartition.hashCode.
func TestJavaSetOrder(t *testing.T) {
	all := []ElectResult{{TP: TP{"t1", 0}}, {TP: TP{"t1", 1}}}
	got := JavaSetOrder(all, all)
	if got[0].TP != (TP{"t1", 1}) || got[1].TP != (TP{"t1", 0}) {
		t.Errorf("order %v", got)
	}
	if h := (TP{"t1", 0}).JavaHash(); h != 4606 {
		t.Errorf("hash %d", h)
	}
}
