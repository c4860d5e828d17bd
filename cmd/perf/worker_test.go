package perf_test

import (
	"bufio"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/twmb/franz-go/pkg/kfake"
)

func kboxIn(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Main: app.Main, Stdin: stdin}, args...)
	return r.Code, r.Stdout, r.Stderr
}

// statusLines decodes the worker's stdout as the agent does: one JSON
// object per line, with "status" or "error".
func statusLines(t *testing.T, out string) (sts []*distrib.WorkerStatus, errs []string) {
	t.Helper()
	sc := bufio.NewScanner(strings.NewReader(out))
	sc.Buffer(nil, 1<<22)
	for sc.Scan() {
		var line struct {
			Status json.RawMessage `json:"status"`
			Error  *string         `json:"error"`
		}
		if err := json.Unmarshal(sc.Bytes(), &line); err != nil {
			t.Fatalf("stdout line %q: %v", sc.Text(), err)
		}
		if line.Error != nil {
			errs = append(errs, *line.Error)
			continue
		}
		st, ok := distrib.ParseStatus(line.Status)
		if !ok {
			t.Fatalf("not a status line: %q", sc.Text())
		}
		sts = append(sts, st)
	}
	return sts, errs
}

// The captured Trogdor task line, pointed at a kfake cluster: the worker
// waits for the shared start, reports cumulative statuses with growing
// sequence numbers, and ends with the result of exactly its share.
func TestWorkerCapturedTaskKfake(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(3, "d1"))
	b, err := os.ReadFile("../../pkg/perf/distrib/testdata/trogdor/task-produce.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var task map[string]any
	if err := json.Unmarshal(b, &task); err != nil {
		t.Fatal(err)
	}
	bs := strings.Join(c.ListenAddrs(), ",")
	start := time.Now().Add(700 * time.Millisecond)
	w := task["workload"].(map[string]any)
	w["bootstrap"], w["start_ms"] = bs, start.UnixMilli()
	w["properties"].(map[string]any)["bootstrap.servers"] = bs
	w["records_per_sec"] = 400.0 // 501 records: about 1.25 s, several progress statuses
	line, _ := json.Marshal(task)

	code, out, errOut := kboxIn(t, string(line)+"\n", "perf", "worker")
	if code != 0 {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", code, out, errOut)
	}
	sts, errs := statusLines(t, out)
	if len(errs) > 0 {
		t.Fatalf("error lines %v", errs)
	}
	if len(sts) < 4 {
		t.Fatalf("%d statuses, want waiting, running, progress, done:\n%s", len(sts), out)
	}
	if sts[0].State != distrib.WorkerWaiting {
		t.Errorf("first status %q, want waiting", sts[0].State)
	}
	var prev int64
	progress := 0
	for _, s := range sts {
		if s.Seq <= prev {
			t.Fatalf("sequence %d after %d", s.Seq, prev)
		}
		prev = s.Seq
		if s.Agent != "agent1" || s.TaskMs == 0 {
			t.Fatalf("status %+v", s)
		}
		if s.State == distrib.WorkerRunning && s.Histogram != "" {
			progress++
			h, err := perf.DecodeLatency(s.Histogram)
			if err != nil || h.Count() != s.Records {
				t.Fatalf("progress histogram %v: %d values for %d records", err, h.Count(), s.Records)
			}
		}
	}
	if progress == 0 {
		t.Errorf("no progress status with a histogram")
	}
	last := sts[len(sts)-1]
	if last.State != distrib.WorkerDone || last.Result == nil {
		t.Fatalf("last status %+v", last)
	}
	r := last.Result
	if r.Records != 501 || r.Latency.Count != 501 || r.TargetRate != 400 || r.Clients != 2 {
		t.Fatalf("result %+v", r)
	}
	if h, err := perf.DecodeLatency(r.Histogram); err != nil || h.Count() != 501 {
		t.Fatalf("result histogram: %v", err)
	}
	if r.MeasureStart.Before(start) || last.StartMs < start.UnixMilli() {
		t.Errorf("load started at %v (status %d), before the shared start %v", r.MeasureStart, last.StartMs, start)
	}
	if !strings.Contains(strings.Join(r.Settings, " "), "client.id=kbox-perf-producer-agent1") {
		t.Errorf("settings %v", r.Settings)
	}
}

// A bad task line ends the task with an error line and exit 1.
func TestWorkerBadTask(t *testing.T) {
	code, out, errOut := kboxIn(t, "{\"id\":\"x\",\"workload\":{\"kind\":\"end-to-end\"}}\n", "perf", "worker")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
	_, errs := statusLines(t, out)
	if len(errs) != 1 || !strings.Contains(errs[0], `kind "end-to-end"`) || !strings.Contains(errOut, `kind "end-to-end"`) {
		t.Fatalf("errors %v, stderr %q", errs, errOut)
	}
	code, out, _ = kboxIn(t, "", "perf", "worker")
	if _, errs := statusLines(t, out); code != 1 || len(errs) != 1 || !strings.Contains(errs[0], "no task line") {
		t.Fatalf("no stdin: exit %d, %q", code, out)
	}
}
