package perf

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/perf/trogdorflags"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/spf13/cobra"
)

const distributedLong = `Run kbox perf produce, consume or e2e on several machines at once through
Apache Kafka's Trogdor: one ExternalCommand task per agent, submitted to the
coordinator's REST API, each running "kbox perf worker" on its agent (kbox
must be installed there: --worker-command). Every agent starts its load at
the same instant (--start-delay after the submission).

--records and --throughput are totals over all agents, split evenly (the
first agents take one record more when the count does not divide);
--per-agent makes them per agent. --key-cardinality is split the same way
into disjoint key ranges. Each agent gets its own client ids
(kbox-perf-producer-AGENT) and payload seed.

An e2e run keeps one record in flight per agent, each on its own topic
TOPIC-AGENT (created with 1 partition when missing, as kafka-e2e-latency
does), so the agents' round trips never mix.

Progress is the live sum over the agents; Ctrl-C stops every task. The
result merges the agents that finished (exact percentiles from their HDR
histograms) and lists every agent: an agent that failed, or whose status
stopped changing for --agent-timeout (lost), is reported with what it had
measured, and the command exits 1.

-o apache prints the Apache tool's final lines for the merged totals
(kafka-producer-perf-test's, kafka-consumer-perf-test's header and line,
EndToEndLatency's two lines). --agent-counts 1,2,3 runs once with the first
N agents for each N (one quick pass); kbox perf sweep produce --vary
agents=1,2,3 runs the same driver with warm-up, repeats and a report.

The client properties (secrets included) travel in the task specs, which the
coordinator keeps until kbox deletes the tasks at the end of the run.
`

// distFormats: the perf formats, plus the Apache tool's final lines.
var distFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.CSV, output.Apache}}

// distFlags are the flags every distributed subcommand has.
type distFlags struct {
	conn        cmdutil.ConnFlags
	trog        trogdorflags.Flags
	out         string
	interval    time.Duration
	perAgent    bool
	agentCounts string
	duration    time.Duration
	warmup      time.Duration
	// kbox perf k8s-job: a manifest instead of a run (trog.Command and
	// trog.StartDelay serve it too).
	k8s       bool
	pods      int
	image     string
	jobName   string
	namespace string
	startAt   string
	start     time.Time
}

func (d *distFlags) register(f *cmdutil.Factory, cmd *cobra.Command) {
	d.conn.Register(cmd, true)
	fl := cmd.Flags()
	fl.DurationVar(&d.interval, "interval", 5*time.Second, "interval of the per-interval series")
	fl.DurationVar(&d.warmup, "warmup-duration", 0, "time at the start excluded from the statistics")
	if d.k8s {
		d.registerK8s(f, cmd)
		return
	}
	d.trog.Register(f, cmd)
	fl.BoolVar(&d.perAgent, "per-agent", false, "--records and --throughput are per agent instead of totals")
	fl.StringVar(&d.agentCounts, "agent-counts", "", "run once with the first N agents for each N of this list (e.g. 1,2,3), one row each (the sweep over agents adds warm-up, repeats, a report)")
	cmdutil.AddOutputFlag(f, cmd, &d.out, distFormats)
}

// run is the one path of distributed produce, consume and e2e: every flag
// and the workload are checked (distrib.AgentWorkload.Validate) before the
// coordinator is contacted, then the run (or one per --agent-counts) goes
// through the driver.
func (d *distFlags) run(ctx context.Context, f *cmdutil.Factory, w distrib.AgentWorkload, extra map[string]string, clientID string) error {
	if d.duration < 0 || d.warmup < 0 {
		return cmdutil.FlagErrorf("--duration and --warmup-duration must not be negative")
	}
	w.DurationMs, w.WarmupMs, w.IntervalMs = d.duration.Milliseconds(), d.warmup.Milliseconds(), d.interval.Milliseconds()
	if d.k8s {
		return d.writeK8s(f, w, extra, clientID)
	}
	dist, err := d.trog.Distributor(d.perAgent)
	if err != nil {
		return err
	}
	counts, err := distrib.ParseAgentCounts(d.agentCounts, len(dist.Agents))
	if err != nil {
		return cmdutil.FlagErrorf("--agent-counts: %v", err)
	}
	if len(counts) > 0 && output.Format(d.out) == output.Apache {
		return cmdutil.FlagErrorf("-o apache prints one run's final line: not with --agent-counts")
	}
	most := len(dist.Agents)
	if len(counts) > 0 {
		most = counts[len(counts)-1]
	}
	if err := w.Validate(most, d.perAgent); err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	return runDistributed(ctx, f, d, dist, counts, w, extra, clientID)
}

func newDistributedCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "distributed produce|consume|e2e",
		Short: "Load tests across machines on Trogdor agents, merged exactly",
		Long:  distributedLong,
	}
	cmd.AddCommand(newDistProduceCmd(f, false), newDistConsumeCmd(f, false), newDistE2ECmd(f, false))
	return cmd
}

func newDistProduceCmd(f *cmdutil.Factory, k8s bool) *cobra.Command {
	d := distFlags{k8s: k8s}
	var w distrib.AgentWorkload
	var acks, compression string
	cmd := &cobra.Command{
		Use:   "produce --coordinator URL --agents a,b,c --topic T (--records N | --duration D) [flags]",
		Short: "Produce load from every agent; merged HDR latency",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w.Kind = "produce"
			return d.run(cmd.Context(), f, w, map[string]string{"acks": acks, "compression.type": compression}, "kbox-perf-producer")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic to produce to")
	fl.Int64Var(&w.Records, "records", 0, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&d.duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&w.RecordSize, "record-size", 1024, "value size in bytes")
	fl.Float64Var(&w.Rate, "throughput", -1, "target records/s in total over all agents (per agent with --per-agent; -1: unthrottled)")
	fl.IntVar(&w.Clients, "producers", 1, "producer clients on each agent")
	fl.IntVar(&w.KeyCardinality, "key-cardinality", 0, "keyed records with this many distinct keys in total, each agent its own range (per agent with --per-agent; 0: no keys)")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.BoolVar(&w.RepeatPayload, "repeat-payload", false, "send the same value every time")
	fl.Int64Var(&w.Seed, "random-seed", 0, "seed of the payload generator (agent i uses seed+i)")
	fl.StringVar(&acks, "acks", "", "acks: all, 1 or 0")
	fl.StringVar(&compression, "compression", "", "compression.type: none, gzip, snappy, lz4, zstd")
	return cmd
}

func newDistConsumeCmd(f *cmdutil.Factory, k8s bool) *cobra.Command {
	d := distFlags{k8s: k8s}
	var w distrib.AgentWorkload
	var idle time.Duration
	var fromLatest bool
	cmd := &cobra.Command{
		Use:   "consume --coordinator URL --agents a,b,c --topic T --records N [flags]",
		Short: "Consume load on every agent, in one group; merged end-to-end latency",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if w.Group == "" {
				w.Group = fmt.Sprintf("kbox-perf-%d", time.Now().UnixNano())
			}
			reset := "earliest"
			if fromLatest {
				reset = "latest"
			}
			w.Kind, w.IdleTimeoutMs = "consume", idle.Milliseconds()
			return d.run(cmd.Context(), f, w, map[string]string{"group.id": w.Group, "auto.offset.reset": reset}, "kbox-perf-consumer")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic to consume")
	fl.Int64Var(&w.Records, "records", 0, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&d.duration, "duration", 0, "measure for this long (after the warm-up)")
	fl.DurationVar(&idle, "timeout", 10*time.Second, "an agent stops when no record arrives for this long")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.IntVar(&w.Clients, "consumers", 1, "consumer clients on each agent, all in one group")
	fl.StringVar(&w.Group, "group", "", "group id shared by every agent (default: a fresh one)")
	fl.BoolVar(&fromLatest, "from-latest", false, "start at the end when the group has no offsets")
	return cmd
}

// runDistributed resolves the connection, runs the workload on the agents
// (once, or once per agent count) and prints the merged result.
func runDistributed(ctx context.Context, f *cmdutil.Factory, d *distFlags, dist *distrib.Distributor, counts []int,
	w distrib.AgentWorkload, extra map[string]string, clientID string) error {
	secrets, err := d.connect(f, &w, extra, clientID)
	if err != nil {
		return err
	}
	if secrets {
		f.Warn("the client properties, secrets included, go into the Trogdor task specs (on the coordinator until the run ends)")
	}
	defer cmdutil.CancelOnInterrupt(ctx)()
	progress := distProgress(f)
	run := func(n int) (*distrib.DistributedResult, error) {
		res, err := dist.Run(ctx, n, w, progress)
		f.IO.Progress().Clear()
		return res, err
	}
	if len(counts) == 0 {
		res, err := run(len(dist.Agents))
		if res == nil {
			return err
		}
		if e := emitDistributed(f, d.out, res); e != nil {
			return e
		}
		return distError(res, err)
	}
	sweep := &distrib.AgentSweep{FormatVersion: perf.FormatVersion, Kind: w.Kind, Runs: []*distrib.DistributedResult{}}
	var runErr error
	for _, k := range counts {
		res, err := run(k)
		if res != nil {
			sweep.Runs = append(sweep.Runs, res)
		}
		if err = distError(res, err); err != nil {
			runErr = fmt.Errorf("with %d agents: %v", k, err)
			break
		}
	}
	if e := emitSweep(f, d.out, sweep); e != nil {
		return e
	}
	return runErr
}

// connect resolves the connection into the workload (bootstrap servers,
// client properties, client id) and says whether the properties hold
// secrets.
func (d *distFlags) connect(f *cmdutil.Factory, w *distrib.AgentWorkload, extra map[string]string, clientID string) (bool, error) {
	conn, err := d.conn.Connection(f, extra)
	if err != nil {
		return false, err
	}
	if len(conn.Bootstrap) == 0 {
		return false, cmdutil.FlagErrorf("no bootstrap servers: give --bootstrap-server or a profile")
	}
	w.Bootstrap = strings.Join(conn.Bootstrap, ",")
	w.Properties = conn.Props.Map()
	w.ClientID = clientID
	return len(conn.Secrets()) > 0, nil
}

// distProgress draws the live sum over the agents on the progress line
// (nil when stderr is not a terminal).
func distProgress(f *cmdutil.Factory) func(distrib.DistProgress) {
	pr := f.IO.Progress()
	if !pr.Enabled() {
		return nil
	}
	return func(p distrib.DistProgress) {
		tgt := ""
		if p.Target > 0 {
			tgt = fmt.Sprintf("/%d", p.Target)
		}
		pr.Update("%6.1fs %d%s  %.0f rec/s  agents: %d waiting %d running %d done %d failed",
			p.Elapsed.Seconds(), p.Done, tgt, p.Rate, p.Waiting, p.Running, p.Finished, p.Failed)
	}
}

// distError is the error a finished run ends with: an interruption, or the
// agents that did not finish.
func distError(res *distrib.DistributedResult, err error) error {
	if err != nil {
		if errors.Is(err, context.Canceled) && res != nil {
			return fmt.Errorf("interrupted: every task was stopped (%d of %d agents had finished)", len(res.MergedAgents), res.Agents)
		}
		return err
	}
	if res.FailedAgents > 0 {
		var msgs []string
		for _, a := range res.PerAgent {
			if a.State != distrib.AgentDone {
				msgs = append(msgs, fmt.Sprintf("%s %s: %s", a.Agent, a.State, a.Error))
			}
		}
		return fmt.Errorf("%d of %d agents did not finish: %s", res.FailedAgents, res.Agents, strings.Join(msgs, "; "))
	}
	return nil
}

func emitSweep(f *cmdutil.Factory, format string, s *distrib.AgentSweep) error {
	switch output.Format(format) {
	case output.JSON:
		return output.WriteJSON(f.IO.Out, s, false)
	case output.CSV:
		return output.Print(f.IO, output.CSV, s)
	}
	return output.WriteTable(f.IO, s.Header(), s.Rows())
}

func emitDistributed(f *cmdutil.Factory, format string, res *distrib.DistributedResult) error {
	switch output.Format(format) {
	case output.JSON:
		return output.WriteJSON(f.IO.Out, res, false)
	case output.Apache:
		return res.WriteApache(f.IO.Out)
	case output.CSV:
		return output.Print(f.IO, output.CSV, output.Records(append([][]string{res.CSVHeader()}, res.CSVRows()...)))
	}
	if err := output.WriteTable(f.IO, res.Header(), res.Rows()); err != nil {
		return err
	}
	_, _ = fmt.Fprintln(f.IO.Out)
	return output.WriteTable(f.IO, res.AgentHeader(), res.AgentRows())
}

func newDistE2ECmd(f *cmdutil.Factory, k8s bool) *cobra.Command {
	d := distFlags{k8s: k8s}
	var w distrib.AgentWorkload
	var acks string
	var pollTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "e2e --coordinator URL --agents a,b,c --topic T --records N [flags]",
		Short: "End-to-end latency from every agent (one record in flight each, on TOPIC-AGENT); merged HDR histogram",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if d.duration > 0 && !cmd.Flags().Changed("records") {
				w.Records = 0
			}
			if acks != "1" && acks != "all" && acks != "-1" {
				return cmdutil.FlagErrorf("--acks %q: latency testing needs acknowledged sends: use 1 or all", acks)
			}
			if w.Group == "" {
				w.Group = fmt.Sprintf("kbox-perf-e2e-%d", time.Now().UnixMilli())
			}
			w.Kind, w.Clients, w.PollTimeoutMs = perf.KindE2E, 1, pollTimeout.Milliseconds()
			return d.run(cmd.Context(), f, w, map[string]string{"acks": acks}, "kbox-perf-e2e")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic prefix: agent A uses TOPIC-A")
	fl.Int64Var(&w.Records, "records", 1000, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&d.duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&w.RecordSize, "record-size", 100, "value size in bytes")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.StringVar(&acks, "acks", "all", "producer acks: 1 or all")
	fl.StringVar(&w.Group, "group", "", "group the consumed positions are committed for (default: a fresh kbox-perf-e2e-<ms>)")
	fl.DurationVar(&pollTimeout, "poll-timeout", perf.E2EPollTimeout, "an agent fails when a record does not come back within this time")
	return cmd
}
