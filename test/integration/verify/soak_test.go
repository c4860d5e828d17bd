//go:build integration && soak

package verify_test

import (
	"strings"
	"testing"
	"time"
)

// TestSoak is issue 19's soak (`make soak`, about 12 minutes): 10
// minutes on 3 brokers, topic RF 3 with min.insync.replicas=2, acks=all
// with idempotent producers, the leader of partition 0 SIGKILLed and
// restarted every 2 minutes. Every 1-minute window verdict and the final
// one must be valid, every fault must have run cleanly, and R8 must be
// judged and passed.
func TestSoak(t *testing.T) {
	const topic = "soak-10m"
	createTopic(t, topic)
	kill := killLeaderScript(t, topic)
	s := startSoak(t, "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "--duration", "10m", "--window", "1m",
		"--throughput", "500", "--producers", "2", "--consumers", "2", "--acks", "all", "--idempotent",
		"--during", "every=2m:"+kill)
	logged := make(chan struct{})
	go func() {
		defer close(logged)
		for w := range s.windows {
			t.Logf("window %d: valid %t, acked %d (+%d), consumed %d, lag %d, anomalies %v, faults %v",
				w.Window, w.Valid, w.Acked, w.AckedInWindow, w.Consumed, w.Lag, w.Anomalies, w.Faults)
		}
	}()
	code, ws, r, rss := s.wait(t, 20*time.Minute)
	<-logged
	t.Logf("windows:\n%s", windowSummary(ws))
	if code != 0 || !r.Valid {
		t.Fatalf("exit %d, verdict %+v\nstderr:\n%s", code, r, s.stderr.String())
	}
	if len(ws) < 10 || r.Run.Windows != len(ws) {
		t.Fatalf("%d windows, report says %d", len(ws), r.Run.Windows)
	}
	checkWindows(t, ws, time.Minute)
	if n := strings.Count(s.stderr.String(), "kill-leader: SIGKILL broker"); n != len(r.Run.Faults) {
		t.Errorf("%d leader kills for %d faults:\n%s", n, len(r.Run.Faults), s.stderr.String())
	}
	if len(r.Run.Faults) != 4 {
		t.Errorf("%d faults, want one every 2 minutes: %+v", len(r.Run.Faults), r.Run.Faults)
	}
	if len(r.Faults) != len(r.Run.Faults) {
		t.Errorf("R8 judged for %d of %d faults", len(r.Faults), len(r.Run.Faults))
	}
	for _, f := range r.Run.Faults {
		if f.ExitCode != 0 || f.Error != "" {
			t.Errorf("fault %+v", f)
		}
		found := false
		for _, lv := range r.Faults {
			if lv.FaultStartMs != f.StartMs {
				continue
			}
			found = true
			// Faults start only while producing, every 2 minutes: each
			// is followed by 30 s of acks.
			if !lv.Judged || lv.AcksAfterFault <= 5 {
				t.Errorf("R8 of fault %s: %+v", f.Name, lv)
			}
			t.Logf("fault %s: %d ms, exit %d, R8 judged %t with %d acks within 30 s after it", f.Name, f.EndMs-f.StartMs, f.ExitCode, lv.Judged, lv.AcksAfterFault)
		}
		if !found {
			t.Errorf("no R8 for fault %s", f.Name)
		}
	}
	for _, af := range r.AnomalyFaults {
		// Warnings only (the verdict is valid): which fault they followed.
		t.Logf("anomaly %s: %s fault %v", af.Type, af.Relation, af.Fault)
	}
	if r.count("lost") != 0 || r.count("unseen") != 0 || r.count("duplicate") != 0 || !r.Run.CaughtUp || r.Run.Interrupted {
		t.Errorf("anomalies %+v, caught up %t", r.Anomalies, r.Run.CaughtUp)
	}
	if l := r.Liveness; l == nil || !l.Judged || l.AcksAfterFault <= 5 {
		t.Errorf("R8: %+v", r.Liveness)
	}
	t.Logf("soak: acked %d, consumed %d in %d ms, %d faults, peak RSS %d MiB", r.Run.Acked, r.Run.Consumed, r.Run.ProduceMs, len(r.Run.Faults), rss/1024)
}
