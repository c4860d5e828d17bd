// Package trogdor is a client of the REST API of Apache Kafka's Trogdor
// coordinator (trogdor/coordinator/CoordinatorRestResource): create, follow,
// stop and destroy tasks. It knows the ExternalCommandSpec task, which runs
// a program (kbox perf worker) on one agent.
package trogdor

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Task states of the coordinator (TaskStateType).
const (
	Pending  = "PENDING"
	Running  = "RUNNING"
	Stopping = "STOPPING"
	Done     = "DONE"
)

// ExternalCommandClass is the spec class of an ExternalCommand task.
const ExternalCommandClass = "org.apache.kafka.trogdor.workload.ExternalCommandSpec"

// ExternalCommandSpec runs Command on agent CommandNode; the agent writes
// {"id","workload"} on its stdin.
type ExternalCommandSpec struct {
	Class                 string   `json:"class"`
	StartMs               int64    `json:"startMs"`
	DurationMs            int64    `json:"durationMs"`
	CommandNode           string   `json:"commandNode"`
	Command               []string `json:"command"`
	Workload              any      `json:"workload"`
	ShutdownGracePeriodMs int      `json:"shutdownGracePeriodMs,omitempty"`
}

// TaskState is one task as the coordinator reports it.
type TaskState struct {
	State     string          `json:"state"`
	Spec      json.RawMessage `json:"spec"`
	StartedMs int64           `json:"startedMs"`
	DoneMs    int64           `json:"doneMs"`
	Cancelled bool            `json:"cancelled"`
	Error     string          `json:"error"`
	Status    json.RawMessage `json:"status"`
}

// Client talks to one coordinator.
type Client struct {
	base string
	http *http.Client
}

// New checks the coordinator URL (http://host:port) and returns a client.
func New(coordinator string) (*Client, error) {
	u, err := url.Parse(coordinator)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("coordinator %q: want http://host:port", coordinator)
	}
	return &Client{base: strings.TrimRight(u.String(), "/"), http: &http.Client{Timeout: 10 * time.Second}}, nil
}

// ErrNotFound is a 404 from the coordinator.
var ErrNotFound = errors.New("no such task")

func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fmt.Errorf("trogdor coordinator %s: %v", c.base, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 64<<20))
	if err != nil {
		return fmt.Errorf("trogdor coordinator %s: %v", c.base, err)
	}
	if resp.StatusCode == http.StatusNotFound {
		return ErrNotFound
	}
	if resp.StatusCode/100 != 2 {
		var e struct {
			Message string `json:"message"`
		}
		msg := strings.TrimSpace(string(b))
		if json.Unmarshal(b, &e) == nil && e.Message != "" {
			msg = e.Message
		}
		if len(msg) > 300 {
			msg = msg[:300] + "..."
		}
		return fmt.Errorf("trogdor coordinator: %s %s: HTTP %d: %s", method, path, resp.StatusCode, msg)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return fmt.Errorf("trogdor coordinator: %s %s: bad answer: %v", method, path, err)
		}
	}
	return nil
}

// Ping checks that the coordinator answers (GET /coordinator/status).
func (c *Client) Ping(ctx context.Context) error {
	return c.do(ctx, http.MethodGet, "/coordinator/status", nil, nil)
}

// Create submits a task (POST /coordinator/task/create).
func (c *Client) Create(ctx context.Context, id string, spec any) error {
	return c.do(ctx, http.MethodPost, "/coordinator/task/create", map[string]any{"id": id, "spec": spec}, nil)
}

// Stop asks the coordinator to stop a task (PUT /coordinator/task/stop).
func (c *Client) Stop(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodPut, "/coordinator/task/stop", map[string]string{"id": id}, nil)
}

// Destroy forgets a task (DELETE /coordinator/tasks?taskId=).
func (c *Client) Destroy(ctx context.Context, id string) error {
	return c.do(ctx, http.MethodDelete, "/coordinator/tasks?taskId="+url.QueryEscape(id), nil, nil)
}

// Task returns one task's state (GET /coordinator/tasks/{id}).
func (c *Client) Task(ctx context.Context, id string) (*TaskState, error) {
	var t TaskState
	if err := c.do(ctx, http.MethodGet, "/coordinator/tasks/"+url.PathEscape(id), nil, &t); err != nil {
		return nil, err
	}
	return &t, nil
}
