package sweep

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/perf/trogdorflags"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/pkg/perf/report"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
	"github.com/spf13/cobra"
)

// sweepFormats: a table with a chart, JSON (every run with its histogram)
// or CSV.
var sweepFormats = cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.CSV}}

// NewCmd builds `kbox perf sweep`.
func NewCmd(f *cmdutil.Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep produce|consume|e2e --topic-prefix P [--duration D | --records N] --vary NAME=V1,V2,... [flags]",
		Short: "Run a perf test over a grid of client settings and workload dimensions; table, JSON/CSV, HTML/PNG report",
	}
	cmd.AddCommand(newSweepModeCmd(f, "produce"), newSweepModeCmd(f, "consume"), newSweepModeCmd(f, "e2e"), newSweepMergeCmd(f))
	return cmd
}

func newSweepMergeCmd(f *cmdutil.Factory) *cobra.Command {
	var out, objective string
	var reports []string
	cmd := &cobra.Command{
		Use:   "merge RESULTS.json...",
		Short: "Merge sweep results files run at the same time on several machines (or re-render one): table, JSON/CSV, report",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			obj, err := sweep.ParseObjective(objective)
			if err != nil {
				return err
			}
			o := &sweepOpts{reports: reports}
			if err := checkReports(reports); err != nil {
				return err
			}
			rs, err := sweep.ReadFiles(args)
			if err != nil {
				return err
			}
			m, err := sweep.Merge(rs)
			if err != nil {
				return err
			}
			m.Objective = obj.String()
			if err := o.emit(f, out, m, obj); err != nil {
				return err
			}
			for _, r := range reports {
				if err := report.WriteFile(r, m, obj); err != nil {
					return fmt.Errorf("--report %s: %v", r, err)
				}
				fmt.Fprintf(f.IO.ErrOut, "report written to %s\n", r)
			}
			return nil
		},
	}
	cmdutil.AddOutputFlag(f, cmd, &out, sweepFormats)
	cmd.Flags().StringVar(&objective, "objective", "throughput", "order cells by throughput, p99 or throughput-at-p99<=X (X in ms)")
	cmd.Flags().StringArrayVar(&reports, "report", nil, "write a report: FILE.html or FILE.png; repeatable")
	return cmd
}

type sweepOpts struct {
	conn           cmdutil.ConnFlags
	trog           trogdorflags.Flags
	dist           *distrib.Distributor // a sweep over agents
	env            *sweep.KafkaEnv      // set by connect
	agentEnv       *sweep.Agents        // set by connect; used when dist is set
	secrets        bool
	out            string
	interval       time.Duration
	plan           sweep.Plan
	duration       time.Duration
	warmupDuration time.Duration
	checks         sweep.Checks
	clusterWarmup  time.Duration
	minRun         time.Duration
	preset         string
	interleave     bool
	presetProps    map[string]string
	changed        func(string) bool
	recordSize     string
	vary           []string
	grid, one      bool
	keepTopics     bool
	maxRecords     int64
	objective      string
	reports        []string
	results        string
	dryRun         bool
	idleTimeout    time.Duration
	seed           int64
}

func newSweepModeCmd(f *cmdutil.Factory, mode string) *cobra.Command {
	o := &sweepOpts{checks: sweep.DefaultChecks}
	o.plan.Mode = mode
	what := map[string]string{
		"produce": "a Java producer client property\n(batch.size, linger.ms, compression.type, acks, max.request.size, ...) or a\nworkload dimension: record-size, partitions, replication-factor,\nkey-cardinality, producers, agents (Trogdor agents: --coordinator)",
		"consume": "a Java consumer client property\n(max.poll.records, fetch.max.bytes, fetch.min.bytes, ...) or a workload\ndimension: record-size, partitions, replication-factor, key-cardinality,\nconsumers",
		"e2e":     "a Java producer client property\n(acks, linger.ms, compression.type, ...) or a workload dimension:\nrecord-size, partitions, replication-factor",
	}[mode]
	long := `Runs one full perf run per cell, repeats each cell --repeat times (median and
spread), and prints the cells sorted by the objective with the best marked and
the settings that differ from the baseline (each dimension's first value)
highlighted.

--vary NAME=V1,V2,... takes ` + what + `.
Byte sizes accept 16k, 1m. Dimensions that change the topic get a fresh topic
per cell (deleted afterwards unless --keep-topics).

Trustworthy figures:
- Before the first cell the sweep warms the cluster up: it produces to a
  topic with a partition on every broker until three successive 1 s
  windows' rates agree within 10 % (at most --cluster-warmup). Every topic
  the sweep creates is ready before its run: every partition has a leader
  and has acknowledged one write (records consume runs skip).
- The repeats run in rounds (--interleave): repeat 1 of every cell, then
  repeat 2, ..., so a slow spell of the machine does not fall on one cell.
- Runs are sized by time (--duration, the default) or by count (--records).
  A cell with a run measured for less than --min-run-duration is flagged
  short-run.
- A cell whose repeats' records/s spread exceeds --max-spread is flagged
  outlier and its repeats are run again (up to --rerun-outliers more
  attempts); it then keeps the --repeat runs of all attempts that agree
  best (the others stay in the JSON as discarded_runs); a cell whose p50 latency is 10x the other cells' median while
  its records/s and MB/s are under a tenth of theirs is flagged stall and
  re-run the same way at the end. Flags show in the table (FLAGS column and
  footnotes), the JSON (flags) and the report.

` + perf.WarmupHelp + `
With --results FILE the sweep saves its finished cells there (every cell with
--interleave=false, all cells after the last round otherwise) and, when run
again with the same settings after an interruption, resumes where it stopped.`
	switch mode {
	case "produce":
		long += `

--preset producers|message-size|partitions|replicas runs one of the four
experiments of docs/perf-methodology.md, scaled to the cluster (partitions as
multiples of the broker count, replication factor up to 3): it sets the
varied dimensions, 100-byte records and the fixed settings; --duration,
--repeat and the connection flags still apply.

--vary agents=1,2,3 runs every cell on Trogdor agents, the first N of --agents
for agents=N, through the driver of kbox perf distributed produce (one task
per agent on --coordinator, a shared start): the producers-versus-throughput
experiment of docs/perf-methodology.md in one command. --records and
--throughput are totals split over the cell's agents, --warmup-records and
--warmup-duration apply to each agent; a cell's records/s and MB/s are the
aggregate (the sum of the agents' own rates), its latency the merged HDR
histogram. It combines with the other dimensions (record-size, producers per
agent, partitions, client properties). --coordinator and --agents default to
$TROGDOR_COORDINATOR and $TROGDOR_AGENTS; the client properties, secrets
included, travel in the task specs.`
	case "consume":
		long += `

A consume sweep reads topics filled before its runs (once per topic shape), so
its runs are sized by --records.`
	case "e2e":
		long += `

An e2e sweep runs kbox perf e2e per cell: one record in flight, sent then
consumed; the objective is a latency percentile (p99 by default).`
	}
	cmd := &cobra.Command{
		Use:   mode + " --topic-prefix P [--duration D | --records N] --vary NAME=V1,V2,... [--vary ...] [flags]",
		Short: "Sweep a " + mode + " perf test over client settings and workload dimensions",
		Long:  long,
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.changed = cmd.Flags().Changed
			return o.run(cmd, f)
		},
	}
	if mode == "produce" {
		cmd.Use = mode + " --topic-prefix P [--duration D | --records N] (--vary NAME=V1,V2,... [--vary ...] | --preset NAME) [flags]"
	}
	o.conn.Register(cmd, true)
	cmdutil.AddOutputFlag(f, cmd, &o.out, sweepFormats)
	fl := cmd.Flags()
	fl.DurationVar(&o.interval, "interval", time.Second, "interval of the per-interval series")
	fl.StringVar(&o.plan.TopicPrefix, "topic-prefix", "", "name (prefix) of the topics the sweep creates")
	fl.DurationVar(&o.duration, "duration", 0, "measured time per run, after its warm-up (default 5s unless --records is given)")
	fl.Int64Var(&o.plan.Records, "records", 0, "measured records per run instead of --duration (warm-up records come on top)")
	defSize := "1k"
	if mode == "e2e" {
		defSize = "100"
	}
	fl.StringVar(&o.recordSize, "record-size", defSize, "value size (bytes; 16k, 1m accepted)")
	if mode == "produce" {
		o.trog.Register(f, cmd)
		fl.Float64Var(&o.plan.Throughput, "throughput", -1, "target records/s per produce run (-1: unthrottled)")
		fl.StringVar(&o.preset, "preset", "", "run an experiment of docs/perf-methodology.md: "+strings.Join(sweep.PresetNames(), ", "))
	}
	if mode == "consume" {
		fl.DurationVar(&o.idleTimeout, "timeout", 10*time.Second, "a run fails when no record arrives for this long")
	}
	fl.StringArrayVar(&o.vary, "vary", nil, "NAME=V1,V2,... a client property or workload dimension to vary (repeatable)")
	fl.BoolVar(&o.grid, "grid", false, "run every combination of the values (default)")
	fl.BoolVar(&o.one, "one-at-a-time", false, "vary one dimension at a time from the baseline (each dimension's first value)")
	fl.IntVar(&o.plan.Repeat, "repeat", 3, "runs per cell (median and spread)")
	fl.BoolVar(&o.interleave, "interleave", true, "run the repeats in rounds (repeat 1 of every cell, then repeat 2, ...); false: a cell's repeats back to back, the --results file saved after every cell")
	fl.Int64Var(&o.plan.WarmupRecords, "warmup-records", 0, "records at the start of each run excluded from the statistics, on top of --records")
	defWarm := time.Second
	if mode == "consume" {
		defWarm = 0
	}
	fl.DurationVar(&o.warmupDuration, "warmup-duration", defWarm, "time at the start of each run excluded from the statistics, before --duration starts")
	fl.DurationVar(&o.clusterWarmup, "cluster-warmup", time.Minute, "at most this long warming the cluster up before the first cell (0: no warm-up)")
	fl.DurationVar(&o.minRun, "min-run-duration", secs(sweep.DefaultChecks.MinRunSec), "flag a cell short-run when a run is measured for less")
	fl.Float64Var(&o.checks.MaxSpreadPercent, "max-spread", sweep.DefaultChecks.MaxSpreadPercent, "flag a cell outlier when its repeats' records/s spread exceeds this (%)")
	fl.IntVar(&o.checks.RerunOutliers, "rerun-outliers", sweep.DefaultChecks.RerunOutliers, "run an outlier or stalled cell's repeats again up to this many more times (0: never)")
	fl.IntVar(&o.plan.Producers, "producers", 1, "producers per run (each with its own client)")
	fl.IntVar(&o.plan.Consumers, "consumers", 1, "consumers per run, in one fresh group")
	if mode != "produce" {
		fl.Lookup("producers").Hidden = true
	}
	if mode != "consume" {
		fl.Lookup("consumers").Hidden = true
	}
	fl.IntVar(&o.plan.Partitions, "partitions", 1, "partitions of the topics the sweep creates")
	fl.IntVar(&o.plan.ReplicationFactor, "replication-factor", 1, "replication factor of the topics the sweep creates")
	if mode != "e2e" {
		fl.IntVar(&o.plan.KeyCardinality, "key-cardinality", 0, "keyed records with this many distinct keys (0: no keys)")
	}
	fl.BoolVar(&o.keepTopics, "keep-topics", false, "keep the topics the sweep created")
	fl.Int64Var(&o.maxRecords, "max-records", 50_000_000, "refuse a sweep sized by --records that would move more records than this in total (0: no limit)")
	defObj := "throughput"
	if mode == "e2e" {
		defObj = "p99"
	}
	fl.StringVar(&o.objective, "objective", defObj, "order cells by throughput, p50, p99, p99.9 or throughput-at-p99<=X (X in ms)")
	fl.StringArrayVar(&o.reports, "report", nil, "write a report: FILE.html (self-contained, charts as inline SVG) or FILE.png (summary chart); repeatable")
	fl.StringVar(&o.results, "results", "", "results file: saved after every cell, resumed from when it exists")
	fl.BoolVar(&o.dryRun, "dry-run", false, "print the cells and totals and exit (with --preset, after reading the broker count)")
	fl.Int64Var(&o.seed, "random-seed", 0, "seed of the payload generator")
	return cmd
}

func secs(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// applyPreset sets what the preset fixes (flags the user gave win, except
// the varied dimensions and the strategy, which are the experiment).
func (o *sweepOpts) applyPreset(brokers int) error {
	p, err := sweep.LookupPreset(o.preset)
	if err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	o.plan.Preset = p.Name
	o.vary = p.Vary(brokers)
	o.one = p.Strategy == sweep.StrategyOneAtATime
	o.grid = !o.one
	if !o.changed("record-size") {
		o.recordSize = fmt.Sprint(p.RecordSize)
	}
	if !o.changed("partitions") {
		o.plan.Partitions = p.Partitions(brokers)
	}
	if !o.changed("replication-factor") {
		o.plan.ReplicationFactor = p.ReplicationFactor(brokers)
	}
	if !o.changed("topic-prefix") {
		o.plan.TopicPrefix = "kbox-sweep-" + p.Name
	}
	o.presetProps = p.Props
	return nil
}

// prepare validates everything that can be checked without a broker.
func (o *sweepOpts) prepare() ([]sweep.Cell, sweep.Objective, error) {
	var obj sweep.Objective
	size, err := sweep.ParseSize(o.recordSize)
	if err != nil || size < 1 || size > 100<<20 {
		return nil, obj, cmdutil.FlagErrorf("--record-size %s: want a size from 1 byte to 100m", o.recordSize)
	}
	o.plan.RecordSize = int(size)
	if o.grid && o.one {
		return nil, obj, cmdutil.FlagErrorf("--grid and --one-at-a-time exclude each other")
	}
	o.plan.Strategy = sweep.StrategyGrid
	if o.one {
		o.plan.Strategy = sweep.StrategyOneAtATime
	}
	if o.duration < 0 || o.warmupDuration < 0 || o.clusterWarmup < 0 || o.minRun < 0 {
		return nil, obj, cmdutil.FlagErrorf("--duration, --warmup-duration, --cluster-warmup and --min-run-duration must not be negative")
	}
	if o.plan.Records == 0 && o.duration == 0 && o.plan.Mode != "consume" {
		o.duration = 5 * time.Second
	}
	o.plan.DurationSec, o.plan.WarmupDurationSec = o.duration.Seconds(), o.warmupDuration.Seconds()
	if o.checks.MaxSpreadPercent < 0 || o.checks.RerunOutliers < 0 {
		return nil, obj, cmdutil.FlagErrorf("--max-spread and --rerun-outliers must not be negative")
	}
	o.checks.MinRunSec = o.minRun.Seconds()
	if err := o.plan.Validate(); err != nil {
		return nil, obj, cmdutil.FlagErrorf("%v", err)
	}
	if o.plan.Throughput <= 0 {
		o.plan.Throughput = -1
	}
	if len(o.vary) == 0 {
		return nil, obj, cmdutil.FlagErrorf("give at least one --vary NAME=V1,V2 (a comma-separated list of values)")
	}
	o.plan.Dimensions = nil
	for _, v := range o.vary {
		d, err := sweep.ParseVary(v, o.plan.Mode)
		if err != nil {
			// One line naming the property (no usage hint), nothing run.
			return nil, obj, err
		}
		o.plan.Dimensions = append(o.plan.Dimensions, d)
	}
	if err := o.agents(); err != nil {
		return nil, obj, err
	}
	cells, err := sweep.Expand(o.plan.Dimensions, o.plan.Strategy)
	if err != nil {
		return nil, obj, err
	}
	if obj, err = sweep.ParseObjective(o.objective); err != nil {
		return nil, obj, err
	}
	if err := checkReports(o.reports); err != nil {
		return nil, obj, err
	}
	return cells, obj, nil
}

// agents checks a sweep over agents (--vary agents=...): the Trogdor flags
// become the driver, and the plan names the coordinator and the agents.
// Without --vary agents, --coordinator and --agents given on the command
// line are refused (their $TROGDOR_* defaults are ignored).
func (o *sweepOpts) agents() error {
	o.plan.Coordinator, o.plan.Agents, o.dist = "", nil, nil
	if !o.plan.OverAgents() {
		if o.changed != nil && (o.changed("coordinator") || o.changed("agents")) {
			return cmdutil.FlagErrorf("--coordinator and --agents go with --vary agents=N1,N2,... (a sweep over Trogdor agents)")
		}
		return nil
	}
	// The plan's own check names what is missing, before the flags' parse.
	o.plan.Coordinator = o.trog.Coordinator
	if strings.TrimSpace(o.trog.Agents) != "" {
		o.plan.Agents = strings.Split(o.trog.Agents, ",")
	}
	if o.plan.Coordinator == "" || len(o.plan.Agents) == 0 {
		return cmdutil.FlagErrorf("%v", o.plan.CheckAgents())
	}
	dist, err := o.trog.Distributor(false)
	if err != nil {
		return err
	}
	o.dist = dist
	o.plan.Coordinator, o.plan.Agents = dist.Coordinator, dist.Agents
	if err := o.plan.CheckAgents(); err != nil {
		return cmdutil.FlagErrorf("%v", err)
	}
	return nil
}

func checkReports(reports []string) error {
	for _, r := range reports {
		switch strings.ToLower(filepath.Ext(r)) {
		case ".html", ".htm", ".png":
		default:
			return cmdutil.FlagErrorf("--report %s: the file name must end in .html or .png", r)
		}
	}
	return nil
}

// connect builds the sweep's environment from the user's connection (once).
func (o *sweepOpts) connect(ctx context.Context, f *cmdutil.Factory) error {
	if o.env != nil {
		return nil
	}
	conn, err := o.conn.Connection(f, nil)
	if err != nil {
		return err
	}
	o.env, err = sweep.NewKafkaEnv(ctx, conn, f.Client, func(msg string) { f.Warn("%s", msg) })
	if err != nil {
		return err
	}
	// A preset's fixed client properties (acks=1) apply to the runs'
	// clients, under the user's -X and the cell's.
	var preset map[string]string
	if o.preset != "" {
		preset = sweep.Presets[o.preset].Props
	}
	props := o.env.Fix(preset)
	o.plan.Properties = sweep.Redacted(props)
	// A sweep over agents hands the same properties to the workers.
	o.agentEnv = &sweep.Agents{Bootstrap: strings.Join(conn.Bootstrap, ","), Properties: props.Map()}
	o.secrets = len(conn.Secrets()) > 0
	return nil
}

func (o *sweepOpts) run(cmd *cobra.Command, f *cmdutil.Factory) error {
	ctx := cmd.Context()
	defer cmdutil.CancelOnInterrupt(ctx)()
	if o.preset != "" {
		if _, err := sweep.LookupPreset(o.preset); err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if len(o.vary) > 0 || o.grid || o.one {
			return cmdutil.FlagErrorf("--preset %s sets the varied dimensions and the strategy: drop --vary, --grid and --one-at-a-time", o.preset)
		}
	}
	defer func() {
		if o.env != nil {
			o.env.Close()
		}
	}()
	if o.preset != "" {
		// A preset is scaled to the cluster: read its size first.
		if err := o.connect(ctx, f); err != nil {
			return err
		}
		n, err := o.env.Brokers(ctx)
		if err != nil {
			return err
		}
		if err := o.applyPreset(n); err != nil {
			return err
		}
	}
	cells, obj, err := o.prepare()
	if err != nil {
		return err
	}
	format := o.out
	tot := o.plan.Totals(cells)
	f.IO.ErrOut.Write([]byte(o.plan.Describe(tot) + "\n"))
	if o.plan.Records > 0 && o.maxRecords > 0 && tot.Total() > o.maxRecords {
		return fmt.Errorf("the sweep would move %s records, more than --max-records %s; lower --records, --repeat or the number of values, or raise --max-records",
			sweep.Thousands(tot.Total()), sweep.Thousands(o.maxRecords))
	}
	if o.dryRun {
		for _, c := range cells {
			fmt.Fprintf(f.IO.Out, "cell %d: %s\n", c.Index, c.Label())
		}
		return nil
	}
	if err := o.connect(ctx, f); err != nil {
		return err
	}
	var prev *sweep.Result
	if o.results != "" {
		if prev, err = sweep.LoadResume(o.results, &o.plan); err != nil {
			return err
		}
		if prev != nil {
			fmt.Fprintf(f.IO.ErrOut, "resuming from %s: %d of %d cells already done\n", o.results, len(cells)-len(sweep.Pending(cells, prev)), len(cells))
		}
	}
	var agents *sweep.Agents
	if o.dist != nil {
		agents = o.agentEnv
		agents.Distributor = o.dist
		if o.secrets {
			f.Warn("the client properties, secrets included, go into the Trogdor task specs (on the coordinator until each run ends)")
		}
	}
	sw := &sweep.Sweeper{Plan: o.plan, Env: o.env, Interval: o.interval, KeepTopics: o.keepTopics, Seed: o.seed,
		IdleTimeout: o.idleTimeout, Checks: o.checks, ClusterWarmup: o.clusterWarmup, Interleave: o.interleave, Events: progressPrinter(f, len(cells)),
		Agents: agents}
	if o.results != "" {
		sw.Save = func(r *sweep.Result) error {
			r.Objective = obj.String()
			return sweep.Save(o.results, r)
		}
	}
	res, runErr := sw.Run(ctx, cells, prev)
	f.IO.Progress().Clear()
	if res != nil {
		res.Objective = obj.String()
	}
	if errors.Is(runErr, context.Canceled) {
		msg := "interrupted"
		if res != nil {
			msg = fmt.Sprintf("interrupted after %d of %d cells", len(res.Cells), len(cells))
		}
		if o.results != "" {
			return fmt.Errorf("%s; run the same command again to resume from %s", msg, o.results)
		}
		return fmt.Errorf("%s; pass --results FILE to make a sweep resumable", msg)
	}
	if runErr != nil {
		return runErr
	}
	if err := o.emit(f, format, res, obj); err != nil {
		return err
	}
	for _, r := range o.reports {
		if err := report.WriteFile(r, res, obj); err != nil {
			return fmt.Errorf("--report %s: %v", r, err)
		}
		fmt.Fprintf(f.IO.ErrOut, "report written to %s\n", r)
	}
	failed := res.Failed()
	if failed > 0 {
		return fmt.Errorf("%d of %d cells measured nothing (see ERRORS; run with -o json for the messages)", failed, len(res.Cells))
	}
	return nil
}
