package distrib

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

// DistributedConfig is one run over several Trogdor agents: one
// ExternalCommand task per workload (each names its agent).
type DistributedConfig struct {
	RunID        string          // task IDs are RunID-AGENT
	Command      []string        // the worker command on the agents (kbox perf worker)
	Workloads    []AgentWorkload // one per agent, with its share (StartMs is set here)
	StartDelay   time.Duration   // the shared start is this long after the submission
	TaskDuration time.Duration   // the tasks' durationMs: Trogdor stops a task after it
	AgentTimeout time.Duration   // an agent whose status does not change for this long is lost
	Poll         time.Duration   // how often the coordinator is asked (default 500ms)
}

// DistProgress is the live aggregate of a distributed run.
type DistProgress struct {
	Elapsed  time.Duration
	Done     int64 // acknowledged/received over all agents, warm-up included
	Target   int64
	Rate     float64 // sum of the agents' recent rates
	Waiting  int
	Running  int
	Finished int
	Failed   int
}

// Agent states in a distributed result.
const (
	AgentDone    = "done"
	AgentFailed  = "failed"
	AgentLost    = "lost"
	AgentStopped = "stopped"
)

// AgentResult is one agent's share of a distributed run.
type AgentResult struct {
	Agent  string `json:"agent"`
	TaskID string `json:"task_id"`
	State  string `json:"state"`
	Error  string `json:"error,omitempty"`
	// SubmitToTaskMs is the time from the submission to the worker reading
	// its task line (the coordinator's and the agent's overhead).
	SubmitToTaskMs int64 `json:"submit_to_task_ms"`
	// Result is the final result (done) or the records measured up to the
	// last status the agent reported (failed, lost, stopped); null when
	// the agent reported none.
	Result *perf.Result `json:"result"`
}

// DistributedResult is the merged outcome of a distributed run.
type DistributedResult struct {
	FormatVersion int    `json:"format_version"`
	Kind          string `json:"kind"`
	Topic         string `json:"topic"`
	Coordinator   string `json:"coordinator"`
	Agents        int    `json:"agents"`
	FailedAgents  int    `json:"failed_agents"`
	// MergedAgents says which agents are in Merged: those that finished.
	MergedAgents []string  `json:"merged_agents"`
	SubmitTime   time.Time `json:"submit_time"`
	StartTime    time.Time `json:"start_time"` // the shared start
	// SubmitToFirstRecordMs is the time from the submission to the first
	// measured record of any agent (the shared start delay included).
	SubmitToFirstRecordMs float64 `json:"submit_to_first_record_ms"`
	// The aggregate rates are the sums of the merged agents' own rates
	// (each over its own measured span); Merged's rates divide the merged
	// counts by the union of the spans.
	AggregateRecordsPerSec float64       `json:"aggregate_records_per_sec"`
	AggregateMBPerSec      float64       `json:"aggregate_mb_per_sec"`
	Merged                 *perf.Result  `json:"merged"`
	PerAgent               []AgentResult `json:"per_agent"`
}

type agentRun struct {
	w        *AgentWorkload
	id       string
	last     *WorkerStatus
	lastSeq  int64
	lastSeen time.Time
	state    string // "" while running
	err      string
	final    *perf.Result
}

// RunDistributed submits one task per workload, follows them until every
// one is done, failed or lost, and merges the results of the finished
// ones. When ctx ends, every task is stopped and the partial results are
// returned with ctx's error.
func RunDistributed(ctx context.Context, cl *trogdor.Client, coordinator string, cfg DistributedConfig, progress func(DistProgress)) (*DistributedResult, error) {
	if len(cfg.Workloads) == 0 {
		return nil, errors.New("no agents")
	}
	if cfg.Poll <= 0 {
		cfg.Poll = 500 * time.Millisecond
	}
	if cfg.AgentTimeout <= 0 {
		cfg.AgentTimeout = 20 * time.Second
	}
	if err := cl.Ping(ctx); err != nil {
		return nil, err
	}
	submit := time.Now()
	for i := range cfg.Workloads {
		cfg.Workloads[i].StartMs = submit.Add(cfg.StartDelay).UnixMilli()
	}
	w0 := cfg.Workloads[0]
	var target int64
	runs := make([]*agentRun, len(cfg.Workloads))
	for i := range cfg.Workloads {
		w := &cfg.Workloads[i]
		if w.Records > 0 {
			target += w.Records + w.WarmupRecords
		}
		runs[i] = &agentRun{w: w, id: cfg.RunID + "-" + w.Agent, lastSeen: submit, lastSeq: -1}
	}
	stopAll := func(which []*agentRun) {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		for _, r := range which {
			_ = cl.Stop(sctx, r.id)
		}
	}
	for i, r := range runs {
		spec := trogdor.ExternalCommandSpec{Class: trogdor.ExternalCommandClass, DurationMs: cfg.TaskDuration.Milliseconds(),
			CommandNode: r.w.Agent, Command: cfg.Command, Workload: r.w}
		if err := cl.Create(ctx, r.id, spec); err != nil {
			stopAll(runs[:i])
			return nil, fmt.Errorf("submitting the task of agent %s: %v", r.w.Agent, err)
		}
	}

	tick := time.NewTicker(cfg.Poll)
	defer tick.Stop()
	interrupted := false
	for {
		var p DistProgress
		p.Elapsed, p.Target = time.Since(submit), target
		pending := 0
		for _, r := range runs {
			if r.state == "" {
				follow(ctx, cl, r, cfg.AgentTimeout)
			}
			if r.last != nil {
				p.Done += r.last.Done
				if r.state == "" {
					p.Rate += r.last.Rate
				}
			}
			switch {
			case r.state == AgentDone:
				p.Finished++
			case r.state != "":
				p.Failed++
			case r.last == nil || r.last.State == WorkerWaiting:
				p.Waiting++
				pending++
			default:
				p.Running++
				pending++
			}
		}
		if progress != nil {
			progress(p)
		}
		if pending == 0 {
			break
		}
		select {
		case <-ctx.Done():
			// Ctrl-C: stop every task, then wait (up to the agent timeout)
			// for the last status of each.
			interrupted = true
			var left []*agentRun
			for _, r := range runs {
				if r.state == "" {
					left = append(left, r)
				}
			}
			stopAll(left)
			deadline := time.Now().Add(cfg.AgentTimeout)
			for _, r := range left {
				for r.state == "" && time.Now().Before(deadline) {
					follow(context.WithoutCancel(ctx), cl, r, cfg.AgentTimeout)
					if r.state == "" {
						time.Sleep(cfg.Poll)
					}
				}
				if r.state != AgentDone {
					r.state, r.err = AgentStopped, "stopped: "+ctx.Err().Error()
				}
			}
		case <-tick.C:
		}
	}

	var agents []AgentResult
	for _, r := range runs {
		ar := AgentResult{Agent: r.w.Agent, TaskID: r.id, State: r.state, Error: r.err}
		if r.last != nil && r.last.TaskMs > 0 {
			ar.SubmitToTaskMs = r.last.TaskMs - submit.UnixMilli()
		}
		if r.final != nil {
			ar.Result = r.final
		} else if r.last != nil {
			if pr, err := r.last.Partial(w0.Kind, w0.Topic); err == nil {
				ar.Result = pr
			}
		}
		agents = append(agents, ar)
	}
	out, err := MergeAgents(w0.Kind, w0.Topic, coordinator, submit, time.UnixMilli(w0.StartMs), agents)
	if err != nil {
		return nil, err
	}
	// Forget the tasks: their specs carry the client properties.
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	for _, r := range runs {
		_ = cl.Destroy(dctx, r.id)
	}
	if interrupted {
		return out, ctx.Err()
	}
	return out, nil
}

// MergeAgents builds a distributed run's result from every agent's
// outcome: the agents in state done (their Result the final one) are
// merged exactly (Merge of their histograms) and their own rates summed;
// every agent is listed, the others counted as failed.
func MergeAgents(kind, topic, coordinator string, submit, start time.Time, agents []AgentResult) (*DistributedResult, error) {
	out := &DistributedResult{FormatVersion: perf.FormatVersion, Kind: kind, Topic: topic, Coordinator: coordinator,
		Agents: len(agents), SubmitTime: submit, StartTime: start, MergedAgents: []string{}, PerAgent: []AgentResult{}}
	var done []*perf.Result
	for _, ar := range agents {
		if ar.State == AgentDone && ar.Result != nil {
			done = append(done, ar.Result)
			out.AggregateRecordsPerSec += ar.Result.RecordsPerSec
			out.AggregateMBPerSec += ar.Result.MBPerSec
			out.MergedAgents = append(out.MergedAgents, ar.Agent)
		} else {
			out.FailedAgents++
		}
		if ar.Result != nil && ar.Result.Records > 0 {
			d := float64(ar.Result.MeasureStart.Sub(submit).Microseconds()) / 1000
			if out.SubmitToFirstRecordMs == 0 || d < out.SubmitToFirstRecordMs {
				out.SubmitToFirstRecordMs = d
			}
		}
		out.PerAgent = append(out.PerAgent, ar)
	}
	if len(done) > 0 {
		m, err := perf.Merge(done)
		if err != nil {
			return nil, err
		}
		out.Merged = m
	}
	return out, nil
}

// follow asks the coordinator for one task and updates its run.
func follow(ctx context.Context, cl *trogdor.Client, r *agentRun, timeout time.Duration) {
	now := time.Now()
	t, err := cl.Task(ctx, r.id)
	if err != nil {
		if now.Sub(r.lastSeen) > timeout {
			r.state, r.err = AgentLost, fmt.Sprintf("no answer about agent %s for %s: %v", r.w.Agent, timeout, err)
		}
		return
	}
	st, ok := ParseStatus(t.Status)
	if ok && st.Seq != r.lastSeq {
		r.last, r.lastSeq, r.lastSeen = st, st.Seq, now
	}
	if t.State == trogdor.Done {
		switch {
		case t.Error != "":
			r.state, r.err = AgentFailed, t.Error
		case ok && st.State == WorkerDone && st.Result != nil:
			r.state, r.final = AgentDone, st.Result
		case t.Cancelled:
			r.state, r.err = AgentStopped, "task stopped"
		default:
			r.state, r.err = AgentFailed, "the worker ended without a result"
		}
		if t.Error != "" && ok && st.Error != "" && st.Error != t.Error {
			r.err = t.Error + ": " + st.Error
		}
		return
	}
	if now.Sub(r.lastSeen) > timeout {
		r.state = AgentLost
		if r.last == nil {
			r.err = fmt.Sprintf("agent %s reported no status within %s of the submission (agent down, or worker command not found?)", r.w.Agent, timeout)
		} else {
			r.err = fmt.Sprintf("agent %s reported no status for %s (agent or worker lost)", r.w.Agent, timeout)
		}
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = cl.Stop(sctx, r.id)
	}
}

// Header and Rows implement output.Tabular: the merged result, then one
// line per agent.
func (d *DistributedResult) Header() []string { return []string{"METRIC", "VALUE"} }

// Rows lists the merged result and the run's facts.
func (d *DistributedResult) Rows() [][]string {
	rows := [][]string{
		{"coordinator", d.Coordinator},
		{"agents", fmt.Sprintf("%d (%d failed)", d.Agents, d.FailedAgents)},
		{"submit to first record ms", strconv.FormatFloat(d.SubmitToFirstRecordMs, 'f', 1, 64)},
	}
	if d.Merged == nil {
		return append(rows, []string{"merged", "no agent finished"})
	}
	rows = append(rows,
		[]string{"merged agents", strings.Join(d.MergedAgents, ",")},
		[]string{"aggregate records/s (sum of agents)", strconv.FormatFloat(d.AggregateRecordsPerSec, 'f', 1, 64)},
		[]string{"aggregate MB/s (sum of agents)", strconv.FormatFloat(d.AggregateMBPerSec, 'f', 2, 64)})
	return append(rows, d.Merged.Rows()...)
}

// AgentHeader and AgentRows are the per-agent table.
func (d *DistributedResult) AgentHeader() []string {
	return []string{"AGENT", "STATE", "RECORDS", "RECORDS/S", "MB/S", "P50 MS", "P99 MS", "MAX MS", "SUBMIT TO TASK MS", "ERROR"}
}

// AgentRows has one row per agent.
func (d *DistributedResult) AgentRows() [][]string {
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	var rows [][]string
	for _, a := range d.PerAgent {
		row := []string{a.Agent, a.State, "-", "-", "-", "-", "-", "-", strconv.FormatInt(a.SubmitToTaskMs, 10), a.Error}
		if r := a.Result; r != nil {
			row[2], row[3], row[4] = strconv.FormatInt(r.Records, 10), f(r.RecordsPerSec, 1), f(r.MBPerSec, 2)
			row[5], row[6], row[7] = f(r.Latency.P50Ms, 3), f(r.Latency.P99Ms, 3), f(r.Latency.MaxMs, 3)
		}
		rows = append(rows, row)
	}
	return rows
}

// CSVHeader and CSVRows: one row per agent, then the merged row (agent
// "merged").
func (d *DistributedResult) CSVHeader() []string {
	return append([]string{"agent", "state"}, (&perf.Result{}).CSVHeader()...)
}

// CSVRows lists the agents and the merged result.
func (d *DistributedResult) CSVRows() [][]string {
	var rows [][]string
	for _, a := range d.PerAgent {
		if a.Result != nil {
			rows = append(rows, append([]string{a.Agent, a.State}, a.Result.CSVRow()...))
		}
	}
	if d.Merged != nil {
		rows = append(rows, append([]string{"merged", "merged"}, d.Merged.CSVRow()...))
	}
	return rows
}

// WriteApache prints the final lines of the Apache tool for the merged
// result, through the single-machine tools' formatters: produce,
// kafka-producer-perf-test's final line (percentiles from the merged HDR
// histogram, in whole milliseconds as Apache prints them); consume,
// kafka-consumer-perf-test's header and data line (from the shared start,
// when the agents create their consumers, as Apache counts from its
// consumer's creation, to the last record of any agent: the agents report
// no group join time, so rebalance.time.ms is 0); e2e, the EndToEndLatency tool's two
// final lines (the merged histogram's mean, and its values at Apache's
// sorted-array indexes).
func (d *DistributedResult) WriteApache(w io.Writer) error {
	m := d.Merged
	if m == nil {
		return errors.New("no agent finished: nothing to print")
	}
	switch m.Kind {
	case "produce":
		l := m.Latency
		_, err := fmt.Fprintf(w, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
			m.Records, javafmt.Fixed(m.RecordsPerSec, 6), javafmt.Fixed(m.MBPerSec, 2), javafmt.Fixed(l.MeanMs, 2), javafmt.Fixed(l.MaxMs, 2),
			int64(l.P50Ms), int64(l.P95Ms), int64(l.P99Ms), int64(l.P999Ms))
		return err
	case "consume":
		if _, err := fmt.Fprintln(w, perf.ApacheConsumerHeader(false)); err != nil {
			return err
		}
		df, err := javafmt.CompileDateFormat(perf.ApacheConsumerDateFormat)
		if err != nil {
			return err
		}
		perf.WriteApacheConsumerSummary(w, &perf.ApacheConsumerResult{Records: m.Records, Bytes: m.Bytes,
			StartMs: d.apacheConsumeStart().UnixMilli(), EndMs: m.MeasureEnd.UnixMilli()}, df.FormatMillis)
		return nil
	case perf.KindE2E:
		h, err := perf.DecodeLatency(m.Histogram)
		if err != nil {
			return err
		}
		return h.WriteApacheE2E(w, m.Latency.MeanMs)
	}
	return fmt.Errorf("-o apache: no Apache line for a %s run", m.Kind)
}

// apacheConsumeStart is where Apache's consumer line starts counting: the
// consumer's creation, which is the shared start (the agents build their
// consumers then), unless records were excluded as warm-up (Apache has no
// warm-up): then the first measured record. A small topic read in one fetch
// has its first and last record in the same millisecond, so a span from the
// first record would be 0 and every rate infinite.
func (d *DistributedResult) apacheConsumeStart() time.Time {
	m := d.Merged
	if m.WarmupRecords == 0 && !d.StartTime.IsZero() && d.StartTime.Before(m.MeasureStart) {
		return d.StartTime
	}
	return m.MeasureStart
}

// AgentSweep is a distributed run repeated with the first 1, 2, ... agents
// (--agent-counts): the producers-versus-throughput experiment.
type AgentSweep struct {
	FormatVersion int                  `json:"format_version"`
	Kind          string               `json:"kind"`
	Runs          []*DistributedResult `json:"runs"`
}

// Header and Rows implement output.Tabular: one row per agent count.
func (s *AgentSweep) Header() []string {
	return []string{"AGENTS", "FAILED", "AGGREGATE REC/S", "AGGREGATE MB/S", "MERGED REC/S", "P50 MS", "P99 MS", "P99.9 MS", "MAX MS", "SUBMIT TO FIRST RECORD MS"}
}

// Rows lists the runs.
func (s *AgentSweep) Rows() [][]string {
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	var rows [][]string
	for _, d := range s.Runs {
		row := []string{strconv.Itoa(d.Agents), strconv.Itoa(d.FailedAgents), f(d.AggregateRecordsPerSec, 1), f(d.AggregateMBPerSec, 2),
			"-", "-", "-", "-", "-", f(d.SubmitToFirstRecordMs, 0)}
		if m := d.Merged; m != nil {
			row[4], row[5], row[6], row[7], row[8] = f(m.RecordsPerSec, 1), f(m.Latency.P50Ms, 3), f(m.Latency.P99Ms, 3), f(m.Latency.P999Ms, 3), f(m.Latency.MaxMs, 3)
		}
		rows = append(rows, row)
	}
	return rows
}

// ParseAgentCounts reads --agent-counts (e.g. "1,2,3"): increasing counts
// from 1 to the number of agents.
func ParseAgentCounts(s string, agents int) ([]int, error) {
	if strings.TrimSpace(s) == "" {
		return nil, nil
	}
	var out []int
	for _, p := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 1 || n > agents {
			return nil, fmt.Errorf("agent count %q: want 1..%d (the number of --agents)", p, agents)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("agent counts must increase: %s", s)
		}
		out = append(out, n)
	}
	return out, nil
}
