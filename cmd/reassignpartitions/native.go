package reassignpartitions

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/reassign"
)

// NewNativeCmd builds the native tree: kbox reassign status.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "reassign", Short: short, SilenceErrors: true, SilenceUsage: true}
	root.AddCommand(newStatusCmd(f), newExecuteCmd(f), newPlanCmd(f))
	return root
}

var statusFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

func newStatusCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn     cmdutil.ConnFlags
		format   string
		plan     string
		watch    bool
		preserve bool
		interval time.Duration
	)
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Reassignments in progress: bytes copied, rate, ETA, stuck partitions",
		Long: `Shows every reassignment in progress (or those of --plan): per partition the
bytes the adding replicas hold against the leader's (from DescribeLogDirs),
the copy rate over the last --interval (a throttled follower copies in
bursts, about one 1 MiB fetch every 6 to 11 s, so it is often 0), and an
ETA. With --watch the ETA's rate is taken over the last 45 s or more, from
the first burst in it to the last; until two bursts were seen, and without
--watch, it is capped at the adding broker's follower throttle. A partition
that copied nothing over that time (at least 15 s when throttled) is
reported as stuck, with why. --watch repeats until no reassignment is left.

Then, unless --preserve-throttles, it clears the throttles of the moves it
saw, and only those (docs/reassign.md): the throttled-replica entries of
those partitions, and the leader and follower rates of the brokers they
used, but the rates only when no reassignment is in progress anywhere in
the cluster. A watch that saw nothing move clears nothing. It prints what
it cleared, and what it left and why.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if interval <= 0 {
				return &cmdutil.FlagError{Err: errors.New("--interval must be positive")}
			}
			var tps []reassign.TP
			if plan != "" {
				data, err := os.ReadFile(plan)
				if err != nil {
					return err
				}
				p, err := reassign.ParsePlan(data)
				if err != nil {
					return fmt.Errorf("%s: %v", plan, err)
				}
				for _, mv := range p.Moves {
					tps = append(tps, mv.TP)
				}
			}
			cl, err := conn.Connect(cmd.Context(), f, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			svc := &reassign.Service{Client: cl.Client, Admin: cl.Admin()}
			err = status(cmd.Context(), f, svc, output.Format(format), tps, watch, preserve, interval)
			if err != nil && !errors.Is(err, context.Canceled) {
				return cl.Explain(err)
			}
			return err
		},
	}
	conn.Register(cmd, false)
	cmd.Flags().StringVar(&plan, "plan", "", "only the partitions of this reassignment JSON file")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "repeat until done, then clear the throttles of the moves it saw")
	cmd.Flags().BoolVar(&preserve, "preserve-throttles", false, "with --watch: leave the throttles")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "sampling interval for the rate")
	cmdutil.AddOutputFlag(f, cmd, &format, statusFormats)
	return cmd
}

func status(ctx context.Context, f *cmdutil.Factory, svc *reassign.Service, format output.Format, tps []reassign.TP, watch, preserve bool, interval time.Duration) error {
	prev, err := svc.Snap(ctx, tps)
	if err != nil {
		return err
	}
	// RATE/S is over the last interval; the ETA's rate over a window that
	// spans a throttled follower's copy bursts.
	tr := &reassign.Tracker{Window: reassign.EtaWindow(interval)}
	tr.Add(prev)
	start := time.Now()
	// The throttles of the moves this watch sees are the ones it answers for.
	ledger := reassign.NewLedger()
	seen := map[string]bool{}
	frames := output.NewFrames(f.IO, format)
	for {
		for tp, o := range prev.Ongoing {
			seen[tp.Topic] = true
			ledger.Saw(tp, o)
		}
		if len(prev.Ongoing) == 0 {
			break
		}
		if err := reassign.Sleep(ctx, interval); err != nil {
			return err
		}
		cur, err := svc.Snap(ctx, tps)
		if err != nil {
			return err
		}
		// Without --watch: the one interval (partitions done in between
		// are left out).
		p := tr.Add(cur)
		switch {
		case watch && len(cur.Ongoing) > 0:
			// One frame per interval, as every watch prints them.
			err := frames.Print(p, func(w io.Writer) error {
				fmt.Fprintf(w, "%s\n", time.Now().Format("15:04:05"))
				return output.Print(f.IO, format, p)
			})
			if err != nil {
				return err
			}
		case !watch && len(cur.Ongoing) == 0:
			fmt.Fprintln(f.IO.Out, "No partition reassignment in progress.")
		case !watch:
			if err := output.Print(f.IO, format, p); err != nil {
				return err
			}
		}
		prev = cur
		if !watch {
			return nil
		}
	}
	if !watch {
		if format == output.Table {
			fmt.Fprintln(f.IO.Out, "No partition reassignment in progress.")
			return nil
		}
		return output.Print(f.IO, format, reassign.BuildProgress(nil, prev))
	}
	sum := &reassign.WatchSummary{Done: true, ElapsedSec: time.Since(start).Seconds(), Topics: []string{}, Brokers: []int32{}}
	for t := range seen {
		sum.Topics = append(sum.Topics, t)
	}
	sort.Strings(sum.Topics)
	if !preserve {
		rel, err := svc.Release(ctx, ledger)
		if err != nil {
			return err
		}
		sum.SetReleased(rel)
	}
	if format != output.Table {
		return output.Print(f.IO, format, sum)
	}
	if len(sum.Topics) == 0 {
		fmt.Fprintln(f.IO.Out, "No partition reassignment in progress; this watch saw no move and clears no throttle.")
	} else {
		fmt.Fprintf(f.IO.Out, "All reassignments done after %s (topics: %s).\n", (time.Duration(sum.ElapsedSec) * time.Second).String(), orNone(sum.Topics))
	}
	if sum.Released != nil {
		if l := sum.Released.ClearedLine(); l != "" {
			fmt.Fprintln(f.IO.Out, l)
		}
		if l := sum.Released.KeptLine(); l != "" {
			fmt.Fprintln(f.IO.Out, l)
		}
	}
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}
