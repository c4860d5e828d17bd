package distrib

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
)

// The Trogdor ExternalCommand protocol (Apache Kafka's
// trogdor/workload/ExternalCommandWorker): the agent starts the command,
// writes one line {"id": TASK, "workload": <the spec's workload>} on its
// stdin, and reads JSON lines from its stdout: {"status": X} replaces the
// task's status (what the coordinator's REST API shows), {"log": S} is
// logged, {"error": S} ends the task with that error. The task also ends
// when the process exits (a non-zero exit is an error). When the task is
// stopped, the agent closes the process's stdout and sends SIGTERM: what
// the process prints after that is lost, so every status carries the
// cumulative counters and the encoded histogram of the run so far.

// AgentWorkload is what `kbox perf distributed` puts in an ExternalCommandSpec's
// workload for one agent: one produce or consume run, its share of the
// totals, the connection and the shared start time.
type AgentWorkload struct {
	Kind       string            `json:"kind"` // produce, consume or e2e
	Agent      string            `json:"agent"`
	Index      int               `json:"index"`  // 0-based agent index
	Agents     int               `json:"agents"` // number of agents in the run
	StartMs    int64             `json:"start_ms"`
	Bootstrap  string            `json:"bootstrap"`
	Properties map[string]string `json:"properties,omitempty"`
	ClientID   string            `json:"client_id"`
	Topic      string            `json:"topic"`
	Records    int64             `json:"records"`
	DurationMs int64             `json:"duration_ms,omitempty"`
	IntervalMs int64             `json:"interval_ms,omitempty"`
	// produce
	RecordSize     int     `json:"record_size,omitempty"`
	Rate           float64 `json:"records_per_sec,omitempty"` // <= 0: unthrottled
	KeyCardinality int     `json:"key_cardinality,omitempty"`
	KeyFirst       int64   `json:"key_first,omitempty"` // this agent's keys: key_first .. key_first+key_cardinality-1
	WarmupRecords  int64   `json:"warmup_records,omitempty"`
	WarmupMs       int64   `json:"warmup_ms,omitempty"`
	RepeatPayload  bool    `json:"repeat_payload,omitempty"`
	Seed           int64   `json:"seed,omitempty"`
	Clients        int     `json:"clients"`
	// consume (and e2e: the group its positions are committed for)
	Group         string `json:"group,omitempty"`
	IdleTimeoutMs int64  `json:"idle_timeout_ms,omitempty"`
	// e2e: one record in flight on the agent's own topic (Topic-AGENT)
	PollTimeoutMs int64 `json:"poll_timeout_ms,omitempty"`
}

// Task is the line an ExternalCommand worker reads on stdin.
type Task struct {
	ID       string        `json:"id"`
	Workload AgentWorkload `json:"workload"`
}

// ReadTask reads and checks the task line.
func ReadTask(r io.Reader) (*Task, error) {
	line, err := bufio.NewReaderSize(r, 1<<16).ReadString('\n')
	if err != nil && (err != io.EOF || strings.TrimSpace(line) == "") {
		if err == io.EOF {
			return nil, errors.New("no task line on stdin (kbox perf worker is run by a Trogdor agent)")
		}
		return nil, fmt.Errorf("reading the task line: %v", err)
	}
	var t Task
	dec := json.NewDecoder(strings.NewReader(line))
	if err := dec.Decode(&t); err != nil {
		return nil, fmt.Errorf("bad task line: %v", err)
	}
	if err := t.Workload.Check(); err != nil {
		return nil, fmt.Errorf("task %s: %v", t.ID, err)
	}
	return &t, nil
}

// Check validates a workload before any work.
func (w *AgentWorkload) Check() error {
	switch {
	case w.Kind != "produce" && w.Kind != "consume" && w.Kind != perf.KindE2E:
		return fmt.Errorf("workload kind %q: want produce, consume or e2e", w.Kind)
	case w.Topic == "":
		return errors.New("workload has no topic")
	case w.Bootstrap == "":
		return errors.New("workload has no bootstrap")
	case w.Records < 0 || w.DurationMs < 0 || (w.Records == 0 && w.DurationMs == 0):
		return errors.New("workload needs records > 0 or duration_ms > 0")
	case w.Clients <= 0:
		return errors.New("workload needs clients > 0")
	case w.Kind == "produce" && w.RecordSize <= 0:
		return errors.New("workload needs record_size > 0")
	case w.Kind == perf.KindE2E && (w.RecordSize < 0 || w.PollTimeoutMs < 0):
		return errors.New("workload record_size and poll_timeout_ms must not be negative")
	case w.WarmupRecords < 0 || w.WarmupMs < 0:
		return errors.New("workload warm-up must not be negative")
	}
	return nil
}

// Worker states.
const (
	WorkerWaiting = "waiting" // before the shared start time
	WorkerRunning = "running"
	WorkerDone    = "done"
	WorkerFailed  = "failed"
)

// WorkerStatus is the status a worker reports: cumulative counters and the
// encoded histogram of the measured records so far, and the full result
// when done. Seq grows with every status, so a driver sees a stalled agent.
type WorkerStatus struct {
	State     string       `json:"state"`
	Agent     string       `json:"agent"`
	Seq       int64        `json:"seq"`
	UpdatedMs int64        `json:"updated_ms"`
	TaskMs    int64        `json:"task_received_ms"` // when the task line was read
	StartMs   int64        `json:"start_ms"`         // when the load started
	Done      int64        `json:"done"`             // acknowledged/received, warm-up included
	Records   int64        `json:"records"`          // measured
	Bytes     int64        `json:"bytes"`
	Rate      float64      `json:"records_per_sec"` // recent rate
	Histogram string       `json:"histogram,omitempty"`
	Result    *perf.Result `json:"result,omitempty"` // the final result (done, or failed with a partial one)
	Error     string       `json:"error,omitempty"`
}

// StatusLine encodes one ExternalCommand stdout line carrying s.
func StatusLine(s *WorkerStatus) ([]byte, error) {
	b, err := json.Marshal(struct {
		Status *WorkerStatus `json:"status"`
	}{s})
	if err != nil {
		return nil, err
	}
	return append(b, '\n'), nil
}

// ErrorLine encodes the stdout line that ends the task with an error.
func ErrorLine(msg string) []byte {
	b, _ := json.Marshal(struct {
		Error string `json:"error"`
	}{msg})
	return append(b, '\n')
}

// ParseStatus decodes a task's status as the coordinator reports it; ok is
// false when the status is not (yet) a kbox worker status.
func ParseStatus(raw json.RawMessage) (s *WorkerStatus, ok bool) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, false
	}
	var st WorkerStatus
	if err := json.Unmarshal(raw, &st); err != nil || st.State == "" {
		return nil, false
	}
	return &st, true
}

// Partial turns a status into a result of the records measured so far
// (the run's final result when there is one).
func (s *WorkerStatus) Partial(kind, topic string) (*perf.Result, error) {
	if s.Result != nil {
		return s.Result, nil
	}
	h := perf.NewLatency()
	if s.Histogram != "" {
		d, err := perf.DecodeLatency(s.Histogram)
		if err != nil {
			return nil, err
		}
		h = d
	}
	r := &perf.Result{Kind: kind, Topic: topic, Records: s.Records, Bytes: s.Bytes,
		MeasureStart: time.UnixMilli(s.StartMs), MeasureEnd: time.UnixMilli(s.UpdatedMs)}
	if s.StartMs == 0 {
		r.MeasureStart = r.MeasureEnd
	}
	if err := r.Complete(h); err != nil {
		return nil, err
	}
	return r, nil
}

// Split gives agent i of n its share of total: even shares, the first
// total%n agents one more.
func Split(total int64, i, n int) int64 {
	if n <= 0 {
		return 0
	}
	s := total / int64(n)
	if int64(i) < total%int64(n) {
		s++
	}
	return s
}

// SplitWorkload gives every agent its share of w: --records, the rate and
// the key cardinality are totals split evenly (perAgent: each agent gets
// them whole), the key ranges are disjoint, the client id is
// w.ClientID-AGENT. StartMs is left to RunDistributed.
func SplitWorkload(w AgentWorkload, agents []string, perAgent bool) []AgentWorkload {
	n := len(agents)
	out := make([]AgentWorkload, 0, n)
	var keyFirst int64
	for i, a := range agents {
		aw := w
		aw.Agent, aw.Index, aw.Agents = a, i, n
		aw.ClientID = w.ClientID + "-" + a
		if !perAgent {
			aw.Records = Split(w.Records, i, n)
			if w.Rate > 0 {
				aw.Rate = w.Rate / float64(n)
			}
			aw.KeyCardinality = int(Split(int64(w.KeyCardinality), i, n))
		}
		aw.KeyFirst = keyFirst
		keyFirst += int64(aw.KeyCardinality)
		out = append(out, aw)
	}
	return out
}
