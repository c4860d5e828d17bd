//go:build integration

// Package quorumdyn_test checks kafka-metadata-quorum's add-controller and
// remove-controller for real against Apache 4.4's MetadataQuorumCommand, on
// a 3-node cluster whose quorum is bootstrapped dynamically (kraft.version
// 1, testbed.sh up --dynamic-quorum) plus controller-only node 4, started
// as an observer (testbed.sh start-controller 4). Node 4 is added and
// removed by each tool in turn, over --bootstrap-controller and over
// --bootstrap-server, and describe --status and --replication by both tools
// must show it as a voter, then as an observer again. The error paths that
// need a dynamic quorum (adding a voter again, removing an observer or an
// unknown directory id) are compared too.
package quorumdyn_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

// newID is the controller-only node that is added and removed.
const newID = 4

var (
	cluster  *testbed.Cluster
	kboxBin  string
	binDir   string
	newProps string // node 4's server.properties
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "quorumdyn", Applets: []string{"kafka-metadata-quorum"}, Brokers: 3, DynamicQuorum: true,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			var err error
			newProps, err = cluster.StartController(newID)
			return err
		}}))
}

func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 90 * time.Second}.Exec(t, filepath.Join(binDir, "kafka-metadata-quorum"), args...)
}

var (
	movingStatus = regexp.MustCompile(`(?m)^(HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):( +)-?\d+$`)
	// a --replication row: the LogEndOffset, Lag and timestamp cells move.
	replRow = regexp.MustCompile(`^(\d+ *\t\S+ *\t)\d+ *\t\d+ *\t-?\d+ *\t-?\d+ *\t(\S+ *\t)$`)
)

// normalize masks what Apache itself varies between two runs: describe
// --status's offsets and lags, --replication's offsets, lags and times
// (their cells' padding with them; the columns' widths are checked by the
// static-quorum tests).
func normalize(out string) string {
	if strings.HasPrefix(out, "ClusterId:") {
		return movingStatus.ReplaceAllString(out, "$1: N")
	}
	if !strings.HasPrefix(out, "NodeId\t") {
		return out
	}
	lines := strings.Split(out, "\n")
	for i := 1; i < len(lines); i++ {
		lines[i] = replRow.ReplaceAllString(lines[i], "${1}N\tN\tN\tN\t$2")
	}
	return strings.Join(lines, "\n")
}

// firstLine is the line Apache prints before a Java stack trace.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// same reports whether kbox's result is Apache's: exit code, normalised
// stdout, stderr (only the first line, and kbox's one line, where Apache
// adds a stack trace).
func same(got, want testbed.Result) bool {
	errOK := got.Stderr == want.Stderr
	if strings.Contains(want.Stderr, "\n\tat ") {
		errOK = firstLine(got.Stderr) == firstLine(want.Stderr) && strings.Count(got.Stderr, "\n") == 1
	}
	return got.Code == want.Code && normalize(got.Stdout) == normalize(want.Stdout) && errOK
}

// compare runs cases with Apache (one JVM) and kbox and compares them.
// A round in which either tool was told NotLeaderOrFollowerException (the
// KRaft leader moved while a broker forwarded the request: seen on a
// loaded machine, where Apache printed it for both --bootstrap-server
// cases of a batch) says nothing of the tools: once there is a leader
// again the round is run again, at most twice. The cases change nothing
// (they are refused or dry runs), so a repeat meets the same state.
func compare(t *testing.T, cases [][]string) []testbed.Result {
	t.Helper()
	for attempt := 1; ; attempt++ {
		want, err := cluster.ApacheBatch("kafka-metadata-quorum", cases)
		if err != nil {
			t.Fatal(err)
		}
		got := make([]testbed.Result, len(cases))
		moved := ""
		for i, args := range cases {
			got[i] = kbox(t, args...)
			for who, r := range map[string]testbed.Result{"apache": want[i], "kbox": got[i]} {
				if leaderMoved(r) {
					moved = fmt.Sprintf("%s %v: %s", who, args, firstLine(r.Stderr))
				}
			}
		}
		if moved != "" && attempt < 3 {
			t.Logf("attempt %d: the KRaft leader moved (%s); again once there is a leader", attempt, moved)
			waitLeader(t)
			continue
		}
		for i, args := range cases {
			if !same(got[i], want[i]) {
				t.Errorf("%v:\nkbox   exit %d\nstdout %q\nstderr %.600q\napache exit %d\nstdout %q\nstderr %.600q",
					args, got[i].Code, got[i].Stdout, got[i].Stderr, want[i].Code, want[i].Stdout, want[i].Stderr)
			}
		}
		return want
	}
}

// leaderMoved: the tool was told the node it asked is not the KRaft
// leader (NOT_LEADER_OR_FOLLOWER), which only a leader change explains.
func leaderMoved(r testbed.Result) bool {
	return strings.Contains(r.Stderr, "NotLeaderOrFollowerException")
}

// waitLeader waits until kbox quorum status names a leader.
func waitLeader(t *testing.T) {
	t.Helper()
	cmdtest.Eventually(t, 60*time.Second, func() (bool, string) {
		q := status(t)
		for _, m := range q.Voters {
			if m.Status == "Leader" {
				return true, ""
			}
		}
		return false, fmt.Sprintf("no leader among the voters %+v", q.Voters)
	})
}

type member struct {
	ID     int32  `json:"id"`
	Status string `json:"status"`
}

type quorumStatus struct {
	Voters    []member `json:"voters"`
	Observers []member `json:"observers"`
}

// status is kbox quorum status -o json.
func status(t *testing.T) quorumStatus {
	t.Helper()
	r := testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, kboxBin,
		"quorum", "status", "-o", "json", "--bootstrap-server", cluster.Bootstrap)
	if r.Code != 0 {
		t.Fatalf("kbox quorum status: %s", r)
	}
	var q quorumStatus
	if err := json.Unmarshal([]byte(r.Stdout), &q); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	return q
}

// role is node id's status in kbox quorum status: Leader, Follower,
// Observer, or "" when absent.
func role(t *testing.T, id int32) string {
	t.Helper()
	q := status(t)
	for _, m := range append(q.Voters, q.Observers...) {
		if m.ID == id {
			return m.Status
		}
	}
	return ""
}

// waitRole waits until node 4 has status want.
func waitRole(t *testing.T, want string) {
	t.Helper()
	cmdtest.Eventually(t, 60*time.Second, func() (bool, string) {
		r := role(t, newID)
		return r == want, "node 4's status: " + r
	})
}

// row4 is node 4's row of a describe --replication output.
func row4(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "4 ") {
			return l
		}
	}
	return ""
}

func TestAddRemoveController(t *testing.T) {
	bs, bc := cluster.Bootstrap, cluster.ControllerBootstrap
	meta, err := os.ReadFile(filepath.Join(cluster.Dir, "n4", "data", "meta.properties"))
	if err != nil {
		t.Fatal(err)
	}
	dirID := regexp.MustCompile(`(?m)^directory\.id=(\S+)$`).FindSubmatch(meta)
	if dirID == nil {
		t.Fatalf("no directory.id in node 4's meta.properties:\n%s", meta)
	}
	d4 := string(dirID[1])
	waitRole(t, "Observer")
	// Node 5 has node 4's log dir but is not in the quorum: the leader
	// gives up on it at once, as lagging behind.
	props, err := os.ReadFile(newProps)
	if err != nil {
		t.Fatal(err)
	}
	node5 := filepath.Join(t.TempDir(), "node5.properties")
	if err := os.WriteFile(node5, regexp.MustCompile(`(?m)^node\.id=4$`).ReplaceAll(props, []byte("node.id=5")), 0o600); err != nil {
		t.Fatal(err)
	}
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	c := func(args ...string) []string { return append([]string{"--bootstrap-controller", bc}, args...) }
	describes := [][]string{
		c("describe", "--replication"),
		b("describe", "--replication"),
		b("describe", "--status"),
		c("describe", "--status"),
	}
	// Node 4 is an observer: removing it, or an unknown directory of a
	// voter, is refused.
	observing := append(append([][]string(nil), describes...),
		c("remove-controller", "-i", "4", "-d", d4),
		b("remove-controller", "--controller-id", "4", "--controller-directory-id", d4),
		c("remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ"),
		b("remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ"),
		c("--command-config", newProps, "add-controller", "--dry-run"),
		c("remove-controller", "-i", "4", "-d", d4, "--dry-run"),
		c("remove-controller", "-i", "4", "-d", d4, "--dry-run", "--unregister"),
		c("remove-controller", "-i", "4", "-d", d4, "--unregister"),
		b("remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ", "--unregister"),
		c("--command-config", node5, "add-controller"),
		b("--command-config", node5, "add-controller"),
	)
	// Node 4 is a voter: adding it again is refused.
	voting := append(append([][]string(nil), describes...),
		c("--command-config", newProps, "add-controller"),
		b("--command-config", newProps, "add-controller"),
	)
	checkRole := func(want []testbed.Result, status string) {
		t.Helper()
		for i := 0; i < 2; i++ {
			if !strings.Contains(row4(want[i].Stdout), status) {
				t.Errorf("Apache %v: node 4 is not a %s:\n%s", describes[i], status, want[i].Stdout)
			}
		}
		voters, _, _ := strings.Cut(want[2].Stdout, "CurrentObservers:")
		if strings.Contains(voters, `{"id": 4,`) != (status == "Follower") {
			t.Errorf("Apache describe --status, node 4 as a %s:\n%s", status, want[2].Stdout)
		}
	}
	w := compare(t, observing)
	checkRole(w, "Observer")
	if w[4].Code != 1 || !strings.HasPrefix(w[4].Stderr, "org.apache.kafka.common.errors.VoterNotFoundException: ") {
		t.Errorf("Apache removing an observer: %+v", w[4])
	}
	if w[6].Code != 1 || !strings.HasPrefix(w[6].Stderr, "org.apache.kafka.common.errors.VoterNotFoundException: ") {
		t.Errorf("Apache removing an unknown directory: %+v", w[6])
	}
	if w[11].Code != 1 || !strings.HasPrefix(w[11].Stderr, "Failed to remove KRaft voter 4: Cannot remove voter ") {
		t.Errorf("Apache removing an observer with --unregister: %+v", w[11])
	}
	if w[13].Code != 1 || !strings.HasPrefix(w[13].Stderr, "org.apache.kafka.common.errors.TimeoutException: Aborted add voter operation for ReplicaKey(id=5, ") {
		t.Errorf("Apache adding a node that is not an observer: %+v", w[13])
	}

	added := "Added controller 4 with directory id " + d4 + " and endpoints: CONTROLLER://127.0.0.1:"
	var addLine string // Apache's: kbox's must be the same
	removed := "Removed KRaft controller 4 with directory id " + d4 + "\n"
	unregistered := removed + "Unregistered KRaft controller 4\n"
	// Each round: one tool adds, the other removes (and unregisters).
	for _, round := range []struct {
		name        string
		apacheAdds  bool
		addBy, rmBy []string
		unregister  bool
		describe    bool
	}{
		{"apache adds, kbox removes, controllers", true, c(), c(), false, true},
		{"kbox adds, apache removes and unregisters, brokers", false, b(), b(), true, true},
		{"apache adds over the brokers, kbox removes and unregisters over the controllers", true, b(), c(), true, false},
	} {
		add := append(append([]string(nil), round.addBy...), "--command-config", newProps, "add-controller")
		rm := append(append([]string(nil), round.rmBy...), "remove-controller", "-i", "4", "-d", d4)
		wantRm := removed
		if round.unregister {
			rm, wantRm = append(rm, "--unregister"), unregistered
		}
		// run runs one tool, again while it is told the leader moved (see
		// compare): a refused add or remove changed nothing.
		run := func(apache bool, args []string) testbed.Result {
			t.Helper()
			for attempt := 1; ; attempt++ {
				var r testbed.Result
				if apache {
					r.Stdout, r.Stderr, r.Code, err = cluster.Apache(nil, "kafka-metadata-quorum", args...)
					if err != nil {
						t.Fatal(err)
					}
				} else {
					r = kbox(t, args...)
				}
				if !leaderMoved(r) || attempt == 3 {
					return r
				}
				t.Logf("%s: attempt %d: the KRaft leader moved (%s); again once there is a leader", round.name, attempt, firstLine(r.Stderr))
				waitLeader(t)
			}
		}
		got := run(round.apacheAdds, add)
		if got.Code != 0 || !strings.HasPrefix(got.Stdout, added) || strings.Count(got.Stdout, "\n") != 1 || got.Stderr != "" ||
			(addLine != "" && got.Stdout != addLine) {
			t.Fatalf("%s: add-controller: %+v (Apache printed %q)", round.name, got, addLine)
		}
		addLine = got.Stdout
		waitRole(t, "Follower")
		if round.describe {
			checkRole(compare(t, voting), "Follower")
		}
		got = run(!round.apacheAdds, rm)
		if got.Code != 0 || got.Stdout != wantRm || got.Stderr != "" {
			t.Fatalf("%s: remove-controller: %+v", round.name, got)
		}
		waitRole(t, "Observer")
	}
	checkRole(compare(t, describes), "Observer")
}
