//go:build integration

package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// runReport is the part of `kbox verify run -o json` the tests read.
type runReport struct {
	verdict
	Run struct {
		Topic      string `json:"topic"`
		Sent       int64  `json:"sent"`
		Acked      int64  `json:"acked"`
		Consumed   int64  `json:"consumed"`
		CaughtUp   bool   `json:"caught_up"`
		Idempotent bool   `json:"idempotent"`
		During     *struct {
			Command  string `json:"command"`
			ExitCode int    `json:"exit_code"`
		} `json:"during"`
	} `json:"run"`
}

// kboxRun runs `kbox verify run ARGS` and returns stdout, stderr, exit.
func kboxRun(t *testing.T, timeout time.Duration, env []string, args ...string) (string, string, int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, kboxBin, append([]string{"verify", "run"}, args...)...)
	cmd.Env = append(append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml")), env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("verify run: %v (stderr %s)", err, errb.String())
	}
	return out.String(), errb.String(), code
}

func parseRun(t *testing.T, out string) runReport {
	t.Helper()
	var r runReport
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("verify run -o json: %v in %q", err, out)
	}
	return r
}

func topicExists(t *testing.T, name string) bool {
	t.Helper()
	out, _, _, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.PlaintextBootstrap, "--list")
	if err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.TrimSpace(l) == name {
			return true
		}
	}
	return false
}

// TestRunValid: a run that creates its topic (3 partitions, RF 3,
// min.insync.replicas=2), 2 producers and 2 consumers, judged valid.
func TestRunValid(t *testing.T) {
	const n = 6000
	out, stderr, code := kboxRun(t, 150*time.Second, nil, "--bootstrap-server", cluster.Bootstrap,
		"--topic", "run-valid", "--create-topic", "--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=2",
		"--messages", "6000", "--producers", "2", "--consumers", "2", "--throughput", "3000", "--timeout", "120s", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d, stdout %s, stderr %s", code, out, stderr)
	}
	r := parseRun(t, out)
	if !r.Valid || r.Stats.Acked != n || r.Stats.UniqueConsumed != n || !r.Run.CaughtUp || r.Run.Acked != n {
		t.Errorf("verdict %+v", r)
	}
	if r.count("lost") != 0 || r.count("unseen") != 0 {
		t.Errorf("lost records: %+v", r.Anomalies)
	}
	// Piped stderr gets plain progress lines, the last one caught up.
	if !strings.Contains(stderr, "kbox verify run: ") || !strings.Contains(stderr, "lag 0") {
		t.Errorf("no progress lines on stderr: %q", stderr)
	}
}

// TestRunBadInput: one-line errors, non-zero exits, no topic created.
func TestRunBadInput(t *testing.T) {
	cases := []struct {
		args []string
		exit int
		msg  string
	}{
		{[]string{"--topic", "run-bad", "--create-topic", "--messages", "0"}, 2, "--messages must be a positive"},
		{[]string{"--topic", "run-bad", "--create-topic", "--messages", "10", "--acks", "2"}, 2, "--acks must be"},
		{[]string{"--topic", "run-bad", "--create-topic", "--messages", "10", "--command-config", "/nonexistent/p.properties"}, 1, "/nonexistent/p.properties"},
		{[]string{"--topic", "run-missing", "--messages", "10"}, 1, "topic run-missing does not exist"},
	}
	for _, c := range cases {
		out, stderr, code := kboxRun(t, 60*time.Second, nil, append([]string{"--bootstrap-server", cluster.Bootstrap}, c.args...)...)
		if code != c.exit || !strings.Contains(stderr, c.msg) || out != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q, want exit %d and %q", c.args, code, out, stderr, c.exit, c.msg)
		}
		if first := strings.SplitN(strings.TrimSpace(stderr), "\n", 2)[0]; !strings.HasPrefix(first, "kbox: error: ") {
			t.Errorf("%v: stderr %q", c.args, stderr)
		}
	}
	if topicExists(t, "run-bad") || topicExists(t, "run-missing") {
		t.Error("a failed validation created a topic")
	}
}

// TestRunDuringLeaderKill: the --during command SIGKILLs the leader of
// partition 0 and restarts it while idempotent producers run; the verdict
// is valid with nothing lost and no duplicates.
func TestRunDuringLeaderKill(t *testing.T) {
	const topic = "run-during"
	createTopic(t, topic)
	id := leaderOfP0(t, topic)
	script := testbed.Script()
	during := "sleep 2; " + script + " stop-broker " + strconv.Itoa(id) + " --kill; sleep 2; " + script + " start-broker " + strconv.Itoa(id)
	out, stderr, code := kboxRun(t, 200*time.Second, []string{"KBOX_TESTBED_DIR=" + cluster.Dir},
		"--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--messages", "8000", "--throughput", "800",
		"--producers", "2", "--consumers", "2", "--idempotent", "--timeout", "150s", "--during", during, "-o", "json")
	r := parseRun(t, out)
	if code != 0 || !r.Valid {
		t.Fatalf("exit %d, verdict %+v, stderr %s", code, r, stderr)
	}
	if r.Run.During == nil || r.Run.During.ExitCode != 0 || r.Run.During.Command != during {
		t.Errorf("during: %+v", r.Run.During)
	}
	if r.count("lost") != 0 || r.count("unseen") != 0 || r.count("duplicate") != 0 || !r.Run.CaughtUp {
		t.Errorf("anomalies %+v", r.Anomalies)
	}
	if !r.Run.Idempotent || r.Stats.Acked != 8000 || r.Stats.UniqueConsumed != 8000 {
		t.Errorf("acked %d, distinct consumed %d, idempotent %v", r.Stats.Acked, r.Stats.UniqueConsumed, r.Run.Idempotent)
	}
	t.Logf("broker %d killed and restarted: acked %d, consumed %d, anomalies %+v", id, r.Stats.Acked, r.Stats.Consumed, r.Anomalies)
}
