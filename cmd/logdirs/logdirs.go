// Package logdirs is the kafka-log-dirs applet: the Apache tool's exact
// behaviour under its name, and kbox's native disk report (kbox log-dirs).
package logdirs

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/logdirs"
	"github.com/kboxdev/kbox/pkg/output"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-log-dirs (native alias: kbox log-dirs).
var Applet = cmdutil.Applet{
	Name:  "kafka-log-dirs",
	Alias: "log-dirs",
	Short: short,
	Run:   run,

	ConnOptions: []string{"bootstrap-server"},
}

const short = "Log dir usage per broker, dir, topic and partition; replica health"

func run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	apacheName := f.Invoked == "kafka-log-dirs"
	if !apacheName {
		for _, a := range args {
			if a == "-h" || a == "--help" {
				_, err := io.WriteString(f.IO.Out, nativeHelp)
				return err
			}
			if a == "--" {
				break
			}
		}
	}
	p, err := parseArgs(args)
	if err != nil {
		if apacheName {
			return apacheFail(f, err.Error())
		}
		return nativeFlagError(err)
	}
	fs := cmdutil.Formats{Default: output.Table, Allowed: []output.Format{output.Table, output.JSON, output.YAML, output.Apache}}
	if apacheName {
		fs.Default = output.Apache
	}
	oflag, _, err := p.single("output")
	if err != nil {
		return &cmdutil.FlagError{Err: fmt.Errorf("flag --output given more than once")}
	}
	format, err := f.Output(oflag, fs)
	if err != nil {
		if apacheName {
			return apacheFail(f, err.Error())
		}
		return &cmdutil.FlagError{Err: err}
	}
	if apacheName && format == output.Apache {
		return runApache(ctx, f, p, args)
	}
	return runNative(ctx, f, p, format)
}

func nativeFlagError(err error) error {
	msg := err.Error()
	var je *jopt.Error
	if errors.As(err, &je) && je.Token != "" {
		msg = "unknown flag: " + je.Token
	}
	return &cmdutil.FlagError{Err: errors.New(msg)}
}

// apacheFail prints msg on stderr and exits 1, as LogDirsCommand.mainNoExit
// does (the Java stack trace that follows it is left out).
func apacheFail(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// tool is kafka-log-dirs' part of the drop-in prologue (run has printed
// a parse error already: under the native name it is a flag error).
var tool = cmdutil.ApacheTool{Title: "This tool helps to query log directory usage on the specified brokers.", Options: apacheHelp}

// javaBootstrapRe is ClientUtils' host:port pattern.
var javaBootstrapRe = regexp.MustCompile(`^.*?\[?([0-9a-zA-Z\-%._:]*)\]?:([0-9]+)$`)

// validJavaBootstrap reports whether the Java admin client would accept
// the bootstrap.servers value (a comma list of host:port).
func validJavaBootstrap(s string) bool {
	n := 0
	for _, u := range strings.Split(s, ",") {
		u = strings.TrimSpace(u)
		if u == "" {
			continue
		}
		m := javaBootstrapRe.FindStringSubmatch(u)
		if m == nil || m[1] == "" {
			return false
		}
		if port, err := strconv.Atoi(m[2]); err != nil || port > 65535 {
			return false
		}
		n++
	}
	return n > 0
}

// splitNonEmpty is split(",") with empty items dropped.
func splitNonEmpty(s string) []string {
	var out []string
	for _, x := range strings.Split(s, ",") {
		if x != "" {
			out = append(out, x)
		}
	}
	return out
}

func runApache(ctx context.Context, f *cmdutil.Factory, p *parsed, args []string) error {
	if done, err := tool.Prologue(f, args, nil, p.has); done {
		return err
	}
	if err := tool.Require(f, p.has, "bootstrap-server", "describe"); err != nil {
		return err
	}
	// createAdminClient
	// NoSuchFileException / AccessDeniedException: the message is the path.
	bs, cc, err := tool.ConnArgs(p.Set)
	if err != nil {
		return apacheFail(f, err.Error())
	}
	if !validJavaBootstrap(bs) {
		return apacheFail(f, "Failed to create new KafkaAdminClient")
	}
	topicList, _, err := p.single("topic-list")
	if err != nil {
		return apacheFail(f, err.Error())
	}
	cl, err := connect(ctx, f, config.Overrides{Bootstrap: bs, CommandConfig: cc})
	if err != nil {
		return err
	}
	defer cl.Close()
	cluster, err := logdirs.DescribeCluster(ctx, cl.Client, false)
	if err != nil {
		return cl.Explain(err)
	}
	brokerList, _, err := p.single("broker-list")
	if err != nil {
		return apacheFail(f, err.Error())
	}
	var input []int32
	for _, s := range splitNonEmpty(brokerList) {
		id, err := javafmt.ParseInt(s, 32) // Integer.valueOf
		if err != nil {
			return apacheFail(f, err.Error())
		}
		input = append(input, int32(id))
	}
	ids := make([]int32, len(cluster))
	for i, b := range cluster {
		ids[i] = b.ID
	}
	plan := logdirs.PlanApache(ids, input)
	if len(plan.Missing) > 0 {
		return apacheFail(f, (&logdirs.UnknownBrokersError{Missing: plan.Missing, Cluster: plan.Cluster}).Error())
	}
	return apacheQuery(ctx, f, cl, plan.Existing, splitNonEmpty(topicList))
}

// apacheQuery prints the three lines of the Apache tool.
func apacheQuery(ctx context.Context, f *cmdutil.Factory, cl *kafka.Client, brokers []int32, topics []string) error {
	fmt.Fprintln(f.IO.Out, logdirs.QueryingLine)
	to := cl.Settings.APITimeout
	if to <= 0 {
		to = 60 * time.Second
	}
	q := logdirs.QueryBrokers(ctx, cl.Client, brokers, logdirs.QueryOptions{Timeout: to})
	if len(q.Failed) > 0 {
		fb := q.Failed[0]
		return fmt.Errorf("describe log dirs on broker %d: %v", fb.Broker, cl.Explain(fb.Err))
	}
	r := &logdirs.ApacheResult{Queried: brokers, Answers: q.Answered, Topics: topics}
	return r.WriteApache(f.IO.Out)
}

// connect resolves the connection and returns the tool's admin client.
func connect(ctx context.Context, f *cmdutil.Factory, ov config.Overrides) (*kafka.Client, error) {
	defaults := config.NewProperties()
	defaults.Set("client.id", "log-dirs-tool")
	return f.Connect(ctx, ov, kafka.Admin, kafka.Options{Defaults: defaults})
}

type nativeOpts struct {
	view         string
	sortBySize   bool
	top          int
	rawBytes     bool
	skewPercent  float64
	skewMinBytes int64
	timeout      time.Duration
	topics       map[string]bool
	topicRegex   *regexp.Regexp
	brokers      []int32
}

func parseNative(p *parsed) (*nativeOpts, error) {
	o := &nativeOpts{view: logdirs.AggDir, skewPercent: 10, skewMinBytes: 1 << 20, timeout: 10 * time.Second}
	// opt parses flag name with parse when it is given once.
	opt := func(name string, parse func(v string) error) error {
		v, ok, err := p.single(name)
		if err != nil {
			return fmt.Errorf("flag --%s given more than once", name)
		}
		if !ok {
			return nil
		}
		return parse(v)
	}
	if err := opt("aggregate-into", func(v string) error {
		for _, a := range logdirs.Aggregations {
			if v == a {
				o.view = v
				return nil
			}
		}
		return fmt.Errorf("invalid --aggregate-into %q (allowed: %s)", v, strings.Join(logdirs.Aggregations, ", "))
	}); err != nil {
		return nil, err
	}
	if p.has("health") {
		if p.has("aggregate-into") {
			return nil, errors.New("--health and --aggregate-into cannot be used together")
		}
		o.view = logdirs.ViewHealth
	}
	o.sortBySize = p.has("sort-by-size")
	// Sizes are in KiB/MiB/GiB by default; -H (once needed for that) is
	// still accepted. --bytes prints byte counts.
	if p.has("bytes") && p.has("human-readable") {
		return nil, errors.New("--bytes and --human-readable cannot be used together")
	}
	o.rawBytes = p.has("bytes")
	parsers := []struct {
		name  string
		parse func(v string) error
	}{
		{"top", func(v string) error {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				return fmt.Errorf("invalid --top %q: want a positive number", v)
			}
			o.top = n
			return nil
		}},
		{"skew-threshold", func(v string) error {
			x, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
			if err != nil || x < 0 {
				return fmt.Errorf("invalid --skew-threshold %q: want a percentage such as 10", v)
			}
			o.skewPercent = x
			return nil
		}},
		{"skew-min-bytes", func(v string) error {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil || x < 0 {
				return fmt.Errorf("invalid --skew-min-bytes %q: want a byte count", v)
			}
			o.skewMinBytes = x
			return nil
		}},
		{"timeout", func(v string) error {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return fmt.Errorf("invalid --timeout %q (use e.g. 10s)", v)
			}
			o.timeout = d
			return nil
		}},
		{"topic-list", func(v string) error {
			o.topics = map[string]bool{}
			for _, t := range splitNonEmpty(v) {
				o.topics[strings.TrimSpace(t)] = true
			}
			return nil
		}},
		{"topic-regex", func(v string) error {
			re, err := regexp.Compile(v)
			if err != nil {
				return fmt.Errorf("invalid --topic-regex: %v", err)
			}
			o.topicRegex = re
			return nil
		}},
		{"broker-list", func(v string) error {
			for _, s := range splitNonEmpty(v) {
				id, err := strconv.ParseInt(strings.TrimSpace(s), 10, 32)
				if err != nil {
					return fmt.Errorf("invalid broker id %q in --broker-list", s)
				}
				o.brokers = append(o.brokers, int32(id))
			}
			return nil
		}},
	}
	for _, pr := range parsers {
		if err := opt(pr.name, pr.parse); err != nil {
			return nil, err
		}
	}
	return o, nil
}

func runNative(ctx context.Context, f *cmdutil.Factory, p *parsed, format output.Format) error {
	o, err := parseNative(p)
	if err != nil {
		return &cmdutil.FlagError{Err: err}
	}
	var ov config.Overrides
	for name, dst := range map[string]*string{"bootstrap-server": &ov.Bootstrap, "command-config": &ov.CommandConfig} {
		v, _, err := p.single(name)
		if err != nil {
			return &cmdutil.FlagError{Err: fmt.Errorf("flag --%s given more than once", name)}
		}
		*dst = v
	}
	cl, err := connect(ctx, f, ov)
	if err != nil {
		return err
	}
	defer cl.Close()
	if format == output.Apache {
		cluster, err := logdirs.DescribeCluster(ctx, cl.Client, true)
		if err != nil {
			return cl.Explain(err)
		}
		targets, err := logdirs.Targets(cluster, o.brokers)
		var unknown *logdirs.UnknownBrokerError
		if errors.As(err, &unknown) {
			return brokerListError(unknown)
		}
		var topics []string
		for t := range o.topics {
			topics = append(topics, t)
		}
		return apacheQuery(ctx, f, cl, targets, topics)
	}
	ro := logdirs.ReadOptions{Brokers: o.brokers, Registered: true, Query: logdirs.QueryOptions{Timeout: o.timeout},
		Leaders: o.view != logdirs.AggDir && o.view != logdirs.AggBroker}
	if o.topics != nil || o.topicRegex != nil {
		ro.Keep = func(t string) bool {
			if o.topics != nil && !o.topics[t] {
				return false
			}
			return o.topicRegex == nil || o.topicRegex.MatchString(t)
		}
	}
	// Fenced brokers are registered but not serving (stopped or shutting
	// down); clients cannot reach them, so they are reported, not asked.
	in, err := logdirs.Read(ctx, cl.Client, ro)
	var unknown *logdirs.UnknownBrokerError
	switch {
	case errors.As(err, &unknown):
		return brokerListError(unknown)
	case err != nil:
		return cl.Explain(err)
	}
	q := in.Query
	for i := range q.Failed {
		if !errors.Is(q.Failed[i].Err, logdirs.ErrFenced) {
			q.Failed[i].Err = cl.Explain(q.Failed[i].Err)
		}
	}
	if len(q.Answered) == 0 {
		return fmt.Errorf("no broker answered: %s", failedList(q.Failed))
	}
	if in.LeadersErr != nil {
		f.Warn("cannot read partition leaders (%v); logical sizes are estimated from the largest replica", cl.Explain(in.LeadersErr))
	}
	rep := logdirs.BuildReport(*in, logdirs.ReportOptions{View: o.view, SortBySize: o.sortBySize, Top: o.top, RawBytes: o.rawBytes,
		SkewPercent: o.skewPercent, SkewMinBytes: o.skewMinBytes})
	if len(q.Failed) > 0 {
		fmt.Fprintf(f.IO.ErrOut, "kbox: warning: partial result, no answer from %s\n", failedList(q.Failed))
	}
	if err := output.Print(f.IO, format, rep); err != nil {
		return err
	}
	if note := rep.Note(); note != "" && format == output.Table {
		_, err := fmt.Fprintln(f.IO.Out, note)
		return err
	}
	return nil
}

func failedList(fs []logdirs.BrokerFailure) string {
	parts := make([]string, len(fs))
	for i, fb := range fs {
		parts[i] = fmt.Sprintf("broker %d (%v)", fb.Broker, fb.Err)
	}
	return strings.Join(parts, ", ")
}

// brokerListError words unknown --broker-list ids as kbox log-dirs does.
func brokerListError(ue *logdirs.UnknownBrokerError) error {
	return fmt.Errorf("unknown broker %s in --broker-list (cluster brokers: %s)", joinIDs(ue.Missing), joinIDs(ue.Cluster))
}

func joinIDs(ids []int32) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = strconv.Itoa(int(id))
	}
	return strings.Join(parts, ",")
}

const nativeHelp = `Describe broker log directories: disk usage per broker, dir, topic and
partition, topic sizes, replica health.

Usage:
  kbox log-dirs [flags]
  kafka-log-dirs --bootstrap-server HOST:PORT --describe [--broker-list 1,2] [--topic-list a,b]

Under the name kafka-log-dirs it behaves exactly like Apache Kafka's tool
(two text lines, then one JSON line); any -o flag switches to this report.

Connection:
      --bootstrap-server LIST   broker addresses (default: the profile's)
      --command-config FILE     Java client properties (security settings)
      --profile NAME            connection profile
      --timeout DURATION        per-broker answer deadline (default 10s)

Selection:
      --broker-list 1,2,3       brokers to ask (default: all registered)
      --topic-list a,b          only these topics (exact names)
      --topic-regex REGEX       only topics matching REGEX

Report:
      --aggregate-into VIEW     broker, dir (default), topic, partition or replica
                                  dir:       size, volume total/usable, used%, partitions, error
                                  topic:     physical (all replicas) and logical (leader only) size
                                  partition: per partition, leader, physical/logical, lag, futures
                                  broker:    size, dirs, and the fullest dir's volume
                                             (dirs may share a volume: not summed)
      --health                  replicas whose size differs from the leader's by more
                                than the threshold, with offsetLag > 0, or future
                                replicas (moves between dirs in progress)
      --skew-threshold PCT      size skew to report, percent of the leader (default 10)
      --skew-min-bytes N        ignore skews of at most N bytes (default 1048576)
      --sort-by-size            largest first
      --top N                   only the first N rows
      --bytes                   sizes in the table as byte counts (default: KiB/MiB/GiB;
                                JSON and YAML always hold byte counts)
  -H, --human-readable          sizes in KiB/MiB/GiB (the default; kept for scripts)
  -o, --output FORMAT           table (default), json, yaml, apache

Brokers that do not answer are named on stderr; the others are reported.
Exit status: 0 when at least one broker answered; 1 when none did or a
requested broker does not exist; 2 on bad flags.
`
