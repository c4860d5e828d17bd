package perf

import (
	"context"
	_ "embed"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kgo"
)

// ConsumerApplet is kafka-consumer-perf-test.
var ConsumerApplet = cmdutil.Applet{
	Name:  "kafka-consumer-perf-test",
	Short: "Consumer throughput test (Apache-compatible)",
	New:   newConsumerCmd,
}

//go:embed consumer_help.txt
var consumerHelp string

// kafkaVersion is the Apache version whose behaviour the applets follow.
const kafkaVersion = "4.4.0"

func newConsumerCmd(f *cmdutil.Factory) *cobra.Command {
	return &cobra.Command{
		Use:                "kafka-consumer-perf-test",
		Short:              "Consumer throughput test (Apache-compatible)",
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConsumerApplet(cmd.Context(), f, args)
		},
	}
}

// joptSpec describes the consumer perf test's jopt-simple options.
type joptSpec struct {
	arg      int // 0 none, 1 required, 2 optional
	multiple bool
}

var consumerSpec = map[string]joptSpec{
	"bootstrap-server": {arg: 1}, "topic": {arg: 1}, "include": {arg: 1}, "group": {arg: 1},
	"fetch-size": {arg: 1}, "command-property": {arg: 1, multiple: true}, "from-latest": {},
	"socket-buffer-size": {arg: 1}, "consumer.config": {arg: 1}, "command-config": {arg: 1},
	"print-metrics": {}, "show-detailed-stats": {}, "timeout": {arg: 2}, "messages": {arg: 1},
	"num-records": {arg: 1}, "reporting-interval": {arg: 1}, "date-format": {arg: 1},
	"hide-header": {}, "help": {}, "version": {},
}

// joptSet is a parsed jopt-simple command line.
type joptSet struct {
	values map[string][]string
	has    map[string]bool
}

type joptError struct{ msg string }

func (e *joptError) Error() string { return e.msg }

// parseJopt parses args like jopt-simple 5.0.4 without abbreviations.
// Non-option arguments are ignored, as the Apache tool does.
func parseJopt(args []string, spec map[string]joptSpec) (*joptSet, error) {
	s := &joptSet{values: map[string][]string{}, has: map[string]bool{}}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			break
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			continue
		}
		var name string
		if strings.HasPrefix(a, "--") {
			name = a[2:]
		} else {
			name = a[1:]
		}
		val, hasVal := "", false
		if k, v, ok := strings.Cut(name, "="); ok {
			name, val, hasVal = k, v, true
		}
		sp, ok := spec[name]
		if !ok {
			return nil, &joptError{name + " is not a recognized option"}
		}
		s.has[name] = true
		switch sp.arg {
		case 0:
			if hasVal {
				return nil, &joptError{fmt.Sprintf("Option %s does not take an argument", name)}
			}
		case 1:
			if !hasVal {
				if i+1 >= len(args) || (strings.HasPrefix(args[i+1], "-") && len(args[i+1]) > 1 && isJoptOption(args[i+1])) {
					return nil, &joptError{fmt.Sprintf("Option %s requires an argument", name)}
				}
				i++
				val = args[i]
			}
			s.values[name] = append(s.values[name], val)
		case 2:
			if !hasVal && i+1 < len(args) && !(strings.HasPrefix(args[i+1], "-") && isJoptOption(args[i+1])) {
				i++
				val, hasVal = args[i], true
			}
			if hasVal {
				s.values[name] = append(s.values[name], val)
			}
		}
	}
	return s, nil
}

// isJoptOption reports whether a token looks like an option to jopt
// (negative numbers are arguments).
func isJoptOption(a string) bool {
	if _, err := strconv.ParseFloat(a, 64); err == nil {
		return false
	}
	return true
}

// one returns the single value of an option, or jopt's error when given
// several times.
func (s *joptSet) one(name string) (string, bool, error) {
	v := s.values[name]
	switch len(v) {
	case 0:
		return "", false, nil
	case 1:
		return v[0], true, nil
	}
	return "", false, javaError(fmt.Sprintf("Found multiple arguments for option %s, but you asked for only one", name))
}

func consumerUsage(group string) string {
	var b strings.Builder
	for _, l := range strings.SplitAfter(strings.ReplaceAll(consumerHelp, "perf-consumer-{{GROUP}}", group), "\n") {
		body := strings.TrimSuffix(l, "\n")
		if strings.Contains(body, "perf-consumer-") {
			// jopt pads every table line to 79 columns
			body = strings.TrimRight(body, " ")
			body += strings.Repeat(" ", max(0, 79-len(body)))
		}
		b.WriteString(body)
		if strings.HasSuffix(l, "\n") {
			b.WriteString("\n")
		}
	}
	return b.String()
}

func runConsumerApplet(ctx context.Context, f *cmdutil.Factory, args []string) error {
	errOut, out := f.IO.ErrOut, f.IO.Out
	group := "perf-consumer-" + strconv.Itoa(rand.IntN(100000))
	usage := func(msg string) error {
		fmt.Fprintln(errOut, msg)
		fmt.Fprint(errOut, consumerUsage(group))
		return cmdutil.Exit(1)
	}
	s, err := parseJopt(args, consumerSpec)
	if err != nil {
		return usage(err.Error())
	}
	if len(args) == 0 || s.has["help"] {
		return usage("This tool is used to verify the consumer performance.")
	}
	if s.has["version"] {
		fmt.Fprintln(out, kafkaVersion)
		return nil
	}
	if !s.has["bootstrap-server"] {
		return usage(`Missing required argument "[bootstrap-server]"`)
	}
	if s.has["topic"] == s.has["include"] {
		return usage("Exactly one of the following arguments is required: [topic], [include]")
	}
	if s.has["messages"] == s.has["num-records"] {
		return usage("Exactly one of the following arguments is required: [messages], [num-records]")
	}
	if s.has["consumer.config"] && s.has["command-config"] {
		return usage(`Option "[consumer.config]" can't be used with option "[command-config]"`)
	}
	if s.has["messages"] {
		fmt.Fprintln(out, "Warning: --messages is deprecated. Use --num-records instead.")
	}
	if s.has["consumer.config"] {
		fmt.Fprintln(out, "Warning: --consumer.config is deprecated. Use --command-config instead.")
	}
	detailed, hide := s.has["show-detailed-stats"], s.has["hide-header"]
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
	cl, err := f.ConnectedClient(ctx, conn, kafka.Consumer, kafka.Options{Defaults: defaults, Extra: extra})
	if err != nil {
		return fail(err)
	}
	defer cl.Close()
	o.cfg.MaxPollRecords = cl.Settings.MaxPollRecords
	res := perf.RunApacheConsumer(ctx, cl.Client, rt, startMs, o.cfg, out)
	if !detailed {
		perf.WriteApacheConsumerSummary(out, res, o.cfg.DateFormat)
	}
	if s.has["print-metrics"] {
		fmt.Fprintln(errOut, "kbox: warning: --print-metrics: the Java client's metrics registry has no franz-go equivalent; nothing to print")
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
func consumerOptions(s *joptSet, defaultGroup string) (*consumerOpts, error) {
	o := &consumerOpts{props: config.NewProperties()}
	var err error
	get := func(name string) string {
		if err != nil {
			return ""
		}
		v, _, e := s.one(name)
		if e != nil {
			err = e
		}
		return v
	}
	conv := func(name string, bits int, def int64) int64 {
		v := get(name)
		if err != nil || !s.has[name] || (name == "timeout" && v == "" && len(s.values[name]) == 0) {
			return def
		}
		n, e := strconv.ParseInt(v, 10, bits)
		if e != nil {
			err = javaError(fmt.Sprintf("Cannot parse argument '%s' of option %s", v, name))
		}
		return n
	}
	// props(): command-config/consumer.config, command-property, then the
	// CLI values that always override.
	o.configFile = get("consumer.config")
	if o.configFile == "" {
		o.configFile = get("command-config")
	}
	for _, kv := range s.values["command-property"] {
		k, v, _ := strings.Cut(kv, "=")
		o.props.Set(k, v)
	}
	o.bootstrap = get("bootstrap-server")
	o.props.Set("bootstrap.servers", o.bootstrap)
	g := get("group")
	if g == "" && !s.has["group"] {
		g = defaultGroup
	}
	o.props.Set("group.id", g)
	sock := conv("socket-buffer-size", 32, 2097152)
	if s.has["socket-buffer-size"] {
		// Java always sets it; kbox leaves socket buffers to the OS and
		// only mentions it when the user asked for a size.
		o.props.Set("receive.buffer.bytes", strconv.FormatInt(sock, 10))
	}
	fetch := conv("fetch-size", 32, 1048576)
	o.props.Set("max.partition.fetch.bytes", strconv.FormatInt(fetch, 10))
	if s.has["from-latest"] {
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
	if s.has["messages"] {
		o.cfg.NumRecords = conv("messages", 64, 0)
	} else {
		o.cfg.NumRecords = conv("num-records", 64, 0)
	}
	o.cfg.TimeoutMs = conv("timeout", 64, 10000)
	o.cfg.ReportingIntervalMs = conv("reporting-interval", 64, 5000)
	if err == nil && o.cfg.ReportingIntervalMs <= 0 {
		err = javaError("Reporting interval must be greater than 0.")
	}
	o.cfg.ShowDetailedStats = s.has["show-detailed-stats"]
	pattern := get("date-format")
	if !s.has["date-format"] {
		pattern = "yyyy-MM-dd HH:mm:ss:SSS"
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

// javaError carries a message that must read exactly as the Java tool's.
type javaError string

func (e javaError) Error() string { return string(e) }
