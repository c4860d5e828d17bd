//go:build integration

package reassign_test

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
)

func setConfigs(t *testing.T, adm *kadm.Client, broker int32, topic string, kv ...string) {
	t.Helper()
	var cs []kadm.AlterConfig
	for i := 0; i < len(kv); i += 2 {
		v := kv[i+1]
		cs = append(cs, kadm.AlterConfig{Op: kadm.SetConfig, Name: kv[i], Value: &v})
	}
	var rs kadm.AlterConfigsResponses
	var err error
	if topic != "" {
		rs, err = adm.AlterTopicConfigs(context.Background(), cs, topic)
	} else {
		rs, err = adm.AlterBrokerConfigs(context.Background(), cs, broker)
	}
	if err == nil {
		for _, r := range rs {
			if r.Err != nil {
				err = r.Err
			}
		}
	}
	if err != nil {
		t.Fatal(err)
	}
}

// settled polls the throttle configs until they are want (a broker
// answers DescribeConfigs once it has applied the controller's change,
// which may lag the change's response) or 15 s passed, and returns the
// last read.
func settled(t *testing.T, adm *kadm.Client, want map[string]string) map[string]string {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		got := throttles(t, adm)
		if reflect.DeepEqual(got, want) || time.Now().After(deadline) {
			return got
		}
		time.Sleep(200 * time.Millisecond)
	}
}

type watchSummary struct {
	Topics    []string `json:"topics"`
	Cleared   bool     `json:"throttles_cleared"`
	Throttles *struct {
		ClearedBrokers []int32  `json:"cleared_brokers"`
		ClearedTopics  []string `json:"cleared_topics"`
		KeptBrokers    []int32  `json:"kept_brokers"`
		Kept           string   `json:"kept"`
	} `json:"throttles"`
}

func watchJSON(t *testing.T, args ...string) watchSummary {
	t.Helper()
	r := kbox(t, "kbox", append([]string{"reassign", "status", "--watch", "--interval", "500ms", "-o", "json", "--bootstrap-server", cluster.Bootstrap}, args...)...)
	lines := strings.Split(strings.TrimSpace(r.out), "\n")
	var sum watchSummary
	if r.code != 0 || json.Unmarshal([]byte(lines[len(lines)-1]), &sum) != nil {
		t.Fatalf("status --watch %v: %d\n%s\n%s", args, r.code, r.out, r.err)
	}
	return sum
}

// Issue 26: a watch clears only the throttles of the moves it saw, and
// broker rates only when no reassignment is in progress anywhere.
//
//   - Nothing moving: a rate set by hand survives the watch (it was removed,
//     "All reassignments done after 0s (topics: none)").
//   - --plan naming one partition (mid-0) whose move finishes while another
//     throttled move (big-0, at 10 kB/s into broker 3) is still copying: the
//     watch removes mid's throttled replicas, keeps every broker rate and
//     big's lists, and says why; big-0 is still moving, still throttled
//     (the rates were removed and the other moves finished at once).
//   - The same --plan again, its partition long done: nothing cleared.
//
// The throttles are set by hand, per broker, so that mid-0 (1 -> 2, broker
// 2's follower at 400 kB/s) takes seconds and big-0 (1 -> 3, broker 3's
// follower at 10 kB/s) minutes.
func TestWatchOwnsOnlyWhatItSaw(t *testing.T) {
	reset(t)
	adm, cl := adminClient(t)
	defer func() {
		req := kadm.AlterPartitionAssignmentsReq{}
		req.CancelAssign("big", 0)
		adm.AlterPartitionAssignments(context.Background(), req) //nolint:errcheck
		clearThrottles(t, adm)
	}()

	setConfigs(t, adm, 1, "", "leader.replication.throttled.rate", "123456")
	settled(t, adm, map[string]string{"broker 1 leader.replication.throttled.rate": "123456"})
	sum := watchJSON(t)
	if len(sum.Topics) != 0 || sum.Cleared {
		t.Errorf("watch with nothing moving: %+v", sum)
	}
	if got := throttles(t, adm); !reflect.DeepEqual(got, map[string]string{"broker 1 leader.replication.throttled.rate": "123456"}) {
		t.Errorf("a rate set by hand after a watch that saw nothing move: %v", got)
	}
	r := kbox(t, "kbox", "reassign", "status", "--watch", "--bootstrap-server", cluster.Bootstrap)
	if r.code != 0 || !strings.Contains(r.out, "this watch saw no move and clears no throttle") ||
		!strings.Contains(r.out, "Throttles kept: rates on broker 1 (not set for a move this command saw).") {
		t.Errorf("watch with nothing moving: %d\n%s\n%s", r.code, r.out, r.err)
	}

	setConfigs(t, adm, 1, "", "leader.replication.throttled.rate", "1000000")
	setConfigs(t, adm, 2, "", "follower.replication.throttled.rate", "400000")
	setConfigs(t, adm, 3, "", "follower.replication.throttled.rate", "10000")
	setConfigs(t, adm, 0, "big", "leader.replication.throttled.replicas", "0:1,0:2", "follower.replication.throttled.replicas", "0:3")
	setConfigs(t, adm, 0, "mid", "leader.replication.throttled.replicas", "0:1", "follower.replication.throttled.replicas", "0:2")
	before := map[string]string{
		"broker 1 leader.replication.throttled.rate":        "1000000",
		"broker 2 follower.replication.throttled.rate":      "400000",
		"broker 3 follower.replication.throttled.rate":      "10000",
		"topic big leader.replication.throttled.replicas":   "0:1,0:2",
		"topic big follower.replication.throttled.replicas": "0:3",
		"topic mid leader.replication.throttled.replicas":   "0:1",
		"topic mid follower.replication.throttled.replicas": "0:2",
	}
	if got := settled(t, adm, before); !reflect.DeepEqual(got, before) {
		t.Fatalf("throttles set by hand: %v", got)
	}
	req := kadm.AlterPartitionAssignmentsReq{}
	req.Assign("big", 0, []int32{3, 2})
	req.Assign("mid", 0, []int32{1, 2})
	if _, err := adm.AlterPartitionAssignments(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	tiny := writeFile(t, "tiny.json", `{"version":1,"partitions":[{"topic":"mid","partition":0,"replicas":[1,2]}]}`)
	start := time.Now()
	sum = watchJSON(t, "--plan", tiny)
	t.Logf("watch of mid-0 took %v: %+v %+v", time.Since(start), sum, sum.Throttles)
	want := map[string]string{}
	for k, v := range before {
		if !strings.HasPrefix(k, "topic mid ") {
			want[k] = v
		}
	}
	if got := settled(t, adm, want); !reflect.DeepEqual(got, want) {
		t.Errorf("throttles after the watch of mid-0:\n got %v\nwant %v", got, want)
	}
	if !ongoing(t, cl)["big-0"] {
		t.Fatal("big-0 is done: its throttle was lifted, or the bed let a 10 kB/s move of 8 MB through")
	}
	if !reflect.DeepEqual(sum.Topics, []string{"mid"}) {
		t.Fatalf("the watch did not see mid-0 move (topics %v): it started too late", sum.Topics)
	}
	if th := sum.Throttles; th == nil || !reflect.DeepEqual(th.ClearedTopics, []string{"mid"}) || len(th.ClearedBrokers) != 0 ||
		!strings.Contains(th.Kept, "(moves of topic big are still in progress)") {
		t.Errorf("summary: %+v", th)
	}

	// The plan's partition is long done: this watch sees nothing, clears nothing.
	before = throttles(t, adm)
	if sum := watchJSON(t, "--plan", tiny); sum.Cleared || len(sum.Topics) != 0 {
		t.Errorf("second watch of mid-0: %+v", sum)
	}
	if got := throttles(t, adm); !reflect.DeepEqual(got, before) {
		t.Errorf("throttles after a watch of a finished partition:\n got %v\nwant %v", got, before)
	}
	if !ongoing(t, cl)["big-0"] {
		t.Error("big-0 is done: its throttle was lifted")
	}
}
