//go:build integration

package verify_test

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunSoakShort: a 45-second soak (--duration, --window 15s) on 3
// brokers with idempotent producers and one scheduled fault, the leader
// of partition 0 SIGKILLed and restarted 5 s in (a loaded machine may
// take 30 s to restart it; R8 needs sends after it): every window verdict
// and the final one are valid, the fault's window is recorded and R8 is
// judged after it. (The 10-minute soak is `make soak`.)
func TestRunSoakShort(t *testing.T) {
	const topic = "soak-short"
	createTopic(t, topic)
	kill := killLeaderScript(t, topic)
	s := startSoak(t, "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--duration", "45s", "--window", "15s",
		"--throughput", "500", "--producers", "2", "--consumers", "2", "--idempotent", "--min-acks", "5000",
		"--during-at", "5s:"+kill)
	code, ws, r, rss := s.wait(t, 4*time.Minute)
	t.Logf("windows:\n%s", windowSummary(ws))
	if code != 0 || !r.Valid {
		t.Fatalf("exit %d, verdict %+v\nstderr:\n%s", code, r, s.stderr.String())
	}
	if len(ws) < 3 || r.Run.Windows != len(ws) {
		t.Fatalf("%d windows, report says %d", len(ws), r.Run.Windows)
	}
	checkWindows(t, ws, 15*time.Second)
	if len(r.Run.Faults) != 1 {
		t.Fatalf("faults %+v", r.Run.Faults)
	}
	f := r.Run.Faults[0]
	if f.Name != "at-5s" || f.ExitCode != 0 || f.Error != "" || f.EndMs-f.StartMs < 2000 || !strings.Contains(s.stderr.String(), "kill-leader: SIGKILL broker") {
		t.Errorf("fault %+v, stderr %s", f, s.stderr.String())
	}
	// The fault overlaps the first window (0 s - 15 s).
	if len(ws[0].Faults) != 1 || ws[0].Faults[0] != "at-5s" {
		t.Errorf("faults of window 1: %v", ws[0].Faults)
	}
	if r.count("lost") != 0 || r.count("unseen") != 0 || r.count("duplicate") != 0 || !r.Run.CaughtUp || r.Run.Interrupted {
		t.Errorf("anomalies %+v, caught up %t", r.Anomalies, r.Run.CaughtUp)
	}
	if l := r.Liveness; l == nil || !l.Judged || l.AcksAfterFault <= 5 {
		t.Errorf("R8 after the fault: %+v", r.Liveness)
	}
	// 500/s for 45 s: the producers stopped at the duration.
	if r.Run.Acked < 10000 || r.Run.Acked > 23500 || r.Run.DurationLimitMs != 45000 || r.Run.ProduceMs < 45000 {
		t.Errorf("acked %d in %d ms", r.Run.Acked, r.Run.ProduceMs)
	}
	t.Logf("acked %d, consumed %d, fault %s %d ms, R8 %d acks after it, peak RSS %d MiB", r.Run.Acked, r.Run.Consumed, f.Name, f.EndMs-f.StartMs, r.Liveness.AcksAfterFault, rss/1024)
}

// TestRunSoakInterrupted: SIGINT during a --duration 10m run stops it
// after its second window: the consumers catch up, the final verdict is
// valid and says interrupted, the exit status is the verdict's (0).
func TestRunSoakInterrupted(t *testing.T) {
	const topic = "soak-interrupt"
	createTopic(t, topic)
	s := startSoak(t, "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--duration", "10m", "--window", "3s",
		"--throughput", "1000", "--idempotent")
	for i := 0; i < 2; i++ {
		select {
		case <-s.windows:
		case <-time.After(2 * time.Minute):
			t.Fatalf("no window verdict\nstderr:\n%s", s.stderr.String())
		}
	}
	sent := time.Now()
	if err := s.cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	code, ws, r, _ := s.wait(t, 2*time.Minute)
	took := time.Since(sent)
	if code != 0 || !r.Valid || !r.Run.Interrupted || !r.Run.CaughtUp || r.Run.Acked == 0 || r.Run.Consumed < r.Run.Acked {
		t.Fatalf("exit %d, verdict %+v\nstderr:\n%s", code, r, s.stderr.String())
	}
	if !strings.Contains(s.stderr.String(), "kbox verify run: interrupted: stopping producers") {
		t.Errorf("stderr %s", s.stderr.String())
	}
	checkWindows(t, ws, 3*time.Second)
	if took > 60*time.Second || r.Run.ProduceMs > 5*60*1000 {
		t.Errorf("the interrupted run took %s to end (produced %d ms)", took, r.Run.ProduceMs)
	}
	t.Logf("interrupted after %d windows: acked %d, consumed %d, ended %s after SIGINT", len(ws), r.Run.Acked, r.Run.Consumed, took.Round(time.Millisecond))
}
