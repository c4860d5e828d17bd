package sweep

import (
	"strconv"
	"strings"
)

// Baseline is each dimension's first value: the reference that differing
// settings are highlighted against.
func (p *Plan) Baseline() map[string]string {
	m := map[string]string{}
	for _, d := range p.Dimensions {
		m[d.Name] = d.Values[0]
	}
	return m
}

// Table is a sweep's result table, best first.
type Table struct {
	Header []string
	Rows   [][]string
	// Differs marks the cells (row, column) whose setting differs from the
	// baseline; Best is the row of the best cell (-1: none met the
	// objective).
	Differs [][]bool
	Best    int
}

// Table builds the result table sorted by the objective. mark wraps a
// setting that differs from the baseline (for example in bold, or with a
// trailing '*').
func (r *Result) Table(o Objective, mark func(string) string) Table {
	if mark == nil {
		mark = func(s string) string { return s }
	}
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	t := Table{Best: -1}
	t.Header = []string{"RANK", "CELL"}
	for _, d := range r.Plan.Dimensions {
		t.Header = append(t.Header, strings.ToUpper(d.Name))
	}
	t.Header = append(t.Header, "RECORDS/S", "MB/S", "SPREAD%", "P50 MS", "P99 MS", "P99.9 MS", "MAX MS", "CPU%", "ERRORS", "FLAGS")
	base := r.Plan.Baseline()
	best := o.Best(r.Cells)
	for n, i := range o.Rank(r.Cells) {
		c := &r.Cells[i]
		rank := strconv.Itoa(n + 1)
		switch {
		case i == best:
			rank += " best"
			t.Best = n
		case !c.OK():
			rank = "-"
		case !o.Meets(c):
			rank += " (p99>" + f(o.MaxP99Ms, -1) + ")"
		}
		row := []string{rank, strconv.Itoa(c.Index)}
		diff := make([]bool, len(t.Header))
		for _, s := range c.Settings {
			v := s.Label
			if base[s.Name] != s.Value {
				diff[len(row)] = true
				v = mark(v)
			}
			row = append(row, v)
		}
		l := c.Latency
		spread := "-"
		if len(c.Runs) > 1 {
			spread = f(c.SpreadPercent, 1)
		}
		row = append(row, f(c.RecordsPerSec, 1), f(c.MBPerSec, 2), spread, f(l.P50Ms, 2), f(l.P99Ms, 2), f(l.P999Ms, 2), f(l.MaxMs, 2),
			f(c.CPUPercent, 0), strconv.Itoa(c.Errors), flagsCell(c))
		t.Rows = append(t.Rows, row)
		t.Differs = append(t.Differs, diff)
	}
	return t
}

// CSV is one row per cell in the plan's order (no histograms).
func (r *Result) CSV(o Objective) [][]string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	h := []string{"cell", "rank", "best", "topic"}
	for _, d := range r.Plan.Dimensions {
		h = append(h, d.Name)
	}
	h = append(h, "runs", "records", "records_per_sec", "mb_per_sec", "spread_percent", "p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "max_ms", "mean_ms", "cpu_percent", "failed", "errors", "meets_objective", "flags")
	rank := map[int]int{}
	for n, i := range o.Rank(r.Cells) {
		rank[i] = n + 1
	}
	best := o.Best(r.Cells)
	out := [][]string{h}
	for i := range r.Cells {
		c := &r.Cells[i]
		row := []string{strconv.Itoa(c.Index), strconv.Itoa(rank[i]), strconv.FormatBool(i == best), c.Topic}
		for _, s := range c.Settings {
			row = append(row, s.Value)
		}
		l := c.Latency
		row = append(row, strconv.Itoa(len(c.Runs)), strconv.FormatInt(c.Records, 10), f(c.RecordsPerSec), f(c.MBPerSec), f(c.SpreadPercent),
			f(l.P50Ms), f(l.P90Ms), f(l.P95Ms), f(l.P99Ms), f(l.P999Ms), f(l.MaxMs), f(l.MeanMs), f(c.CPUPercent),
			strconv.FormatInt(c.Failed, 10), strconv.Itoa(c.Errors), strconv.FormatBool(o.Meets(c)), strings.Join(c.Flags, " "))
		out = append(out, row)
	}
	return out
}

func flagsCell(c *CellResult) string {
	if len(c.Flags) == 0 {
		return "-"
	}
	return strings.Join(c.Flags, ",")
}

// FlagNote explains one flag that occurs in a sweep: the cells that carry
// it and what it means with the sweep's thresholds.
type FlagNote struct {
	Flag  string
	Cells []string // "#3"
	Means string
}

// FlagNotes explain the flags the table shows, one per flag that occurs,
// naming its cells and the threshold.
func (r *Result) FlagNotes() []FlagNote {
	cells := map[string][]string{}
	for i := range r.Cells {
		for _, fl := range r.Cells[i].Flags {
			cells[fl] = append(cells[fl], "#"+strconv.Itoa(r.Cells[i].Index))
		}
	}
	ck := r.Checks
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	var out []FlagNote
	for _, n := range []FlagNote{
		{FlagShortRun, nil, "a run was measured for less than " + f(ck.MinRunSec) + " s; its rate is mostly noise (run longer: --duration)"},
		{FlagOutlier, nil, "the repeats' records/s spread exceeds " + f(ck.MaxSpreadPercent) + " % even after " + strconv.Itoa(ck.RerunOutliers) + " re-run(s)"},
		{FlagStall, nil, "p50 latency over " + f(ck.StallFactor) + "x the other cells' median with records/s and MB/s under 1/" + f(ck.StallFactor) + " of theirs"},
	} {
		if c := cells[n.Flag]; len(c) > 0 {
			n.Cells = c
			out = append(out, n)
		}
	}
	return out
}

// Footnotes explain the flags the table shows, one line per flag that
// occurs, naming its cells and the threshold.
func (r *Result) Footnotes() []string {
	var out []string
	for _, n := range r.FlagNotes() {
		out = append(out, n.Flag+" ("+strings.Join(n.Cells, " ")+"): "+n.Means)
	}
	return out
}
