package reassignpartitions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/reassign"
)

func newExecuteCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn     cmdutil.ConnFlags
		plan     string
		maxMoves int
		throttle int64
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "execute --plan FILE --max-moves N [--throttle B/s]",
		Short: "Run a reassignment plan in throttled waves that clean up after themselves",
		Long: `Runs the moves of a reassignment JSON file (kafka-reassign-partitions
format) in waves of at most --max-moves partitions. Each wave sets the
replication throttles for its own moves (--throttle, bytes/s; 0: none),
starts them, waits until they are done (one progress line per --interval)
and clears every throttle it set before the next wave.

Resumable: partitions already on their target replicas are skipped, so
running the same plan again continues where it stopped.

Throttles (docs/reassign.md): the command answers for the throttles it
set and for those of the plan's moves it finds already in progress. A
rate it set over an earlier value gets that value back; the
throttled-replica entries it added are removed once their partition is
done; rates are removed only when no reassignment is in progress anywhere
in the cluster, so after a wave, and on Ctrl-C (or SIGTERM), the
throttles of moves still copying are kept (the wave's reassignments keep
running, still throttled; running the plan again, or kbox reassign status
--watch --plan FILE, clears them when they are done). It prints what it
cleared, and what it kept and why.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if plan == "" {
				return &cmdutil.FlagError{Err: errors.New("--plan is required")}
			}
			if maxMoves <= 0 {
				return &cmdutil.FlagError{Err: errors.New("--max-moves must be at least 1")}
			}
			if throttle < 0 {
				return &cmdutil.FlagError{Err: errors.New("--throttle must not be negative")}
			}
			if interval <= 0 {
				return &cmdutil.FlagError{Err: errors.New("--interval must be positive")}
			}
			data, err := os.ReadFile(plan)
			if err != nil {
				return err
			}
			p, err := reassign.ParsePlan(data)
			if err == nil {
				err = p.ValidateExecute()
			}
			if err != nil {
				return fmt.Errorf("%s: %v", plan, err)
			}
			c, err := conn.Connection(f, nil)
			if err != nil {
				return err
			}
			cl, err := f.ConnectedClient(cmd.Context(), c, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
			defer stop()
			w := &waves{f: f, svc: &reassign.Service{Client: cl.Client, Admin: cl.Admin()}, throttle: throttle, interval: interval}
			err = w.run(ctx, p, maxMoves)
			if errors.Is(err, context.Canceled) {
				return cmdutil.Exit(130) // interrupted, already reported
			}
			if err != nil {
				return cl.Explain(err)
			}
			return nil
		},
	}
	conn.Register(cmd, false)
	cmd.Flags().StringVar(&plan, "plan", "", "reassignment JSON file (as kafka-reassign-partitions --execute reads)")
	cmd.Flags().IntVar(&maxMoves, "max-moves", 0, "partitions per wave")
	cmd.Flags().Int64Var(&throttle, "throttle", 0, "replication throttle per wave, bytes/s (0: none)")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "progress interval")
	return cmd
}

type waves struct {
	f        *cmdutil.Factory
	svc      *reassign.Service
	throttle int64
	interval time.Duration
	// the throttles this run answers for
	ledger *reassign.Ledger
}

func (w *waves) out(format string, a ...any) { fmt.Fprintf(w.f.IO.Out, format, a...) }

// release gives back the throttles no move needs any more and prints what
// it cleared and kept.
func (w *waves) release(ctx context.Context) error {
	if w.ledger.Empty() {
		return nil
	}
	rel, err := w.svc.Release(ctx, w.ledger)
	if err != nil {
		return err
	}
	for _, l := range []string{rel.ClearedLine(), rel.KeptLine()} {
		if l != "" {
			w.out("%s\n", l)
		}
	}
	return nil
}

func (w *waves) run(ctx context.Context, p *reassign.Plan, maxMoves int) (err error) {
	w.ledger = reassign.NewLedger()
	defer func() {
		if errors.Is(err, context.Canceled) {
			w.out("Interrupted: the wave's reassignments continue; run the plan again to resume.\n")
		}
		if w.ledger.Empty() {
			return
		}
		// Release by the same rule, even when ctx was cancelled.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		cerr := w.release(cctx)
		if cerr != nil && errors.Is(err, context.Canceled) {
			w.out("Releasing the throttles failed: %v\n", cerr)
		}
		if err == nil {
			err = cerr
		}
	}()
	targets := p.Targets()
	current, err := w.svc.PartitionAssignment(ctx, reassign.SortedTPs(targets))
	if err != nil {
		return err
	}
	var todo []reassign.TP
	for _, tp := range reassign.SortedTPs(targets) {
		if !equal(current[tp], targets[tp]) {
			todo = append(todo, tp)
		}
	}
	if len(todo) == 0 {
		w.out("Every partition of the plan is on its target replicas.\n")
		return nil
	}
	n := (len(todo) + maxMoves - 1) / maxMoves
	w.out("%d of %s to move, in %s of at most %d.\n", len(todo), reassign.Count(len(targets), "partition", "partitions"),
		reassign.Count(n, "wave", "waves"), maxMoves)
	for i := 0; i < n; i++ {
		wave := todo[i*maxMoves : min(len(todo), (i+1)*maxMoves)]
		if err := w.runWave(ctx, i+1, n, wave, targets, current); err != nil {
			return err
		}
	}
	if len(todo) == 1 {
		w.out("The partition moved.\n")
	} else {
		w.out("All %d partitions moved.\n", len(todo))
	}
	return nil
}

func equal(a, b []int32) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func (w *waves) runWave(ctx context.Context, k, n int, wave []reassign.TP, targets, current map[reassign.TP][]int32) error {
	proposed := map[reassign.TP][]int32{}
	names := make([]string, len(wave))
	for i, tp := range wave {
		proposed[tp] = targets[tp]
		names[i] = tp.String()
	}
	w.out("Wave %d/%d: %s\n", k, n, joinComma(names))
	// The wave's partitions already moving (a run interrupted before):
	// their throttles are this run's to clear once they are done.
	ongoing, err := w.svc.ListReassignments(ctx, wave)
	if err != nil {
		return err
	}
	for tp, o := range ongoing {
		w.ledger.Saw(tp, o)
	}
	if w.throttle > 0 {
		moves, err := reassign.MoveMap(ongoing, proposed, current)
		if err != nil {
			return err
		}
		if err := w.svc.ApplyThrottles(ctx, w.ledger, moves, w.throttle); err != nil {
			return err
		}
	}
	errs, err := w.svc.Alter(ctx, proposed, true)
	if err != nil {
		return err
	}
	if len(errs) > 0 {
		tp := reassign.SortedTPs(errs)[0]
		return fmt.Errorf("wave %d: %s: %v (and %d more)", k, tp, errs[tp], len(errs)-1)
	}
	base, err := w.svc.Snap(ctx, wave)
	if err != nil {
		return err
	}
	tr := &reassign.Tracker{Window: reassign.EtaWindow(w.interval)}
	tr.Add(base)
	for {
		if err := sleepCtx(ctx, w.interval); err != nil {
			return err
		}
		cur, err := w.svc.Snap(ctx, wave)
		if err != nil {
			return err
		}
		p := tr.Add(cur)
		if len(cur.Ongoing) == 0 {
			break
		}
		eta := "-"
		if p.EtaSec != nil {
			eta = (time.Duration(*p.EtaSec) * time.Second).String()
		}
		w.out("  wave %d/%d: %d moving, %s of %s copied (%.1f%%), %s/s, ETA %s\n", k, n, len(cur.Ongoing),
			reassign.HumanBytes(p.CopiedBytes), reassign.HumanBytes(p.TargetBytes), p.Percent, reassign.HumanBytes(int64(p.BytesPerSec)), eta)
	}
	w.out("Wave %d/%d done.\n", k, n)
	return w.release(ctx)
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}
