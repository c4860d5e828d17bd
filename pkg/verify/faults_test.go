package verify

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
)

func TestParseSchedule(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "faults.sh")
	if err := os.WriteFile(script, []byte("#!/bin/sh\necho fault-start a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	plain := filepath.Join(dir, "plain.txt")
	if err := os.WriteFile(plain, []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	specs, err := ParseSchedule("every=2m:./kill.sh 1", []string{"30s:echo a:b", "0s:true"}, script, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := []FaultSpec{
		{name: "every", command: "./kill.sh 1", at: 2 * time.Minute, every: 2 * time.Minute},
		{name: "at-30s", command: "echo a:b", at: 30 * time.Second},
		{name: "at-0s", command: "true"},
		{name: "faults.sh", script: script},
	}
	if len(specs) != len(want) {
		t.Fatalf("specs %+v", specs)
	}
	for i := range want {
		if specs[i] != want[i] {
			t.Errorf("spec %d = %+v, want %+v", i, specs[i], want[i])
		}
	}
	if specs, err := ParseSchedule("sleep 1; echo every=1s:x", nil, "", nil); err != nil || len(specs) != 1 || specs[0].command != "sleep 1; echo every=1s:x" || specs[0].every != 0 {
		t.Errorf("plain command: %+v %v", specs, err)
	}
	bad := []struct {
		during string
		at     []string
		script string
		msg    string
	}{
		{"every=2m", nil, "", "want every=INTERVAL:COMMAND"},
		{"every=2m:", nil, "", "want every=INTERVAL:COMMAND"},
		{"every=soon:x", nil, "", "not a positive duration"},
		{"every=0s:x", nil, "", "not a positive duration"},
		{"", []string{"30s"}, "", "want OFFSET:COMMAND"},
		{"", []string{"-1s:x"}, "", "not a duration"},
		{"", []string{"later:x"}, "", "not a duration"},
		{"", nil, filepath.Join(dir, "missing.sh"), "no such file"},
		{"", nil, plain, "not an executable file"},
		{"", nil, dir, "not an executable file"},
	}
	for _, b := range bad {
		if _, err := ParseSchedule(b.during, b.at, b.script, nil); err == nil || !strings.Contains(err.Error(), b.msg) {
			t.Errorf("%q %q %q: %v, want %q", b.during, b.at, b.script, err, b.msg)
		}
	}
}

// syncBuf is a goroutine-safe buffer for the commands' stderr.
type syncBuf struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuf) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuf) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func waitFaults(t *testing.T, fr *faultRunner, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		done := 0
		for _, f := range fr.list() {
			if f.EndMs != 0 {
				done++
			}
		}
		if done >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("want %d finished faults, have %+v", n, fr.list())
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestFaultRunnerSchedule: every= runs its command every interval (the
// first after one interval), numbered; --during-at at its offset; each
// fault's window is its command's start and exit, with its exit status.
func TestFaultRunnerSchedule(t *testing.T) {
	var errOut syncBuf
	fr := newFaultRunner(&errOut)
	t0 := time.Now()
	fr.start([]FaultSpec{
		{name: "every", command: "sleep 0.05; echo tick", at: 200 * time.Millisecond, every: 200 * time.Millisecond},
		{name: "at-100ms", command: "exit 4", at: 100 * time.Millisecond},
	}, t0, time.Time{})
	waitFaults(t, fr, 4)
	fr.wait(context.Background(), func() string { return "unused" })
	var at []FaultInfo
	var every []FaultInfo
	for _, f := range fr.list() {
		if strings.HasPrefix(f.Name, "every") {
			every = append(every, f)
		} else {
			at = append(at, f)
		}
	}
	if len(at) != 1 || at[0].Name != "at-100ms" || at[0].ExitCode != 4 || at[0].Command != "exit 4" || at[0].StartMs < t0.Add(100*time.Millisecond).UnixMilli() {
		t.Errorf("at fault %+v", at)
	}
	prevStart := int64(0)
	for i, f := range every {
		if want := "every#" + string(rune('1'+i)); f.Name != want || f.ExitCode != 0 || f.Error != "" {
			t.Errorf("fault %d: %+v, want name %s", i, f, want)
		}
		if f.EndMs-f.StartMs < 50 || f.DurationMs != f.EndMs-f.StartMs {
			t.Errorf("%s: window %d-%d (%d ms) shorter than the command", f.Name, f.StartMs, f.EndMs, f.DurationMs)
		}
		// Never before its slot (slots of a late run are skipped, not
		// crowded), never two at once.
		if earliest := t0.Add(time.Duration(i+1) * 200 * time.Millisecond).UnixMilli(); f.StartMs < earliest {
			t.Errorf("%s started at +%d ms, before its slot", f.Name, f.StartMs-t0.UnixMilli())
		}
		if prevStart != 0 && f.StartMs < prevStart+50 {
			t.Errorf("%s started %d ms after the previous one, which ran 50 ms", f.Name, f.StartMs-prevStart)
		}
		prevStart = f.StartMs
	}
	fs := every
	if n := strings.Count(errOut.String(), "tick\n"); n != len(fs) {
		t.Errorf("stderr has %d ticks for %d runs: %q", n, len(fs), errOut.String())
	}
}

// TestFaultRunnerUntil: no fault starts at or after the end of the
// run's duration, and the schedule ends there by itself.
func TestFaultRunnerUntil(t *testing.T) {
	fr := newFaultRunner(&syncBuf{})
	t0 := time.Now()
	until := t0.Add(350 * time.Millisecond)
	fr.start([]FaultSpec{
		{name: "every", command: "true", at: 100 * time.Millisecond, every: 100 * time.Millisecond},
		{name: "at-1s", command: "true", at: time.Second},
	}, t0, until)
	fr.wg.Wait() // without stopStarting
	fs := fr.list()
	if len(fs) < 1 || len(fs) > 3 {
		t.Fatalf("faults %+v", fs)
	}
	for i, f := range fs {
		if f.Name != "every#"+string(rune('1'+i)) || f.StartMs >= until.UnixMilli() {
			t.Errorf("fault %+v starts at +%d ms", f, f.StartMs-t0.UnixMilli())
		}
	}
}

// TestFaultRunnerKill: a command still running when the context ends is
// killed (its whole process group) and says why; no fault starts after
// stopStarting.
func TestFaultRunnerKill(t *testing.T) {
	fr := newFaultRunner(&syncBuf{})
	dir := t.TempDir()
	fr.start([]FaultSpec{
		{name: "during", command: "sleep 60 & echo $! > " + filepath.Join(dir, "pid") + "; wait"},
		{name: "at-1h", command: "true", at: time.Hour},
	}, time.Now(), time.Time{})
	for {
		if fs := fr.list(); len(fs) == 1 {
			if _, err := os.Stat(filepath.Join(dir, "pid")); err == nil {
				break
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	fr.wait(ctx, func() string { return "killed: the run was interrupted" })
	if el := time.Since(start); el > 10*time.Second {
		t.Fatalf("kill took %s", el)
	}
	fs := fr.list()
	if len(fs) != 1 || fs[0].ExitCode != 137 || fs[0].Error != "killed: the run was interrupted" || fs[0].EndMs == 0 {
		t.Fatalf("faults %+v", fs)
	}
}

// TestFaultRunnerScript: a script's fault-start/fault-end lines are the
// windows (other lines go to stderr, a window left open ends at exit,
// the script's status is on each); a script that marks nothing is one
// fault.
func TestFaultRunnerScript(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "chaos.sh")
	body := "#!/bin/sh\necho preparing\necho fault-start kill-1\nsleep 0.1\necho fault-end kill-1\necho fault-end nothing\n" +
		"sleep 0.05\necho fault-start partition\nsleep 0.1\nexit 2\n"
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	var errOut syncBuf
	fr := newFaultRunner(&errOut)
	fr.start([]FaultSpec{{name: "chaos.sh", script: script}}, time.Now(), time.Time{})
	fr.wait(context.Background(), func() string { return "" })
	fs := fr.list()
	if len(fs) != 2 || fs[0].Name != "kill-1" || fs[1].Name != "partition" {
		t.Fatalf("faults %+v", fs)
	}
	// The marks are read as the script prints them (100 ms apart; a
	// loaded machine may read them late, never early).
	if fs[0].EndMs < fs[0].StartMs || fs[1].StartMs < fs[0].EndMs || fs[1].EndMs < fs[1].StartMs || fs[1].EndMs-fs[0].StartMs < 200 {
		t.Errorf("windows %+v", fs)
	}
	for _, f := range fs {
		if f.ExitCode != 2 || f.Command != script || !strings.Contains(f.Error, "fault-end nothing without fault-start") {
			t.Errorf("fault %+v", f)
		}
	}
	if got := errOut.String(); got != "preparing\n" {
		t.Errorf("stderr %q", got)
	}

	quiet := filepath.Join(dir, "quiet.sh")
	if err := os.WriteFile(quiet, []byte("#!/bin/sh\nsleep 0.1\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	fr = newFaultRunner(&errOut)
	fr.start([]FaultSpec{{name: "quiet.sh", script: quiet}}, time.Now(), time.Time{})
	fr.wait(context.Background(), func() string { return "" })
	if fs := fr.list(); len(fs) != 1 || fs[0].Name != "quiet.sh" || fs[0].EndMs-fs[0].StartMs < 100 || fs[0].ExitCode != 0 {
		t.Errorf("unmarked script: %+v", fs)
	}
}

// TestWindowsPrint: the ticker prints one verdict per window boundary,
// as text lines or one JSON object per line.
func TestWindowsPrint(t *testing.T) {
	acked := int64(0)
	verdict := func() Verdict {
		acked += 100
		v := Verdict{Valid: true, Anomalies: []AnomalyCount{}}
		v.Acked, v.Consumed, v.Lag = acked, acked-10, 10
		if acked >= 300 {
			v.Valid, v.BadErrorTypes = false, []string{"lost"}
			v.Anomalies = []AnomalyCount{{Type: "lost", Severity: Fail, Count: 2}}
		}
		return v
	}
	t0 := time.Now()
	faults := func() []FaultInfo {
		return []FaultInfo{{Name: "every#1", StartMs: t0.Add(150 * time.Millisecond).UnixMilli()}}
	}
	var out syncBuf
	ws := startWindows(&out, output.Table, 100*time.Millisecond, t0, verdict, faults, nil)
	for strings.Count(out.String(), "\n") < 3 {
		time.Sleep(5 * time.Millisecond)
	}
	n, err := ws.stop()
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if err != nil || n != len(lines) {
		t.Fatalf("%d windows, %v: %q", n, err, out.String())
	}
	if !strings.HasPrefix(lines[0], "window 1 (") || !strings.Contains(lines[0], "VALID so far: acked 100 (+100), consumed 90 (+90), lag 10, send errors 0; anomalies: none") ||
		strings.Contains(lines[0], "faults") {
		t.Errorf("line 1: %q", lines[0])
	}
	if !strings.Contains(lines[1], "acked 200 (+100)") || !strings.HasSuffix(lines[1], "; faults: every#1") {
		t.Errorf("line 2: %q", lines[1])
	}
	if !strings.Contains(lines[2], "INVALID so far (lost): acked 300") || !strings.Contains(lines[2], "anomalies: fail lost 2") {
		t.Errorf("line 3: %q", lines[2])
	}

	acked = 0
	var js syncBuf
	ws = startWindows(&js, output.JSON, 50*time.Millisecond, time.Now(), verdict, faults, nil)
	for strings.Count(js.String(), "\n") < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	_, _ = ws.stop()
	var ym bytes.Buffer
	if err := writeWindow(&ym, output.YAML, NewWindowVerdict(1, t0, t0.Add(time.Second), t0, verdict(), nil, nil)); err != nil ||
		!strings.HasPrefix(ym.String(), "window: 1\n") || !strings.HasSuffix(ym.String(), "\n---\n") {
		t.Errorf("yaml window: %v %q", err, ym.String())
	}
	first := strings.SplitN(js.String(), "\n", 2)[0]
	if !strings.HasPrefix(first, `{"window":1,"start_ms":`) || !strings.Contains(first, `"valid":true,"bad_error_types":[],"acked":100,"acked_in_window":100,`) {
		t.Errorf("json line %q", first)
	}
}

// TestWindowsStopAtBoundary: a run that stops as a window ends (--duration
// a multiple of --window) still prints that window, however the stop and
// the window's timer race; a window still open at the stop is not printed.
func TestWindowsStopAtBoundary(t *testing.T) {
	verdict := func() Verdict { return Verdict{Valid: true, Anomalies: []AnomalyCount{}} }
	faults := func() []FaultInfo { return nil }
	for i := 0; i < 50; i++ {
		var out syncBuf
		// Window 1 ended just now; window 2 ends in an hour.
		ws := startWindows(&out, output.Table, time.Hour, time.Now().Add(-time.Hour), verdict, faults, nil)
		n, err := ws.stop()
		if err != nil || n != 1 || strings.Count(out.String(), "\n") != 1 || !strings.HasPrefix(out.String(), "window 1 (") {
			t.Fatalf("try %d: %d windows, %v: %q", i, n, err, out.String())
		}
	}
}
