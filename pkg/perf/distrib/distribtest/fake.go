// Package distribtest is a fake Trogdor coordinator for unit tests of
// distributed runs (kbox perf distributed, a sweep over agents): it records
// the ExternalCommand tasks submitted and answers their status as the test
// decides.
package distribtest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/kboxdev/kbox/pkg/trogdor"
)

// Coordinator answers the coordinator REST calls of a distributed run
// (distrib.RunDistributed): behave decides each task's state from its
// agent and poll count. Hold Mu to read the maps while a run goes on.
type Coordinator struct {
	Mu        sync.Mutex
	Specs     map[string]trogdor.ExternalCommandSpec // by task id
	Polls     map[string]int
	Stopped   map[string]bool
	Destroyed map[string]bool
	behave    func(agent string, poll int, stopped bool) trogdor.TaskState
}

// NewCoordinator starts the fake; Close the server when done.
func NewCoordinator(behave func(agent string, poll int, stopped bool) trogdor.TaskState) (*Coordinator, *httptest.Server) {
	fc := &Coordinator{Specs: map[string]trogdor.ExternalCommandSpec{}, Polls: map[string]int{},
		Stopped: map[string]bool{}, Destroyed: map[string]bool{}, behave: behave}
	return fc, httptest.NewServer(fc)
}

// ServeHTTP serves the coordinator's REST API.
func (fc *Coordinator) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	fc.Mu.Lock()
	defer fc.Mu.Unlock()
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
		fc.Specs[req.ID] = req.Spec
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodPut && r.URL.Path == "/coordinator/task/stop":
		var req struct{ ID string }
		_ = json.NewDecoder(r.Body).Decode(&req)
		fc.Stopped[req.ID] = true
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodDelete && r.URL.Path == "/coordinator/tasks":
		fc.Destroyed[r.URL.Query().Get("taskId")] = true
		_, _ = w.Write([]byte(`{}`))
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/coordinator/tasks/"):
		id := strings.TrimPrefix(r.URL.Path, "/coordinator/tasks/")
		spec, ok := fc.Specs[id]
		if !ok {
			http.Error(w, `{"code":404,"message":"No task"}`, http.StatusNotFound)
			return
		}
		fc.Polls[id]++
		st := fc.behave(spec.CommandNode, fc.Polls[id], fc.Stopped[id])
		_ = json.NewEncoder(w).Encode(st)
	default:
		http.Error(w, "unexpected", http.StatusInternalServerError)
	}
}

// StatusJSON encodes a worker status as the coordinator reports it.
func StatusJSON(t testing.TB, st any) json.RawMessage {
	t.Helper()
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
