package perf

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/trogdor"
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

The client properties (secrets included) travel in the task specs, which the
coordinator keeps until kbox deletes the tasks at the end of the run.
`

// distFormats: the perf formats, plus Apache's final line (produce).
var distFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.CSV, output.Apache}}

type distFlags struct {
	conn         cmdutil.ConnFlags
	out          string
	interval     time.Duration
	coordinator  string
	agents       string
	command      string
	startDelay   time.Duration
	agentTimeout time.Duration
	taskTimeout  time.Duration
	perAgent     bool
	agentCounts  string
	counts       []int
	// kbox perf k8s-job: a manifest instead of a run.
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
	if d.k8s {
		fl.IntVar(&d.pods, "pods", 3, "pods of the Indexed Job (completions = parallelism), one share each")
		fl.StringVar(&d.image, "image", "", "container image with kbox on its PATH (required)")
		fl.StringVar(&d.jobName, "job-name", "", "the Job's name (default kbox-perf-KIND-<unix seconds>)")
		fl.StringVar(&d.namespace, "namespace", "", "the Job's namespace (default: kubectl's)")
		fl.StringVar(&d.command, "worker-command", "kbox perf worker", "the worker command line in the container (split on spaces; --k8s-job is added)")
		fl.DurationVar(&d.startDelay, "start-delay", 2*time.Minute, "the shared start is this long after the manifest is written (time to schedule the pods and pull the image)")
		fl.StringVar(&d.startAt, "start-at", "", "the shared start as RFC 3339 time (instead of --start-delay)")
		fl.BoolVar(&d.perAgent, "per-agent", false, "--records and --throughput are per pod instead of totals")
		cmdutil.AddOutputFlag(f, cmd, &d.out, k8sFormats)
		return
	}
	fl.StringVar(&d.coordinator, "coordinator", f.Getenv("TROGDOR_COORDINATOR"), "Trogdor coordinator URL, http://host:port (default $TROGDOR_COORDINATOR)")
	fl.StringVar(&d.agents, "agents", f.Getenv("TROGDOR_AGENTS"), "comma-separated Trogdor agent node names, one task each (default $TROGDOR_AGENTS)")
	fl.StringVar(&d.command, "worker-command", "kbox perf worker", "the worker command line on the agents (split on spaces)")
	fl.DurationVar(&d.startDelay, "start-delay", 5*time.Second, "the shared start is this long after the submission")
	fl.DurationVar(&d.agentTimeout, "agent-timeout", 20*time.Second, "an agent whose status does not change for this long is reported lost")
	fl.DurationVar(&d.taskTimeout, "task-timeout", time.Hour, "Trogdor stops a task this long after it started")
	fl.BoolVar(&d.perAgent, "per-agent", false, "--records and --throughput are per agent instead of totals")
	fl.StringVar(&d.agentCounts, "agent-counts", "", "sweep: run once with the first N agents for each N of this list (e.g. 1,2,3), one row each")
	cmdutil.AddOutputFlag(f, cmd, &d.out, distFormats)
}

// check validates the distributed flags and returns the agents (k8s-job:
// the pods' names).
func (d *distFlags) check(kind string) ([]string, *trogdor.Client, error) {
	if d.k8s {
		return d.checkK8s(kind)
	}
	if d.coordinator == "" {
		return nil, nil, cmdutil.FlagErrorf("--coordinator is required (or set TROGDOR_COORDINATOR)")
	}
	cl, err := trogdor.New(d.coordinator)
	if err != nil {
		return nil, nil, cmdutil.FlagErrorf("--coordinator: %v", err)
	}
	var agents []string
	seen := map[string]bool{}
	for _, a := range strings.Split(d.agents, ",") {
		a = strings.TrimSpace(a)
		if a == "" {
			continue
		}
		if seen[a] {
			return nil, nil, cmdutil.FlagErrorf("--agents: %s given twice", a)
		}
		seen[a] = true
		agents = append(agents, a)
	}
	if len(agents) == 0 {
		return nil, nil, cmdutil.FlagErrorf("--agents is required (or set TROGDOR_AGENTS)")
	}
	if len(strings.Fields(d.command)) == 0 {
		return nil, nil, cmdutil.FlagErrorf("--worker-command must not be empty")
	}
	counts, err := perf.ParseAgentCounts(d.agentCounts, len(agents))
	if err != nil {
		return nil, nil, cmdutil.FlagErrorf("--agent-counts: %v", err)
	}
	d.counts = counts
	if len(counts) > 0 && output.Format(d.out) == output.Apache {
		return nil, nil, cmdutil.FlagErrorf("-o apache prints one run's final line: not with --agent-counts")
	}
	if d.startDelay < 0 || d.agentTimeout <= 0 || d.taskTimeout <= 0 {
		return nil, nil, cmdutil.FlagErrorf("--start-delay must not be negative; --agent-timeout and --task-timeout must be positive")
	}
	return agents, cl, nil
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
	var w perf.AgentWorkload
	var acks, compression string
	var warmup time.Duration
	var duration time.Duration
	cmd := &cobra.Command{
		Use:   "produce --coordinator URL --agents a,b,c --topic T (--records N | --duration D) [flags]",
		Short: "Produce load from every agent; merged HDR latency",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agents, cl, err := d.check("produce")
			if err != nil {
				return err
			}
			switch {
			case w.Topic == "":
				return cmdutil.FlagErrorf("--topic is required")
			case w.Records < 0 || duration < 0 || (w.Records == 0 && duration == 0):
				return cmdutil.FlagErrorf("give --records N or --duration D")
			case w.RecordSize <= 0 || w.Clients <= 0:
				return cmdutil.FlagErrorf("--record-size and --producers must be positive")
			case w.KeyCardinality < 0:
				return cmdutil.FlagErrorf("--key-cardinality must not be negative")
			case !d.perAgent && w.KeyCardinality > 0 && w.KeyCardinality < len(agents):
				return cmdutil.FlagErrorf("--key-cardinality %d is fewer than one key per agent (%d agents)", w.KeyCardinality, len(agents))
			case !d.perAgent && w.Records > 0 && w.Records < int64(len(agents)):
				return cmdutil.FlagErrorf("--records %d is fewer than one record per agent (%d agents)", w.Records, len(agents))
			}
			if err := checkWarmup(w.WarmupRecords, warmup); err != nil {
				return err
			}
			w.Kind, w.DurationMs, w.WarmupMs = "produce", duration.Milliseconds(), warmup.Milliseconds()
			return runDistributed(cmd.Context(), f, &d, agents, cl, w, map[string]string{"acks": acks, "compression.type": compression}, "kbox-perf-producer")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic to produce to")
	fl.Int64Var(&w.Records, "records", 0, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&w.RecordSize, "record-size", 1024, "value size in bytes")
	fl.Float64Var(&w.Rate, "throughput", -1, "target records/s in total over all agents (per agent with --per-agent; -1: unthrottled)")
	fl.IntVar(&w.Clients, "producers", 1, "producer clients on each agent")
	fl.IntVar(&w.KeyCardinality, "key-cardinality", 0, "keyed records with this many distinct keys in total, each agent its own range (per agent with --per-agent; 0: no keys)")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.DurationVar(&warmup, "warmup-duration", 0, "time at the start excluded from the statistics")
	fl.BoolVar(&w.RepeatPayload, "repeat-payload", false, "send the same value every time")
	fl.Int64Var(&w.Seed, "random-seed", 0, "seed of the payload generator (agent i uses seed+i)")
	fl.StringVar(&acks, "acks", "", "acks: all, 1 or 0")
	fl.StringVar(&compression, "compression", "", "compression.type: none, gzip, snappy, lz4, zstd")
	return cmd
}

func newDistConsumeCmd(f *cmdutil.Factory, k8s bool) *cobra.Command {
	d := distFlags{k8s: k8s}
	var w perf.AgentWorkload
	var warmup, duration, idle time.Duration
	var fromLatest bool
	cmd := &cobra.Command{
		Use:   "consume --coordinator URL --agents a,b,c --topic T --records N [flags]",
		Short: "Consume load on every agent, in one group; merged end-to-end latency",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agents, cl, err := d.check("consume")
			if err != nil {
				return err
			}
			switch {
			case w.Topic == "":
				return cmdutil.FlagErrorf("--topic is required")
			case w.Records < 0 || duration < 0 || (w.Records == 0 && duration == 0):
				return cmdutil.FlagErrorf("give --records N or --duration D")
			case w.Clients <= 0:
				return cmdutil.FlagErrorf("--consumers must be positive")
			case idle <= 0:
				return cmdutil.FlagErrorf("--timeout must be positive")
			case output.Format(d.out) == output.Apache:
				return cmdutil.FlagErrorf("-o apache prints kafka-producer-perf-test's final line: only for distributed produce")
			}
			if err := checkWarmup(w.WarmupRecords, warmup); err != nil {
				return err
			}
			if w.Group == "" {
				w.Group = fmt.Sprintf("kbox-perf-%d", time.Now().UnixNano())
			}
			reset := "earliest"
			if fromLatest {
				reset = "latest"
			}
			w.Kind, w.DurationMs, w.WarmupMs, w.IdleTimeoutMs = "consume", duration.Milliseconds(), warmup.Milliseconds(), idle.Milliseconds()
			return runDistributed(cmd.Context(), f, &d, agents, cl, w, map[string]string{"group.id": w.Group, "auto.offset.reset": reset}, "kbox-perf-consumer")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic to consume")
	fl.Int64Var(&w.Records, "records", 0, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&duration, "duration", 0, "measure for this long (after the warm-up)")
	fl.DurationVar(&idle, "timeout", 10*time.Second, "an agent stops when no record arrives for this long")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.DurationVar(&warmup, "warmup-duration", 0, "time at the start excluded from the statistics")
	fl.IntVar(&w.Clients, "consumers", 1, "consumer clients on each agent, all in one group")
	fl.StringVar(&w.Group, "group", "", "group id shared by every agent (default: a fresh one)")
	fl.BoolVar(&fromLatest, "from-latest", false, "start at the end when the group has no offsets")
	return cmd
}

// runDistributed resolves the connection, builds one workload per agent,
// runs them and prints the merged result.
func runDistributed(ctx context.Context, f *cmdutil.Factory, d *distFlags, agents []string, cl *trogdor.Client,
	w perf.AgentWorkload, extra map[string]string, clientID string) error {
	conn, err := d.conn.Connection(f, extra)
	if err != nil {
		return err
	}
	if len(conn.Bootstrap) == 0 {
		return cmdutil.FlagErrorf("no bootstrap servers: give --bootstrap-server or a profile")
	}
	if len(conn.Secrets()) > 0 && !d.k8s {
		f.Warn("the client properties, secrets included, go into the Trogdor task specs (on the coordinator until the run ends)")
	}
	ctx, stop := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stop()
	var progress func(perf.DistProgress)
	if pr := f.IO.Progress(); pr.Enabled() {
		progress = func(p perf.DistProgress) {
			tgt := ""
			if p.Target > 0 {
				tgt = fmt.Sprintf("/%d", p.Target)
			}
			pr.Update("%6.1fs %d%s  %.0f rec/s  agents: %d waiting %d running %d done %d failed",
				p.Elapsed.Seconds(), p.Done, tgt, p.Rate, p.Waiting, p.Running, p.Finished, p.Failed)
		}
	}
	if d.k8s {
		base := w
		base.Bootstrap = strings.Join(conn.Bootstrap, ",")
		base.Properties = conn.Props.Map()
		base.ClientID = clientID
		base.IntervalMs = d.interval.Milliseconds()
		return writeK8sJob(f, d, base, len(conn.Secrets()) > 0)
	}
	run := func(agents []string) (*perf.DistributedResult, error) {
		runID := fmt.Sprintf("kbox-perf-%s-%d", w.Kind, time.Now().UnixMilli())
		cfg := perf.DistributedConfig{RunID: runID, Command: strings.Fields(d.command), TaskDuration: d.startDelay + d.taskTimeout,
			AgentTimeout: d.agentTimeout, StartDelay: d.startDelay}
		base := w
		base.Bootstrap = strings.Join(conn.Bootstrap, ",")
		base.Properties = conn.Props.Map()
		base.ClientID = clientID
		base.IntervalMs = d.interval.Milliseconds()
		cfg.Workloads = perf.SplitWorkload(base, agents, d.perAgent)
		res, err := perf.RunDistributed(ctx, cl, d.coordinator, cfg, progress)
		f.IO.Progress().Clear()
		return res, err
	}
	if len(d.counts) == 0 {
		res, err := run(agents)
		if res == nil {
			return err
		}
		if e := emitDistributed(f, d.out, res); e != nil {
			return e
		}
		return distError(res, err)
	}
	sweep := &perf.AgentSweep{FormatVersion: perf.FormatVersion, Kind: w.Kind, Runs: []*perf.DistributedResult{}}
	var runErr error
	for _, k := range d.counts {
		res, err := run(agents[:k])
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

// distError is the error a finished run ends with: an interruption, or the
// agents that did not finish.
func distError(res *perf.DistributedResult, err error) error {
	if err != nil {
		if errors.Is(err, context.Canceled) && res != nil {
			return fmt.Errorf("interrupted: every task was stopped (%d of %d agents had finished)", len(res.MergedAgents), res.Agents)
		}
		return err
	}
	if res.FailedAgents > 0 {
		var msgs []string
		for _, a := range res.PerAgent {
			if a.State != perf.AgentDone {
				msgs = append(msgs, fmt.Sprintf("%s %s: %s", a.Agent, a.State, a.Error))
			}
		}
		return fmt.Errorf("%d of %d agents did not finish: %s", res.FailedAgents, res.Agents, strings.Join(msgs, "; "))
	}
	return nil
}

func emitSweep(f *cmdutil.Factory, format string, s *perf.AgentSweep) error {
	switch output.Format(format) {
	case output.JSON:
		return output.WriteJSON(f.IO.Out, s, false)
	case output.CSV:
		w := csv.NewWriter(f.IO.Out)
		_ = w.Write(s.Header())
		_ = w.WriteAll(s.Rows())
		w.Flush()
		return w.Error()
	}
	return output.WriteTable(f.IO, s.Header(), s.Rows())
}

func emitDistributed(f *cmdutil.Factory, format string, res *perf.DistributedResult) error {
	switch output.Format(format) {
	case output.JSON:
		return output.WriteJSON(f.IO.Out, res, false)
	case output.Apache:
		return res.WriteApache(f.IO.Out)
	case output.CSV:
		w := csv.NewWriter(f.IO.Out)
		_ = w.Write(res.CSVHeader())
		_ = w.WriteAll(res.CSVRows())
		w.Flush()
		return w.Error()
	}
	if err := output.WriteTable(f.IO, res.Header(), res.Rows()); err != nil {
		return err
	}
	_, _ = fmt.Fprintln(f.IO.Out)
	return output.WriteTable(f.IO, res.AgentHeader(), res.AgentRows())
}

func newDistE2ECmd(f *cmdutil.Factory, k8s bool) *cobra.Command {
	d := distFlags{k8s: k8s}
	var w perf.AgentWorkload
	var acks string
	var warmup, duration, pollTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "e2e --coordinator URL --agents a,b,c --topic T --records N [flags]",
		Short: "End-to-end latency from every agent (one record in flight each, on TOPIC-AGENT); merged HDR histogram",
		Long:  distributedLong,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			agents, cl, err := d.check(perf.KindE2E)
			if err != nil {
				return err
			}
			if duration > 0 && !cmd.Flags().Changed("records") {
				w.Records = 0
			}
			switch {
			case w.Topic == "":
				return cmdutil.FlagErrorf("--topic is required")
			case w.Records < 0 || duration < 0 || (w.Records == 0 && duration == 0):
				return cmdutil.FlagErrorf("give a positive --records N or --duration D")
			case !d.perAgent && w.Records > 0 && w.Records < int64(len(agents)):
				return cmdutil.FlagErrorf("--records %d is fewer than one record per agent (%d agents)", w.Records, len(agents))
			case w.RecordSize < 0:
				return cmdutil.FlagErrorf("--record-size must not be negative")
			case acks != "1" && acks != "all" && acks != "-1":
				return cmdutil.FlagErrorf("--acks %q: latency testing needs acknowledged sends: use 1 or all", acks)
			case pollTimeout <= 0:
				return cmdutil.FlagErrorf("--poll-timeout must be positive")
			case output.Format(d.out) == output.Apache:
				return cmdutil.FlagErrorf("-o apache prints kafka-producer-perf-test's final line: only for distributed produce")
			}
			if err := checkWarmup(w.WarmupRecords, warmup); err != nil {
				return err
			}
			if w.Group == "" {
				w.Group = fmt.Sprintf("kbox-perf-e2e-%d", time.Now().UnixMilli())
			}
			w.Kind, w.Clients, w.DurationMs, w.WarmupMs, w.PollTimeoutMs = perf.KindE2E, 1, duration.Milliseconds(), warmup.Milliseconds(), pollTimeout.Milliseconds()
			return runDistributed(cmd.Context(), f, &d, agents, cl, w, map[string]string{"acks": acks}, "kbox-perf-e2e")
		},
	}
	d.register(f, cmd)
	fl := cmd.Flags()
	fl.StringVar(&w.Topic, "topic", "", "topic prefix: agent A uses TOPIC-A")
	fl.Int64Var(&w.Records, "records", 1000, "measured records in total over all agents (per agent with --per-agent)")
	fl.DurationVar(&duration, "duration", 0, "measure for this long (after the warm-up) instead of a count")
	fl.IntVar(&w.RecordSize, "record-size", 100, "value size in bytes")
	fl.Int64Var(&w.WarmupRecords, "warmup-records", 0, "records at the start of each agent excluded from the statistics")
	fl.DurationVar(&warmup, "warmup-duration", 0, "time at the start excluded from the statistics")
	fl.StringVar(&acks, "acks", "all", "producer acks: 1 or all")
	fl.StringVar(&w.Group, "group", "", "group the consumed positions are committed for (default: a fresh kbox-perf-e2e-<ms>)")
	fl.DurationVar(&pollTimeout, "poll-timeout", perf.E2EPollTimeout, "an agent fails when a record does not come back within this time")
	return cmd
}
