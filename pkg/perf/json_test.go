package perf

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
)

// The encoded HdrHistogram is an opaque compressed blob (its bytes follow
// the compressor of the Go release); the goldens pin that it is there.
var histogram = golden.Replace(`"histogram": "[^"]+"`, `"histogram": "<base64 HdrHistogram>"`)

func sampleResult(t *testing.T) *Result {
	t.Helper()
	h := NewLatency()
	for i := 1; i <= 1000; i++ {
		h.Record(time.Duration(i) * 10 * time.Microsecond)
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	r := &Result{Kind: "produce", Topic: "perf", Clients: 2, MeasureStart: start, MeasureEnd: start.Add(2 * time.Second),
		Records: 1000, Bytes: 1000 * 512, WarmupRecords: 100, Failed: 1, TargetRate: 500, LatencyBasis: BasisIntended,
		Settings:  []string{"acks=all", "linger.ms=5"},
		Intervals: []Interval{{ElapsedSec: 1, Records: 500, RecordsPerSec: 500, MBPerSec: 0.244, P50Ms: 5.1, P99Ms: 9.9, MaxMs: 10}}}
	if err := r.finish(h); err != nil {
		t.Fatal(err)
	}
	return r
}

// perf produce|consume|end-to-end|merge -o json print a Result.
func TestResultJSONGolden(t *testing.T) {
	r := sampleResult(t)
	golden.JSON(t, "result.json.golden", r, histogram)
	m, err := Merge([]*Result{r, sampleResult(t)})
	if err != nil {
		t.Fatal(err)
	}
	golden.JSON(t, "result-merged.json.golden", m, histogram)

	// What perf writes, perf merge reads back; the name before
	// target_records_per_sec is still read.
	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(r); err != nil {
		t.Fatal(err)
	}
	written := b.String()
	back, err := ReadResult(&b)
	if err != nil || back.TargetRate != 500 || back.Histogram != r.Histogram || back.Latency != r.Latency {
		t.Fatalf("read back: %v %+v", err, back)
	}
	old := strings.Replace(written, `"target_records_per_sec"`, `"target_rate"`, 1)
	if back, err = ReadResult(strings.NewReader(old)); err != nil || back.TargetRate != 500 {
		t.Fatalf("old name: %v %+v", err, back)
	}
}

// perf sweep -o json prints a SweepResult, which is also the results file.
func TestSweepJSONGolden(t *testing.T) {
	p, cells := testPlan(t, "produce", "batch.size=16k,64k")
	done := cellResults(t, cells, [][2]float64{{1000, 5}, {0, 0}})
	done[0].Runs = append(done[0].Runs, fakeRun(t, 1200, 6*time.Millisecond))
	for i := range done {
		done[i].Topic = "sw"
		for j := range done[i].Runs {
			if r := done[i].Runs[j].Result; r != nil {
				r.Topic, r.Settings = "sw", []string{"batch.size=16384"}
			}
		}
		if err := done[i].Summarize(); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	res := &SweepResult{FormatVersion: FormatVersion, Kind: "sweep", Plan: *p, Started: start, Updated: start.Add(time.Minute),
		Complete: true, Objective: "max-throughput", Cells: done, Checks: DefaultChecks, Brokers: 3,
		ClusterWarmup: &ClusterWarmup{Topic: "sw-warmup", WindowRecordsPerSec: []float64{9000, 20000, 21000}, Seconds: 3.1, MaxSeconds: 30, Stable: true, TolerancePercent: 10}}
	res.Cells[0].Attempts = 2
	res.Cells[0].DiscardedRuns = []SweepRun{{Error: "an earlier attempt"}}
	res.Flag() // the runs last 1 s: short-run; 1000 vs 1200 records/s: 18 % spread, no outlier
	if got := res.Cells[0].Flags; len(got) != 1 || got[0] != FlagShortRun {
		t.Fatalf("flags %v", got)
	}
	golden.JSON(t, "sweep.json.golden", res, histogram)

	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(res); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(b.String(), `"spread_percent"`, `"spread_pct"`, 1)
	back, err := ReadSweep(strings.NewReader(old))
	if err != nil || back.Cells[0].SpreadPercent != res.Cells[0].SpreadPercent || back.Cells[0].SpreadPercent == 0 {
		t.Fatalf("old name: %v %+v", err, back)
	}
}

// perf distributed -o json prints a DistributedResult.
func TestDistributedJSONGolden(t *testing.T) {
	r := sampleResult(t)
	m, err := Merge([]*Result{r})
	if err != nil {
		t.Fatal(err)
	}
	submit := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	d := &DistributedResult{FormatVersion: FormatVersion, Kind: "produce", Topic: "perf", Coordinator: "http://127.0.0.1:8889",
		Agents: 2, FailedAgents: 1, MergedAgents: []string{"agent1"}, SubmitTime: submit, StartTime: submit.Add(5 * time.Second),
		SubmitToFirstRecordMs: 5000, AggregateRecordsPerSec: r.RecordsPerSec, AggregateMBPerSec: r.MBPerSec, Merged: m,
		PerAgent: []AgentResult{{Agent: "agent1", TaskID: "kbox-perf-produce-1-agent1", State: AgentDone, SubmitToTaskMs: 812, Result: r},
			{Agent: "agent2", TaskID: "kbox-perf-produce-1-agent2", State: AgentLost, Error: "agent agent2 reported no status for 20s (agent or worker lost)", SubmitToTaskMs: 790}}}
	golden.JSON(t, "distributed.json.golden", d, histogram)
	// --agent-counts -o json: one run per agent count.
	golden.JSON(t, "distributed-agent-counts.json.golden", &AgentSweep{FormatVersion: FormatVersion, Kind: "produce", Runs: []*DistributedResult{d}}, histogram)
}
