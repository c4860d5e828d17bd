package sweep

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/pkg/perf/distrib/distribtest"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

func agentsPlan(t *testing.T, vary ...string) (*Plan, []Cell) {
	t.Helper()
	p := &Plan{Mode: "produce", Strategy: StrategyGrid, TopicPrefix: "sw", Records: 300, Repeat: 1, RecordSize: 100,
		Producers: 1, Consumers: 1, Partitions: 1, ReplicationFactor: 1, Coordinator: "http://c:1", Agents: []string{"a1", "a2", "a3"}}
	for _, v := range vary {
		d, err := ParseVary(v, p.Mode)
		if err != nil {
			t.Fatal(err)
		}
		p.Dimensions = append(p.Dimensions, d)
	}
	cells, err := Expand(p.Dimensions, p.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	return p, cells
}

func TestSweepPlanAgents(t *testing.T) {
	p, cells := agentsPlan(t, "agents=1,2,3", "batch.size=16k,32k")
	if err := p.CheckAgents(); err != nil {
		t.Fatal(err)
	}
	if !p.OverAgents() || len(cells) != 6 {
		t.Fatalf("%d cells", len(cells))
	}
	for _, c := range cells {
		n, _ := c.Get(DimAgents)
		got := strings.Join(p.AgentsFor(c), ",")
		want := map[string]string{"1": "a1", "2": "a1,a2", "3": "a1,a2,a3"}[n]
		if got != want || p.Workload(c).Agents != len(p.AgentsFor(c)) {
			t.Errorf("cell %s: agents %q, want %q", c.Label(), got, want)
		}
	}
	// The cell's workload: totals (split by the driver), its property over
	// the user's.
	sw := &Sweeper{Plan: *p, Interval: time.Second, Seed: 7, Agents: &Agents{Bootstrap: "b:9092", Properties: map[string]string{"acks": "1", "batch.size": "1"}}}
	sw.Plan.Throughput = 900
	w := sw.AgentWorkload(cells[3], "sw", 2) // agents=2 batch.size=32k
	if w.Kind != "produce" || w.Records != 300 || w.Rate != 900 || w.Seed != 9 || w.Bootstrap != "b:9092" || w.Properties["batch.size"] != "32768" || w.Properties["acks"] != "1" || w.ClientID != ClientID {
		t.Fatalf("workload %+v", w)
	}
	if err := w.Validate(2, false); err != nil {
		t.Fatal(err)
	}

	for _, c := range []struct {
		mutate func(*Plan)
		want   string
	}{
		{func(p *Plan) { p.Coordinator = "" }, "give --coordinator URL"},
		{func(p *Plan) { p.Agents = nil }, "give --agents a,b,c"},
		{func(p *Plan) { p.Agents = p.Agents[:2] }, "--vary agents: 3 is more than the 2 agents of --agents"},
		{func(p *Plan) { p.Records = 2 }, "--records 2 is fewer than one record per agent (3 agents)"},
		{func(p *Plan) { p.KeyCardinality = 2 }, "--key-cardinality 2 is fewer than one key per agent"},
		{func(p *Plan) { p.Dimensions = p.Dimensions[1:] }, "--coordinator and --agents go with --vary agents"},
	} {
		q := *p
		q.Agents = append([]string(nil), p.Agents...)
		c.mutate(&q)
		if err := q.CheckAgents(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("got %v, want %q", err, c.want)
		}
	}
	// Not a dimension of consume or e2e sweeps; values are counts from 1.
	for _, c := range []struct{ spec, mode, want string }{
		{"agents=1,2", "consume", "not a dimension of a consume sweep"},
		{"agents=1,2", "e2e", "not a dimension of a e2e sweep"},
		{"agents=0,1", "produce", "out of range"},
		{"agents=1,x", "produce", "not a whole number"},
		{"agents=2,2", "produce", "given twice"},
	} {
		if _, err := ParseVary(c.spec, c.mode); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s (%s): got %v, want %q", c.spec, c.mode, err, c.want)
		}
	}
	// A plain sweep has no agents.
	q, qc := agentsPlan(t, "batch.size=16k,32k")
	q.Coordinator, q.Agents = "", nil
	if q.OverAgents() || q.AgentsFor(qc[0]) != nil || q.CheckAgents() != nil {
		t.Fatal("a sweep without agents")
	}
}

// A whole sweep over agents=1,2,3 on a fake coordinator: each cell's tasks
// go to its first N agents, with the records split over them; the cell's
// rate is the aggregate of its agents and the JSON names them.
func TestSweepOverAgentsRuns(t *testing.T) {
	tasks := map[string][]string{} // run id -> agents
	start := time.Now()
	fc, srv := distribtest.NewCoordinator(func(agent string, _ int, _ bool) trogdor.TaskState {
		r := perftest.Result(t, 100, time.Millisecond, start)
		return trogdor.TaskState{State: trogdor.Done, Status: distribtest.StatusJSON(t, &distrib.WorkerStatus{State: distrib.WorkerDone, Seq: 1, Result: r})}
	})
	defer srv.Close()
	cl, err := trogdor.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	p, cells := agentsPlan(t, "agents=1,2,3")
	p.Coordinator = srv.URL
	env := newFakeEnv(t)
	d := &distrib.Distributor{Client: cl, Coordinator: srv.URL, Agents: p.Agents, Command: []string{"kbox", "perf", "worker"}, AgentTimeout: 5 * time.Second, TaskTimeout: time.Minute}
	sw := &Sweeper{Plan: *p, Env: env, Interval: time.Second, Checks: Checks{}, Agents: &Agents{Distributor: d, Bootstrap: "b:9092"}}
	res, err := sw.Run(context.Background(), cells, nil)
	if err != nil {
		t.Fatal(err)
	}
	fc.Mu.Lock()
	for id, s := range fc.Specs {
		run := id[:strings.LastIndex(id, "-")]
		tasks[run] = append(tasks[run], s.CommandNode)
		if aw := s.Workload.(map[string]any); !strings.HasPrefix(aw["topic"].(string), "sw-c") || aw["bootstrap"] != "b:9092" {
			t.Errorf("task %s workload %v", id, aw)
		}
	}
	fc.Mu.Unlock()
	if len(tasks) != 3 || len(fc.Specs) != 6 {
		t.Fatalf("runs %v", tasks)
	}
	if len(res.Cells) != 3 {
		t.Fatalf("%d cells", len(res.Cells))
	}
	for i, c := range res.Cells {
		n := i + 1
		if len(c.Agents) != n || c.Agents[n-1] != p.Agents[n-1] || len(c.Runs) != 1 || c.Topic != fmt.Sprintf("sw-c%d", n) {
			t.Fatalf("cell %d: agents %v runs %d", c.Index, c.Agents, len(c.Runs))
		}
		r := c.Runs[0]
		if r.Distributed == nil || len(r.Distributed.Agents) != n || r.Result.Records != int64(100*n) || c.Records != int64(100*n) {
			t.Fatalf("cell %d run %+v", c.Index, r)
		}
		if want := r.Distributed.AggregateRecordsPerSec; c.RecordsPerSec != want || want != float64(n)*r.Distributed.PerAgent[0].RecordsPerSec {
			t.Errorf("cell %d: %.1f records/s, aggregate %.1f", c.Index, c.RecordsPerSec, want)
		}
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"agents":["a1","a2"]`) {
		t.Fatalf("JSON does not name the agents: %s", b)
	}
	// Each agent's share of the plan's 300 records.
	fc.Mu.Lock()
	defer fc.Mu.Unlock()
	for id, s := range fc.Specs {
		aw := s.Workload.(map[string]any)
		if n := aw["agents"].(float64); aw["records"].(float64) != 300/n {
			t.Errorf("task %s: %v records of %v agents", id, aw["records"], n)
		}
	}
}

// kbox perf sweep produce --vary agents=... -o json: the plan names the
// coordinator and the agents, each cell its agents, each run its
// distributed part (aggregate rates, per agent).
func TestSweepAgentsJSONGolden(t *testing.T) {
	p, cells := agentsPlan(t, "agents=1,2")
	p.Coordinator = "http://127.0.0.1:8889"
	var done []CellResult
	for i, c := range cells {
		n := i + 1
		run := fakeRun(t, 1000, 5*time.Millisecond)
		run.Result.Topic = fmt.Sprintf("sw-c%d", n)
		run.CPUPercent = 0
		d := &AgentsRun{SubmitToFirstRecordMs: 5012.5}
		for _, a := range p.Agents[:n] {
			d.Agents = append(d.Agents, a)
			d.PerAgent = append(d.PerAgent, AgentRun{Agent: a, State: distrib.AgentDone, Records: 100 / int64(n), RecordsPerSec: 1000, MBPerSec: 0.1})
			d.AggregateRecordsPerSec += 1000
			d.AggregateMBPerSec += 0.1
		}
		run.Distributed = d
		cr := CellResult{Cell: c, Key: c.Key(), Topic: run.Result.Topic, Agents: p.Agents[:n], Runs: []Run{run}}
		if err := cr.Summarize(); err != nil {
			t.Fatal(err)
		}
		if cr.RecordsPerSec != d.AggregateRecordsPerSec {
			t.Fatalf("cell rate %v, aggregate %v", cr.RecordsPerSec, d.AggregateRecordsPerSec)
		}
		done = append(done, cr)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Started: start, Updated: start.Add(time.Minute),
		Complete: true, Objective: "throughput", Cells: done, Checks: DefaultChecks, Brokers: 3}
	golden.JSON(t, "sweep-agents.json.golden", res, perftest.Histogram)
	// kbox perf sweep merge FILE (re-rendering one file) keeps the
	// aggregate rates.
	m, err := Merge([]*Result{res})
	if err != nil {
		t.Fatal(err)
	}
	if m.Cells[1].RecordsPerSec != 2000 || m.Cells[1].Runs[0].Distributed == nil || len(m.Cells[1].Agents) != 2 {
		t.Fatalf("re-rendered cell %+v", m.Cells[1])
	}
}
