package sweep

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
)

// perf sweep -o json prints a Result, which is also the results file.
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
	res := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Started: start, Updated: start.Add(time.Minute),
		Complete: true, Objective: "max-throughput", Cells: done, Checks: DefaultChecks, Brokers: 3,
		ClusterWarmup: &ClusterWarmup{Topic: "sw-warmup", WindowRecordsPerSec: []float64{9000, 20000, 21000}, Seconds: 3.1, MaxSeconds: 30, Stable: true, TolerancePercent: 10}}
	res.CPUs = 2
	load := 41.25
	res.Cells[0].Runs[0].LoadAverage = &load
	res.Cells[0].Attempts = 2
	res.Cells[0].DiscardedRuns = []Run{{Error: "an earlier attempt"}}
	res.Flag() // the runs last 1 s: short-run; 1000 vs 1200 records/s: 18 % spread, no outlier
	if got := res.Cells[0].Flags; len(got) != 1 || got[0] != FlagShortRun {
		t.Fatalf("flags %v", got)
	}
	golden.JSON(t, "sweep.json.golden", res, perftest.Histogram)

	var b bytes.Buffer
	if err := json.NewEncoder(&b).Encode(res); err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(b.String(), `"spread_percent"`, `"spread_pct"`, 1)
	back, err := Read(strings.NewReader(old))
	if err != nil || back.Cells[0].SpreadPercent != res.Cells[0].SpreadPercent || back.Cells[0].SpreadPercent == 0 {
		t.Fatalf("old name: %v %+v", err, back)
	}
}
