// Package trogdortest is a fake Trogdor coordinator for unit tests of
// fault tasks: a task is PENDING until its startMs, RUNNING for its
// durationMs, then DONE (at once when stopped), as the coordinator
// reports them.
package trogdortest

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"time"
)

// Task is what the fake knows of one submitted task.
type Task struct {
	ID        string
	Spec      json.RawMessage
	StartMs   int64
	Duration  time.Duration
	StoppedMs int64
	Destroyed bool
}

// Coordinator is the fake. CreateError, when set, fails every create
// (HTTP 400 with that message); TaskError, when set, ends every task at
// once with that error without starting it (startedMs -1), as the
// coordinator does for a task whose nodes it does not know.
type Coordinator struct {
	*httptest.Server
	mu          sync.Mutex
	tasks       map[string]*Task
	order       []string
	CreateError string
	TaskError   string
}

// New starts a fake coordinator; Close it when done.
func New() *Coordinator {
	c := &Coordinator{tasks: map[string]*Task{}}
	c.Server = httptest.NewServer(http.HandlerFunc(c.serve))
	return c
}

// Tasks returns the submitted tasks in submission order.
func (c *Coordinator) Tasks() []Task {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Task, 0, len(c.order))
	for _, id := range c.order {
		out = append(out, *c.tasks[id])
	}
	return out
}

func (c *Coordinator) serve(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := time.Now().UnixMilli()
	reply := func(code int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(v)
	}
	switch {
	case r.Method == http.MethodGet && r.URL.Path == "/coordinator/status":
		reply(200, map[string]int64{"serverStartMs": now})
	case r.Method == http.MethodPost && r.URL.Path == "/coordinator/task/create":
		var req struct {
			ID   string          `json:"id"`
			Spec json.RawMessage `json:"spec"`
		}
		var spec struct {
			StartMs    int64 `json:"startMs"`
			DurationMs int64 `json:"durationMs"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || json.Unmarshal(req.Spec, &spec) != nil {
			reply(400, map[string]any{"message": "bad request"})
			return
		}
		if c.CreateError != "" {
			reply(400, map[string]any{"message": c.CreateError})
			return
		}
		if _, dup := c.tasks[req.ID]; dup {
			reply(400, map[string]any{"message": "task ID " + req.ID + " already exists"})
			return
		}
		c.tasks[req.ID] = &Task{ID: req.ID, Spec: req.Spec, StartMs: max(spec.StartMs, now), Duration: time.Duration(spec.DurationMs) * time.Millisecond}
		c.order = append(c.order, req.ID)
		reply(200, map[string]any{})
	case r.Method == http.MethodPut && r.URL.Path == "/coordinator/task/stop":
		var req struct {
			ID string `json:"id"`
		}
		_ = json.NewDecoder(r.Body).Decode(&req)
		t := c.tasks[req.ID]
		if t == nil || t.Destroyed {
			reply(404, map[string]any{"message": "no task"})
			return
		}
		if t.StoppedMs == 0 {
			t.StoppedMs = now
		}
		reply(200, map[string]any{})
	case r.Method == http.MethodDelete && r.URL.Path == "/coordinator/tasks":
		t := c.tasks[r.URL.Query().Get("taskId")]
		if t == nil || t.Destroyed {
			reply(404, map[string]any{"message": "no task"})
			return
		}
		t.Destroyed = true
		reply(200, map[string]any{})
	case r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/coordinator/tasks/"):
		t := c.tasks[strings.TrimPrefix(r.URL.Path, "/coordinator/tasks/")]
		if t == nil || t.Destroyed {
			reply(404, map[string]any{"message": "no task"})
			return
		}
		end := t.StartMs + t.Duration.Milliseconds()
		st := map[string]any{"spec": t.Spec, "status": nil}
		switch {
		case c.TaskError != "":
			// As the coordinator reports a task that could not start
			// (unknown nodes): DONE at once, startedMs -1.
			st["state"], st["startedMs"], st["doneMs"], st["cancelled"], st["error"] = "DONE", -1, t.StartMs, false, c.TaskError
		case t.StoppedMs != 0 && t.StoppedMs < end:
			st["state"], st["startedMs"], st["doneMs"], st["cancelled"], st["error"] = "DONE", min(t.StartMs, t.StoppedMs), t.StoppedMs, true, ""
		case now >= end:
			st["state"], st["startedMs"], st["doneMs"], st["cancelled"], st["error"] = "DONE", t.StartMs, end, false, ""
		case now >= t.StartMs:
			st["state"], st["startedMs"] = "RUNNING", t.StartMs
		default:
			st["state"] = "PENDING"
		}
		reply(200, st)
	default:
		reply(404, map[string]any{"message": "no route " + r.Method + " " + r.URL.Path})
	}
}
