package reassignpartitions

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"sort"
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
running the same plan again continues where it stopped. On Ctrl-C (or
SIGTERM) the throttles this command set are cleared before it exits; the
wave's reassignments keep running, unthrottled (kafka-reassign-partitions
--cancel stops them).`,
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
	// what the current wave set, cleared after it and on interruption
	setBrokers []int32
	setTopics  []string
}

func (w *waves) out(format string, a ...any) { fmt.Fprintf(w.f.IO.Out, format, a...) }

func (w *waves) run(ctx context.Context, p *reassign.Plan, maxMoves int) (err error) {
	defer func() {
		if len(w.setBrokers) == 0 && len(w.setTopics) == 0 {
			return
		}
		// Clear what this command set, even when ctx was cancelled.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		brokers, topics := w.setBrokers, w.setTopics
		cerr := w.clear(cctx)
		if errors.Is(err, context.Canceled) {
			if cerr != nil {
				w.out("Interrupted; clearing the throttles failed: %v\n", cerr)
			} else {
				w.out("Interrupted: throttles cleared on brokers %s and topics %s; the wave's reassignments continue unthrottled. Run the plan again to resume.\n",
					reassign.JoinIDs(brokers, ","), orNone(topics))
			}
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
	w.out("%d of %d partitions to move, in %d wave(s) of at most %d.\n", len(todo), len(targets), n, maxMoves)
	for i := 0; i < n; i++ {
		wave := todo[i*maxMoves : min(len(todo), (i+1)*maxMoves)]
		if err := w.runWave(ctx, i+1, n, wave, targets, current); err != nil {
			return err
		}
	}
	w.out("All %d partitions moved; no throttle left.\n", len(todo))
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
	if w.throttle > 0 {
		ongoing, err := w.svc.ListReassignments(ctx, wave)
		if err != nil {
			return err
		}
		moves, err := reassign.MoveMap(ongoing, proposed, current)
		if err != nil {
			return err
		}
		leader, follower := reassign.TopicThrottleValues(moves)
		brokers := reassign.ReassigningBrokers(moves)
		w.setBrokers = brokers
		for t := range leader {
			w.setTopics = append(w.setTopics, t)
		}
		sort.Strings(w.setTopics)
		if err := w.svc.SetTopicThrottles(ctx, leader, follower); err != nil {
			return err
		}
		if err := w.svc.SetBrokerConfigs(ctx, brokers, w.throttle, reassign.LeaderRate, reassign.FollowerRate); err != nil {
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
	for {
		if err := sleepCtx(ctx, w.interval); err != nil {
			return err
		}
		cur, err := w.svc.Snap(ctx, wave)
		if err != nil {
			return err
		}
		if len(cur.Ongoing) == 0 {
			break
		}
		p := reassign.BuildProgress(base, cur)
		eta := "-"
		if p.EtaSec != nil {
			eta = (time.Duration(*p.EtaSec) * time.Second).String()
		}
		w.out("  wave %d/%d: %d moving, %s of %s copied (%.1f%%), %s/s, ETA %s\n", k, n, len(cur.Ongoing),
			reassign.HumanBytes(p.CopiedBytes), reassign.HumanBytes(p.TargetBytes), p.Percent, reassign.HumanBytes(int64(p.BytesPerSec)), eta)
	}
	if err := w.clear(ctx); err != nil {
		return err
	}
	w.out("Wave %d/%d done.\n", k, n)
	return nil
}

// clear removes the throttles the current wave set.
func (w *waves) clear(ctx context.Context) error {
	if len(w.setBrokers) > 0 {
		if err := w.svc.ClearBrokerThrottles(ctx, w.setBrokers); err != nil {
			return err
		}
	}
	if len(w.setTopics) > 0 {
		if err := w.svc.ClearTopicThrottles(ctx, w.setTopics); err != nil {
			return err
		}
	}
	w.setBrokers, w.setTopics = nil, nil
	return nil
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
