package distrib

import (
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
)

// perf distributed -o json prints a DistributedResult.
func TestDistributedJSONGolden(t *testing.T) {
	r := perftest.Sample(t)
	m, err := perf.Merge([]*perf.Result{r})
	if err != nil {
		t.Fatal(err)
	}
	submit := time.Date(2026, 1, 2, 3, 4, 0, 0, time.UTC)
	d := &DistributedResult{FormatVersion: perf.FormatVersion, Kind: "produce", Topic: "perf", Coordinator: "http://127.0.0.1:8889",
		Agents: 2, FailedAgents: 1, MergedAgents: []string{"agent1"}, SubmitTime: submit, StartTime: submit.Add(5 * time.Second),
		SubmitToFirstRecordMs: 5000, AggregateRecordsPerSec: r.RecordsPerSec, AggregateMBPerSec: r.MBPerSec, Merged: m,
		PerAgent: []AgentResult{{Agent: "agent1", TaskID: "kbox-perf-produce-1-agent1", State: AgentDone, SubmitToTaskMs: 812, Result: r},
			{Agent: "agent2", TaskID: "kbox-perf-produce-1-agent2", State: AgentLost, Error: "agent agent2 reported no status for 20s (agent or worker lost)", SubmitToTaskMs: 790}}}
	golden.JSON(t, "distributed.json.golden", d, perftest.Histogram)
	// --agent-counts -o json: one run per agent count.
	golden.JSON(t, "distributed-agent-counts.json.golden", &AgentSweep{FormatVersion: perf.FormatVersion, Kind: "produce", Runs: []*DistributedResult{d}}, perftest.Histogram)
}
