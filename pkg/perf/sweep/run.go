package sweep

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Env is what a sweep needs from its caller: clients built from the
// user's connection plus a cell's properties, and topic administration.
type Env interface {
	// Clients builds n connected clients for role with the extra
	// properties applied over the user's (consumers in one fresh group,
	// subscribed to topic from the start). settings are the effective
	// client settings ("name=value" sorted, no secrets).
	Clients(ctx context.Context, role kafka.Role, n int, props map[string]string, w Workload, topic string) (cls []*kgo.Client, settings []string, maxPoll int, err error)
	// E2EClients builds the producer (the user's properties plus props)
	// and the group-less consumer of an end-to-end run, and an admin
	// client.
	E2EClients(ctx context.Context, props map[string]string, w Workload) (prod, cons *kgo.Client, adm *kadm.Client, settings []string, err error)
	// CreateTopic creates a topic; created is false when it existed.
	CreateTopic(ctx context.Context, name string, partitions, replicationFactor int) (created bool, err error)
	// Ready returns when every partition of a topic the sweep created
	// has a leader and has acknowledged one write (a record with the
	// ReadinessHeader).
	Ready(ctx context.Context, topic string, partitions int) error
	// Brokers is the number of brokers in the cluster.
	Brokers(ctx context.Context) (int, error)
	// DeleteTopics deletes topics.
	DeleteTopics(ctx context.Context, names ...string) error
}

// EventKind says what a Event reports.
type EventKind int

// Sweep events.
const (
	EventFill      EventKind = iota // filling a topic for a consume sweep
	EventCellStart                  // a run of a cell starts
	EventProgress                   // progress of the current run
	EventRunDone                    // a run finished (Run set)
	EventCellDone                   // a cell finished (CellResult set)
	EventWarning                    // a non-fatal problem (Message)
	EventWarmup                     // the cluster warm-up (Message)
	EventRerun                      // a flagged cell is run again (Message)
)

// Event is a progress report of a running sweep.
type Event struct {
	Kind     EventKind
	Cell     Cell
	Topic    string
	Repeat   int // 1-based
	Attempt  int // 1-based; more than 1 when the cell is re-run
	Position int // 1-based position among the runs of this invocation
	Runs     int // runs in this invocation
	Progress perf.Progress
	Run      *Run
	Result   *CellResult
	Message  string
	// Elapsed since the sweep started and records moved so far (for an
	// estimate of the time left), and the invocation's total (0 when the
	// runs are sized by time: then the estimate goes by runs).
	Elapsed     time.Duration
	DoneRecords int64
	AllRecords  int64
}

// Sweeper runs a sweep's cells one at a time.
type Sweeper struct {
	Plan       Plan
	Env        Env
	Interval   time.Duration
	KeepTopics bool
	Seed       int64
	// IdleTimeout bounds a consume run that stops receiving.
	IdleTimeout time.Duration
	// Checks are the thresholds cells are flagged (and re-run) by.
	Checks Checks
	// ClusterWarmup bounds the cluster warm-up before the first cell
	// (0: none).
	ClusterWarmup time.Duration
	// Interleave runs the cells' repeats in rounds (repeat 1 of every
	// cell, then repeat 2, ...); the results file then gets the cells once
	// the last round ends. Otherwise a cell's repeats run back to back and
	// the file is saved after every cell.
	Interleave bool
	// Agents runs the cells of a sweep over agents (Plan.OverAgents).
	Agents *Agents
	// Events receives progress; Save is called after each cell with the
	// results so far (the results file). Both may be nil.
	Events func(Event)
	Save   func(*Result) error
}

// WarmupWindow is the window of the cluster warm-up's rate; the rate is
// stable when WarmupStableWindows successive windows agree within
// WarmupTolerance % (of the largest).
const (
	WarmupWindow        = time.Second
	WarmupStableWindows = 3
	WarmupTolerance     = 10.0
)

// sweepRun is one invocation's state.
type sweepRun struct {
	s        *Sweeper
	ctx      context.Context
	cells    []Cell
	res      *Result
	start    time.Time
	runs     int
	pos      int
	all      int64
	done     int64
	ready    map[string]bool
	toDelete []string
}

func (r *sweepRun) emit(e Event) {
	if r.s.Events != nil {
		r.s.Events(e)
	}
}

// Run runs the cells that prev (a resumed results file, or nil) has not
// finished and returns the whole sweep. Before the first cell it warms the
// cluster up (ClusterWarmup); a cell whose repeats disagree beyond
// Checks.MaxSpreadPercent is run again at once, and cells that stalled
// compared with the others are run again at the end, each up to
// Checks.RerunOutliers more times. On interruption it returns the cells
// finished so far with ctx's error.
func (s *Sweeper) Run(ctx context.Context, cells []Cell, prev *Result) (*Result, error) {
	res := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: s.Plan, Started: time.Now(), Checks: s.Checks, CPUs: runtime.NumCPU()}
	if prev != nil {
		res.Started, res.Cells, res.ClusterWarmup, res.Brokers = prev.Started, prev.Cells, prev.ClusterWarmup, prev.Brokers
	}
	pending := Pending(cells, prev)
	r := &sweepRun{s: s, ctx: ctx, cells: cells, res: res, start: time.Now(), runs: len(pending) * s.Plan.Repeat, ready: map[string]bool{}}
	if s.Plan.Records > 0 {
		r.all = int64(r.runs) * (s.Plan.Records + s.Plan.WarmupRecords)
	}
	defer func() {
		if !s.KeepTopics && len(r.toDelete) > 0 {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := s.Env.DeleteTopics(dctx, r.toDelete...); err != nil {
				r.emit(Event{Kind: EventWarning, Message: fmt.Sprintf("deleting topics %v: %v", r.toDelete, err)})
			}
		}
	}()
	if len(pending) > 0 {
		n, err := s.Env.Brokers(ctx)
		if err != nil {
			return res, fmt.Errorf("cluster metadata: %v", err)
		}
		res.Brokers = n
		if s.ClusterWarmup > 0 {
			cw, err := r.warmCluster(n, s.Plan.Workload(pending[0]).RecordSize)
			if err != nil {
				return res, fmt.Errorf("cluster warm-up: %v", err)
			}
			res.ClusterWarmup = cw
		}
	}
	batches := [][]Cell{pending}
	if !s.Interleave {
		batches = nil
		for _, c := range pending {
			batches = append(batches, []Cell{c})
		}
	}
	for _, batch := range batches {
		crs, err := r.runCells(batch, 1)
		if err != nil {
			return res, err
		}
		if err := r.finish(crs); err != nil {
			return res, err
		}
	}
	if err := r.rerunStalls(pending); err != nil {
		return res, err
	}
	// Keep the plan's order (resumed cells first in the file otherwise).
	ordered := make([]CellResult, 0, len(cells))
	for _, c := range cells {
		if cr := res.Cell(c.Key()); cr != nil {
			cr.Index = c.Index
			ordered = append(ordered, *cr)
		}
	}
	res.Cells = ordered
	res.Flag()
	res.Complete = len(res.Cells) == len(cells)
	res.Updated = time.Now()
	if s.Save != nil {
		if err := s.Save(res); err != nil {
			return res, fmt.Errorf("saving results: %v", err)
		}
	}
	return res, nil
}

// finish re-runs the outliers among crs, adds them to the result and saves.
func (r *sweepRun) finish(crs []CellResult) error {
	s, res := r.s, r.res
	for _, cr := range crs {
		c := cr.Cell
		var err error
		for cr.Attempts <= s.Checks.RerunOutliers && s.Checks.MaxSpreadPercent > 0 && cr.SpreadPercent > s.Checks.MaxSpreadPercent {
			r.emit(Event{Kind: EventRerun, Cell: c, Message: fmt.Sprintf("cell #%d: the repeats' records/s spread %.1f %% exceeds %.0f %%: running its %d repeat(s) again (attempt %d of %d)",
				c.Index, cr.SpreadPercent, s.Checks.MaxSpreadPercent, s.Plan.Repeat, cr.Attempts+1, s.Checks.RerunOutliers+1)})
			if cr, err = r.again(c, cr, true); err != nil {
				return err
			}
		}
		res.Cells = append(res.Cells, cr)
		res.Updated = time.Now()
		res.Flag()
		r.emit(Event{Kind: EventCellDone, Cell: c, Result: &res.Cells[len(res.Cells)-1], Elapsed: time.Since(r.start), DoneRecords: r.done, AllRecords: r.all})
	}
	if s.Save != nil {
		if err := s.Save(res); err != nil {
			return fmt.Errorf("saving results: %v", err)
		}
	}
	return nil
}

// rerunStalls re-runs the cells of this invocation that stalled: stalls
// are judged against the other cells, so once all have run.
func (r *sweepRun) rerunStalls(pending []Cell) error {
	s, res := r.s, r.res
	isPending := map[string]bool{}
	for _, c := range pending {
		isPending[c.Key()] = true
	}
	for pass := 0; pass < s.Checks.RerunOutliers; pass++ {
		res.Flag()
		rerun := false
		for i := range res.Cells {
			cr := &res.Cells[i]
			if !cr.HasFlag(FlagStall) || !isPending[cr.Key] || cr.Attempts > s.Checks.RerunOutliers {
				continue
			}
			rerun = true
			r.emit(Event{Kind: EventRerun, Cell: cr.Cell, Message: fmt.Sprintf("cell #%d: p50 %.1f ms at %.0f records/s looks like a stall next to the other cells: running its %d repeat(s) again (attempt %d of %d)",
				cr.Index, cr.Latency.P50Ms, cr.RecordsPerSec, s.Plan.Repeat, cr.Attempts+1, s.Checks.RerunOutliers+1)})
			again, err := r.again(cr.Cell, *cr, false)
			if err != nil {
				return err
			}
			*cr = again
		}
		if !rerun {
			break
		}
		if s.Save != nil {
			if err := s.Save(res); err != nil {
				return fmt.Errorf("saving results: %v", err)
			}
		}
	}
	return nil
}

// again runs a cell's repeats once more. For an outlier (byAgreement) the
// cell keeps, out of every clean run of all its attempts, the Repeat runs
// whose records/s agree best (a disturbance of the machine rarely slows
// every run alike, and a run it slowed is what the re-run replaces); for a
// stall the new attempt. The other runs are kept as discarded, and
// Attempts counts every attempt.
func (r *sweepRun) again(c Cell, prev CellResult, byAgreement bool) (CellResult, error) {
	r.runs += r.s.Plan.Repeat
	if r.s.Plan.Records > 0 {
		r.all += int64(r.s.Plan.Repeat) * (r.s.Plan.Records + r.s.Plan.WarmupRecords)
	}
	crs, err := r.runCells([]Cell{c}, prev.Attempts+1)
	if err != nil {
		return prev, err
	}
	cr := crs[0]
	keep, drop := cr, prev
	if byAgreement && prev.OK() && (!cr.OK() || prev.SpreadPercent < cr.SpreadPercent) {
		keep, drop = prev, cr
	}
	keep.Attempts = cr.Attempts
	keep.DiscardedRuns = append(append([]Run(nil), prev.DiscardedRuns...), drop.Runs...)
	if byAgreement {
		pool := append(append(append([]Run(nil), prev.DiscardedRuns...), prev.Runs...), cr.Runs...)
		if best, rest := agreeingRuns(pool, r.s.Plan.Repeat); best != nil {
			keep = cr
			keep.Runs, keep.DiscardedRuns = best, rest
			if err := keep.Summarize(); err != nil {
				return prev, err
			}
		}
	}
	return keep, nil
}

// agreeingRuns picks, among the clean runs of pool (no error, no failed
// record, something measured), the n whose records/s have the smallest
// spread ((max-min)/median); rest is every other run of pool. It returns
// nil when fewer than n runs are clean. Ties keep the earlier runs.
func agreeingRuns(pool []Run, n int) (best, rest []Run) {
	var clean []int
	for i, r := range pool {
		if r.Error == "" && r.Result != nil && r.Result.Records > 0 && r.Result.Failed == 0 {
			clean = append(clean, i)
		}
	}
	if n <= 0 || len(clean) < n {
		return nil, nil
	}
	var pick []int
	bestSpread := math.Inf(1)
	cur := make([]int, 0, n)
	var walk func(from int)
	walk = func(from int) {
		if len(cur) == n {
			rates := make([]float64, n)
			for i, k := range cur {
				rates[i], _ = pool[k].Rates()
			}
			m := median(rates)
			sort.Float64s(rates)
			sp := math.Inf(1)
			if m > 0 {
				sp = (rates[n-1] - rates[0]) / m
			}
			if sp < bestSpread {
				bestSpread, pick = sp, append(pick[:0], cur...)
			}
			return
		}
		for i := from; i <= len(clean)-(n-len(cur)); i++ {
			cur = append(cur, clean[i])
			walk(i + 1)
			cur = cur[:len(cur)-1]
		}
	}
	walk(0)
	if pick == nil {
		return nil, nil
	}
	chosen := map[int]bool{}
	for _, k := range pick {
		chosen[k] = true
		best = append(best, pool[k])
	}
	for i, r := range pool {
		if !chosen[i] {
			rest = append(rest, r)
		}
	}
	return best, rest
}

// topic creates (and for a consume sweep fills) the cell's topic, once for
// a shared topic; a re-run of a cell with a topic of its own gets a fresh
// one (a deleted topic's name may not be free yet).
func (r *sweepRun) topic(c Cell, attempt int) (string, bool, error) {
	s := r.s
	name, shared := s.Plan.TopicFor(c, r.cells)
	if shared && r.ready[name] {
		return name, shared, nil
	}
	if !shared && attempt > 1 {
		name = fmt.Sprintf("%s-r%d", name, attempt)
	}
	w := s.Plan.Workload(c)
	created, err := s.Env.CreateTopic(r.ctx, name, w.Partitions, w.ReplicationFactor)
	if err != nil {
		return "", shared, fmt.Errorf("topic %s: %v", name, err)
	}
	if created {
		r.toDelete = append(r.toDelete, name)
		if err := s.Env.Ready(r.ctx, name, w.Partitions); err != nil {
			return "", shared, fmt.Errorf("topic %s not ready: %v", name, err)
		}
	}
	if s.Plan.Mode == "consume" {
		n := s.Plan.Records + s.Plan.WarmupRecords
		r.emit(Event{Kind: EventFill, Cell: c, Topic: name, Message: fmt.Sprintf("filling %s with %d records of %d bytes", name, n, w.RecordSize)})
		if err := s.fill(r.ctx, name, w, n); err != nil {
			return "", shared, fmt.Errorf("filling %s: %v", name, err)
		}
	}
	r.ready[name] = true
	return name, shared, nil
}

// runCells runs the repeats of cells in rounds: the first repeat of every
// cell, then the second, and so on, so that a slow spell of the machine
// falls on one repeat of several cells rather than on every repeat of one.
func (r *sweepRun) runCells(cs []Cell, attempt int) ([]CellResult, error) {
	s := r.s
	out := make([]CellResult, len(cs))
	shared := make([]bool, len(cs))
	for i, c := range cs {
		topic, sh, err := r.topic(c, attempt)
		if err != nil {
			return nil, err
		}
		out[i], shared[i] = CellResult{Cell: c, Key: c.Key(), Topic: topic, Agents: s.Plan.AgentsFor(c), Attempts: attempt}, sh
	}
	for rep := 1; rep <= s.Plan.Repeat; rep++ {
		for i, c := range cs {
			r.pos++
			ev := Event{Cell: c, Topic: out[i].Topic, Repeat: rep, Attempt: attempt, Position: r.pos, Runs: r.runs, AllRecords: r.all}
			ev.Kind, ev.Elapsed, ev.DoneRecords = EventCellStart, time.Since(r.start), r.done
			r.emit(ev)
			progress := func(p perf.Progress) {
				e := ev
				e.Kind, e.Progress, e.Elapsed, e.DoneRecords = EventProgress, p, time.Since(r.start), r.done+p.Done
				r.emit(e)
			}
			run := s.runOne(r.ctx, c, out[i].Topic, rep, progress)
			if r.ctx.Err() != nil {
				return nil, r.ctx.Err()
			}
			if la, ok := loadAverage(); ok {
				run.LoadAverage = &la
			}
			if run.Result != nil {
				r.done += run.Result.Records + run.Result.WarmupRecords
			}
			out[i].Runs = append(out[i].Runs, run)
			e := ev
			e.Kind, e.Run, e.Elapsed, e.DoneRecords = EventRunDone, &run, time.Since(r.start), r.done
			r.emit(e)
		}
	}
	for i := range out {
		if err := out[i].Summarize(); err != nil {
			return nil, err
		}
		if !shared[i] && !s.KeepTopics {
			dctx, cancel := context.WithTimeout(r.ctx, 30*time.Second)
			if err := s.Env.DeleteTopics(dctx, out[i].Topic); err != nil {
				r.emit(Event{Kind: EventWarning, Message: fmt.Sprintf("deleting topic %s: %v", out[i].Topic, err)})
			}
			cancel()
			r.toDelete = remove(r.toDelete, out[i].Topic)
		}
	}
	return out, nil
}

// warmCluster produces records of the first cell's size to a topic spread
// over every broker (one partition per broker, replication factor up to 3)
// until WarmupStableWindows successive WarmupWindow windows' rates agree
// within WarmupTolerance, for at most ClusterWarmup.
func (r *sweepRun) warmCluster(brokers, recordSize int) (*ClusterWarmup, error) {
	s, ctx := r.s, r.ctx
	name := s.Plan.TopicPrefix + "-warmup"
	parts, rf := max(brokers, 1), max(min(brokers, 3), 1)
	cw := &ClusterWarmup{Topic: name, MaxSeconds: s.ClusterWarmup.Seconds(), TolerancePercent: WarmupTolerance, WindowRecordsPerSec: []float64{}}
	created, err := s.Env.CreateTopic(ctx, name, parts, rf)
	if err != nil {
		return nil, fmt.Errorf("topic %s: %v", name, err)
	}
	if created {
		defer func() {
			if s.KeepTopics {
				return
			}
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := s.Env.DeleteTopics(dctx, name); err != nil {
				r.emit(Event{Kind: EventWarning, Message: fmt.Sprintf("deleting topic %s: %v", name, err)})
			}
		}()
		if err := s.Env.Ready(ctx, name, parts); err != nil {
			return nil, fmt.Errorf("topic %s not ready: %v", name, err)
		}
	}
	w := Workload{RecordSize: recordSize, Producers: 1, Partitions: parts, ReplicationFactor: rf}
	cls, _, _, err := s.Env.Clients(ctx, kafka.Producer, 1, nil, w, name)
	if err != nil {
		return nil, err
	}
	defer closeAll(cls)
	r.emit(Event{Kind: EventWarmup, Message: fmt.Sprintf("cluster warm-up: producing %d-byte records to %s (%d partitions, replication factor %d) until %d successive %s windows agree within %.0f %% (at most %s)",
		recordSize, name, parts, rf, WarmupStableWindows, WarmupWindow, WarmupTolerance, s.ClusterWarmup)})
	// One run for the whole bound, stopped once the rate is stable: the
	// producer never drains its buffer between windows, nor at the end.
	wctx, stop := context.WithTimeout(ctx, s.ClusterWarmup)
	defer stop()
	var mu sync.Mutex
	start := time.Now()
	_, err = perf.Produce(wctx, cls, perf.ProduceConfig{Topic: name, Duration: s.ClusterWarmup, RecordSize: recordSize, Seed: s.Seed, Interval: WarmupWindow,
		OnInterval: func(iv perf.Interval) {
			mu.Lock()
			defer mu.Unlock()
			if cw.Stable || iv.ElapsedSec-float64(len(cw.WindowRecordsPerSec))*WarmupWindow.Seconds() < 0.5*WarmupWindow.Seconds() {
				return // the last, partial window
			}
			cw.WindowRecordsPerSec = append(cw.WindowRecordsPerSec, iv.RecordsPerSec)
			if n := len(cw.WindowRecordsPerSec); n >= WarmupStableWindows && agree(cw.WindowRecordsPerSec[n-WarmupStableWindows:], WarmupTolerance) {
				cw.Stable = true
				stop()
			}
		}}, nil)
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	cw.Seconds = time.Since(start).Seconds()
	var rates []string
	for _, v := range cw.WindowRecordsPerSec {
		rates = append(rates, fmt.Sprintf("%.0f", v))
	}
	msg := fmt.Sprintf("cluster warm-up: stable after %.1f s (records/s per window: %s)", cw.Seconds, strings.Join(rates, " "))
	if !cw.Stable {
		msg = fmt.Sprintf("cluster warm-up: the rate did not stabilise within %s (records/s per window: %s); measuring anyway", s.ClusterWarmup, strings.Join(rates, " "))
	}
	r.emit(Event{Kind: EventWarmup, Message: msg})
	return cw, nil
}

// agree reports whether the rates differ by at most pct % of the largest.
func agree(rates []float64, pct float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rates {
		lo, hi = math.Min(lo, r), math.Max(hi, r)
	}
	return hi > 0 && hi-lo <= hi*pct/100
}

func remove(list []string, s string) []string {
	out := list[:0]
	for _, x := range list {
		if x != s {
			out = append(out, x)
		}
	}
	return out
}

// fill produces n records of the cell's shape for a consume sweep.
func (s *Sweeper) fill(ctx context.Context, topic string, w Workload, n int64) error {
	cls, _, _, err := s.Env.Clients(ctx, kafka.Producer, 1, nil, w, topic)
	if err != nil {
		return err
	}
	defer closeAll(cls)
	r, err := perf.Produce(ctx, cls, perf.ProduceConfig{Topic: topic, Records: n, RecordSize: w.RecordSize, KeyCardinality: w.KeyCardinality, Seed: s.Seed, Interval: time.Hour}, nil)
	if err != nil {
		return err
	}
	if r.Failed > 0 {
		return fmt.Errorf("%d records failed", r.Failed)
	}
	return nil
}

func closeAll(cls []*kgo.Client) {
	for _, c := range cls {
		c.Close()
	}
}

// loadAverage reads the machine's load average after each run (a variable
// for the tests).
var loadAverage = perf.LoadAverage

// E2ESweepPollTimeout bounds the wait for one record of an e2e sweep run.
const E2ESweepPollTimeout = 30 * time.Second

func (s *Sweeper) runOne(ctx context.Context, c Cell, topic string, rep int, progress func(perf.Progress)) Run {
	if s.Plan.OverAgents() {
		return s.runAgents(ctx, c, topic, rep, progress)
	}
	w := s.Plan.Workload(c)
	var run Run
	var cls []*kgo.Client
	var settings []string
	var maxPoll int
	var err error
	var prod, cons *kgo.Client
	var adm *kadm.Client
	switch s.Plan.Mode {
	case "produce":
		cls, settings, _, err = s.Env.Clients(ctx, kafka.Producer, w.Producers, w.Props, w, topic)
	case "consume":
		cls, settings, maxPoll, err = s.Env.Clients(ctx, kafka.Consumer, w.Consumers, w.Props, w, topic)
	case "e2e":
		prod, cons, adm, settings, err = s.Env.E2EClients(ctx, w.Props, w)
		if err == nil {
			cls = []*kgo.Client{prod, cons}
		}
	}
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer closeAll(cls)
	cpu0, t0 := perf.CPUTime(), time.Now()
	var res *perf.Result
	switch s.Plan.Mode {
	case "produce":
		res, err = perf.Produce(ctx, cls, perf.ProduceConfig{
			Topic: topic, Records: s.Plan.Records, Duration: s.Plan.Duration(), RecordSize: w.RecordSize,
			Rate: s.Plan.Throughput, KeyCardinality: w.KeyCardinality,
			WarmupRecords: s.Plan.WarmupRecords, WarmupDuration: s.Plan.WarmupDuration(),
			Seed: s.Seed + int64(rep), Interval: s.Interval, Settings: settings,
		}, progress)
	case "consume":
		res, err = perf.Consume(ctx, cls, perf.ConsumeConfig{
			Topic: topic, Records: s.Plan.Records, WarmupRecords: s.Plan.WarmupRecords, WarmupDuration: s.Plan.WarmupDuration(),
			MaxPollRecords: maxPoll, Interval: s.Interval, Settings: settings, IdleTimeout: s.IdleTimeout,
		}, progress)
	case "e2e":
		var er *perf.E2ERun
		obs := perf.E2EObserver{}
		if progress != nil {
			obs.Record = func(i int, d time.Duration) {
				if i%50 == 0 {
					progress(perf.Progress{Elapsed: time.Since(t0), Done: int64(i + 1), Target: s.Plan.Records, P99Ms: float64(d.Nanoseconds()) / 1e6})
				}
			}
		}
		er, err = perf.RunE2E(ctx, prod, cons, adm, perf.E2EConfig{
			Topic: topic, Records: int(s.Plan.Records), Duration: s.Plan.Duration(), RecordSize: w.RecordSize,
			WarmupRecords: int(s.Plan.WarmupRecords), WarmupDuration: s.Plan.WarmupDuration(),
			PollTimeout: E2ESweepPollTimeout, Interval: s.Interval, Settings: settings,
		}, obs)
		if er != nil {
			res = er.Result
		}
	}
	wall := time.Since(t0).Seconds()
	run.CPUSec = (perf.CPUTime() - cpu0).Seconds()
	if wall > 0 {
		run.CPUPercent = run.CPUSec / wall * 100
	}
	run.Result = res
	if err != nil && !errors.Is(err, context.Canceled) {
		run.Error = err.Error()
	}
	return run
}
