package distrib

import (
	"bytes"
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib/distribtest"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

func TestAgentWorkloadValidate(t *testing.T) {
	prod := AgentWorkload{Kind: "produce", Topic: "t", Records: 10, RecordSize: 100, Clients: 1}
	cons := AgentWorkload{Kind: "consume", Topic: "t", Records: 10, Clients: 1, IdleTimeoutMs: 1000}
	e2e := AgentWorkload{Kind: perf.KindE2E, Topic: "t", Records: 10, PollTimeoutMs: 1000}
	for _, c := range []struct {
		name     string
		w        AgentWorkload
		agents   int
		perAgent bool
		want     string
	}{
		{"produce ok", prod, 3, false, ""},
		{"consume ok", cons, 3, false, ""},
		{"e2e ok", e2e, 3, false, ""},
		{"no topic", func() AgentWorkload { w := prod; w.Topic = ""; return w }(), 1, false, "--topic is required"},
		{"no size", func() AgentWorkload { w := cons; w.Records = 0; return w }(), 1, false, "give a positive --records N or --duration D"},
		{"by duration", func() AgentWorkload { w := prod; w.Records, w.DurationMs = 0, 1000; return w }(), 3, false, ""},
		{"negative records", func() AgentWorkload { w := e2e; w.Records = -1; return w }(), 1, false, "give a positive --records N"},
		{"negative warm-up", func() AgentWorkload { w := prod; w.WarmupRecords = -1; return w }(), 1, false, "--warmup-records and --warmup-duration must not be negative"},
		{"fewer records than agents", prod, 11, false, "--records 10 is fewer than one record per agent (11 agents)"},
		{"consume too", cons, 11, false, "--records 10 is fewer than one record per agent (11 agents)"},
		{"per agent", prod, 11, true, ""},
		{"producers", func() AgentWorkload { w := prod; w.Clients = 0; return w }(), 1, false, "--record-size and --producers must be positive"},
		{"keys", func() AgentWorkload { w := prod; w.KeyCardinality = 2; return w }(), 3, false, "--key-cardinality 2 is fewer than one key per agent (3 agents)"},
		{"negative keys", func() AgentWorkload { w := prod; w.KeyCardinality = -2; return w }(), 3, false, "--key-cardinality must not be negative"},
		{"consumers", func() AgentWorkload { w := cons; w.Clients = 0; return w }(), 1, false, "--consumers must be positive"},
		{"idle", func() AgentWorkload { w := cons; w.IdleTimeoutMs = 0; return w }(), 1, false, "--timeout must be positive"},
		{"poll", func() AgentWorkload { w := e2e; w.PollTimeoutMs = 0; return w }(), 1, false, "--poll-timeout must be positive"},
		{"e2e size", func() AgentWorkload { w := e2e; w.RecordSize = -1; return w }(), 1, false, "--record-size must not be negative"},
		{"kind", func() AgentWorkload { w := prod; w.Kind = "x"; return w }(), 1, false, `unknown workload kind "x"`},
	} {
		err := c.w.Validate(c.agents, c.perAgent)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: got %v, want %q", c.name, err, c.want)
		}
	}
}

func TestParseAgents(t *testing.T) {
	a, err := ParseAgents(" a1, a2,,a3 ")
	if err != nil || strings.Join(a, ",") != "a1,a2,a3" {
		t.Fatalf("%v %v", a, err)
	}
	if _, err := ParseAgents("a,b,a"); err == nil || err.Error() != "a given twice" {
		t.Fatalf("duplicate: %v", err)
	}
	if _, err := ParseAgents(" , "); err == nil {
		t.Fatal("empty list accepted")
	}
}

// Run with n agents submits one task to each of the first n agents, with
// the total split over those n only.
func TestDistributorRunFirstAgents(t *testing.T) {
	start := time.Now()
	fc, srv := distribtest.NewCoordinator(func(agent string, _ int, _ bool) trogdor.TaskState {
		return trogdor.TaskState{State: trogdor.Done, Status: distribtest.StatusJSON(t, &WorkerStatus{State: WorkerDone, Seq: 1, Result: perftest.Result(t, 10, time.Millisecond, start)})}
	})
	defer srv.Close()
	cl, err := trogdor.New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	d := &Distributor{Client: cl, Coordinator: srv.URL, Agents: []string{"a1", "a2", "a3"}, Command: []string{"kbox", "perf", "worker"},
		AgentTimeout: 5 * time.Second, TaskTimeout: time.Minute}
	w := AgentWorkload{Kind: "produce", Topic: "t", Records: 101, RecordSize: 10, Clients: 1, Rate: 100}
	res, err := d.Run(context.Background(), 2, w, nil)
	if err != nil {
		t.Fatal(err)
	}
	if res.Agents != 2 || strings.Join(res.MergedAgents, ",") != "a1,a2" || res.Merged.Records != 20 {
		t.Fatalf("result %+v", res)
	}
	fc.Mu.Lock()
	defer fc.Mu.Unlock()
	var nodes []string
	var records int64
	for _, s := range fc.Specs {
		nodes = append(nodes, s.CommandNode)
		aw := s.Workload.(map[string]any)
		records += int64(aw["records"].(float64))
		if aw["agents"].(float64) != 2 || aw["records_per_sec"].(float64) != 50 {
			t.Errorf("workload %v: not a share of 2 agents", aw)
		}
	}
	sort.Strings(nodes)
	if strings.Join(nodes, ",") != "a1,a2" || records != 101 {
		t.Fatalf("tasks on %v with %d records in total", nodes, records)
	}
	for _, n := range []int{0, 4} {
		if _, err := d.Run(context.Background(), n, w, nil); err == nil || !strings.Contains(err.Error(), "want 1 to 3") {
			t.Errorf("%d agents: %v", n, err)
		}
	}
	if _, err := d.Run(context.Background(), 3, AgentWorkload{Kind: "produce", Topic: "t", Records: 2, RecordSize: 1, Clients: 1}, nil); err == nil {
		t.Error("2 records over 3 agents accepted")
	}
}

func mergedOf(t *testing.T, rs ...*perf.Result) *DistributedResult {
	t.Helper()
	m, err := perf.Merge(rs)
	if err != nil {
		t.Fatal(err)
	}
	return &DistributedResult{Kind: m.Kind, Merged: m}
}

// The merged consume result prints kafka-consumer-perf-test's header and
// data line, through the drop-in's own formatter.
func TestDistributedWriteApacheConsume(t *testing.T) {
	start := time.UnixMilli(1_700_000_000_000)
	a, b := perftest.Result(t, 3000, time.Millisecond, start), perftest.Result(t, 1000, time.Millisecond, start.Add(500*time.Millisecond))
	a.Kind, b.Kind = "consume", "consume"
	a.Bytes, b.Bytes = 3<<20, 1<<20
	d := mergedOf(t, a, b)
	var got bytes.Buffer
	if err := d.WriteApache(&got); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
	if len(lines) != 2 || lines[0] != perf.ApacheConsumerHeader(false) {
		t.Fatalf("output %q", got.String())
	}
	df, _ := javafmt.CompileDateFormat(perf.ApacheConsumerDateFormat)
	var want bytes.Buffer
	perf.WriteApacheConsumerSummary(&want, &perf.ApacheConsumerResult{Records: 4000, Bytes: 4 << 20, StartMs: start.UnixMilli(), EndMs: start.UnixMilli() + 1500}, df.FormatMillis)
	if lines[1]+"\n" != want.String() {
		t.Fatalf("line %q, want %q", lines[1], want.String())
	}
	// The columns of the header: 4 MB in 1.5 s, 4000 records.
	cols := strings.Split(lines[1], ", ")
	if len(cols) != len(strings.Split(lines[0], ", ")) || cols[2] != "4.0000" || cols[3] != "2.6667" || cols[4] != "4000" || cols[5] != "2666.6667" || cols[6] != "0" || cols[7] != "1500" {
		t.Fatalf("columns %q", cols)
	}
}

// Apache counts from its consumer's creation: the merged line starts at the
// shared start, so a topic read in one fetch (first and last record in the
// same millisecond) still has a finite rate; with warm-up records excluded
// it starts at the first measured record.
func TestDistributedWriteApacheConsumeFromSharedStart(t *testing.T) {
	start := time.UnixMilli(1_700_000_000_000)
	a := perftest.Result(t, 3000, time.Millisecond, start.Add(2*time.Second))
	a.Kind, a.Bytes = "consume", 3<<20
	a.MeasureEnd = a.MeasureStart // one fetch
	d := mergedOf(t, a)
	d.StartTime = start
	line := func() []string {
		var got bytes.Buffer
		if err := d.WriteApache(&got); err != nil {
			t.Fatal(err)
		}
		return strings.Split(strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")[1], ", ")
	}
	if cols := line(); cols[3] != "1.5000" || cols[5] != "1500.0000" || cols[7] != "2000" {
		t.Fatalf("from the shared start: %q", cols)
	}
	d.Merged.WarmupRecords = 10
	d.Merged.MeasureEnd = d.Merged.MeasureStart.Add(time.Second)
	if cols := line(); cols[3] != "3.0000" || cols[7] != "1000" {
		t.Fatalf("with warm-up: %q", cols)
	}
}

// The merged e2e result prints EndToEndLatency's two final lines: the
// percentiles are those Apache's sorted array gives for every round trip of
// every agent, the average the merged histogram's mean.
func TestDistributedWriteApacheE2E(t *testing.T) {
	start := time.Now()
	var all []int64
	var parts []*perf.Result
	for agent := 0; agent < 3; agent++ {
		h := perf.NewLatency()
		n := 200 + 37*agent
		for i := 0; i < n; i++ {
			ns := int64((i*7+agent*13)%97+1)*1_000_000 + 250_000 // 1.25 .. 97.25 ms
			all = append(all, ns)
			h.Record(time.Duration(ns))
		}
		r := &perf.Result{Kind: perf.KindE2E, Topic: fmt.Sprintf("rt-a%d", agent), Clients: 1, Records: int64(n), MeasureStart: start, MeasureEnd: start.Add(time.Second)}
		if err := r.Complete(h); err != nil {
			t.Fatal(err)
		}
		parts = append(parts, r)
	}
	d := mergedOf(t, parts...)
	var got, want bytes.Buffer
	if err := d.WriteApache(&got); err != nil {
		t.Fatal(err)
	}
	if err := perf.WriteApacheE2ESummary(&want, all); err != nil {
		t.Fatal(err)
	}
	g, w := strings.Split(got.String(), "\n"), strings.Split(want.String(), "\n")
	if len(g) != 3 || g[1] != w[1] {
		t.Fatalf("got %q, want %q", got.String(), want.String())
	}
	avg := func(line string) float64 {
		v, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(line, "Avg latency: "), " ms"), 64)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		return v
	}
	if ga, wa := avg(g[0]), avg(w[0]); ga < wa*0.999 || ga > wa*1.001 {
		t.Fatalf("avg %v, exact %v", ga, wa)
	}
	// Produce keeps kafka-producer-perf-test's line; nothing merged is an error.
	if err := (&DistributedResult{}).WriteApache(&got); err == nil {
		t.Fatal("no merged result accepted")
	}
}
