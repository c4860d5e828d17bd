package consumerperf

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/metrics"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Applet is kafka-consumer-perf-test.
var Applet = cmdutil.Applet{
	Name:  "kafka-consumer-perf-test",
	Alias: "consumer-perf-test",
	Short: "Consumer throughput test (Apache-compatible)",
	Run:   runConsumerApplet,

	ConnOptions: []string{"bootstrap-server"},
}

//go:embed consumer_help.txt
var consumerHelp string

// consumerParser is ConsumerPerformance's jopt-simple option set.
var consumerParser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "include", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "group", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "fetch-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "command-property", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "from-latest"},
	jopt.Spec{Name: "socket-buffer-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "consumer.config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "print-metrics"},
	jopt.Spec{Name: "show-detailed-stats"},
	jopt.Spec{Name: "timeout", Arg: jopt.OptionalArg, Type: jopt.Long},
	jopt.Spec{Name: "messages", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "num-records", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "reporting-interval", Arg: jopt.RequiredArg, Type: jopt.Long},
	jopt.Spec{Name: "date-format", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "hide-header"},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

func consumerUsage(group string) string {
	// jopt pads every table line to 79 columns
	return jopt.PadLines(strings.ReplaceAll(consumerHelp, "perf-consumer-{{GROUP}}", group), 79)
}

func runConsumerApplet(ctx context.Context, f *cmdutil.Factory, args []string) error {
	errOut, out := f.IO.ErrOut, f.IO.Out
	group := "perf-consumer-" + strconv.Itoa(rand.IntN(100000))
	// The option table shows this run's random group.
	tool := cmdutil.ApacheTool{Title: "This tool is used to verify the consumer performance.", Options: consumerUsage(group), ParseUsage: true}
	usage := func(msg string) error { return tool.Usage(f, msg) }
	s, err := consumerParser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "bootstrap-server"); err != nil {
		return err
	}
	if s.Has("topic") == s.Has("include") {
		return usage("Exactly one of the following arguments is required: [topic], [include]")
	}
	if s.Has("messages") == s.Has("num-records") {
		return usage("Exactly one of the following arguments is required: [messages], [num-records]")
	}
	if s.Has("consumer.config") && s.Has("command-config") {
		return usage(`Option "[consumer.config]" can't be used with option "[command-config]"`)
	}
	if s.Has("messages") {
		fmt.Fprintln(out, "Warning: --messages is deprecated. Use --num-records instead.")
	}
	if s.Has("consumer.config") {
		fmt.Fprintln(out, "Warning: --consumer.config is deprecated. Use --command-config instead.")
	}
	detailed, hide := s.Has("show-detailed-stats"), s.Has("hide-header")
	if !hide {
		fmt.Fprintln(out, perf.ApacheConsumerHeader(detailed))
	}
	// From here on the Java tool reads (and converts) values lazily; its
	// failures print the message (and a stack trace, omitted here), exit 1.
	fail := func(err error) error {
		fmt.Fprintln(errOut, err.Error())
		return cmdutil.Exit(1)
	}
	o, err := consumerOptions(s, group)
	if err != nil {
		return fail(err)
	}
	conn, err := f.Connection(config.Overrides{Bootstrap: o.bootstrap, CommandConfig: o.configFile, Properties: o.props})
	if err != nil {
		return fail(err)
	}
	// franz-go joins the group as soon as the client exists (Java joins on
	// the first poll after subscribe), so the rebalance timer must start
	// before the client is built or the first assignment is measured from 0.
	rt := &perf.RebalanceTimer{}
	startMs := perf.NowMs()
	rt.Start(startMs)
	extra := rt.Opts()
	if o.topic != "" {
		extra = append(extra, kgo.ConsumeTopics(o.topic))
	} else {
		extra = append(extra, kgo.ConsumeRegex(), kgo.ConsumeTopics(o.include))
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "perf-consumer-client")
	printMetrics := s.Has("print-metrics")
	// The client checks CRCs although Java's tool does not: a batch it
	// refuses is read with Java's rules by the run (see RunApacheConsumer).
	checkCRCs := func(s *kafka.Settings) { s.CheckCRCs = true }
	cl, err := f.ConnectedClient(ctx, conn, kafka.Consumer, kafka.Options{Defaults: defaults, Extra: extra, Tune: checkCRCs,
		Metrics: printMetrics, MetricsPushError: func(err error) { f.Warn("%v", err) }})
	if err != nil {
		return fail(err)
	}
	defer cl.Close()
	o.cfg.MaxPollRecords = cl.Settings.MaxPollRecords
	if cl.Metrics != nil {
		o.cfg.OnPoll = cl.Metrics.Polled
	}
	res, err := perf.RunApacheConsumer(ctx, cl.Client, rt, startMs, o.cfg, out)
	var corr *integrity.Corruption
	if errors.As(err, &corr) {
		// KafkaConsumer.poll throws; main prints the message, then the
		// stack trace (kbox: the exception and its cause, no frames),
		// exit 1.
		exc := integrity.ApacheReceived(corr.Topic, corr.Partition)
		fmt.Fprintln(errOut, strings.TrimPrefix(exc, "org.apache.kafka.common.KafkaException: "))
		fmt.Fprintln(errOut, exc)
		// Utils.stackTrace ends with a line break, println adds one.
		fmt.Fprintf(errOut, "Caused by: %s\n\n", corr.ApacheCause(false))
		return cmdutil.Exit(1)
	}
	// Java takes the metrics when the loop ends and prints them after the
	// summary.
	var snap []metrics.Value
	if printMetrics {
		snap = cl.Metrics.Snapshot()
	}
	if !detailed {
		perf.WriteApacheConsumerSummary(out, res, o.cfg.DateFormat)
	}
	if printMetrics {
		if err := metrics.WriteTable(out, snap); err != nil {
			return err
		}
	}
	return ctx.Err()
}

type consumerOpts struct {
	bootstrap  string
	topic      string
	include    string
	configFile string
	props      *config.Properties
	cfg        perf.ApacheConsumerConfig
}

// consumerOptions converts the values in the order the Java tool reads them.
func consumerOptions(s *jopt.Set, defaultGroup string) (*consumerOpts, error) {
	o := &consumerOpts{props: config.NewProperties()}
	var err error
	get := func(name string) string {
		if err != nil {
			return ""
		}
		v, _, e := s.Value(name)
		if e != nil {
			err = e
		}
		return v
	}
	conv := func(name string, def int64) int64 {
		if err != nil {
			return def
		}
		n, ok, e := s.Int(name)
		if e != nil {
			err = e
		}
		if !ok {
			return def
		}
		return n
	}
	// props(): command-config/consumer.config, command-property, then the
	// CLI values that always override.
	o.configFile = get("consumer.config")
	if o.configFile == "" {
		o.configFile = get("command-config")
	}
	for _, kv := range s.Values("command-property") {
		k, v, _ := strings.Cut(kv, "=")
		o.props.Set(k, v)
	}
	// --bootstrap-server overrides bootstrap.servers of the properties:
	// Overrides.Bootstrap (Resolve applies it last; a list the layer added
	// from a profile yields to the properties instead).
	o.bootstrap = get("bootstrap-server")
	g := get("group")
	if g == "" && !s.Has("group") {
		g = defaultGroup
	}
	o.props.Set("group.id", g)
	sock := conv("socket-buffer-size", 2097152)
	if s.Has("socket-buffer-size") {
		// Java always sets it; kbox leaves socket buffers to the OS and
		// only mentions it when the user asked for a size.
		o.props.Set("receive.buffer.bytes", strconv.FormatInt(sock, 10))
	}
	fetch := conv("fetch-size", 1048576)
	o.props.Set("max.partition.fetch.bytes", strconv.FormatInt(fetch, 10))
	if s.Has("from-latest") {
		o.props.Set("auto.offset.reset", "latest")
	} else {
		o.props.Set("auto.offset.reset", "earliest")
	}
	o.props.Set("check.crcs", "false")
	o.topic = get("topic")
	o.include = get("include")
	if err == nil && o.include != "" {
		if _, e := regexp.Compile(o.include); e != nil {
			err = fmt.Errorf("invalid --include regular expression: %v", e)
		}
	}
	if s.Has("messages") {
		o.cfg.NumRecords = conv("messages", 0)
	} else {
		o.cfg.NumRecords = conv("num-records", 0)
	}
	o.cfg.TimeoutMs = conv("timeout", 10000)
	o.cfg.ReportingIntervalMs = conv("reporting-interval", 5000)
	if err == nil && o.cfg.ReportingIntervalMs <= 0 {
		err = cmdutil.JavaError("Reporting interval must be greater than 0.")
	}
	o.cfg.ShowDetailedStats = s.Has("show-detailed-stats")
	pattern := get("date-format")
	if !s.Has("date-format") {
		pattern = perf.ApacheConsumerDateFormat
	}
	if err != nil {
		return nil, err
	}
	df, e := javafmt.CompileDateFormat(pattern)
	if e != nil {
		return nil, e
	}
	o.cfg.DateFormat = df.FormatMillis
	return o, nil
}
