package perf

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/sweep"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is `kbox perf produce|consume|e2e|merge|sweep`.
var Applet = cmdutil.Applet{Kind: cmdutil.Group, Alias: "perf", Short: short, New: NewCmd}

const short = "Native load tests with HDR latency, JSON/CSV results and merge"

// NewCmd builds `kbox perf`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{Use: "perf", Short: short}
	cmd.AddCommand(newProduceCmd(f), newConsumeCmd(f), newMergeCmd(f), sweep.NewCmd(f), newE2ECmd(f), newWorkerCmd(f), newDistributedCmd(f), newK8sJobCmd(f))
	return cmd
}

// perfFormats is what the perf results print as: a table, the JSON that
// `kbox perf merge` reads (with the encoded histogram and the interval
// series), or CSV.
var perfFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.CSV}}

// common are the flags every perf command shares: the connection, the
// interval of the series and the output format (decided before any load).
type common struct {
	conn     cmdutil.ConnFlags
	out      string
	interval time.Duration
}

func (c *common) flags(f *cmdutil.Factory, cmd *cobra.Command) {
	c.conn.Register(cmd, true)
	cmd.Flags().DurationVar(&c.interval, "interval", 5*time.Second, "interval of the per-interval series")
	cmdutil.AddOutputFlag(f, cmd, &c.out, perfFormats)
}

func warmupFlags(cmd *cobra.Command, records *int64, d *time.Duration) {
	cmd.Flags().Int64Var(records, "warmup-records", 0, "records at the start excluded from the statistics, on top of --records")
	cmd.Flags().DurationVar(d, "warmup-duration", 0, "time at the start excluded from the statistics, before --duration starts")
	cmd.Long = cmd.Short + ".\n\n" + perf.WarmupHelp
}

func checkWarmup(records int64, d time.Duration) error {
	if records < 0 || d < 0 {
		return cmdutil.FlagErrorf("--warmup-records and --warmup-duration must not be negative")
	}
	return nil
}

// progressLine is the live status of a load on the invocation's progress
// line (drawn only when stderr is a terminal).
func progressLine(f *cmdutil.Factory, verb string) func(perf.Progress) {
	pr := f.IO.Progress()
	if !pr.Enabled() {
		return nil
	}
	return func(p perf.Progress) {
		w := ""
		if p.Warmup {
			w = " (warm-up)"
		}
		tgt := ""
		if p.Target > 0 {
			tgt = fmt.Sprintf("/%d", p.Target)
		}
		pr.Update("%6.1fs %s %d%s  %.0f rec/s  p99 %.2f ms%s", p.Elapsed.Seconds(), verb, p.Done, tgt, p.Rate, p.P99Ms, w)
	}
}

// emit prints a result in the format the layer decided.
func emit(f *cmdutil.Factory, format string, res *perf.Result) error {
	f.IO.Progress().Clear()
	switch output.Format(format) {
	case output.JSON:
		return output.WriteJSON(f.IO.Out, res, false)
	case output.CSV:
		return output.Print(f.IO, output.CSV, output.Records{res.CSVHeader(), res.CSVRow()})
	}
	return output.WriteTable(f.IO, res.Header(), res.Rows())
}

func newProduceCmd(f *cmdutil.Factory) *cobra.Command {
	var c common
	var cfg perf.ProduceConfig
	var producers int
	var acks, compression string
	cmd := &cobra.Command{
		Use:   "produce --topic T (--records N | --duration D) [flags]",
		Short: "Produce load; every acknowledged record's latency goes into an HDR histogram",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Topic == "" {
				return cmdutil.FlagErrorf("--topic is required")
			}
			if cfg.Records <= 0 && cfg.Duration <= 0 {
				return cmdutil.FlagErrorf("give --records N or --duration D")
			}
			if err := checkWarmup(cfg.WarmupRecords, cfg.WarmupDuration); err != nil {
				return err
			}
			if cfg.RecordSize <= 0 || producers <= 0 {
				return cmdutil.FlagErrorf("--record-size and --producers must be positive")
			}
			conn, err := c.conn.Connection(f, map[string]string{"acks": acks, "compression.type": compression})
			if err != nil {
				return err
			}
			defaults := config.NewProperties()
			defaults.Set("client.id", "kbox-perf-producer")
			var clients []*kgo.Client
			var settings []string
			for i := 0; i < producers; i++ {
				cl, err := f.ConnectedClient(cmd.Context(), conn, kafka.Producer, kafka.Options{Defaults: defaults,
					Tune: func(s *kafka.Settings) { s.MaxRecordBytes = cfg.RecordSize }})
				if err != nil {
					return err
				}
				defer cl.Close()
				clients = append(clients, cl.Client)
				settings = cl.Settings.EffectiveSorted()
			}
			cfg.Settings, cfg.Interval = settings, c.interval
			res, err := perf.Produce(cmd.Context(), clients, cfg, progressLine(f, "acked"))
			if res != nil {
				if e := emit(f, c.out, res); e != nil {
					return e
				}
			}
			if errors.Is(err, kerr.UnknownTopicOrPartition) {
				return fmt.Errorf("topic %s not found", cfg.Topic)
			}
			return err
		},
	}
	c.flags(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&cfg.Topic, "topic", "", "topic to produce to")
	fl.Int64Var(&cfg.Records, "records", 0, "measured records to produce (total over all producers; warm-up records come on top)")
	fl.DurationVar(&cfg.Duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&cfg.RecordSize, "record-size", 1024, "value size in bytes")
	fl.Float64Var(&cfg.Rate, "throughput", -1, "target records/s in total (-1: unthrottled); latency is then measured from the intended send time")
	fl.IntVar(&producers, "producers", 1, "producer goroutines, each with its own client")
	fl.IntVar(&cfg.KeyCardinality, "key-cardinality", 0, "keyed records with this many distinct keys (0: no keys)")
	warmupFlags(cmd, &cfg.WarmupRecords, &cfg.WarmupDuration)
	fl.BoolVar(&cfg.RepeatPayload, "repeat-payload", false, "send the same value every time (compression results become meaningless)")
	fl.Int64Var(&cfg.Seed, "random-seed", 0, "seed of the payload generator")
	fl.StringVar(&acks, "acks", "", "acks: all, 1 or 0")
	fl.StringVar(&compression, "compression", "", "compression.type: none, gzip, snappy, lz4, zstd")
	return cmd
}

func newConsumeCmd(f *cmdutil.Factory) *cobra.Command {
	var c common
	var cfg perf.ConsumeConfig
	var consumers int
	var group string
	var fromLatest bool
	cmd := &cobra.Command{
		Use:   "consume --topic T --records N [flags]",
		Short: "Consume load; end-to-end latency from record timestamps in an HDR histogram",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Topic == "" {
				return cmdutil.FlagErrorf("--topic is required")
			}
			if consumers <= 0 {
				return cmdutil.FlagErrorf("--consumers must be positive")
			}
			if err := checkWarmup(cfg.WarmupRecords, cfg.WarmupDuration); err != nil {
				return err
			}
			if group == "" {
				group = fmt.Sprintf("kbox-perf-%d", time.Now().UnixNano())
			}
			reset := "earliest"
			if fromLatest {
				reset = "latest"
			}
			conn, err := c.conn.Connection(f, map[string]string{"group.id": group, "auto.offset.reset": reset})
			if err != nil {
				return err
			}
			defaults := config.NewProperties()
			defaults.Set("client.id", "kbox-perf-consumer")
			var clients []*kgo.Client
			var settings []string
			for i := 0; i < consumers; i++ {
				cl, err := f.ConnectedClient(cmd.Context(), conn, kafka.Consumer, kafka.Options{Defaults: defaults, Extra: []kgo.Opt{kgo.ConsumeTopics(cfg.Topic)}})
				if err != nil {
					return err
				}
				defer cl.Close()
				clients = append(clients, cl.Client)
				settings = cl.Settings.EffectiveSorted()
				cfg.MaxPollRecords = cl.Settings.MaxPollRecords
			}
			cfg.Settings, cfg.Interval = settings, c.interval
			res, err := perf.Consume(cmd.Context(), clients, cfg, progressLine(f, "received"))
			if res != nil {
				if e := emit(f, c.out, res); e != nil {
					return e
				}
			}
			if errors.Is(err, perf.ErrIdle) {
				if res.Records == 0 && res.WarmupRecords == 0 && !topicExists(cmd.Context(), clients[0], cfg.Topic) {
					return fmt.Errorf("topic %s not found", cfg.Topic)
				}
				return fmt.Errorf("stopped after %d of %d measured records (%d warm-up records before them): %v", res.Records, cfg.Records, res.WarmupRecords, err)
			}
			return err
		},
	}
	c.flags(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&cfg.Topic, "topic", "", "topic to consume")
	fl.Int64Var(&cfg.Records, "records", 0, "measured records to consume (total; warm-up records come on top)")
	fl.DurationVar(&cfg.Duration, "duration", 0, "measure for this long (after the warm-up)")
	fl.DurationVar(&cfg.IdleTimeout, "timeout", 10*time.Second, "stop when no record arrives for this long")
	warmupFlags(cmd, &cfg.WarmupRecords, &cfg.WarmupDuration)
	fl.IntVar(&consumers, "consumers", 1, "consumer goroutines in one group, each with its own client")
	fl.StringVar(&group, "group", "", "group id (default: a fresh one)")
	fl.BoolVar(&fromLatest, "from-latest", false, "start at the end when the group has no offsets")
	return cmd
}

func newMergeCmd(f *cmdutil.Factory) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge RESULT.json...",
		Short: "Merge JSON results of several runs into exact aggregate percentiles",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var rs []*perf.Result
			for _, a := range args {
				r, err := readResultFile(f, a)
				if err != nil {
					return fmt.Errorf("%s: %v", a, err)
				}
				rs = append(rs, r)
			}
			m, err := perf.Merge(rs)
			if err != nil {
				return err
			}
			return emit(f, out, m)
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &out, perfFormats)
	return cmd
}

func readResultFile(f *cmdutil.Factory, path string) (*perf.Result, error) {
	var rd io.Reader
	if path == "-" {
		rd = f.IO.In
	} else {
		fh, err := os.Open(path)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		rd = fh
	}
	return perf.ReadResult(rd)
}

// topicExists reports whether the cluster has topic (true when it cannot
// tell).
func topicExists(ctx context.Context, cl *kgo.Client, topic string) bool {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx, topic)
	if err != nil {
		return true
	}
	d, ok := td[topic]
	return ok && !errors.Is(d.Err, kerr.UnknownTopicOrPartition)
}
