package sweep

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf/report"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
)

func (o *sweepOpts) emit(f *cmdutil.Factory, format string, res *sweep.Result, obj sweep.Objective) error {
	switch format {
	case "json":
		return output.WriteJSON(f.IO.Out, res, true)
	case "csv":
		return output.Print(f.IO, output.CSV, output.Records(res.CSV(obj)))
	}
	mark := func(s string) string { return s + "*" }
	if f.IO.IsStdoutTTY() {
		mark = func(s string) string { return "\033[1;33m" + s + "\033[0m" }
	}
	t := res.Table(obj, mark)
	if err := output.WriteTable(f.IO, t.Header, t.Rows); err != nil {
		return err
	}
	legend := "* differs from the baseline (each dimension's first value)"
	if f.IO.IsStdoutTTY() {
		legend = "highlighted: differs from the baseline (each dimension's first value)"
	}
	fmt.Fprintf(f.IO.Out, "objective %s; %s; latency from %s\n", obj, legend, basisOf(res))
	if cw := res.ClusterWarmup; cw != nil {
		state := "stable"
		if !cw.Stable {
			state = "not stable"
		}
		fmt.Fprintf(f.IO.Out, "cluster warm-up: %.1f s before the first cell (%s; %d windows of 1 s)\n", cw.Seconds, state, len(cw.WindowRecordsPerSec))
	}
	fmt.Fprintf(f.IO.Out, "machine: %s\n", report.MachineText(res))
	for _, n := range res.Footnotes() {
		fmt.Fprintf(f.IO.Out, "FLAGS %s\n", n)
	}
	if n := report.LoadNote(res); n != "" {
		fmt.Fprintf(f.IO.Out, "FLAGS load: %s\n", n)
	}
	if ch := report.TerminalChart(res); ch != "" {
		fmt.Fprintf(f.IO.Out, "\n%s\n", ch)
	}
	return nil
}

func basisOf(res *sweep.Result) string {
	for _, c := range res.Cells {
		for _, r := range c.Runs {
			if r.Result != nil {
				return r.Result.LatencyBasis
			}
		}
	}
	return "-"
}

// progressPrinter shows the running cell, its rate and the time left on
// the progress line (drawn when stderr is a terminal), and one lasting line
// per finished run either way.
func progressPrinter(f *cmdutil.Factory, cells int) func(sweep.Event) {
	pr := f.IO.Progress()
	var mu sync.Mutex
	eta := func(e sweep.Event) string {
		if e.AllRecords == 0 && e.Position > 1 && e.Runs >= e.Position && e.Elapsed > 0 {
			// Runs sized by time: estimate by runs.
			left := e.Elapsed / time.Duration(e.Position-1) * time.Duration(e.Runs-e.Position+1)
			return "  ETA " + left.Round(time.Second).String()
		}
		if e.DoneRecords <= 0 || e.Elapsed <= 0 || e.AllRecords <= e.DoneRecords {
			return ""
		}
		rate := float64(e.DoneRecords) / e.Elapsed.Seconds()
		left := time.Duration(float64(e.AllRecords-e.DoneRecords) / rate * float64(time.Second))
		return "  ETA " + left.Round(time.Second).String()
	}
	head := func(e sweep.Event) string {
		rep := ""
		if e.Runs > 0 {
			rep = fmt.Sprintf("[run %d/%d] ", e.Position, e.Runs)
		}
		return fmt.Sprintf("%scell #%d/%d %s (repeat %d)", rep, e.Cell.Index, cells, e.Cell.Label(), e.Repeat)
	}
	return func(e sweep.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case sweep.EventFill:
			pr.Println("%s", e.Message)
		case sweep.EventWarning:
			pr.Println("kbox: warning: %s", strings.Join(strings.Fields(e.Message), " "))
		case sweep.EventWarmup, sweep.EventRerun:
			pr.Println("%s", e.Message)
		case sweep.EventCellStart:
			pr.Update("%s  starting%s", head(e), eta(e))
		case sweep.EventProgress:
			warm := ""
			if e.Progress.Warmup {
				warm = " (warm-up)"
			}
			pr.Update("%s  %d/%d  %.0f rec/s  p99 %.2f ms%s%s", head(e), e.Progress.Done, e.Progress.Target, e.Progress.Rate, e.Progress.P99Ms, warm, eta(e))
		case sweep.EventRunDone:
			r := e.Run
			if r.Result == nil {
				pr.Println("%s: failed: %s%s", head(e), r.Error, eta(e))
				return
			}
			rps, mbps := r.Rates()
			msg := fmt.Sprintf("%s: %.1f records/s, %.2f MB/s, p99 %.2f ms, CPU %.0f%%", head(e), rps, mbps, r.Result.Latency.P99Ms, r.CPUPercent)
			if d := r.Distributed; d != nil {
				msg = fmt.Sprintf("%s: %.1f records/s, %.2f MB/s (sum of %d agents), p99 %.2f ms", head(e), rps, mbps, len(d.Agents), r.Result.Latency.P99Ms)
			}
			if r.Result.Failed > 0 {
				msg += fmt.Sprintf(", %d failed", r.Result.Failed)
			}
			if r.Error != "" {
				msg += ", error: " + r.Error
			}
			pr.Println("%s%s", msg, eta(e))
		}
	}
}
