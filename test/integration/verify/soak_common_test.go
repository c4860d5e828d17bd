//go:build integration

package verify_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// killLeaderScript writes a fault command: SIGKILL the current leader of
// the topic's partition 0 (found with kbox's kafka-topics), then restart
// it (testbed.sh start-broker waits until it is registered again).
func killLeaderScript(t *testing.T, topic string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "kill-leader.sh")
	body := `#!/bin/sh
set -e
id=$("` + kboxBin + `" kafka-topics --bootstrap-server "` + cluster.PlaintextBootstrap + `" --describe --topic "` + topic + `" |
  sed -n 's/.*Partition: 0[[:space:]]*Leader: \([0-9][0-9]*\).*/\1/p' | head -1)
[ -n "$id" ] || { echo "kill-leader: no leader of ` + topic + `-0" >&2; exit 1; }
echo "kill-leader: SIGKILL broker $id" >&2
KBOX_TESTBED_DIR="` + cluster.Dir + `" "` + testbed.Script() + `" stop-broker "$id" --kill
sleep 2
KBOX_TESTBED_DIR="` + cluster.Dir + `" "` + testbed.Script() + `" start-broker "$id"
echo "kill-leader: broker $id restarted" >&2
`
	if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// windowVerdict is the part of a window line the tests read.
type windowVerdict struct {
	Window        int      `json:"window"`
	StartMs       int64    `json:"start_ms"`
	EndMs         int64    `json:"end_ms"`
	Valid         bool     `json:"valid"`
	BadErrorTypes []string `json:"bad_error_types"`
	Acked         int64    `json:"acked"`
	AckedInWindow int64    `json:"acked_in_window"`
	Consumed      int64    `json:"consumed"`
	Lag           int64    `json:"lag"`
	Anomalies     []struct {
		Type  string `json:"type"`
		Count int    `json:"count"`
	} `json:"anomalies"`
	Faults []string `json:"faults"`
}

// faultInfo is a fault of the final report.
type faultInfo struct {
	Name     string `json:"name"`
	Command  string `json:"command"`
	StartMs  int64  `json:"start_ms"`
	EndMs    int64  `json:"end_ms"`
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error"`
}

// soakReport is the final verdict of a --duration run.
type soakReport struct {
	runReport
	Run struct {
		Acked           int64       `json:"acked"`
		Consumed        int64       `json:"consumed"`
		CaughtUp        bool        `json:"caught_up"`
		DurationLimitMs int64       `json:"duration_limit_ms"`
		ProduceMs       int64       `json:"produce_ms"`
		Windows         int         `json:"windows"`
		Interrupted     bool        `json:"interrupted"`
		Faults          []faultInfo `json:"faults"`
	} `json:"run"`
	// R8 per fault window (with more than one fault).
	Faults []struct {
		FaultStartMs   int64 `json:"fault_start_ms"`
		AcksAfterFault int   `json:"acks_after_fault"`
		Judged         bool  `json:"judged"`
	} `json:"faults"`
	AnomalyFaults []struct {
		Type     string  `json:"type"`
		Fault    *string `json:"fault"`
		Relation string  `json:"relation"`
	} `json:"anomaly_faults"`
}

// soakRun is `kbox verify run ... -o json` in flight: its window lines
// arrive on windows as they are printed (closed at the end; it holds
// 1000, so a test may leave it unread).
type soakRun struct {
	cmd     *exec.Cmd
	windows chan windowVerdict
	mu      sync.Mutex
	all     []windowVerdict
	final   []byte
	stderr  bytes.Buffer
	done    chan struct{}
}

func startSoak(t *testing.T, args ...string) *soakRun {
	t.Helper()
	cmd := exec.Command(kboxBin, append([]string{"verify", "run", "-o", "json", "--progress", "plain"}, args...)...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"), "KBOX_TESTBED_DIR="+cluster.Dir)
	s := &soakRun{cmd: cmd, windows: make(chan windowVerdict, 1000), done: make(chan struct{})}
	cmd.Stderr = &s.stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(s.done)
		defer close(s.windows)
		r := bufio.NewReader(out)
		for {
			line, err := r.ReadBytes('\n')
			if len(bytes.TrimSpace(line)) > 0 {
				var w windowVerdict
				if bytes.HasPrefix(line, []byte(`{"window":`)) && json.Unmarshal(line, &w) == nil {
					s.mu.Lock()
					s.all = append(s.all, w)
					s.mu.Unlock()
					s.windows <- w
				} else {
					s.mu.Lock()
					s.final = append(s.final, line...)
					s.mu.Unlock()
				}
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
		}
	})
	return s
}

// wait waits for the run to exit (at most timeout) and returns its exit
// status, window verdicts, final report and peak RSS in KiB.
func (s *soakRun) wait(t *testing.T, timeout time.Duration) (int, []windowVerdict, soakReport, int64) {
	t.Helper()
	exited := make(chan struct{})
	go func() {
		select {
		case <-exited:
		case <-time.After(timeout):
			_ = s.cmd.Process.Kill()
		}
	}()
	<-s.done
	err := s.cmd.Wait()
	close(exited)
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var rss int64
	if ru, ok := s.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var rep soakReport
	if err := json.Unmarshal(s.final, &rep); err != nil {
		t.Fatalf("final report: %v in %q (exit %d)\nstderr:\n%s", err, s.final, code, s.stderr.String())
	}
	return code, s.all, rep, rss
}

// checkWindows: consecutive windows of the given length, each valid,
// acked and consumed never decreasing.
func checkWindows(t *testing.T, ws []windowVerdict, every time.Duration) {
	t.Helper()
	var prev *windowVerdict
	for i := range ws {
		w := ws[i]
		if w.Window != i+1 || w.EndMs-w.StartMs != every.Milliseconds() {
			t.Errorf("window %d: %+v", i+1, w)
		}
		if !w.Valid {
			t.Errorf("window %d invalid: %+v", w.Window, w)
		}
		if prev != nil && (w.Acked < prev.Acked || w.Consumed < prev.Consumed || w.StartMs != prev.EndMs) {
			t.Errorf("window %d goes backwards from %+v: %+v", w.Window, *prev, w)
		}
		prev = &ws[i]
	}
}

func windowSummary(ws []windowVerdict) string {
	var b strings.Builder
	for _, w := range ws {
		var an []string
		for _, a := range w.Anomalies {
			an = append(an, fmt.Sprintf("%s=%d", a.Type, a.Count))
		}
		fmt.Fprintf(&b, "  window %d: valid %t, acked %d (+%d), consumed %d, lag %d, anomalies [%s], faults [%s]\n",
			w.Window, w.Valid, w.Acked, w.AckedInWindow, w.Consumed, w.Lag, strings.Join(an, " "), strings.Join(w.Faults, " "))
	}
	return b.String()
}
