package reassignpartitions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/javafmt"
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
the copy rate over --interval, and an ETA (from the rate, capped at the adding
broker's follower throttle when one is set: a throttled broker copies its
first few MB at once, then at the throttle); a partition that copied nothing
is reported as stuck, with why. --watch repeats until no reassignment is
left, then clears the replication throttles (broker rates on every broker,
throttled replicas of the topics it saw move) unless --preserve-throttles,
and prints a summary.`,
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
			c, err := conn.Connection(f, nil)
			if err != nil {
				return err
			}
			cl, err := f.ConnectedClient(cmd.Context(), c, kafka.Admin, kafka.Options{})
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
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "repeat until done, then clear the throttles")
	cmd.Flags().BoolVar(&preserve, "preserve-throttles", false, "with --watch: leave the throttles")
	cmd.Flags().DurationVar(&interval, "interval", 2*time.Second, "sampling interval for the rate")
	cmdutil.AddOutputFlag(f, cmd, &format, statusFormats)
	return cmd
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(d):
		return nil
	}
}

func status(ctx context.Context, f *cmdutil.Factory, svc *reassign.Service, format output.Format, tps []reassign.TP, watch, preserve bool, interval time.Duration) error {
	prev, err := svc.Snap(ctx, tps)
	if err != nil {
		return err
	}
	// With --watch the rate is averaged since the first look: a throttled
	// follower fetches in bursts, so one interval can show nothing.
	base := prev
	start := time.Now()
	seen := map[string]bool{}
	for {
		for tp := range prev.Ongoing {
			seen[tp.Topic] = true
		}
		if len(prev.Ongoing) == 0 {
			break
		}
		if err := sleepCtx(ctx, interval); err != nil {
			return err
		}
		cur, err := svc.Snap(ctx, tps)
		if err != nil {
			return err
		}
		// Partitions done in between are left out of the rate.
		from := prev
		if watch {
			from = base
		}
		p := reassign.BuildProgress(from, cur)
		if len(cur.Ongoing) > 0 || !watch {
			if format == output.Table && watch {
				fmt.Fprintf(f.IO.Out, "%s\n", time.Now().Format("15:04:05"))
			}
			if len(cur.Ongoing) == 0 {
				fmt.Fprintln(f.IO.Out, "No partition reassignment in progress.")
			} else if err := output.Print(f.IO, format, p); err != nil {
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
	sum := &watchSummary{Done: true, ElapsedSec: time.Since(start).Seconds(), Topics: []string{}, Brokers: []int32{}}
	for t := range seen {
		sum.Topics = append(sum.Topics, t)
	}
	sort.Strings(sum.Topics)
	if !preserve {
		bs, err := svc.Brokers(ctx)
		if err != nil {
			return err
		}
		sum.Brokers = javafmt.IntSetOrder(reassign.BrokerIDs(bs), -1)
		if err := svc.ClearBrokerThrottles(ctx, sum.Brokers); err != nil {
			return err
		}
		if err := svc.ClearTopicThrottles(ctx, sum.Topics); err != nil {
			return err
		}
		sum.ThrottlesCleared = true
	}
	if format != output.Table {
		return output.Print(f.IO, format, sum)
	}
	fmt.Fprintf(f.IO.Out, "All reassignments done after %s (topics: %s).\n", (time.Duration(sum.ElapsedSec) * time.Second).String(), orNone(sum.Topics))
	if sum.ThrottlesCleared {
		fmt.Fprintf(f.IO.Out, "Throttles cleared on brokers %s and topics %s.\n", reassign.JoinIDs(sum.Brokers, ","), orNone(sum.Topics))
	}
	return nil
}

func orNone(s []string) string {
	if len(s) == 0 {
		return "none"
	}
	return strings.Join(s, ",")
}

// watchSummary ends kbox reassign status --watch.
type watchSummary struct {
	Done             bool     `json:"done"`
	ElapsedSec       float64  `json:"elapsed_sec"`
	Topics           []string `json:"topics"`
	ThrottlesCleared bool     `json:"throttles_cleared"`
	Brokers          []int32  `json:"throttles_cleared_brokers"`
}
