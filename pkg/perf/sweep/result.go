package sweep

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
)

// Run is one repeat of one cell.
type Run struct {
	Result     *perf.Result `json:"result,omitempty"`
	CPUSec     float64      `json:"cpu_sec"`     // process CPU time (user+system) during the run
	CPUPercent float64      `json:"cpu_percent"` // CPUSec over the run's wall time, in % of one core
	Error      string       `json:"error,omitempty"`
	// LoadAverage is the one-minute load average of the machine that ran
	// the sweep, read when the run ended (absent where it cannot be read,
	// and in results files written before kbox recorded it).
	LoadAverage *float64 `json:"load_average,omitempty"`
	// Distributed is set when the run ran on Trogdor agents (a sweep over
	// agents): Result is then the agents' merged result and the run's
	// rates are the aggregate ones (the sum of the agents' own rates);
	// CPU is the driver's, not the agents'.
	Distributed *AgentsRun `json:"distributed,omitempty"`
}

// AgentsRun is what a run of a sweep over agents adds to its merged
// result.
type AgentsRun struct {
	Agents                 []string   `json:"agents"`
	FailedAgents           int        `json:"failed_agents"`
	AggregateRecordsPerSec float64    `json:"aggregate_records_per_sec"`
	AggregateMBPerSec      float64    `json:"aggregate_mb_per_sec"`
	SubmitToFirstRecordMs  float64    `json:"submit_to_first_record_ms"`
	PerAgent               []AgentRun `json:"per_agent"`
}

// AgentRun is one agent's share of a distributed sweep run.
type AgentRun struct {
	Agent         string  `json:"agent"`
	State         string  `json:"state"`
	Records       int64   `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	Error         string  `json:"error,omitempty"`
}

// Rates are the run's records/s and MB/s: the aggregate rates of a
// distributed run, the result's otherwise.
func (r *Run) Rates() (recordsPerSec, mbPerSec float64) {
	switch {
	case r.Distributed != nil:
		return r.Distributed.AggregateRecordsPerSec, r.Distributed.AggregateMBPerSec
	case r.Result != nil:
		return r.Result.RecordsPerSec, r.Result.MBPerSec
	}
	return 0, 0
}

// CellResult is a cell with its runs and their summary.
type CellResult struct {
	Cell
	Key   string `json:"key"`
	Topic string `json:"topic"`
	// Agents are the Trogdor agents the cell ran on (a sweep over agents).
	Agents []string `json:"agents,omitempty"`
	Runs   []Run    `json:"runs"`
	// Summary over the runs: medians of the rates, the spread of records/s
	// ((max-min)/median in %), and latency from the merged histograms.
	RecordsPerSec float64             `json:"records_per_sec"`
	MBPerSec      float64             `json:"mb_per_sec"`
	SpreadPercent float64             `json:"spread_percent"`
	CPUPercent    float64             `json:"cpu_percent"`
	Records       int64               `json:"records"`
	Failed        int64               `json:"failed"`
	Errors        int                 `json:"errors"` // failed records + failed runs
	Latency       perf.LatencySummary `json:"latency"`
	Histogram     string              `json:"histogram,omitempty"`
	// ShortestRunSec is the measured time of the cell's shortest run.
	ShortestRunSec float64 `json:"shortest_run_sec"`
	// Flags say why the cell's figures should not be trusted as they are:
	// FlagShortRun, FlagOutlier, FlagStall. Empty when nothing was noticed.
	Flags []string `json:"flags,omitempty"`
	// Attempts is how many times the cell's repeats were run (more than 1
	// when it was re-run as an outlier or a stall); the runs of the
	// earlier attempts are kept in DiscardedRuns.
	Attempts      int   `json:"attempts,omitempty"`
	DiscardedRuns []Run `json:"discarded_runs,omitempty"`
}

// HasFlag reports whether the cell carries flag.
func (c *CellResult) HasFlag(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// Checks are the thresholds a sweep's cells are flagged by.
type Checks struct {
	// MinRunSec: a cell with a run measured for less gets FlagShortRun.
	MinRunSec float64 `json:"min_run_sec"`
	// MaxSpreadPercent: a cell whose repeats' records/s spread exceeds it
	// gets FlagOutlier.
	MaxSpreadPercent float64 `json:"max_spread_percent"`
	// StallFactor: a cell whose p50 latency is more than StallFactor times
	// the median p50 of the other cells while its records/s and MB/s are
	// both less than 1/StallFactor of theirs gets FlagStall.
	StallFactor float64 `json:"stall_factor"`
	// RerunOutliers is how many extra attempts an outlier or stalled cell
	// gets.
	RerunOutliers int `json:"rerun_outliers"`
}

// DefaultChecks are the sweep's default thresholds.
var DefaultChecks = Checks{MinRunSec: 2, MaxSpreadPercent: 25, StallFactor: 10, RerunOutliers: 2}

// ClusterWarmup is what the sweep produced before its first cell, until the
// rate stabilised (or the time bound).
type ClusterWarmup struct {
	Topic string `json:"topic"`
	// WindowRecordsPerSec is the rate of every 1-second window.
	WindowRecordsPerSec []float64 `json:"window_records_per_sec"`
	Seconds             float64   `json:"seconds"`
	MaxSeconds          float64   `json:"max_seconds"`
	// Stable is true when the last 3 windows were within TolerancePercent.
	Stable           bool    `json:"stable"`
	TolerancePercent float64 `json:"tolerance_percent"`
}

// Flag sets every cell's flags from the checks. Stall needs at least two
// other cells that measured something.
func (r *Result) Flag() {
	ck := r.Checks
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Flags = nil
		if !c.OK() {
			continue
		}
		if ck.MinRunSec > 0 && c.ShortestRunSec < ck.MinRunSec {
			c.Flags = append(c.Flags, FlagShortRun)
		}
		if ck.MaxSpreadPercent > 0 && c.SpreadPercent > ck.MaxSpreadPercent {
			c.Flags = append(c.Flags, FlagOutlier)
		}
		if ck.StallFactor > 1 && r.stalled(i) {
			c.Flags = append(c.Flags, FlagStall)
		}
	}
}

func (r *Result) stalled(i int) bool {
	var p50, rps, mbs []float64
	for j := range r.Cells {
		if j != i && r.Cells[j].OK() {
			p50 = append(p50, r.Cells[j].Latency.P50Ms)
			rps = append(rps, r.Cells[j].RecordsPerSec)
			mbs = append(mbs, r.Cells[j].MBPerSec)
		}
	}
	if len(p50) < 2 {
		return false
	}
	c, k := &r.Cells[i], r.Checks.StallFactor
	return c.Latency.P50Ms > k*median(p50) && c.RecordsPerSec*k < median(rps) && c.MBPerSec*k < median(mbs)
}

// Cell flags (CellResult.Flags).
const (
	// FlagShortRun: a run lasted less than the sweep's minimum duration.
	FlagShortRun = "short-run"
	// FlagOutlier: the repeats disagree beyond the sweep's spread threshold.
	FlagOutlier = "outlier"
	// FlagStall: latency shows a stall compared with the neighbouring cells.
	FlagStall = "stall"
)

// UnmarshalJSON also reads spread_pct, the name before spread_percent.
func (c *CellResult) UnmarshalJSON(b []byte) error {
	type plain CellResult
	var v struct {
		plain
		OldSpread *float64 `json:"spread_pct"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = CellResult(v.plain)
	if v.OldSpread != nil && c.SpreadPercent == 0 {
		c.SpreadPercent = *v.OldSpread
	}
	return nil
}

// OK reports whether the cell measured anything.
func (c *CellResult) OK() bool { return c.Records > 0 }

// Summarize recomputes the cell's summary from its runs.
func (c *CellResult) Summarize() error {
	var rates, mbs, cpus []float64
	h := perf.NewLatency()
	c.Records, c.Failed, c.Errors = 0, 0, 0
	for _, r := range c.Runs {
		if r.Error != "" {
			c.Errors++
		}
		if r.Result == nil {
			continue
		}
		c.Failed += r.Result.Failed
		c.Errors += int(r.Result.Failed)
		if r.Result.Records == 0 {
			continue
		}
		c.Records += r.Result.Records
		rps, mbps := r.Rates()
		rates = append(rates, rps)
		mbs = append(mbs, mbps)
		cpus = append(cpus, r.CPUPercent)
		rh, err := perf.DecodeLatency(r.Result.Histogram)
		if err != nil {
			return err
		}
		h.Merge(rh)
	}
	c.RecordsPerSec, c.MBPerSec, c.CPUPercent = median(rates), median(mbs), median(cpus)
	c.ShortestRunSec = 0
	for _, r := range c.Runs {
		if r.Result != nil && r.Result.Records > 0 && (c.ShortestRunSec == 0 || r.Result.ElapsedSec < c.ShortestRunSec) {
			c.ShortestRunSec = r.Result.ElapsedSec
		}
	}
	c.SpreadPercent = 0
	if len(rates) > 1 && c.RecordsPerSec > 0 {
		sort.Float64s(rates)
		c.SpreadPercent = (rates[len(rates)-1] - rates[0]) / c.RecordsPerSec * 100
	}
	c.Latency = h.Summary()
	c.Histogram = ""
	if h.Count() > 0 {
		enc, err := h.Encode()
		if err != nil {
			return err
		}
		c.Histogram = enc
	}
	return nil
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// Result is a whole sweep: its plan and every finished cell. It is
// also the results file a sweep writes after each cell and resumes from.
type Result struct {
	FormatVersion int       `json:"format_version"`
	Kind          string    `json:"kind"` // "sweep"
	Plan          Plan      `json:"plan"`
	Started       time.Time `json:"started"`
	Updated       time.Time `json:"updated"`
	Complete      bool      `json:"complete"`
	Objective     string    `json:"objective,omitempty"`
	// Checks are the thresholds the cells' Flags were set by.
	Checks Checks `json:"checks"`
	// Brokers is the cluster's size when the sweep ran.
	Brokers int `json:"brokers,omitempty"`
	// CPUs is the number of CPUs of the machine that ran the sweep (0 in
	// results files written before kbox recorded it); with the runs'
	// LoadAverage it says how busy the machine was.
	CPUs          int            `json:"cpus,omitempty"`
	ClusterWarmup *ClusterWarmup `json:"cluster_warmup,omitempty"`
	Cells         []CellResult   `json:"cells"`
}

// LoadRange is the lowest and highest load average recorded at the end of
// the cells' runs (discarded attempts included); n is how many runs
// recorded one (0: the results file has none).
func (r *Result) LoadRange() (lo, hi float64, n int) {
	for i := range r.Cells {
		c := &r.Cells[i]
		for _, runs := range [][]Run{c.Runs, c.DiscardedRuns} {
			for _, run := range runs {
				if run.LoadAverage == nil {
					continue
				}
				v := *run.LoadAverage
				if n == 0 || v < lo {
					lo = v
				}
				if n == 0 || v > hi {
					hi = v
				}
				n++
			}
		}
	}
	return lo, hi, n
}

// Cell returns the finished cell with the key, if any.
func (r *Result) Cell(key string) *CellResult {
	for i := range r.Cells {
		if r.Cells[i].Key == key {
			return &r.Cells[i]
		}
	}
	return nil
}

// Read decodes a sweep results file.
func Read(rd io.Reader) (*Result, error) {
	var r Result
	if err := json.NewDecoder(rd).Decode(&r); err != nil {
		return nil, fmt.Errorf("not a kbox sweep results file: %v", err)
	}
	if r.Kind != "sweep" {
		return nil, errors.New("not a kbox sweep results file: kind is not \"sweep\"")
	}
	if r.FormatVersion != perf.FormatVersion {
		return nil, fmt.Errorf("unsupported format_version %d (want %d)", r.FormatVersion, perf.FormatVersion)
	}
	return &r, nil
}

// LoadResume reads a results file to resume from. A missing file is a
// fresh start (nil, nil); a file from a different plan is an error.
func LoadResume(path string, plan *Plan) (*Result, error) {
	fh, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	prev, err := Read(fh)
	if err != nil {
		return nil, fmt.Errorf("results file %s: %v", path, err)
	}
	if err := plan.Compatible(&prev.Plan); err != nil {
		return nil, fmt.Errorf("results file %s: %v; remove it or choose another --results file", path, err)
	}
	return prev, nil
}

// Pending returns the cells of the plan that prev has not finished.
func Pending(cells []Cell, prev *Result) []Cell {
	if prev == nil {
		return cells
	}
	var out []Cell
	for _, c := range cells {
		if prev.Cell(c.Key()) == nil {
			out = append(out, c)
		}
	}
	return out
}

// Save writes the results file atomically (a crash never leaves a
// half-written file).
func Save(path string, r *Result) error {
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Objective orders a sweep's cells.
type Objective struct {
	Kind     string  // throughput, p50, p99, p99.9 or throughput-at-p99
	MaxP99Ms float64 // for throughput-at-p99
}

// String is the objective as given on the command line.
func (o Objective) String() string {
	if o.Kind == "throughput-at-p99" {
		return "throughput-at-p99<=" + strconv.FormatFloat(o.MaxP99Ms, 'f', -1, 64) + "ms"
	}
	return o.Kind
}

// ParseObjective parses throughput, p99 or throughput-at-p99<=X (X in ms,
// optionally with an ms or s suffix).
func ParseObjective(s string) (Objective, error) {
	t := strings.ToLower(strings.TrimSpace(s))
	switch t {
	case "", "throughput":
		return Objective{Kind: "throughput"}, nil
	case "p99", "latency":
		return Objective{Kind: "p99"}, nil
	case "p50", "p99.9":
		return Objective{Kind: t}, nil
	}
	if rest, ok := strings.CutPrefix(t, "throughput-at-p99<="); ok {
		mult := 1.0
		switch {
		case strings.HasSuffix(rest, "ms"):
			rest = strings.TrimSuffix(rest, "ms")
		case strings.HasSuffix(rest, "s"):
			rest, mult = strings.TrimSuffix(rest, "s"), 1000
		}
		v, err := strconv.ParseFloat(strings.TrimSpace(rest), 64)
		if err == nil && v > 0 {
			return Objective{Kind: "throughput-at-p99", MaxP99Ms: v * mult}, nil
		}
	}
	return Objective{}, fmt.Errorf("--objective %q: want throughput, p50, p99, p99.9 or throughput-at-p99<=X (X in ms, e.g. throughput-at-p99<=50ms)", s)
}

// Meets reports whether a cell satisfies the objective's constraint.
func (o Objective) Meets(c *CellResult) bool {
	if !c.OK() {
		return false
	}
	return o.Kind != "throughput-at-p99" || c.Latency.P99Ms <= o.MaxP99Ms
}

// Rank orders cells best first: cells that measured nothing come last;
// under throughput-at-p99<=X, cells over the limit come after the ones
// within it (then by p99). Ties keep the plan's order.
func (o Objective) Rank(cells []CellResult) []int {
	idx := make([]int, len(cells))
	for i := range idx {
		idx[i] = i
	}
	better := func(a, b *CellResult) bool {
		if a.OK() != b.OK() {
			return a.OK()
		}
		if !a.OK() {
			return false
		}
		switch o.Kind {
		case "p50", "p99", "p99.9":
			if la, lb := percentile(a.Latency, o.Kind), percentile(b.Latency, o.Kind); la != lb {
				return la < lb
			}
			return a.RecordsPerSec > b.RecordsPerSec
		case "throughput-at-p99":
			ma, mb := o.Meets(a), o.Meets(b)
			if ma != mb {
				return ma
			}
			if !ma {
				return a.Latency.P99Ms < b.Latency.P99Ms
			}
		}
		return a.RecordsPerSec > b.RecordsPerSec
	}
	sort.SliceStable(idx, func(i, j int) bool { return better(&cells[idx[i]], &cells[idx[j]]) })
	return idx
}

// Best returns the index of the best cell, or -1 when no cell meets the
// objective.
func (o Objective) Best(cells []CellResult) int {
	r := o.Rank(cells)
	if len(r) == 0 || !o.Meets(&cells[r[0]]) {
		return -1
	}
	return r[0]
}

// Merge combines results files of the same sweep run at the same time
// on several machines: for every cell, the n-th runs of all files are
// merged into one run (perf.Merge: counts add up over the union of the
// time spans, exact percentiles from the merged histograms, CPU added),
// then the cell is summarized again. A single file is returned
// re-summarized (to re-render a report).
func Merge(rs []*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("nothing to merge")
	}
	out := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: rs[0].Plan, Started: rs[0].Started, Complete: true, Objective: rs[0].Objective,
		Checks: rs[0].Checks, Brokers: rs[0].Brokers, CPUs: rs[0].CPUs, ClusterWarmup: rs[0].ClusterWarmup}
	for i, r := range rs[1:] {
		if err := rs[0].Plan.Compatible(&r.Plan); err != nil {
			return nil, fmt.Errorf("file %d: %v", i+2, err)
		}
	}
	for _, c := range rs[0].Cells {
		cr := CellResult{Cell: c.Cell, Key: c.Key, Topic: c.Topic, Agents: c.Agents}
		if len(rs) == 1 {
			// One file re-rendered keeps how its cells were re-run.
			cr.Attempts, cr.DiscardedRuns = c.Attempts, c.DiscardedRuns
		}
		for n := 0; ; n++ {
			var parts []*perf.Result
			run := Run{}
			for _, r := range rs {
				oc := r.Cell(c.Key)
				if oc == nil || n >= len(oc.Runs) {
					continue
				}
				o := oc.Runs[n]
				run.CPUSec += o.CPUSec
				run.CPUPercent += o.CPUPercent
				// The busiest machine's load.
				if o.LoadAverage != nil && (run.LoadAverage == nil || *o.LoadAverage > *run.LoadAverage) {
					la := *o.LoadAverage
					run.LoadAverage = &la
				}
				if o.Error != "" && run.Error == "" {
					run.Error = o.Error
				}
				if o.Result != nil {
					parts = append(parts, o.Result)
				}
				// A sweep over agents re-rendered from its one file keeps
				// its runs' distributed part (their aggregate rates).
				if len(rs) == 1 {
					run.Distributed = o.Distributed
				}
			}
			if len(parts) == 0 && run.Error == "" {
				break
			}
			if len(parts) > 0 {
				m, err := perf.Merge(parts)
				if err != nil {
					return nil, fmt.Errorf("cell %d: %v", c.Index, err)
				}
				m.Settings, m.Intervals = parts[0].Settings, parts[0].Intervals
				run.Result = m
			}
			cr.Runs = append(cr.Runs, run)
		}
		for _, r := range rs[1:] {
			if r.Cell(c.Key) == nil {
				out.Complete = false
			}
		}
		if err := cr.Summarize(); err != nil {
			return nil, fmt.Errorf("cell %d: %v", c.Index, err)
		}
		out.Cells = append(out.Cells, cr)
	}
	for _, r := range rs {
		out.Complete = out.Complete && r.Complete
	}
	out.Flag()
	return out, nil
}

// percentile is the summary's p50, p99 or p99.9 (objective names).
func percentile(l perf.LatencySummary, name string) float64 {
	switch name {
	case "p50":
		return l.P50Ms
	case "p99.9":
		return l.P999Ms
	}
	return l.P99Ms
}
