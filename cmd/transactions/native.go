package transactions

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/transactions"
	"github.com/spf13/cobra"
)

var nativeFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML}}

// NewNativeCmd builds the native `kbox transactions` tree: `kbox
// transactions hanging` (not find-... nor a prefix of an Apache
// subcommand's name).
func NewNativeCmd(f *cmdutil.Factory) *cobra.Command {
	root := &cobra.Command{Use: "transactions", Short: short}
	root.AddCommand(newHangingCmd(f))
	return root
}

func newHangingCmd(f *cmdutil.Factory) *cobra.Command {
	var (
		conn       cmdutil.ConnFlags
		format     string
		maxTimeout time.Duration
		watch      bool
		interval   time.Duration
		count      int
	)
	cmd := &cobra.Command{
		Use:   "hanging [--max-transaction-timeout DURATION]",
		Short: "Scan the whole cluster for hanging transactions, what they block, and how to abort them",
		Long: `Scans every partition of the cluster (DescribeProducers on each partition
leader, all brokers at once) for open transactions, asks their coordinators
about them (ListTransactions, DescribeTransactions), and reports the hanging
ones. A transaction is hanging when it has been open (idle since its
producer's last write) for longer than its own transaction timeout, which
its coordinator should have enforced, or, when no coordinator tracks it
for that partition (Apache's find-hanging case), for longer than 15
minutes. With --max-transaction-timeout every open transaction idle for
longer than that is reported, whatever its coordinator says.

For each one: the partition and its leader, the transactional id when a
coordinator knows the producer, producer id and epoch, coordinator epoch,
start offset, how long it has been open, the partition's last stable
offset (read_committed) and high watermark (blocked: the LSO is stuck at
the transaction's start, so read_committed consumers stop there), the
consumer groups with committed offsets on the partition (whether a group
reads with read_committed is the client's setting, unknown to the broker),
and the exact kafka-transactions abort command.

With --watch it scans again every --interval until interrupted (or
--count scans): a table redrawn in place on a terminal, a JSON line or a
YAML document per scan.

Exit status: 0 when nothing is hanging, 1 when something is (a verdict
command, for scripts and alerts; with --watch, the last scan's), 2 on a
usage error.`,
		Example: `  kbox transactions hanging
  kbox transactions hanging --max-transaction-timeout 5m -o json
  kbox transactions hanging --watch --interval 1m`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case maxTimeout < 0:
				return cmdutil.FlagErrorf("--max-transaction-timeout must not be negative")
			case interval <= 0:
				return cmdutil.FlagErrorf("--interval must be positive")
			case count < 0:
				return cmdutil.FlagErrorf("--count must not be negative")
			case !watch && (cmd.Flags().Changed("interval") || cmd.Flags().Changed("count")):
				return cmdutil.FlagErrorf("--interval and --count need --watch")
			}
			c, err := conn.Connection(f, nil)
			if err != nil {
				return err
			}
			ctx := cmdutil.Context(cmd)
			cl, err := f.ConnectedClient(ctx, c, kafka.Admin, kafka.Options{})
			if err != nil {
				return err
			}
			defer cl.Close()
			o := transactions.ScanOptions{MaxTimeout: maxTimeout, Bootstrap: strings.Join(c.Bootstrap, ",")}
			frames := output.NewFrames(f.IO, output.Format(format))
			frames.Gap = true
			for n := 1; ; n++ {
				rep, err := transactions.Scan(ctx, cl.Client, o)
				if err != nil {
					if ctx.Err() != nil {
						return nil
					}
					return cl.Explain(err)
				}
				text := func(io.Writer) error { return writeHanging(f.IO, rep) }
				switch {
				case watch:
					err = frames.Print(rep, text)
				case output.Format(format) == output.Table:
					err = text(nil)
				default:
					err = output.Print(f.IO, output.Format(format), rep)
				}
				if err != nil {
					return err
				}
				if !watch || n == count {
					if len(rep.Hanging) > 0 {
						return cmdutil.Exit(1)
					}
					return nil
				}
				select {
				case <-ctx.Done():
					return nil
				case <-time.After(interval):
				}
			}
		},
	}
	cmd.Flags().DurationVar(&maxTimeout, "max-transaction-timeout", 0, "report every open transaction idle for longer than this (e.g. 5m), whatever its coordinator says")
	cmd.Flags().BoolVarP(&watch, "watch", "w", false, "scan again every --interval until interrupted")
	cmd.Flags().DurationVar(&interval, "interval", 30*time.Second, "time between two scans with --watch")
	cmd.Flags().IntVar(&count, "count", 0, "with --watch, stop after this many scans (0: until interrupted)")
	conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &format, nativeFormats)
	return cmd
}

// writeHanging prints the report's table, then per transaction what it
// blocks and its abort command.
func writeHanging(s *output.IOStreams, rep *transactions.Report) error {
	for _, sk := range rep.Skipped {
		fmt.Fprintf(s.ErrOut, "warning: %s-%d not scanned: %s\n", sk.Topic, sk.Partition, sk.Error)
	}
	if len(rep.Hanging) == 0 {
		_, err := fmt.Fprintf(s.Out, "No hanging transactions (%d partitions scanned, %d open transactions).\n", rep.Partitions-len(rep.Skipped), rep.Open)
		return err
	}
	if err := output.Print(s, output.Table, rep); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n%d hanging transaction(s) on %d partitions scanned.\n", len(rep.Hanging), rep.Partitions)
	for _, h := range rep.Hanging {
		fmt.Fprintf(&b, "\n%s-%d: %s.\n", h.Topic, h.Partition, h.Reason)
		if h.Blocked {
			fmt.Fprintf(&b, "  blocks read_committed consumers: last stable offset %d, high watermark %d (%d records behind)\n", h.LastStableOffset, h.HighWatermark, h.RecordsBehind)
		}
		if len(h.Groups) > 0 {
			fmt.Fprintf(&b, "  groups with offsets on the partition: %s\n", strings.Join(h.Groups, ", "))
		}
		fmt.Fprintf(&b, "  abort: %s\n", h.AbortCommand)
	}
	_, err := io.WriteString(s.Out, b.String())
	return err
}
