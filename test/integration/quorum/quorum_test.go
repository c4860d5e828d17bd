//go:build integration

// Package quorum_test checks kafka-metadata-quorum against Apache 4.4's
// MetadataQuorumCommand on a 3-node KRaft cluster (every Apache case in one
// JVM), over the brokers and over the controllers, and kbox quorum status
// on the same cluster. Nothing here changes the cluster: the test bed's
// quorum is static (kraft.version 0), so add-controller and
// remove-controller are checked in their dry runs and failures here
// (test/integration/quorumdyn does them for real on a dynamic quorum).
package quorum_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "quorum", Applets: []string{"kafka-metadata-quorum"}, Brokers: 3, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return nil
	}}))
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, path, args...)
}

// firstLine is the line Apache prints before a Java stack trace.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// moving are the values that change between two runs on a live quorum:
// offsets, lags and times.
var (
	movingStatus = regexp.MustCompile(`(?m)^(HighWatermark|MaxFollowerLag|MaxFollowerLagTimeMs):( +)-?\d+$`)
	msAgo        = regexp.MustCompile(`^\d+ ms ago$`)
	digits       = regexp.MustCompile(`^-?\d+$`)
)

// normalize masks what moves: describe --status's numbers, and in
// --replication's table the LogEndOffset, Lag and timestamp cells (after
// checking that every row has the header's padded widths).
func normalize(t *testing.T, out string) string {
	t.Helper()
	if strings.HasPrefix(out, "ClusterId:") {
		return movingStatus.ReplaceAllString(out, "$1:$2N")
	}
	if !strings.HasPrefix(out, "NodeId\t") {
		return out
	}
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	var b strings.Builder
	for i, l := range lines {
		cells := strings.Split(l, "\t")
		if len(cells) != 8 || cells[7] != "" {
			t.Errorf("row %q: not 7 tab-ended cells", l)
			return out
		}
		for c := 0; c < 7; c++ {
			cell := strings.TrimRight(cells[c], " ")
			if i > 0 && (c == 2 || c == 3 || c == 4 || c == 5) && (digits.MatchString(cell) || msAgo.MatchString(cell)) {
				cell = "N"
			}
			b.WriteString(cell + "|")
		}
		b.WriteString("\n")
	}
	return b.String()
}

func TestDifferential(t *testing.T) {
	bs, bc := cluster.Bootstrap, cluster.ControllerBootstrap
	if bc == "" {
		t.Fatal("the test bed names no controller listeners")
	}
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.properties")
	noRole := filepath.Join(dir, "norole.properties")
	if err := os.WriteFile(empty, []byte("request.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	bogus := filepath.Join(dir, "bogus.properties")
	if err := os.WriteFile(bogus, []byte("foo=bar\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(noRole, []byte("node.id=7\nprocess.roles=broker\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	node1 := filepath.Join(cluster.Dir, "n1", "server.properties")
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	c := func(args ...string) []string { return append([]string{"--bootstrap-controller", bc}, args...) }
	cases := [][]string{
		b("describe", "--status"),
		c("describe", "--status"),
		b("describe", "--replication"),
		c("describe", "--replication"),
		b("describe", "--replication", "--human-readable"),
		b("desc", "--rep", "--human"),
		c("--command-config", empty, "describe", "--status"),
		b("--command-config", node1, "add-controller", "--dry-run"),
		c("remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ", "--dry-run"),
		b("remove-controller", "--controller-id", "2", "--controller-directory-id", "A0y-o1ZpL4e8JDOG_pA6Zg", "--dry-run"),
		// Errors: the tool's checks.
		b("describe"),
		b("describe", "--status", "--replication"),
		b("describe", "--status", "--human-readable"),
		b("add-controller"),
		b("--command-config", bogus, "add-controller"),
		b("--command-config", noRole, "add-controller", "--dry-run"),
		b("--command-config", filepath.Join(dir, "missing.properties"), "describe", "--status"),
		b("remove-controller", "-i", "-3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ"),
		b("remove-controller", "-i", "3", "-d", "xyz"),
		{"--bootstrap-server", "bad", "describe", "--status"},
		// Parse errors and help (argparse4j; the tool catches them, so
		// they end the case, not the JVM).
		{},
		{"--help"},
		b("describe", "--help"),
		b("remove-controller", "-h"),
		b("remove-controller", "-i", "x", "-d", "y"),
		b("remove-controller", "-i", "3"),
		b("bogus"),
		b(),
		{"describe", "--status"},
		{"--bootstrap-server", bs, "--bootstrap-controller", bc, "describe", "--status"},
		b("describe", "--bogus"),
	}
	want, err := cluster.ApacheBatch("kafka-metadata-quorum", cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, "kafka-metadata-quorum")
	for i, args := range cases {
		w := want[i]
		got := kbox(t, link, args...)
		errOK := got.Stderr == w.Stderr
		if strings.Contains(w.Stderr, "\n\tat ") {
			errOK = firstLine(got.Stderr) == firstLine(w.Stderr) && strings.Count(got.Stderr, "\n") == 1
		}
		if got.Code != w.Code || normalize(t, got.Stdout) != normalize(t, w.Stdout) || !errOK {
			t.Errorf("%v:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
		if i == 0 && (w.Code != 0 || !strings.Contains(w.Stdout, "CurrentVoters:          [{\"id\": 1")) {
			t.Errorf("the quorum is not what Apache sees: %q", w.Stdout)
		}
	}
	// The .sh link and kbox's own names are the same tool.
	for _, argv := range [][]string{{"kafka-metadata-quorum.sh"}, {"kbox", "kafka-metadata-quorum"}, {"kbox", "quorum"}} {
		path := kboxBin
		args := append([]string(nil), argv[1:]...)
		if argv[0] != "kbox" {
			path = filepath.Join(binDir, argv[0])
			if err := os.Symlink(kboxBin, path); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
		args = append(args, "--bootstrap-controller", bc, "describe", "--status")
		if got := kbox(t, path, args...); got.Code != 0 || normalize(t, got.Stdout) != normalize(t, want[1].Stdout) {
			t.Errorf("%v: %s", argv, got)
		}
	}
}

// remove-controller on the static quorum: the cluster refuses (kraft.version
// 0), and nothing changes. Apache's answer depends on which node its admin
// client picks, so kbox's is checked on its own.
func TestRemoveControllerRefused(t *testing.T) {
	link := filepath.Join(binDir, "kafka-metadata-quorum")
	for _, conn := range [][]string{{"--bootstrap-server", cluster.Bootstrap}, {"--bootstrap-controller", cluster.ControllerBootstrap}} {
		got := kbox(t, link, append(conn, "remove-controller", "-i", "3", "-d", "AAAAAAAAAAAAAAAAAAAAAQ")...)
		if got.Code != 1 || got.Stdout != "" || !strings.HasPrefix(got.Stderr, "org.apache.kafka.common.errors.") || strings.Count(got.Stderr, "\n") != 1 {
			t.Errorf("%v: %s", conn, got)
		}
	}
	q := status(t, "--bootstrap-server", cluster.Bootstrap)
	if len(q.Voters) != 3 {
		t.Errorf("voters after the refused removal: %+v", q.Voters)
	}
}

type info struct {
	ClusterID string `json:"cluster_id"`
	LeaderID  int32  `json:"leader_id"`
	Voters    []struct {
		ID        int32    `json:"id"`
		Endpoints []string `json:"endpoints"`
		Status    string   `json:"status"`
		Lag       int64    `json:"lag"`
	} `json:"voters"`
	Observers []json.RawMessage `json:"observers"`
}

func status(t *testing.T, args ...string) info {
	t.Helper()
	r := kbox(t, kboxBin, append([]string{"quorum", "status", "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("%v: %s", args, r)
	}
	var q info
	if err := json.Unmarshal([]byte(r.Stdout), &q); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, r.Stdout)
	}
	return q
}

// kbox quorum status: the same quorum over the brokers, the controllers,
// and a profile that names only the controllers (which the drop-in uses
// too, with --bootstrap-controller added).
func TestNativeStatus(t *testing.T) {
	byBroker := status(t, "--bootstrap-server", cluster.Bootstrap)
	byCtl := status(t, "--bootstrap-controller", cluster.ControllerBootstrap)
	for _, q := range []info{byBroker, byCtl} {
		leaders := 0
		for _, v := range q.Voters {
			if v.Status == "Leader" {
				leaders++
				if v.ID != q.LeaderID {
					t.Errorf("leader row %d, leader_id %d", v.ID, q.LeaderID)
				}
			}
			if len(v.Endpoints) != 1 || !strings.HasPrefix(v.Endpoints[0], "CONTROLLER://127.0.0.1:") {
				t.Errorf("voter %d endpoints %v", v.ID, v.Endpoints)
			}
		}
		if q.ClusterID == "" || len(q.Voters) != 3 || leaders != 1 || q.Observers == nil {
			t.Errorf("%+v", q)
		}
	}
	if byBroker.ClusterID != byCtl.ClusterID {
		t.Errorf("cluster ids %q and %q", byBroker.ClusterID, byCtl.ClusterID)
	}
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("current-profile: ctl\nprofiles:\n  ctl:\n    bootstrap-controllers: ["+cluster.ControllerBootstrap+"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	run := testbed.Runner{Config: cfg, Timeout: 60 * time.Second}
	if r := run.Exec(t, kboxBin, "quorum", "status", "-o", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"cluster_id":"`+byBroker.ClusterID+`"`) {
		t.Errorf("kbox quorum status with a controllers-only profile: %s", r)
	}
	r := run.Exec(t, kboxBin, "quorum", "describe", "--status")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "ClusterId:              "+byBroker.ClusterID+"\n") {
		t.Errorf("kbox quorum describe --status with a controllers-only profile: %s", r)
	}
	if r := run.Exec(t, kboxBin, "quorum", "describe", "--replication", "-o", "json"); r.Code != 0 || !strings.Contains(r.Stdout, `"status":"Leader"`) || !strings.Contains(r.Stdout, `"cluster_id":"`+byBroker.ClusterID+`"`) {
		t.Errorf("kbox quorum describe --replication -o json: %s", r)
	}
}
