package perf

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/trogdor"
)

// fakeCoordinator answers the coordinator REST calls RunDistributed makes;
// behave decides each task's state from its agent and poll count.
type fakeCoordinator struct {
	mu        sync.Mutex
	specs     map[string]trogdor.ExternalCommandSpec
	polls     map[string]int
	stopped   map[string]bool
	destroyed map[string]bool
	behave    func(agent string, poll int, stopped bool) trogdor.TaskState
}

func newFake(behave func(string, int, bool) trogdor.TaskState) (*fakeCoordinator, *httptest.Server) {
	fc := &fakeCoordinator{specs: map[string]trogdor.ExternalCommandSpec{}, polls: map[string]int{},
		stopped: map[string]bool{}, destroyed: map[string]bool{}, behave: behave}
	return fc, httptest.NewServer(fc)
}

func (fc *fakeCoordinator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fc.mu.Lock()
	defer fc.mu.Unlock()
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/coordinator/status":
		_, _ = w.Write([]byte(`{"serverStartMs":1}`))
	case r.Method == http.MethodPost && r.URL.Path == "/coordinator/task/create":
		var req struct {
			ID   string                      `json:"id"`
			Spec trogdor.ExternalCommandSpec `json:"spec"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Spec.Class != trogdor.ExternalCommandClass {
			http.Error(w, `{"code":400,"message":"bad spec"}`, http.StatusBadRequest)
			return
		}
		fc.specs[req.ID] = req.Spec
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodPut && r.URL.Path == "/coordinator/task/stop":
		var req struct{ ID string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		fc.stopped[req.ID] = true
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodDelete && r.URL.Path == "/coordinator/tasks":
		fc.destroyed[r.URL.Query().Get("taskId")] = true
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/coordinator/tasks/"):
		id := strings.TrimPrefix(r.URL.Path, "/coordinator/tasks/")
		spec, ok := fc.specs[id]
		if !ok {
			http.Error(w, `{"code":404,"message":"No task"}`, http.StatusNotFound)
			return
		}
		fc.polls[id]++
		st := fc.behave(spec.CommandNode, fc.polls[id], fc.stopped[id])
		_ = json.NewEncoder(w).Encode(st)
	default:
		http.Error(w, "unexpected", http.StatusInternalServerError)
	}
}

func statusJSON(t *testing.T, st *WorkerStatus) json.RawMessage {
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func resultOf(t *testing.T, records int, ms time.Duration, start time.Time) *Result {
	h := NewLatency()
	for i := 0; i < records; i++ {
		h.Record(time.Duration(i%50+1) * ms)
	}
	r := &Result{Kind: "produce", Topic: "t", Clients: 1, Records: int64(records), Bytes: int64(records) * 10,
		MeasureStart: start, MeasureEnd: start.Add(time.Second)}
	if err := r.finish(h); err != nil {
		t.Fatal(err)
	}
	return r
}

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
	okRes := resultOf(t, 100, time.Millisecond, start)
	partial := resultOf(t, 40, 2*time.Millisecond, start)
	fc, srv := newFake(func(agent string, poll int, _ bool) trogdor.TaskState {
		switch agent {
		case "ok":
			if poll < 3 {
				return trogdor.TaskState{State: trogdor.Running, Status: statusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: int64(poll), Records: 10})}
			}
			return trogdor.TaskState{State: trogdor.Done, Status: statusJSON(t, &WorkerStatus{State: WorkerDone, Seq: 9, TaskMs: start.UnixMilli(), Result: okRes})}
		case "bad":
			return trogdor.TaskState{State: trogdor.Done, Error: "exited with return code 1",
				Status: statusJSON(t, &WorkerStatus{State: WorkerFailed, Seq: 3, Error: "broker gone", Records: 40, Histogram: partial.Histogram, StartMs: start.UnixMilli(), UpdatedMs: start.Add(time.Second).UnixMilli()})}
		default: // silent: the same status forever
			return trogdor.TaskState{State: trogdor.Running, Status: statusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: 1, Records: 5})}
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
	fc.mu.Lock()
	defer fc.mu.Unlock()
	if !fc.stopped["run-silent"] || fc.stopped["run-ok"] {
		t.Fatalf("stopped %v", fc.stopped)
	}
	if len(fc.destroyed) != 3 {
		t.Fatalf("destroyed %v", fc.destroyed)
	}
	if s := fc.specs["run-bad"]; s.CommandNode != "bad" || s.DurationMs != 60000 || strings.Join(s.Command, " ") != "kbox perf worker" {
		t.Fatalf("spec %+v", s)
	}
}

// Cancelling the run stops every task and returns their partial results.
func TestRunDistributedInterrupt(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	fc, srv := newFake(func(agent string, poll int, stopped bool) trogdor.TaskState {
		if poll == 3 {
			cancel()
		}
		st := statusJSON(t, &WorkerStatus{State: WorkerRunning, Seq: int64(poll), Records: int64(poll)})
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
	fc.mu.Lock()
	defer fc.mu.Unlock()
	for _, a := range res.PerAgent {
		if a.State != AgentStopped || a.Result == nil || a.Result.Records == 0 || !fc.stopped[a.TaskID] {
			t.Fatalf("agent %+v stopped=%v", a, fc.stopped)
		}
	}
	if res.Merged != nil || res.FailedAgents != 2 {
		t.Fatalf("result %+v", res)
	}
}

// A coordinator that refuses a task: the tasks already created are stopped.
func TestRunDistributedSubmitFails(t *testing.T) {
	fc, srv := newFake(nil)
	defer srv.Close()
	cl, _ := trogdor.New(srv.URL)
	cfg := DistributedConfig{RunID: "run", Command: []string{"w"}, Workloads: workloads("a", "b"), TaskDuration: time.Minute}
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fc.mu.Lock()
		n := len(fc.specs)
		fc.mu.Unlock()
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
	if !fc.stopped["run-a"] {
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
	s := &AgentSweep{Runs: []*DistributedResult{{Agents: 1, AggregateRecordsPerSec: 10, Merged: &Result{RecordsPerSec: 10}},
		{Agents: 2, FailedAgents: 2}}}
	rows := s.Rows()
	if len(rows) != 2 || rows[0][0] != "1" || rows[0][2] != "10.0" || rows[0][4] != "10.0" || rows[1][1] != "2" || rows[1][4] != "-" || len(rows[0]) != len(s.Header()) {
		t.Fatalf("rows %v", rows)
	}
}
