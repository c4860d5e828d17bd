package distrib

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib/distribtest"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

func workloads(agents ...string) []AgentWorkload {
	var ws []AgentWorkload
	for i, a := range agents {
		ws = append(ws, AgentWorkload{Kind: "produce", Agent: a, Index: i, Agents: len(agents), Topic: "t", Records: 100, Clients: 1, RecordSize: 10})
	}
	return ws
}

// One agent finishes, one fails, one goes silent: the merged result holds
// only the finished agent, the failed one carries its error and partial
// result, the silent one is lost and its task stopped; every task is
// destroyed at the end.
func TestRunDistributedFailedAndLost(t *testing.T) {
	start := time.Now()
	okRes := perftest.Result(t, 100, time.Millisecond, start)
	partial := perftest.Result(t, 40, 2*time.Millisecond, start)
	fc, srv := distribtest.NewCoordinator(func(agent string, poll int, _ bool) trogdor.TaskState {
		switch agent {
		case "ok":
			if poll < 3 {
				return trogdor.TaskState{State: trogdor.Running, Status: distribtest.StatusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: int64(poll), Records: 10})}
			}
			return trogdor.TaskState{State: trogdor.Done, Status: distribtest.StatusJSON(t, &WorkerStatus{State: WorkerDone, Seq: 9, TaskMs: start.UnixMilli(), Result: okRes})}
		case "bad":
			return trogdor.TaskState{State: trogdor.Done, Error: "exited with return code 1",
				Status: distribtest.StatusJSON(t, &WorkerStatus{State: WorkerFailed, Seq: 3, Error: "broker gone", Records: 40, Histogram: partial.Histogram, StartMs: start.UnixMilli(), UpdatedMs: start.Add(time.Second).UnixMilli()})}
		default: // silent: the same status forever
			return trogdor.TaskState{State: trogdor.Running, Status: distribtest.StatusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: 1, Records: 5})}
		}
	})
	defer srv.Close()
	cl, err := trogdor.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	cfg := DistributedConfig{RunID: "run", Command: []string{"kbox", "perf", "worker"}, Workloads: workloads("ok", "bad", "silent"),
		TaskDuration: time.Minute, AgentTimeout: 400 * time.Millisecond, Poll: 20 * time.Millisecond}
	var last DistProgress
	res, err := RunDistributed(context.Background(), cl, srv.URL, cfg, func(p DistProgress) { last = p })
	if err != nil {
		t.Fatal(err)
	}
	if res.Agents != 3 || res.FailedAgents != 2 || len(res.MergedAgents) != 1 || res.MergedAgents[0] != "ok" {
		t.Fatalf("result %+v", res)
	}
	if res.Merged == nil || res.Merged.Records != 100 || res.Merged.Histogram != okRes.Histogram || res.AggregateRecordsPerSec != okRes.RecordsPerSec {
		t.Fatalf("merged %+v", res.Merged)
	}
	by := map[string]AgentResult{}
	for _, a := range res.PerAgent {
		by[a.Agent] = a
	}
	if a := by["bad"]; a.State != AgentFailed || !strings.Contains(a.Error, "exited with return code 1: broker gone") || a.Result == nil || a.Result.Records != 40 || a.Result.Latency.Count != 40 {
		t.Fatalf("bad agent %+v", a)
	}
	if a := by["silent"]; a.State != AgentLost || !strings.Contains(a.Error, "no status for") || a.Result == nil || a.Result.Records != 5 {
		t.Fatalf("silent agent %+v", a)
	}
	if last.Finished != 1 || last.Failed != 2 || last.Running != 0 {
		t.Fatalf("last progress %+v", last)
	}
	fc.Mu.Lock()
	defer fc.Mu.Unlock()
	if !fc.Stopped["run-silent"] || fc.Stopped["run-ok"] {
		t.Fatalf("stopped %v", fc.Stopped)
	}
	if len(fc.Destroyed) != 3 {
		t.Fatalf("destroyed %v", fc.Destroyed)
	}
	if s := fc.Specs["run-bad"]; s.CommandNode != "bad" || s.DurationMs != 60000 || strings.Join(s.Command, " ") != "kbox perf worker" {
		t.Fatalf("spec %+v", s)
	}
}

// Cancelling the run stops every task and returns their partial results.
func TestRunDistributedInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	fc, srv := distribtest.NewCoordinator(func(agent string, poll int, stopped bool) trogdor.TaskState {
		if poll == 3 {
			cancel()
		}
		st := distribtest.StatusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: int64(poll), Records: int64(poll)})
		if stopped {
			return trogdor.TaskState{State: trogdor.Done, Cancelled: true, Error: "exited with return code 143", Status: st}
		}
		return trogdor.TaskState{State: trogdor.Running, Status: st}
	})
	defer srv.Close()
	cl, _ := trogdor.New(srv.URL)
	cfg := DistributedConfig{RunID: "run", Command: []string{"w"}, Workloads: workloads("a", "b"), TaskDuration: time.Minute,
		AgentTimeout: 5 * time.Second, Poll: 20 * time.Millisecond}
	res, err := RunDistributed(ctx, cl, srv.URL, cfg, nil)
	if !errors.Is(err, context.Canceled) || res == nil {
		t.Fatalf("err %v res %v", err, res)
	}
	fc.Mu.Lock()
	defer fc.Mu.Unlock()
	for _, a := range res.PerAgent {
		if a.State != AgentStopped || a.Result == nil || a.Result.Records == 0 || !fc.Stopped[a.TaskID] {
			t.Fatalf("agent %+v stopped=%v", a, fc.Stopped)
		}
	}
	if res.Merged != nil || res.FailedAgents != 2 {
		t.Fatalf("result %+v", res)
	}
}

// A coordinator that refuses a task: the tasks already created are stopped.
func TestRunDistributedSubmitFails(t *testing.T) {
	fc, srv := distribtest.NewCoordinator(nil)
	defer srv.Close()
	cl, _ := trogdor.New(srv.URL)
	cfg := DistributedConfig{RunID: "run", Command: []string{"w"}, Workloads: workloads("a", "b"), TaskDuration: time.Minute}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fc.Mu.Lock()
		n := len(fc.Specs)
		fc.Mu.Unlock()
		if r.URL.Path == "/coordinator/task/create" && n == 1 {
			http.Error(w, `{"code":409,"message":"Task ID run-b already exists"}`, http.StatusConflict)
			return
		}
		fc.ServeHTTP(w, r)
	})
	_, err := RunDistributed(context.Background(), cl, srv.URL, cfg, nil)
	if err == nil || !strings.Contains(err.Error(), "agent b") || !strings.Contains(err.Error(), "already exists") {
		t.Fatalf("err %v", err)
	}
	if !fc.Stopped["run-a"] {
		t.Fatal("the created task was not stopped")
	}
}

func TestParseAgentCounts(t *testing.T) {
	if got, err := ParseAgentCounts("1, 2,3", 3); err != nil || len(got) != 3 || got[2] != 3 {
		t.Fatalf("%v %v", got, err)
	}
	if got, err := ParseAgentCounts("", 3); err != nil || got != nil {
		t.Fatalf("%v %v", got, err)
	}
	for _, bad := range []string{"0", "4", "2,1", "1,1", "x", "1,"} {
		if _, err := ParseAgentCounts(bad, 3); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	s := &AgentSweep{Runs: []*DistributedResult{{Agents: 1, AggregateRecordsPerSec: 10, Merged: &perf.Result{RecordsPerSec: 10}},
		{Agents: 2, FailedAgents: 2}}}
	rows := s.Rows()
	if len(rows) != 2 || rows[0][0] != "1" || rows[0][2] != "10.0" || rows[0][4] != "10.0" || rows[1][1] != "2" || rows[1][4] != "-" || len(rows[0]) != len(s.Header()) {
		t.Fatalf("rows %v", rows)
	}
}
