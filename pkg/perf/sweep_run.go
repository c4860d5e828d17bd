package perf

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

// SweepEnv is what a sweep needs from its caller: clients built from the
// user's connection plus a cell's properties, and topic administration.
type SweepEnv interface {
	// Clients builds n connected clients for role with the extra
	// properties applied over the user's (consumers in one fresh group,
	// subscribed to topic from the start). settings are the effective
	// client settings ("name=value" sorted, no secrets).
	Clients(ctx context.Context, role kafka.Role, n int, props map[string]string, w Workload, topic string) (cls []*kgo.Client, settings []string, maxPoll int, err error)
	// CreateTopic creates a topic; created is false when it existed.
	CreateTopic(ctx context.Context, name string, partitions, replicationFactor int) (created bool, err error)
	// DeleteTopics deletes topics.
	DeleteTopics(ctx context.Context, names ...string) error
}

// SweepEventKind says what a SweepEvent reports.
type SweepEventKind int

// Sweep events.
const (
	EventFill      SweepEventKind = iota // filling a topic for a consume sweep
	EventCellStart                       // a run of a cell starts
	EventProgress                        // progress of the current run
	EventRunDone                         // a run finished (Run set)
	EventCellDone                        // a cell finished (CellResult set)
	EventWarning                         // a non-fatal problem (Message)
)

// SweepEvent is a progress report of a running sweep.
type SweepEvent struct {
	Kind     SweepEventKind
	Cell     Cell
	Topic    string
	Repeat   int // 1-based
	Position int // 1-based position among the runs of this invocation
	Runs     int // runs in this invocation
	Progress Progress
	Run      *SweepRun
	Result   *CellResult
	Message  string
	// Elapsed since the sweep started and records moved so far (for an
	// estimate of the time left), and the invocation's total.
	Elapsed     time.Duration
	DoneRecords int64
	AllRecords  int64
}

// Sweeper runs a sweep's cells one at a time.
type Sweeper struct {
	Plan       SweepPlan
	Env        SweepEnv
	Interval   time.Duration
	KeepTopics bool
	Seed       int64
	// IdleTimeout bounds a consume run that stops receiving.
	IdleTimeout time.Duration
	// Events receives progress; Save is called after each cell with the
	// results so far (the results file). Both may be nil.
	Events func(SweepEvent)
	Save   func(*SweepResult) error
}

// Run runs the cells that prev (a resumed results file, or nil) has not
// finished and returns the whole sweep. On interruption it returns the
// cells finished so far with ctx's error.
func (s *Sweeper) Run(ctx context.Context, cells []Cell, prev *SweepResult) (*SweepResult, error) {
	res := &SweepResult{FormatVersion: FormatVersion, Kind: "sweep", Plan: s.Plan, Started: time.Now()}
	if prev != nil {
		res.Started, res.Cells = prev.Started, prev.Cells
	}
	pending := Pending(cells, prev)
	emit := func(e SweepEvent) {
		if s.Events != nil {
			s.Events(e)
		}
	}
	runRecords := s.Plan.Records + s.Plan.WarmupRecords
	runs := len(pending) * s.Plan.Repeat
	all := int64(runs) * runRecords
	start := time.Now()
	var done int64

	// Topics: shared ones are created once (and filled for a consume sweep).
	var toDelete []string
	defer func() {
		if !s.KeepTopics && len(toDelete) > 0 {
			dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			defer cancel()
			if err := s.Env.DeleteTopics(dctx, toDelete...); err != nil {
				emit(SweepEvent{Kind: EventWarning, Message: fmt.Sprintf("deleting topics %v: %v", toDelete, err)})
			}
		}
	}()
	ready := map[string]bool{}
	prepare := func(c Cell) (string, error) {
		name, shared := s.Plan.TopicFor(c, cells)
		if shared && ready[name] {
			return name, nil
		}
		w := s.Plan.Workload(c)
		created, err := s.Env.CreateTopic(ctx, name, w.Partitions, w.ReplicationFactor)
		if err != nil {
			return "", fmt.Errorf("topic %s: %v", name, err)
		}
		if created {
			toDelete = append(toDelete, name)
		}
		if s.Plan.Mode == "consume" {
			emit(SweepEvent{Kind: EventFill, Cell: c, Topic: name, Message: fmt.Sprintf("filling %s with %d records of %d bytes", name, runRecords, w.RecordSize)})
			if err := s.fill(ctx, name, w, runRecords); err != nil {
				return "", fmt.Errorf("filling %s: %v", name, err)
			}
		}
		ready[name] = true
		return name, nil
	}

	pos := 0
	for _, c := range pending {
		topic, err := prepare(c)
		if err != nil {
			return res, err
		}
		cr := CellResult{Cell: c, Key: c.Key(), Topic: topic}
		for rep := 1; rep <= s.Plan.Repeat; rep++ {
			pos++
			ev := SweepEvent{Cell: c, Topic: topic, Repeat: rep, Position: pos, Runs: runs, AllRecords: all}
			ev.Kind, ev.Elapsed, ev.DoneRecords = EventCellStart, time.Since(start), done
			emit(ev)
			progress := func(p Progress) {
				e := ev
				e.Kind, e.Progress, e.Elapsed, e.DoneRecords = EventProgress, p, time.Since(start), done+p.Done
				emit(e)
			}
			run := s.runOne(ctx, c, topic, rep, progress)
			if ctx.Err() != nil {
				return res, ctx.Err()
			}
			done += runRecords
			cr.Runs = append(cr.Runs, run)
			e := ev
			e.Kind, e.Run, e.Elapsed, e.DoneRecords = EventRunDone, &run, time.Since(start), done
			emit(e)
		}
		if err := cr.Summarize(); err != nil {
			return res, err
		}
		if _, shared := s.Plan.TopicFor(c, cells); !shared && !s.KeepTopics {
			dctx, cancel := context.WithTimeout(ctx, 30*time.Second)
			if err := s.Env.DeleteTopics(dctx, topic); err != nil {
				emit(SweepEvent{Kind: EventWarning, Message: fmt.Sprintf("deleting topic %s: %v", topic, err)})
			}
			cancel()
			toDelete = remove(toDelete, topic)
		}
		res.Cells = append(res.Cells, cr)
		res.Updated = time.Now()
		emit(SweepEvent{Kind: EventCellDone, Cell: c, Topic: topic, Result: &res.Cells[len(res.Cells)-1], Elapsed: time.Since(start), DoneRecords: done, AllRecords: all})
		if s.Save != nil {
			if err := s.Save(res); err != nil {
				return res, fmt.Errorf("saving results: %v", err)
			}
		}
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
	res.Complete = len(res.Cells) == len(cells)
	res.Updated = time.Now()
	if s.Save != nil {
		if err := s.Save(res); err != nil {
			return res, fmt.Errorf("saving results: %v", err)
		}
	}
	return res, nil
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
	r, err := Produce(ctx, cls, ProduceConfig{Topic: topic, Records: n, RecordSize: w.RecordSize, KeyCardinality: w.KeyCardinality, Seed: s.Seed, Interval: time.Hour}, nil)
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

func (s *Sweeper) runOne(ctx context.Context, c Cell, topic string, rep int, progress func(Progress)) SweepRun {
	w := s.Plan.Workload(c)
	var run SweepRun
	var cls []*kgo.Client
	var settings []string
	var maxPoll int
	var err error
	if s.Plan.Mode == "produce" {
		cls, settings, _, err = s.Env.Clients(ctx, kafka.Producer, w.Producers, w.Props, w, topic)
	} else {
		cls, settings, maxPoll, err = s.Env.Clients(ctx, kafka.Consumer, w.Consumers, w.Props, w, topic)
	}
	if err != nil {
		run.Error = err.Error()
		return run
	}
	defer closeAll(cls)
	cpu0, t0 := CPUTime(), time.Now()
	var res *Result
	if s.Plan.Mode == "produce" {
		res, err = Produce(ctx, cls, ProduceConfig{
			Topic: topic, Records: s.Plan.Records + s.Plan.WarmupRecords, RecordSize: w.RecordSize,
			Rate: s.Plan.Throughput, KeyCardinality: w.KeyCardinality, WarmupRecords: s.Plan.WarmupRecords,
			Seed: s.Seed + int64(rep), Interval: s.Interval, Settings: settings,
		}, progress)
	} else {
		res, err = Consume(ctx, cls, ConsumeConfig{
			Topic: topic, Records: s.Plan.Records + s.Plan.WarmupRecords, WarmupRecords: s.Plan.WarmupRecords,
			MaxPollRecords: maxPoll, Interval: s.Interval, Settings: settings, IdleTimeout: s.IdleTimeout,
		}, progress)
	}
	wall := time.Since(t0).Seconds()
	run.CPUSec = (CPUTime() - cpu0).Seconds()
	if wall > 0 {
		run.CPUPercent = run.CPUSec / wall * 100
	}
	run.Result = res
	if err != nil && !errors.Is(err, context.Canceled) {
		run.Error = err.Error()
	}
	return run
}
