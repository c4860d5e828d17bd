package sweep

import (
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/perf/trogdorflags"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/pkg/perf/report"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kgo"
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
			var rs []*sweep.Result
			for _, a := range args {
				fh, err := os.Open(a)
				if err != nil {
					return err
				}
				r, err := sweep.Read(fh)
				fh.Close()
				if err != nil {
					return fmt.Errorf("%s: %v", a, err)
				}
				rs = append(rs, r)
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
				if err := writeReport(r, m, obj); err != nil {
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

func (o *sweepOpts) run(cmd *cobra.Command, f *cmdutil.Factory) error {
	ctx, stop := signal.NotifyContext(cmd.Context(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if o.preset != "" {
		if _, err := sweep.LookupPreset(o.preset); err != nil {
			return cmdutil.FlagErrorf("%v", err)
		}
		if len(o.vary) > 0 || o.grid || o.one {
			return cmdutil.FlagErrorf("--preset %s sets the varied dimensions and the strategy: drop --vary, --grid and --one-at-a-time", o.preset)
		}
	}
	var env *sweepEnv
	defer func() {
		if env != nil {
			env.close()
		}
	}()
	connect := func() error {
		if env != nil {
			return nil
		}
		conn, err := o.conn.Connection(f, nil)
		if err != nil {
			return err
		}
		env, err = newSweepEnv(ctx, f, conn)
		if err != nil {
			return err
		}
		// A preset's fixed client properties (acks=1) apply to the runs'
		// clients, under the user's -X and the cell's.
		props := config.NewProperties()
		if conn.Props != nil {
			props = conn.Props.Clone()
		}
		if o.preset != "" {
			for k, v := range sweep.Presets[o.preset].Props {
				if _, given := props.Get(k); !given {
					env.fixed[k] = v
				}
			}
		}
		for k, v := range env.fixed {
			props.Set(k, v)
		}
		o.plan.Properties = redacted(props)
		// A sweep over agents hands the same properties to the workers.
		o.agentEnv = &sweep.Agents{Bootstrap: strings.Join(conn.Bootstrap, ","), Properties: props.Map()}
		o.secrets = len(conn.Secrets()) > 0
		return nil
	}
	if o.preset != "" {
		// A preset is scaled to the cluster: read its size first.
		if err := connect(); err != nil {
			return err
		}
		n, err := env.Brokers(ctx)
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
	f.IO.ErrOut.Write([]byte(describe(&o.plan, tot) + "\n"))
	if o.plan.Records > 0 && o.maxRecords > 0 && tot.Total() > o.maxRecords {
		return fmt.Errorf("the sweep would move %s records, more than --max-records %s; lower --records, --repeat or the number of values, or raise --max-records",
			thousands(tot.Total()), thousands(o.maxRecords))
	}
	if o.dryRun {
		for _, c := range cells {
			fmt.Fprintf(f.IO.Out, "cell %d: %s\n", c.Index, c.Label())
		}
		return nil
	}
	if err := connect(); err != nil {
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
	sw := &sweep.Sweeper{Plan: o.plan, Env: env, Interval: o.interval, KeepTopics: o.keepTopics, Seed: o.seed,
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
		if err := writeReport(r, res, obj); err != nil {
			return fmt.Errorf("--report %s: %v", r, err)
		}
		fmt.Fprintf(f.IO.ErrOut, "report written to %s\n", r)
	}
	failed := 0
	for _, c := range res.Cells {
		if !c.OK() {
			failed++
		}
	}
	if failed > 0 {
		return fmt.Errorf("%d of %d cells measured nothing (see ERRORS; run with -o json for the messages)", failed, len(res.Cells))
	}
	return nil
}

func describe(p *sweep.Plan, t sweep.Totals) string {
	var names []string
	for _, d := range p.Dimensions {
		names = append(names, fmt.Sprintf("%s (%d)", d.Name, len(d.Values)))
	}
	what := fmt.Sprintf("%d cells (%s of %s)", t.Cells, p.Strategy, strings.Join(names, " x "))
	if p.Preset != "" {
		what = fmt.Sprintf("preset %s: %s", p.Preset, what)
	}
	warm := "no warm-up"
	switch {
	case p.WarmupRecords > 0 && p.WarmupDurationSec > 0:
		warm = fmt.Sprintf("%s warm-up records and %s", thousands(p.WarmupRecords), p.WarmupDuration())
	case p.WarmupRecords > 0:
		warm = fmt.Sprintf("%s warm-up records", thousands(p.WarmupRecords))
	case p.WarmupDurationSec > 0:
		warm = fmt.Sprintf("%s warm-up", p.WarmupDuration())
	}
	if p.Records == 0 {
		return fmt.Sprintf("sweep %s: %s x %d repeat(s) x %s measured (+ %s) = %s of measured runs",
			p.Mode, what, p.Repeat, p.Duration(), warm, t.RunTime)
	}
	s := fmt.Sprintf("sweep %s: %s x %d repeat(s) x %s records (%s + %s warm-up) = %s records",
		p.Mode, what, p.Repeat, thousands(t.RunRecords), thousands(p.Records), thousands(p.WarmupRecords), thousands(t.Records))
	if p.WarmupDurationSec > 0 {
		s += fmt.Sprintf(" (+ %s warm-up per run)", p.WarmupDuration())
	}
	if t.FillTopics > 0 {
		s += fmt.Sprintf(", plus %s to fill %d topic(s)", thousands(t.FillRecords), t.FillTopics)
	}
	return s
}

func thousands(n int64) string {
	s := fmt.Sprint(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

func redacted(p *config.Properties) []string {
	if p == nil {
		return nil
	}
	var out []string
	for _, k := range p.Keys() {
		v, _ := p.Get(k)
		if config.IsSecretKey(k) {
			v = "[hidden]"
		}
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func writeReport(path string, res *sweep.Result, obj sweep.Objective) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if strings.EqualFold(filepath.Ext(path), ".png") {
		err = report.WritePNG(tmp, res, obj)
	} else {
		err = report.WriteHTML(tmp, res, obj)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_ = os.Chmod(tmp.Name(), 0o644)
	return os.Rename(tmp.Name(), path)
}

func (o *sweepOpts) emit(f *cmdutil.Factory, format string, res *sweep.Result, obj sweep.Objective) error {
	switch format {
	case "json":
		return output.WriteJSON(f.IO.Out, res, true)
	case "csv":
		w := csv.NewWriter(f.IO.Out)
		_ = w.WriteAll(res.CSV(obj))
		return w.Error()
	}
	mark := func(s string) string { return s + "*" }
	if f.IO.IsStdoutTTY() {
		mark = func(s string) string { return "\033[1;33m" + s + "\033[0m" }
	}
	t := res.Table(obj, mark)
	if err := output.WriteTable(f.IO, t.Header, t.Rows); err != nil {
		return err
	}
	legend := "* differs from the baseline (each dimension's first value)"
	if f.IO.IsStdoutTTY() {
		legend = "highlighted: differs from the baseline (each dimension's first value)"
	}
	fmt.Fprintf(f.IO.Out, "objective %s; %s; latency from %s\n", obj, legend, basisOf(res))
	if cw := res.ClusterWarmup; cw != nil {
		state := "stable"
		if !cw.Stable {
			state = "not stable"
		}
		fmt.Fprintf(f.IO.Out, "cluster warm-up: %.1f s before the first cell (%s; %d windows of 1 s)\n", cw.Seconds, state, len(cw.WindowRecordsPerSec))
	}
	for _, n := range res.Footnotes() {
		fmt.Fprintf(f.IO.Out, "FLAGS %s\n", n)
	}
	if ch := report.TerminalChart(res); ch != "" {
		fmt.Fprintf(f.IO.Out, "\n%s\n", ch)
	}
	return nil
}

func basisOf(res *sweep.Result) string {
	for _, c := range res.Cells {
		for _, r := range c.Runs {
			if r.Result != nil {
				return r.Result.LatencyBasis
			}
		}
	}
	return "-"
}

// progressPrinter shows the running cell, its rate and the time left on
// the progress line (drawn when stderr is a terminal), and one lasting line
// per finished run either way.
func progressPrinter(f *cmdutil.Factory, cells int) func(sweep.Event) {
	pr := f.IO.Progress()
	var mu sync.Mutex
	eta := func(e sweep.Event) string {
		if e.AllRecords == 0 && e.Position > 1 && e.Runs >= e.Position && e.Elapsed > 0 {
			// Runs sized by time: estimate by runs.
			left := e.Elapsed / time.Duration(e.Position-1) * time.Duration(e.Runs-e.Position+1)
			return "  ETA " + left.Round(time.Second).String()
		}
		if e.DoneRecords <= 0 || e.Elapsed <= 0 || e.AllRecords <= e.DoneRecords {
			return ""
		}
		rate := float64(e.DoneRecords) / e.Elapsed.Seconds()
		left := time.Duration(float64(e.AllRecords-e.DoneRecords) / rate * float64(time.Second))
		return "  ETA " + left.Round(time.Second).String()
	}
	head := func(e sweep.Event) string {
		rep := ""
		if e.Runs > 0 {
			rep = fmt.Sprintf("[run %d/%d] ", e.Position, e.Runs)
		}
		return fmt.Sprintf("%scell #%d/%d %s (repeat %d)", rep, e.Cell.Index, cells, e.Cell.Label(), e.Repeat)
	}
	return func(e sweep.Event) {
		mu.Lock()
		defer mu.Unlock()
		switch e.Kind {
		case sweep.EventFill:
			pr.Println("%s", e.Message)
		case sweep.EventWarning:
			pr.Println("kbox: warning: %s", strings.Join(strings.Fields(e.Message), " "))
		case sweep.EventWarmup, sweep.EventRerun:
			pr.Println("%s", e.Message)
		case sweep.EventCellStart:
			pr.Update("%s  starting%s", head(e), eta(e))
		case sweep.EventProgress:
			warm := ""
			if e.Progress.Warmup {
				warm = " (warm-up)"
			}
			pr.Update("%s  %d/%d  %.0f rec/s  p99 %.2f ms%s%s", head(e), e.Progress.Done, e.Progress.Target, e.Progress.Rate, e.Progress.P99Ms, warm, eta(e))
		case sweep.EventRunDone:
			r := e.Run
			if r.Result == nil {
				pr.Println("%s: failed: %s%s", head(e), r.Error, eta(e))
				return
			}
			rps, mbps := r.Rates()
			msg := fmt.Sprintf("%s: %.1f records/s, %.2f MB/s, p99 %.2f ms, CPU %.0f%%", head(e), rps, mbps, r.Result.Latency.P99Ms, r.CPUPercent)
			if d := r.Distributed; d != nil {
				msg = fmt.Sprintf("%s: %.1f records/s, %.2f MB/s (sum of %d agents), p99 %.2f ms", head(e), rps, mbps, len(d.Agents), r.Result.Latency.P99Ms)
			}
			if r.Result.Failed > 0 {
				msg += fmt.Sprintf(", %d failed", r.Result.Failed)
			}
			if r.Error != "" {
				msg += ", error: " + r.Error
			}
			pr.Println("%s%s", msg, eta(e))
		}
	}
}

// sweepEnv builds the sweep's clients from the user's connection.
type sweepEnv struct {
	f     *cmdutil.Factory
	conn  *config.Connection
	admin *kafka.Client
	seq   int
	warn  map[string]bool
	ready *kafka.Client // producer with a manual partitioner (readiness writes)
	// fixed are client properties the sweep sets for every run (a
	// preset's), under the user's and the cell's.
	fixed map[string]string
}

func newSweepEnv(ctx context.Context, f *cmdutil.Factory, conn *config.Connection) (*sweepEnv, error) {
	adm, err := f.ConnectedClient(ctx, conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return nil, err
	}
	return &sweepEnv{f: f, conn: conn, admin: adm, warn: map[string]bool{}, fixed: map[string]string{}}, nil
}

func (e *sweepEnv) close() {
	if e.ready != nil {
		e.ready.Close()
	}
	e.admin.Close()
}

// cellConn is the user's connection with the sweep's fixed properties and
// then the cell's over its client properties.
func (e *sweepEnv) cellConn(props map[string]string) config.Connection {
	c := *e.conn
	c.Props = config.NewProperties()
	if e.conn.Props != nil {
		c.Props = e.conn.Props.Clone()
	}
	for k, v := range e.fixed {
		c.Props.Set(k, v)
	}
	for k, v := range props {
		c.Props.Set(k, v)
	}
	return c
}

func (e *sweepEnv) Clients(ctx context.Context, role kafka.Role, n int, props map[string]string, w sweep.Workload, topic string) ([]*kgo.Client, []string, int, error) {
	c := e.cellConn(props)
	defaults := config.NewProperties()
	opts := kafka.Options{Defaults: defaults}
	if role == kafka.Producer {
		defaults.Set("client.id", "kbox-perf-sweep-producer")
		opts.Tune = func(s *kafka.Settings) { s.MaxRecordBytes = w.RecordSize }
	} else {
		e.seq++
		defaults.Set("client.id", "kbox-perf-sweep-consumer")
		c.Props.Set("group.id", fmt.Sprintf("kbox-perf-sweep-%d-%d", time.Now().UnixNano(), e.seq))
		c.Props.Set("auto.offset.reset", "earliest")
	}
	var cls []*kgo.Client
	var settings []string
	maxPoll := 0
	for i := 0; i < n; i++ {
		o := opts
		if role == kafka.Consumer {
			o.Extra = []kgo.Opt{kgo.ConsumeTopics(topic)}
		}
		cl, err := e.f.Client(&c, role, o)
		if err == nil {
			err = cl.Connect(ctx)
			if err != nil {
				cl.Close()
			}
		}
		if err != nil {
			for _, x := range cls {
				x.Close()
			}
			return nil, nil, 0, err
		}
		for _, ig := range cl.Settings.Ignored {
			if !e.warn[ig.String()] && !strings.HasPrefix(ig.Reason, "not used by") {
				e.warn[ig.String()] = true
				e.f.Warn("%s", ig.String())
			}
		}
		cls = append(cls, cl.Client)
		settings = cl.Settings.EffectiveSorted()
		maxPoll = cl.Settings.MaxPollRecords
	}
	return cls, settings, maxPoll, nil
}

func (e *sweepEnv) CreateTopic(ctx context.Context, name string, partitions, rf int) (bool, error) {
	resp, err := e.admin.Admin().CreateTopic(ctx, int32(partitions), int16(rf), nil, name)
	if err == nil {
		err = resp.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return false, nil
	}
	if err != nil {
		return false, e.admin.Explain(err)
	}
	return true, nil
}

func (e *sweepEnv) DeleteTopics(ctx context.Context, names ...string) error {
	resps, err := e.admin.Admin().DeleteTopics(ctx, names...)
	if err != nil {
		return e.admin.Explain(err)
	}
	var errs []string
	for _, r := range resps.Sorted() {
		if r.Err != nil && !errors.Is(r.Err, kerr.UnknownTopicOrPartition) {
			errs = append(errs, r.Topic+": "+r.Err.Error())
		}
	}
	if len(errs) > 0 {
		return errors.New(strings.Join(errs, "; "))
	}
	return nil
}

// E2EClients builds an e2e run's clients as kbox perf e2e does (linger.ms=0
// unless the cell sets it, a group-less consumer with a 10 ms fetch wait),
// with the cell's properties over the user's.
func (e *sweepEnv) E2EClients(ctx context.Context, props map[string]string, w sweep.Workload) (*kgo.Client, *kgo.Client, *kadm.Client, []string, error) {
	pc := e.cellConn(props)
	defaults := config.NewProperties()
	defaults.Set("client.id", "kbox-perf-sweep-e2e")
	defaults.Set("linger.ms", "0")
	prod, err := e.f.Client(&pc, kafka.Producer, kafka.Options{Defaults: defaults, Tune: func(s *kafka.Settings) { s.MaxRecordBytes = w.RecordSize }})
	if err == nil {
		if err = prod.Connect(ctx); err != nil {
			prod.Close()
		}
	}
	if err != nil {
		return nil, nil, nil, nil, err
	}
	cons, err := e.f.Client(e.conn, kafka.Consumer, kafka.Options{Tune: func(s *kafka.Settings) {
		s.FetchMaxWait = 10 * time.Millisecond
		s.GroupID = ""
	}})
	if err != nil {
		prod.Close()
		return nil, nil, nil, nil, err
	}
	return prod.Client, cons.Client, kadm.NewClient(prod.Client), prod.Settings.EffectiveSorted(), nil
}

// Ready waits for a created topic's leaders and writes one record to
// every partition (see perf.WaitTopicReady).
func (e *sweepEnv) Ready(ctx context.Context, topic string, partitions int) error {
	if e.ready == nil {
		cl, err := e.f.Client(e.conn, kafka.Producer, kafka.Options{Extra: []kgo.Opt{kgo.RecordPartitioner(kgo.ManualPartitioner())}})
		if err != nil {
			return err
		}
		e.ready = cl
	}
	err := perf.WaitTopicReady(ctx, e.admin.Admin(), e.ready.Client, topic, partitions, 30*time.Second)
	if err != nil {
		return e.admin.Explain(err)
	}
	return nil
}

// Brokers counts the cluster's brokers.
func (e *sweepEnv) Brokers(ctx context.Context) (int, error) {
	md, err := e.admin.Admin().BrokerMetadata(ctx)
	if err != nil {
		return 0, e.admin.Explain(err)
	}
	return len(md.Brokers), nil
}

var _ sweep.Env = (*sweepEnv)(nil)
