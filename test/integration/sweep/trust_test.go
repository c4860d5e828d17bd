//go:build integration

package sweep_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

// TestTrustworthySweep is issue 21's acceptance test: on a fresh 3-broker
// test bed (the first measurement on a cold cluster), a one-at-a-time
// sweep over record size, replication factor and producers, 3 repeats of
// 3 s each, must show what the hardware dictates: MB/s rises with record
// size while records/s falls, replication factor 3 is slower than 1, no
// cell's repeats disagree beyond 25 % after the outlier re-runs, the
// baseline (the first cell) is not flagged, and every run was measured for
// at least its duration.
func TestTrustworthySweep(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-broker cluster and ~2-4 minutes of load")
	}
	tbDir := filepath.Join(t.TempDir(), "tb")
	up := time.Now()
	c, err := testbed.Up(3, "", tbDir)
	t.Cleanup(func() {
		if err := (&testbed.Cluster{Dir: tbDir}).Down(); err != nil {
			t.Errorf("testbed down: %v", err)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("3-broker test bed up in %s", time.Since(up).Round(time.Second))
	results := filepath.Join(outDir, "trust-sweep.json")
	html := filepath.Join(outDir, "trust-report.html")
	for _, p := range []string{results, html} {
		_ = os.Remove(p)
	}
	start := time.Now()
	r := testbed.Runner{Timeout: 8 * time.Minute, InTempDir: true}.Exec(t, bin, "perf", "sweep", "produce",
		"--bootstrap-server", c.Bootstrap, "--topic-prefix", "trust", "--partitions", "3",
		"--one-at-a-time", "--vary", "record-size=10,100,1000,10000", "--vary", "replication-factor=1,2,3", "--vary", "producers=1,2,3",
		"--repeat", "3", "--duration", "3s", "--results", results, "--report", html)
	wall := time.Since(start)
	t.Logf("sweep wall time %s\nstderr:\n%s\nstdout:\n%s", wall.Round(time.Second), r.Stderr, r.Stdout)
	if r.Code != 0 {
		t.Fatalf("exit %d", r.Code)
	}
	if !strings.Contains(r.Stderr, "cluster warm-up: ") || !strings.Contains(r.Stdout, "cluster warm-up: ") {
		t.Errorf("no cluster warm-up reported")
	}
	res := readSweep(t, results)
	if len(res.Cells) != 8 || !res.Complete || res.Brokers != 3 {
		t.Fatalf("cells %d complete %v brokers %d", len(res.Cells), res.Complete, res.Brokers)
	}
	if cw := res.ClusterWarmup; cw == nil || len(cw.WindowRecordsPerSec) == 0 || cw.Seconds > 31 {
		t.Errorf("cluster warm-up %+v", cw)
	}
	cell := func(name, value string) *perf.CellResult {
		for i := range res.Cells {
			c := &res.Cells[i]
			ok := true
			for _, s := range c.Settings {
				base := res.Plan.Baseline()[s.Name]
				if (s.Name == name && s.Value != value) || (s.Name != name && s.Value != base) {
					ok = false
				}
			}
			if ok {
				return c
			}
		}
		t.Fatalf("no cell %s=%s", name, value)
		return nil
	}
	for _, c := range res.Cells {
		t.Logf("cell #%d %-40s %10.0f records/s %7.2f MB/s spread %5.1f %% p50 %8.2f ms attempts %d flags %v",
			c.Index, c.Label(), c.RecordsPerSec, c.MBPerSec, c.SpreadPercent, c.Latency.P50Ms, c.Attempts, c.Flags)
		if c.HasFlag(perf.FlagOutlier) || c.SpreadPercent > 25 {
			t.Errorf("cell #%d %s: spread %.1f %% after %d attempt(s) (flags %v)", c.Index, c.Label(), c.SpreadPercent, c.Attempts, c.Flags)
		}
		if c.HasFlag(perf.FlagShortRun) || c.Errors > 0 {
			t.Errorf("cell #%d: flags %v errors %d", c.Index, c.Flags, c.Errors)
		}
		for i, run := range c.Runs {
			if run.Result == nil || run.Result.ElapsedSec < 3 {
				t.Errorf("cell #%d run %d: measured for %v s, want at least 3 s", c.Index, i+1, run.Result)
			}
		}
	}
	base := &res.Cells[0]
	if len(base.Flags) > 0 {
		t.Errorf("the baseline is flagged %v", base.Flags)
	}
	sizes := []string{"10", "100", "1000", "10000"}
	for i := 1; i < len(sizes); i++ {
		a, b := cell("record-size", sizes[i-1]), cell("record-size", sizes[i])
		if !(b.MBPerSec > a.MBPerSec) {
			t.Errorf("MB/s does not rise from record size %s to %s: %.2f -> %.2f", sizes[i-1], sizes[i], a.MBPerSec, b.MBPerSec)
		}
		if !(b.RecordsPerSec < a.RecordsPerSec) {
			t.Errorf("records/s does not fall from record size %s to %s: %.0f -> %.0f", sizes[i-1], sizes[i], a.RecordsPerSec, b.RecordsPerSec)
		}
	}
	if rf1, rf3 := cell("replication-factor", "1"), cell("replication-factor", "3"); !(rf3.RecordsPerSec < rf1.RecordsPerSec) {
		t.Errorf("replication factor 3 (%.0f records/s) is not slower than 1 (%.0f)", rf3.RecordsPerSec, rf1.RecordsPerSec)
	}
	if left := topicsAt(t, c.Bootstrap, "trust"); len(left) != 0 {
		t.Errorf("topics left behind: %v", left)
	}
	if _, err := os.Stat(html); err != nil {
		t.Error(err)
	}
}
