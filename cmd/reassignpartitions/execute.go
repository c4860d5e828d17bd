package reassignpartitions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
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
			cl, err := conn.Connect(cmd.Context(), f, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			ctx := cmd.Context()
			defer cmdutil.CancelOnInterrupt(ctx)()
			w := &reassign.Waves{Service: &reassign.Service{Client: cl.Client, Admin: cl.Admin()}, MaxMoves: maxMoves,
				Throttle: throttle, Interval: interval, Report: wavesPrinter(f.IO.Out)}
			err = w.Run(ctx, p)
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

// wavesPrinter prints a run of waves: one line a step, the wave's progress
// every interval, what each release cleared and kept.
func wavesPrinter(out io.Writer) func(reassign.WaveEvent) {
	return func(e reassign.WaveEvent) {
		switch e.Kind {
		case reassign.WavesNothingToMove:
			fmt.Fprintf(out, "Every partition of the plan is on its target replicas.\n")
		case reassign.WavesPlanned:
			fmt.Fprintf(out, "%d of %s to move, in %s of at most %d.\n", e.Moves, reassign.Count(e.Partitions, "partition", "partitions"),
				reassign.Count(e.Waves, "wave", "waves"), e.MaxMoves)
		case reassign.WaveStarted:
			names := make([]string, len(e.TPs))
			for i, tp := range e.TPs {
				names[i] = tp.String()
			}
			fmt.Fprintf(out, "Wave %d/%d: %s\n", e.Wave, e.Waves, strings.Join(names, ","))
		case reassign.WaveProgress:
			p := e.Progress
			eta := "-"
			if p.EtaSec != nil {
				eta = (time.Duration(*p.EtaSec) * time.Second).String()
			}
			fmt.Fprintf(out, "  wave %d/%d: %d moving, %s of %s copied (%.1f%%), %s/s, ETA %s\n", e.Wave, e.Waves, e.Moving,
				reassign.HumanBytes(p.CopiedBytes), reassign.HumanBytes(p.TargetBytes), p.Percent, reassign.HumanBytes(int64(p.BytesPerSec)), eta)
		case reassign.WaveDone:
			fmt.Fprintf(out, "Wave %d/%d done.\n", e.Wave, e.Waves)
		case reassign.WavesReleased:
			for _, l := range []string{e.Released.ClearedLine(), e.Released.KeptLine()} {
				if l != "" {
					fmt.Fprintf(out, "%s\n", l)
				}
			}
		case reassign.WavesDone:
			if e.Moves == 1 {
				fmt.Fprintf(out, "The partition moved.\n")
			} else {
				fmt.Fprintf(out, "All %d partitions moved.\n", e.Moves)
			}
		case reassign.WavesInterrupted:
			fmt.Fprintf(out, "Interrupted: the wave's reassignments continue; run the plan again to resume.\n")
		case reassign.WavesReleaseFailed:
			fmt.Fprintf(out, "Releasing the throttles failed: %v\n", e.Err)
		}
	}
}
