package replicaverification

import (
	"context"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/replicas"
	"github.com/kboxdev/kbox/pkg/topics"
	"github.com/spf13/cobra"
)

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox replicas` tree: `kbox replicas verify`.
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "replicas", Short: short}
	root.AddCommand(newVerifyCmd(f))
	return root
}

// verifyFlags are `kbox replicas verify`'s options.
type verifyFlags struct {
	conn       cmdutil.ConnFlags
	format     string
	topic      string
	fetchBytes int32
	maxWaitMs  int32
	parallel   int
	duration   time.Duration
	internal   bool
}

func newVerifyCmd(f *cmdutil.Factory) *cobra.Command {
	var v verifyFlags
	cmd := &cobra.Command{
		Use:   "verify [--topic REGEX] [--duration D]",
		Short: "Do the in-sync replicas of every partition hold the same records?",
		Long: `Compares, on every partition of the topics --topic selects (a regex matched
whole; every topic when absent; internal topics only with
--include-internal), the copies its in-sync replicas hold, from the
leader's log start offset up to its high watermark as they are when the
run begins. Every batch is read from every
replica (a follower answers a debugging consumer's fetch), its CRC is
recomputed, and it is compared byte for byte with the leader's.

A partition whose replicas differ is named with the first offset whose
record differs, the replica at fault when a CRC tells it (crc_mismatch),
else the replica that differs from the leader (records_differ,
batches_differ). LAG is the high watermark minus the offset verified to.
Replicas out of sync are left out (JSON lists them).

Each replica's log cleaner compacts on its own schedule, so the replicas of
a compacted topic (the internal topics are) may hold differently compacted
batches below the cleaner's point: batches_differ there is compaction, not
corruption.

Memory is bounded by --fetch-bytes x replicas x --parallel, not by the
topics. The run ends at the high watermark, or at --duration: partitions
not done by then are incomplete.

Exit status: 0 when every replica agrees; 1 when a partition's replicas
differ; 3 when a partition could not be verified to its high watermark
(a replica unreachable or lagging, or --duration reached) and none differ.`,
		Example: `  # every partition of every topic
  kbox replicas verify
  # the orders topics, at most 5 minutes, as JSON
  kbox replicas verify --topic 'orders.*' --duration 5m -o json`,
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return cmdutil.FlagErrorf("unexpected argument %q (the topic is --topic)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return runVerify(cmdutil.Context(cmd), f, &v) },
	}
	fl := cmd.Flags()
	fl.StringVar(&v.topic, "topic", "", "topics, a regex matched whole (default: every topic)")
	fl.Int32Var(&v.fetchBytes, "fetch-bytes", 1<<20, "the most one fetch from one replica asks for")
	fl.Int32Var(&v.maxWaitMs, "max-wait-ms", 1000, "how long a broker may wait for records a lagging replica lacks")
	fl.IntVar(&v.parallel, "parallel", 8, "partitions compared at once")
	fl.DurationVar(&v.duration, "duration", 0, "stop after this long (default: when every partition reaches its high watermark)")
	fl.BoolVar(&v.internal, "include-internal", false, "compare the internal topics too (compacted: see Long)")
	v.conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &v.format, nativeFormats)
	return cmd
}

func runVerify(ctx context.Context, f *cmdutil.Factory, v *verifyFlags) error {
	switch {
	case v.fetchBytes <= 0:
		return cmdutil.FlagErrorf("--fetch-bytes must be positive")
	case v.maxWaitMs < 0:
		return cmdutil.FlagErrorf("--max-wait-ms must not be negative")
	case v.parallel <= 0:
		return cmdutil.FlagErrorf("--parallel must be positive")
	case v.duration < 0:
		return cmdutil.FlagErrorf("--duration must not be negative")
	}
	req := replicas.Request{FetchBytes: v.fetchBytes, MaxWaitMs: v.maxWaitMs, Parallel: v.parallel, Stalls: 10}
	var filter *topics.Filter
	if v.topic != "" {
		var err error
		if filter, err = topics.NewFilter(v.topic); err != nil {
			return cmdutil.FlagErrorf("--topic: %v", err)
		}
	}
	req.Include = func(t string) bool {
		return (filter == nil || filter.Allowed(t, false)) && (v.internal || !topics.IsInternal(t))
	}
	cl, err := v.conn.Connect(ctx, f, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	run := ctx
	if v.duration > 0 {
		var cancel context.CancelFunc
		run, cancel = context.WithTimeout(ctx, v.duration)
		defer cancel()
	}
	rep, err := replicas.Verify(run, cl.Client, req)
	if err != nil {
		return cl.Explain(err)
	}
	if err := output.Print(f.IO, output.Format(v.format), rep); err != nil {
		return err
	}
	switch {
	case rep.Diverged > 0:
		return cmdutil.Exit(cmdutil.ExitFailure)
	case rep.Incomplete > 0:
		return cmdutil.Exit(cmdutil.ExitVerifyFailed)
	}
	return nil
}
