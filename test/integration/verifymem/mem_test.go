//go:build integration

// Package verifymem checks that `kbox verify check`, `kbox verify run` and
// kafka-producer-perf-test keep their memory bounded whatever the run's
// length, peak RSS measured by the kernel (getrusage of the child process).
// `make test` runs the bounded-time producer check; the 2M-record runs
// need KBOX_MEM_LONG=1 (`make bench-mem`).
package verifymem_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/verifygen"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	kboxBin string
	cluster *testbed.Cluster
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{
		Name:    "verifymem",
		Brokers: 1,
		Ready: func(e testbed.Env) error {
			kboxBin, cluster = e.Kbox, e.Cluster
			return nil
		},
	}))
}

type result struct {
	stdout, stderr string
	code           int
	maxRSSKiB      int64
	cpu            time.Duration
	wall           time.Duration
}

// measure runs kbox with args (stdin from in, if set) within timeout.
func measure(t *testing.T, timeout time.Duration, in io.Reader, args ...string) result {
	t.Helper()
	cmd := exec.Command(kboxBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr, cmd.Stdin = &out, &errb, in
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	start := time.Now()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(timeout, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	err := cmd.Wait()
	r := result{stdout: out.String(), stderr: errb.String(), wall: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	default:
		t.Fatal(err)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	r.maxRSSKiB = ru.Maxrss
	r.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return r
}

type report struct {
	Valid         bool     `json:"valid"`
	BadErrorTypes []string `json:"bad_error_types"`
	Anomalies     []struct {
		Type     string   `json:"type"`
		Count    int      `json:"count"`
		Examples []string `json:"examples"`
	} `json:"anomalies"`
	Stats struct {
		Acked          int `json:"acked"`
		UniqueConsumed int `json:"unique_consumed"`
	} `json:"stats"`
	Run struct {
		Acked    int  `json:"acked"`
		CaughtUp bool `json:"caught_up"`
	} `json:"run"`
}

const records = 2_000_000

// long skips a 2M-record run unless KBOX_MEM_LONG=1 (`make bench-mem`):
// they take minutes, too long for `make test`.
func long(t *testing.T) {
	t.Helper()
	if os.Getenv("KBOX_MEM_LONG") != "1" {
		t.Skip("2M-record run: make bench-mem (KBOX_MEM_LONG=1)")
	}
}

// TestCheckMemory2M: `verify check` of a gzip producer log and a consumer
// log on stdin, 2,000,000 records with 3 of them lost, finds exactly the
// 3 losses and stays under 128 MiB peak RSS.
func TestCheckMemory2M(t *testing.T) {
	long(t)
	dir := t.TempDir()
	spec := verifygen.Spec{Records: records, Partitions: 3, Lost: map[int]bool{17: true, 1_000_003: true, records - 1: true}}
	prodPath := filepath.Join(dir, "producer.log.gz")
	fh, err := os.Create(prodPath)
	if err != nil {
		t.Fatal(err)
	}
	zw, _ := gzip.NewWriterLevel(fh, gzip.BestSpeed)
	if err := verifygen.Producer(zw, spec); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	fh.Close()
	// the consumer log streams through a pipe into stdin
	pr, pw := io.Pipe()
	go func() { pw.CloseWithError(verifygen.Consumer(pw, spec)) }()
	r := measure(t, 10*time.Minute, pr, "verify", "check", "--producer-log", prodPath, "--consumer-log", "-", "-o", "json")
	t.Logf("verify check of %d records: peak RSS %d KiB, CPU %s, wall %s", records, r.maxRSSKiB, r.cpu, r.wall)
	if r.code != 3 {
		t.Fatalf("exit %d (want 3, invalid), stderr %s", r.code, r.stderr)
	}
	var rep report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if rep.Valid || len(rep.BadErrorTypes) != 1 || rep.BadErrorTypes[0] != "lost" || len(rep.Anomalies) != 1 || rep.Anomalies[0].Count != 3 ||
		rep.Stats.Acked != records || rep.Stats.UniqueConsumed != records-3 {
		t.Fatalf("verdict %+v", rep)
	}
	if ex := strings.Join(rep.Anomalies[0].Examples, "\n"); !strings.Contains(ex, `value "0.17" acked at t-0 offset 17`) || !strings.Contains(ex, `"0.1999999"`) {
		t.Errorf("examples %s", ex)
	}
	if r.maxRSSKiB > 128<<10 {
		t.Errorf("peak RSS %d KiB > 128 MiB", r.maxRSSKiB)
	}
}

// TestRunMemory2M: `verify run` of 2,000,000 records on one broker reports
// valid and stays under 128 MiB peak RSS (issue 31: 274 MiB were measured
// on a loaded machine before the clients' buffers were bounded by bytes
// and the heap by them; the bound is 256 MiB).
func TestRunMemory2M(t *testing.T) {
	long(t)
	r := measure(t, 10*time.Minute, nil, "verify", "run", "--bootstrap-server", cluster.Bootstrap, "--topic", "verify-mem-2m", "--create-topic",
		"--partitions", "3", "--replication-factor", "1", "--messages", "2000000", "--progress", "none", "--timeout", "8m", "-o", "json")
	t.Logf("verify run of %d records: peak RSS %d KiB, CPU %s, wall %s", records, r.maxRSSKiB, r.cpu, r.wall)
	if r.code != 0 {
		t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
	}
	var rep report
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("%v: %s", err, r.stdout)
	}
	if !rep.Valid || rep.Stats.Acked != records || rep.Stats.UniqueConsumed != records || !rep.Run.CaughtUp {
		t.Fatalf("verdict %+v", rep)
	}
	if r.maxRSSKiB > 128<<10 {
		t.Errorf("peak RSS %d KiB > 128 MiB", r.maxRSSKiB)
	}
}
