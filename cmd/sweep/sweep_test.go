package sweep

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runSweep(t *testing.T, args ...string) (string, string, error) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{New: NewCmd}, args...)
	return r.Stdout, r.ErrOut, r.Err
}

func TestSweepDryRunAndRefusals(t *testing.T) {
	out, errOut, err := runSweep(t, "produce", "--topic-prefix", "p", "--records", "1000", "--warmup-records", "100", "--repeat", "2",
		"--vary", "batch.size=16k,64k", "--vary", "partitions=1,3", "--one-at-a-time", "--dry-run")
	if err != nil {
		t.Fatal(err)
	}
	if out != "cell 1: batch.size=16k partitions=1\ncell 2: batch.size=64k partitions=1\ncell 3: batch.size=16k partitions=3\n" {
		t.Fatalf("dry run:\n%s", out)
	}
	if !strings.Contains(errOut, "sweep produce: 3 cells (one-at-a-time of batch.size (2) x partitions (2)) x 2 repeat(s) x 1,100 records (1,000 + 100 warm-up) = 6,600 records") {
		t.Fatalf("statement: %s", errOut)
	}
	_, errOut, _ = runSweep(t, "consume", "--topic-prefix", "p", "--records", "1000", "--vary", "record-size=1k,2k", "--vary", "consumers=1,2", "--dry-run")
	if !strings.Contains(errOut, "x 3 repeat(s) x 1,000 records (1,000 + 0 warm-up) = 12,000 records, plus 2,000 to fill 2 topic(s)") {
		t.Fatalf("consume statement: %s", errOut)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--vary", "lingr.ms=1"}, "--vary lingr.ms: unknown client property"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10"}, "give at least one --vary"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--vary", "linger.ms=1", "--grid", "--one-at-a-time"}, "exclude each other"},
		{[]string{"produce", "--records", "10", "--vary", "linger.ms=1"}, "--topic-prefix is required"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--vary", "linger.ms=1", "--record-size", "0"}, "--record-size 0"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--vary", "linger.ms=1", "--report", "x.pdf"}, "must end in .html or .png"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "26000000", "--vary", "linger.ms=1,2"}, "would move 156,000,000 records, more than --max-records 50,000,000"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--duration", "3s", "--vary", "linger.ms=1"}, "either --records or --duration"},
		{[]string{"consume", "--topic-prefix", "p", "--duration", "3s", "--vary", "max.poll.records=10"}, "size its runs with --records"},
		{[]string{"consume", "--topic-prefix", "p", "--vary", "max.poll.records=10"}, "size its runs with --records"},
		{[]string{"consume", "--topic-prefix", "p", "--records", "10", "--warmup-duration", "1s", "--vary", "max.poll.records=10"}, "give its warm-up by count"},
		{[]string{"produce", "--topic-prefix", "p", "--vary", "linger.ms=1", "--max-spread", "-1"}, "--max-spread and --rerun-outliers must not be negative"},
		{[]string{"produce", "--topic-prefix", "p", "--vary", "linger.ms=1", "--warmup-duration", "-1s"}, "must not be negative"},
		{[]string{"produce", "--preset", "brokers"}, `--preset "brokers": want one of message-size, partitions, producers, replicas`},
		{[]string{"produce", "--preset", "producers", "--vary", "linger.ms=1"}, "--preset producers sets the varied dimensions"},
		{[]string{"e2e", "--topic-prefix", "p", "--vary", "producers=1,2"}, "--vary producers: not a dimension of a e2e sweep"},
		{[]string{"e2e", "--topic-prefix", "p", "--vary", "max.poll.records=1,2"}, "--vary max.poll.records"},
		{[]string{"e2e", "--topic-prefix", "p", "--vary", "acks=1", "--objective", "p42"}, "want throughput, p50, p99, p99.9"},
		{[]string{"produce", "--topic-prefix", "p", "--records", "10", "--vary", "linger.ms=1", "-o", "yaml"}, "unknown output format"},
	} {
		_, _, err := runSweep(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (want %q)", c.args, err, c.want)
		}
	}
	// Runs are sized by time by default: 5 s, warm-up on top.
	out, errOut, err = runSweep(t, "produce", "--topic-prefix", "p", "--warmup-duration", "1s", "--vary", "acks=1,all", "--dry-run")
	if err != nil || out != "cell 1: acks=1\ncell 2: acks=all\n" {
		t.Fatalf("duration dry run: %v\n%s", err, out)
	}
	if !strings.Contains(errOut, "sweep produce: 2 cells (grid of acks (2)) x 3 repeat(s) x 5s measured (+ 1s warm-up) = 30s of measured runs") {
		t.Fatalf("duration statement: %s", errOut)
	}
	_, errOut, err = runSweep(t, "e2e", "--topic-prefix", "p", "--duration", "2s", "--repeat", "1", "--vary", "record-size=10,1k", "--warmup-duration", "0", "--dry-run")
	if err != nil || !strings.Contains(errOut, "sweep e2e: 2 cells (grid of record-size (2)) x 1 repeat(s) x 2s measured (+ no warm-up) = 4s of measured runs") {
		t.Fatalf("e2e statement: %v %s", err, errOut)
	}
	// --max-records 0 lifts the limit (dry run: nothing is sent).
	if _, _, err := runSweep(t, "produce", "--topic-prefix", "p", "--records", "26000000", "--vary", "linger.ms=1,2", "--max-records", "0", "--dry-run"); err != nil {
		t.Fatal(err)
	}
}

// A sweep over agents: refused without the coordinator or the agents
// before anything runs (no broker is needed to refuse); a dry run lists
// the cells; $TROGDOR_COORDINATOR does not make a plain sweep distributed.
func TestSweepOverAgentsFlags(t *testing.T) {
	base := []string{"produce", "--topic-prefix", "p", "--records", "3000", "--bootstrap-server", "127.0.0.1:1"}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "agents=1,2"}, "--vary agents runs each cell on Trogdor agents: give --coordinator URL"},
		{[]string{"--vary", "agents=1,2", "--coordinator", "http://127.0.0.1:1"}, "give --agents a,b,c"},
		{[]string{"--vary", "agents=1,3", "--coordinator", "http://127.0.0.1:1", "--agents", "a,b"}, "--vary agents: 3 is more than the 2 agents of --agents"},
		{[]string{"--vary", "agents=1,2", "--coordinator", "127.0.0.1:1", "--agents", "a,b"}, "--coordinator: "},
		{[]string{"--vary", "agents=1,2", "--coordinator", "http://127.0.0.1:1", "--agents", "a,a"}, "--agents: a given twice"},
		{[]string{"--vary", "linger.ms=0,5", "--coordinator", "http://127.0.0.1:1"}, "--coordinator and --agents go with --vary agents"},
	} {
		_, _, err := runSweep(t, append(append([]string(nil), base...), c.args...)...)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v (want %q)", c.args, err, c.want)
		}
	}
	if _, _, err := runSweep(t, "consume", "--topic-prefix", "p", "--records", "10", "--vary", "agents=1,2"); err == nil || !strings.Contains(err.Error(), "not a dimension of a consume sweep") {
		t.Errorf("consume: %v", err)
	}
	out, _, err := runSweep(t, append(base, "--vary", "agents=1,2", "--vary", "linger.ms=0,5", "--coordinator", "http://127.0.0.1:1", "--agents", "a,b", "--dry-run")...)
	if err != nil || out != "cell 1: agents=1 linger.ms=0\ncell 2: agents=1 linger.ms=5\ncell 3: agents=2 linger.ms=0\ncell 4: agents=2 linger.ms=5\n" {
		t.Fatalf("dry run: %v\n%s", err, out)
	}
	// The environment's defaults alone do not refuse a plain sweep.
	env := map[string]string{"TROGDOR_COORDINATOR": "http://127.0.0.1:1", "TROGDOR_AGENTS": "a,b"}
	r := cmdtest.Run(t, cmdtest.Options{New: NewCmd, Env: env}, append(base, "--vary", "linger.ms=0,5", "--dry-run")...)
	if r.Err != nil || !strings.Contains(r.Stdout, "cell 2: linger.ms=5") {
		t.Fatalf("plain sweep with $TROGDOR_*: %v %s", r.Err, r.Stdout)
	}
}
