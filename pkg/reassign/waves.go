package reassign

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"
)

// Waves runs a plan's moves in waves of at most MaxMoves partitions (kbox
// reassign execute). Each wave sets the replication throttles of its own
// moves (Throttle bytes/s; 0: none), starts them, follows them every
// Interval until they are done and releases the throttles it answers for
// (see Ledger) before the next wave. Partitions already on their target
// replicas are skipped, so running the same plan again resumes it.
type Waves struct {
	Service  *Service
	MaxMoves int
	Throttle int64
	Interval time.Duration
	// Report receives what the run does, in order; nil drops it.
	Report func(WaveEvent)

	ledger *Ledger // the throttles this run answers for
}

// WaveEventKind says what a WaveEvent reports.
type WaveEventKind int

// Wave events, in the order a run reports them.
const (
	// WavesNothingToMove: every partition of the plan is on its target
	// replicas (the run ends).
	WavesNothingToMove WaveEventKind = iota
	// WavesPlanned: Moves of Partitions partitions to move, in Waves waves
	// of at most MaxMoves.
	WavesPlanned
	// WaveStarted: wave Wave of Waves starts moving TPs.
	WaveStarted
	// WaveProgress: Moving partitions of the wave still move; Progress is
	// the wave's copy so far.
	WaveProgress
	// WaveDone: the wave's moves are done (its release follows).
	WaveDone
	// WavesReleased: Released is what a release cleared and kept.
	WavesReleased
	// WavesDone: the Moves partitions moved (the run ends).
	WavesDone
	// WavesInterrupted: the context ended during a wave; its
	// reassignments continue (the final release follows).
	WavesInterrupted
	// WavesReleaseFailed: the release after an interruption failed (Err).
	WavesReleaseFailed
)

// WaveEvent is one step of a run of waves.
type WaveEvent struct {
	Kind              WaveEventKind
	Wave, Waves       int
	Moves, Partitions int
	MaxMoves          int
	TPs               []TP
	Moving            int
	Progress          *Progress
	Released          *Released
	Err               error
}

// Sleep waits d or until ctx ends (its error).
func Sleep(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func (w *Waves) report(e WaveEvent) {
	if w.Report != nil {
		w.Report(e)
	}
}

// release gives back the throttles no move needs any more.
func (w *Waves) release(ctx context.Context) error {
	if w.ledger.Empty() {
		return nil
	}
	rel, err := w.Service.Release(ctx, w.ledger)
	if err != nil {
		return err
	}
	w.report(WaveEvent{Kind: WavesReleased, Released: rel})
	return nil
}

// Run runs the plan's moves. When ctx ends, the wave's reassignments keep
// running and the throttles are released by the same rule within 30 s;
// the error is then ctx's.
func (w *Waves) Run(ctx context.Context, p *Plan) (err error) {
	if w.MaxMoves <= 0 || w.Interval <= 0 || w.Throttle < 0 {
		return errors.New("waves need MaxMoves and Interval positive, Throttle not negative")
	}
	w.ledger = NewLedger()
	defer func() {
		if errors.Is(err, context.Canceled) {
			w.report(WaveEvent{Kind: WavesInterrupted})
		}
		if w.ledger.Empty() {
			return
		}
		// Release by the same rule, even when ctx was cancelled.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		cerr := w.release(cctx)
		if cerr != nil && errors.Is(err, context.Canceled) {
			w.report(WaveEvent{Kind: WavesReleaseFailed, Err: cerr})
		}
		if err == nil {
			err = cerr
		}
	}()
	targets := p.Targets()
	current, err := w.Service.PartitionAssignment(ctx, SortedTPs(targets))
	if err != nil {
		return err
	}
	var todo []TP
	for _, tp := range SortedTPs(targets) {
		if !slices.Equal(current[tp], targets[tp]) {
			todo = append(todo, tp)
		}
	}
	if len(todo) == 0 {
		w.report(WaveEvent{Kind: WavesNothingToMove})
		return nil
	}
	n := (len(todo) + w.MaxMoves - 1) / w.MaxMoves
	w.report(WaveEvent{Kind: WavesPlanned, Moves: len(todo), Partitions: len(targets), Waves: n, MaxMoves: w.MaxMoves})
	for i := 0; i < n; i++ {
		wave := todo[i*w.MaxMoves : min(len(todo), (i+1)*w.MaxMoves)]
		if err := w.runWave(ctx, i+1, n, wave, targets, current); err != nil {
			return err
		}
	}
	w.report(WaveEvent{Kind: WavesDone, Moves: len(todo)})
	return nil
}

func (w *Waves) runWave(ctx context.Context, k, n int, wave []TP, targets, current map[TP][]int32) error {
	proposed := map[TP][]int32{}
	for _, tp := range wave {
		proposed[tp] = targets[tp]
	}
	w.report(WaveEvent{Kind: WaveStarted, Wave: k, Waves: n, TPs: wave})
	// The wave's partitions already moving (a run interrupted before):
	// their throttles are this run's to clear once they are done.
	ongoing, err := w.Service.ListReassignments(ctx, wave)
	if err != nil {
		return err
	}
	for tp, o := range ongoing {
		w.ledger.Saw(tp, o)
	}
	if w.Throttle > 0 {
		moves, err := MoveMap(ongoing, proposed, current)
		if err != nil {
			return err
		}
		if err := w.Service.ApplyThrottles(ctx, w.ledger, moves, w.Throttle); err != nil {
			return err
		}
	}
	errs, err := w.Service.Alter(ctx, proposed, true)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		tp := SortedTPs(errs)[0]
		return fmt.Errorf("wave %d: %s: %v (and %d more)", k, tp, errs[tp], len(errs)-1)
	}
	base, err := w.Service.Snap(ctx, wave)
	if err != nil {
		return err
	}
	tr := &Tracker{Window: EtaWindow(w.Interval)}
	tr.Add(base)
	for {
		if err := Sleep(ctx, w.Interval); err != nil {
			return err
		}
		cur, err := w.Service.Snap(ctx, wave)
		if err != nil {
			return err
		}
		p := tr.Add(cur)
		if len(cur.Ongoing) == 0 {
			break
		}
		w.report(WaveEvent{Kind: WaveProgress, Wave: k, Waves: n, Moving: len(cur.Ongoing), Progress: p})
	}
	w.report(WaveEvent{Kind: WaveDone, Wave: k, Waves: n})
	return w.release(ctx)
}
