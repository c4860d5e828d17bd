package verify_test

import (
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/trogdor/trogdortest"
	"github.com/kboxdev/kbox/pkg/verify"
	"github.com/twmb/franz-go/pkg/kfake"
)

func kbox(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Main: app.Main}, append([]string{"verify", "run"}, args...)...)
	return r.Code, r.Stdout, r.Stderr
}

// TestRunDurationWindowsKfake: a 3.5-second soak against kfake with a
// 1-second window and a fault every second prints window verdicts as
// JSON lines, then the final verdict with each fault.
func TestRunDurationWindowsKfake(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1))
	code, out, errOut := kbox(t, "--bootstrap-server", strings.Join(c.ListenAddrs(), ","), "--topic", "soak", "--create-topic",
		"--replication-factor", "1", "--duration", "3500ms", "--window", "1s", "--throughput", "300", "--idempotent",
		"--during", "every=1s:echo fault", "--min-acks", "100", "--progress", "none", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	dec := json.NewDecoder(strings.NewReader(out))
	var wins []verify.WindowVerdict
	var final struct {
		Valid bool           `json:"valid"`
		Run   verify.RunInfo `json:"run"`
	}
	for {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err == io.EOF {
			break
		} else if err != nil {
			t.Fatalf("%v in %s", err, out)
		}
		if strings.HasPrefix(string(raw), `{"window":`) {
			var w verify.WindowVerdict
			if err := json.Unmarshal(raw, &w); err != nil {
				t.Fatal(err)
			}
			wins = append(wins, w)
			continue
		}
		if err := json.Unmarshal(raw, &final); err != nil {
			t.Fatal(err)
		}
	}
	if len(wins) < 3 || final.Run.Windows != len(wins) {
		t.Fatalf("%d windows (report: %d): %s", len(wins), final.Run.Windows, out)
	}
	var prevAcked int64
	for i, w := range wins {
		if w.Window != i+1 || !w.Valid || w.Acked < prevAcked || w.AckedInWindow != w.Acked-prevAcked || w.EndMs-w.StartMs != 1000 {
			t.Errorf("window %d: %+v", i+1, w)
		}
		prevAcked = w.Acked
	}
	// Windows with acknowledgements of their own (a loaded machine may
	// leave the first one empty).
	withAcks := 0
	for _, w := range wins {
		if w.AckedInWindow > 0 {
			withAcks++
		}
	}
	if withAcks < 2 {
		t.Errorf("%d windows with acks: %+v", withAcks, wins)
	}
	r := final.Run
	if !final.Valid || r.Interrupted || !r.CaughtUp || r.DurationLimitMs != 3500 || r.WindowMs != 1000 || r.Messages != 0 || r.During != nil {
		t.Fatalf("final %+v", final)
	}
	if len(r.Faults) < 2 || r.Faults[0].Name != "every#1" || r.Faults[1].Name != "every#2" || r.Faults[0].Command != "echo fault" {
		t.Fatalf("faults %+v", r.Faults)
	}
	// every=1s runs on the run's grid (its start + 1 s, + 2 s, ...): a
	// fault may start late on a loaded machine, never early.
	for k, f := range r.Faults {
		if slot := wins[0].StartMs + int64(k+1)*1000; f.StartMs < slot-1 {
			t.Errorf("fault %s at %d ms, before its slot at %d ms", f.Name, f.StartMs-wins[0].StartMs, slot-wins[0].StartMs)
		}
	}
	if strings.Count(errOut, "fault\n") != len(r.Faults) {
		t.Errorf("stderr %q", errOut)
	}
	// The producers stopped at the duration (300/s for 3.5 s; some slack
	// for a loaded machine, none for a producer that never stops).
	if r.Acked < 300 || r.Acked > 1300 || r.ProduceMs < 3500 {
		t.Errorf("acked %d in %d ms", r.Acked, r.ProduceMs)
	}
}

// TestRunBadSoakFlags: the run's count or time, windows and schedules are
// checked before anything connects (nothing listens on the address).
func TestRunBadSoakFlags(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{nil, "one of --messages N and --duration D is required"},
		{[]string{"--messages", "10", "--duration", "1m"}, "--messages and --duration cannot be used together"},
		{[]string{"--duration", "0s"}, "--duration must be positive"},
		{[]string{"--duration", "10m", "--timeout", "5m"}, "--timeout (the deadline of the whole run) must be longer than --duration"},
		{[]string{"--messages", "10", "--window", "-1s"}, "--window must not be negative"},
		{[]string{"--duration", "1m", "--during", "every=x:true"}, `the interval "x" is not a positive duration`},
		{[]string{"--duration", "1m", "--during-at", "true"}, "want OFFSET:COMMAND"},
		{[]string{"--duration", "1m", "--during-script", "/nonexistent/chaos.sh"}, "--during-script: stat /nonexistent/chaos.sh"},
		{[]string{"--duration", "1m", "--min-acks", "10"}, "--min-acks needs --during, --during-at, --during-script or --during-trogdor"},
		{[]string{"--messages", "10", "--during-trogdor", "ProcessStop:nodes=a:process=x:duration=1s"}, "--during-trogdor needs --coordinator URL"},
		{[]string{"--messages", "10", "--coordinator", "http://127.0.0.1:1"}, "--coordinator needs --during-trogdor"},
		{[]string{"--messages", "10", "--coordinator", "127.0.0.1:1", "--during-trogdor", "ProcessStop:nodes=a:process=x:duration=1s"}, "want http://host:port"},
		{[]string{"--messages", "10", "--coordinator", "http://127.0.0.1:1", "--during-trogdor", "Bogus:duration=1s"}, `unknown fault class "Bogus"`},
		{[]string{"--messages", "10", "--coordinator", "http://127.0.0.1:1", "--during-trogdor", "ProcessStop:nodes=a:process=x:duration=0s"}, "not a positive duration"},
		{[]string{"--messages", "10", "--coordinator", "http://127.0.0.1:1", "--during-trogdor", "ProcessStop:process=x:duration=1s"}, "no nodes given"},
	} {
		code, out, errOut := kbox(t, append([]string{"--bootstrap-server", "127.0.0.1:1", "--topic", "t"}, c.args...)...)
		if code != 2 || out != "" || !strings.Contains(errOut, c.msg) || strings.Count(strings.TrimSpace(errOut), "\n") > 1 {
			t.Errorf("%v: exit %d, stdout %q, stderr %q; want exit 2 and %q", c.args, code, out, errOut, c.msg)
		}
	}
}

// TestRunTrogdorFaultKfake: a run with a Trogdor fault (a fake
// coordinator) carries the fault with the task's window and judges R8 on
// it; a coordinator that does not answer fails before the first record.
func TestRunTrogdorFaultKfake(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1))
	fc := trogdortest.New()
	defer fc.Close()
	code, out, errOut := kbox(t, "--bootstrap-server", strings.Join(c.ListenAddrs(), ","), "--topic", "trog", "--create-topic",
		"--replication-factor", "1", "--messages", "1500", "--throughput", "1000", "--idempotent", "--coordinator", fc.URL,
		"--during-trogdor", "ProcessStop:nodes=agent1:process=/tb/n1/server.properties:at=200ms:duration=300ms", "--min-acks", "100",
		"--progress", "none", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	var rep struct {
		Valid  bool              `json:"valid"`
		Run    verify.RunInfo    `json:"run"`
		Faults []verify.Liveness `json:"faults"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("%v in %s", err, out)
	}
	tasks := fc.Tasks()
	if len(tasks) != 1 || !tasks[0].Destroyed || len(rep.Run.Faults) != 1 {
		t.Fatalf("tasks %+v, report %s", tasks, out)
	}
	f := rep.Run.Faults[0]
	if !rep.Valid || f.Name != "trogdor-ProcessStop" || f.StartMs != tasks[0].StartMs || f.DurationMs != 300 || f.ExitCode != 0 {
		t.Fatalf("report %s", out)
	}
	if !strings.Contains(out, `"fault_start_ms":`+strconv.FormatInt(f.StartMs, 10)) {
		t.Errorf("no R8 verdict on the fault's window in %s", out)
	}

	fc.Close()
	code, out, errOut = kbox(t, "--bootstrap-server", strings.Join(c.ListenAddrs(), ","), "--topic", "trog2", "--create-topic",
		"--replication-factor", "1", "--messages", "10", "--coordinator", fc.URL,
		"--during-trogdor", "ProcessStop:nodes=agent1:process=x:duration=1s")
	if code != 1 || out != "" || !strings.Contains(errOut, "trogdor coordinator") || strings.Count(strings.TrimSpace(errOut), "\n") > 0 {
		t.Errorf("dead coordinator: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
}
