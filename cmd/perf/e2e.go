package perf

import (
	"strconv"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/e2elatency"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/spf13/cobra"
)

// newE2ENativeCmd is `kbox perf e2e`: the kafka-e2e-latency measurement
// (one record in flight, send then poll) with an HDR histogram and the
// JSON result that `kbox perf merge` reads.
func newE2ECmd(f *cmdutil.Factory) *cobra.Command {
	var c common
	var cfg perf.E2EConfig
	var acks, group string
	cmd := &cobra.Command{
		Use:   "e2e --topic T --records N [flags]",
		Short: "End-to-end latency: send one record, consume it, repeat; exact HDR histogram",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if cfg.Duration > 0 && !cmd.Flags().Changed("records") {
				cfg.Records = 0
			}
			if err := checkWarmup(int64(cfg.WarmupRecords), cfg.WarmupDuration); err != nil {
				return err
			}
			switch {
			case cfg.Topic == "":
				return cmdutil.FlagErrorf("--topic is required")
			case cfg.Records < 0 || cfg.Duration < 0 || (cfg.Records == 0 && cfg.Duration == 0):
				return cmdutil.FlagErrorf("give a positive --records N or --duration D")
			case cfg.RecordSize < 0 || cfg.KeySize < 0 || cfg.NumHeaders < 0 || cfg.HeaderKeySize < 0 || cfg.HeaderValueSize < -1:
				return cmdutil.FlagErrorf("sizes must be >= 0 (--header-size may be -1 for null header values)")
			case acks != "1" && acks != "all" && acks != "-1":
				return cmdutil.FlagErrorf("--acks %q: latency testing needs acknowledged sends: use 1 or all", acks)
			case cfg.PollTimeout <= 0:
				return cmdutil.FlagErrorf("--poll-timeout must be positive")
			}
			if acks == "-1" {
				acks = "all"
			}
			if group == "" {
				group = "kbox-perf-e2e-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
			}
			cfg.Group, cfg.Interval = group, c.interval
			ov, err := c.conn.Overrides(nil)
			if err != nil {
				return err
			}
			prod, cons, err := e2elatency.Clients(cmd.Context(), f, ov, acks)
			if err != nil {
				return err
			}
			defer prod.Close()
			defer cons.Close()
			cfg.Settings = append(prod.Settings.EffectiveSorted(), "e2e.poll.timeout="+cfg.PollTimeout.String())
			var prog func(int, time.Duration)
			if pr := f.IO.Progress(); pr.Enabled() {
				start := time.Now()
				prog = func(i int, d time.Duration) {
					pr.Update("%6.1fs record %d  last %.3f ms", time.Since(start).Seconds(), i+1, float64(d.Nanoseconds())/1e6)
				}
			}
			obs := perf.E2EObserver{
				CreatingTopic: func(t string) {
					f.Warn("topic %s does not exist: creating it with 1 partition and replication factor 1", t)
				},
				Record: prog,
			}
			run, err := perf.RunE2E(cmd.Context(), prod.Client, cons.Client, prod.Admin(), cfg, obs)
			if err != nil {
				return prod.Explain(err)
			}
			return emit(f, c.out, run.Result)
		},
	}
	c.flags(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&cfg.Topic, "topic", "", "topic (created with 1 partition, replication factor 1 when missing, as Apache does)")
	fl.IntVar(&cfg.Records, "records", 1000, "measured records to send, one at a time (warm-up records come on top)")
	fl.DurationVar(&cfg.Duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&cfg.RecordSize, "record-size", 100, "value size in bytes")
	fl.IntVar(&cfg.KeySize, "key-size", 0, "key size in bytes (an empty key when 0, as Apache)")
	fl.IntVar(&cfg.NumHeaders, "headers", 0, "headers per record")
	fl.IntVar(&cfg.HeaderKeySize, "header-key-size", 0, "header key size in bytes")
	fl.IntVar(&cfg.HeaderValueSize, "header-size", 0, "header value size in bytes (-1: null values)")
	fl.IntVar(&cfg.WarmupRecords, "warmup-records", 0, "records at the start excluded from the statistics, on top of --records")
	fl.DurationVar(&cfg.WarmupDuration, "warmup-duration", 0, "time at the start excluded from the statistics, before --duration starts")
	cmd.Long = cmd.Short + ".\n\n" + perf.WarmupHelp
	fl.StringVar(&acks, "acks", "all", "producer acks: 1 or all")
	fl.StringVar(&group, "group", "", "group the consumed positions are committed for (default: a fresh kbox-perf-e2e-<ms>)")
	fl.DurationVar(&cfg.PollTimeout, "poll-timeout", perf.E2EPollTimeout, "fail when a record does not come back within this time")
	return cmd
}
