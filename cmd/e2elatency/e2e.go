package e2elatency

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
)

// Applet is kafka-e2e-latency (org.apache.kafka.tools.EndToEndLatency).
var Applet = cmdutil.Applet{
	Name:  "kafka-e2e-latency",
	Alias: "e2e-latency",
	Short: "End-to-end (produce to consume) latency test (Apache-compatible)",
	Run:   runE2EApplet,

	ConnOptions: []string{"bootstrap-server"},
}

// e2eParser is EndToEndLatency's jopt-simple option set.
var e2eParser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "num-records", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "producer-acks", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "record-size", Arg: jopt.RequiredArg, Type: jopt.Integer},
	jopt.Spec{Name: "record-key-size", Arg: jopt.OptionalArg, Type: jopt.Integer},
	jopt.Spec{Name: "record-header-key-size", Arg: jopt.OptionalArg, Type: jopt.Integer},
	jopt.Spec{Name: "record-header-size", Arg: jopt.OptionalArg, Type: jopt.Integer},
	jopt.Spec{Name: "num-headers", Arg: jopt.OptionalArg, Type: jopt.Integer},
	jopt.Spec{Name: "command-config", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

const e2eDescription = "This tool measures end-to-end latency in Kafka by sending messages and timing their reception."

// e2eUsage is the option table, every line padded to 80 columns.
func e2eUsage() string {
	return jopt.PadLines(e2eHelp, 80)
}

// e2eLegacyArgs is EndToEndLatency.convertLegacyArgsIfNeeded: the 4.1-style
// positional arguments become named ones (with a warning on stdout).
func e2eLegacyArgs(args []string, out io.Writer) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	for _, a := range args {
		switch a {
		case "--bootstrap-server", "--topic", "--num-records", "--producer-acks", "--record-size":
			return args, nil
		}
	}
	if len(args) != 5 && len(args) != 6 {
		return nil, cmdutil.JavaError(fmt.Sprintf("Invalid number of arguments. Expected 5 or 6 positional arguments, but got %d. "+
			"Usage: bootstrap-server topic num-records producer-acks record-size [optional] command-config", len(args)))
	}
	n := []string{"--bootstrap-server", args[0], "--topic", args[1], "--num-records", args[2],
		"--producer-acks", args[3], "--record-size", args[4]}
	if len(args) == 6 {
		n = append(n, "--command-config", args[5])
	}
	fmt.Fprintln(out, "WARNING: Positional argument usage is deprecated and will be removed in Apache Kafka 5.0. "+
		"Please use named arguments instead: --bootstrap-server, --topic, --num-records, --producer-acks, --record-size, --command-config")
	return n, nil
}

// e2eArgs are the validated options.
type e2eArgs struct {
	bootstrap, acks, configFile string
	cfg                         perf.E2EConfig
}

// usageError prints the message and the option table (printUsageAndExit).
type usageError string

func (e usageError) Error() string { return string(e) }

// parseE2E validates like EndToEndLatencyCommandOptions.checkArgs and then
// reads the values in execute's order. It returns a usageError (message and
// option table, exit 1), a javaError (message only, exit 1), or errE2EHelp /
// errE2EVersion.
func parseE2E(args []string) (*e2eArgs, error) {
	s, err := e2eParser.Parse(args)
	if err != nil {
		return nil, usageError(err.Error())
	}
	if len(args) == 0 || s.Has("help") {
		return nil, usageError(e2eDescription)
	}
	if s.Has("version") {
		return nil, errE2EVersion
	}
	for _, name := range []string{"bootstrap-server", "topic", "num-records", "producer-acks", "record-size"} {
		if !s.Has(name) {
			return nil, usageError(fmt.Sprintf("Missing required argument \"[%s]\"", name))
		}
	}
	str := func(name string) (string, error) {
		v, _, err := s.Value(name)
		return v, err
	}
	num := func(name string, def int) (int, error) {
		n, ok, err := s.Int(name)
		if err != nil || !ok {
			return def, err
		}
		return int(n), nil
	}
	o := &e2eArgs{}
	if o.acks, err = str("producer-acks"); err != nil {
		return nil, err
	}
	if o.acks != "1" && o.acks != "all" {
		return nil, usageError("Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use '1' or 'all'.")
	}
	checks := []struct {
		name string
		dst  *int
		min  int
		msg  string
	}{
		{"num-records", &o.cfg.Records, 1, "Value for --num-records must be a positive integer."},
		{"record-size", &o.cfg.RecordSize, 0, "Value for --record-size must be a non-negative integer."},
		{"record-key-size", &o.cfg.KeySize, 0, "Value for --record-key-size must be a non-negative integer."},
		{"record-header-key-size", &o.cfg.HeaderKeySize, 0, "Value for --record-header-key-size must be a non-negative integer."},
		{"record-header-size", &o.cfg.HeaderValueSize, -1, "Value for --record-header-size must be a non-negative integer or -1 for null header value."},
		{"num-headers", &o.cfg.NumHeaders, 0, "Value for --num-headers must be a non-negative integer."},
	}
	for _, c := range checks {
		v, err := num(c.name, 0)
		if err != nil {
			return nil, err
		}
		if v < c.min {
			return nil, usageError(c.msg)
		}
		*c.dst = v
	}
	if o.bootstrap, err = str("bootstrap-server"); err != nil {
		return nil, err
	}
	if o.cfg.Topic, err = str("topic"); err != nil {
		return nil, err
	}
	if o.configFile, err = str("command-config"); err != nil {
		return nil, err
	}
	return o, nil
}

var errE2EVersion = errors.New("version")

func runE2EApplet(ctx context.Context, f *cmdutil.Factory, args []string) error {
	out, errOut := f.IO.Out, f.IO.ErrOut
	args, err := e2eLegacyArgs(args, out)
	if err == nil {
		var o *e2eArgs
		if o, err = parseE2E(args); err == nil {
			return runE2E(ctx, f, o)
		}
	}
	var ue usageError
	switch {
	case errors.Is(err, errE2EVersion):
		fmt.Fprintln(out, cmdutil.ApacheVersion)
		return nil
	case errors.As(err, &ue):
		fmt.Fprintln(errOut, ue.Error())
		fmt.Fprint(errOut, e2eUsage())
	default:
		fmt.Fprintln(errOut, err.Error())
	}
	return cmdutil.Exit(1)
}

// runE2E is EndToEndLatency.execute with franz-go clients. The Java tool
// prints a failure's message and a stack trace on stderr and exits 1; kbox
// prints the message only.
func runE2E(ctx context.Context, f *cmdutil.Factory, o *e2eArgs) error {
	out, errOut := f.IO.Out, f.IO.ErrOut
	fail := func(err error) error {
		fmt.Fprintln(errOut, err.Error())
		return cmdutil.Exit(1)
	}
	o.cfg.Group = "test-group-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	o.cfg.PollTimeout = perf.E2EPollTimeout
	prod, cons, err := Clients(ctx, f, config.Overrides{Bootstrap: o.bootstrap, CommandConfig: o.configFile}, o.acks)
	if err != nil {
		return fail(err)
	}
	defer prod.Close()
	defer cons.Close()
	obs := perf.E2EObserver{
		CreatingTopic: func(t string) {
			fmt.Fprintf(out, "Topic \"%s\" does not exist. Will create topic with 1 partition(s) and replication factor = 1\n", t)
		},
		Record: func(i int, d time.Duration) {
			if i%1000 == 0 {
				fmt.Fprintln(out, perf.E2EProgressLine(i, d))
			}
		},
	}
	run, err := perf.RunE2E(ctx, prod.Client, cons.Client, prod.Admin(), o.cfg, obs)
	if err != nil {
		var ee *perf.E2EError
		if errors.As(err, &ee) && ee.TopicCreation {
			fmt.Fprintf(out, "Creation of topic %s failed\n", o.cfg.Topic)
		}
		if !errors.As(err, &ee) {
			err = prod.Explain(err)
		}
		return fail(err)
	}
	return perf.WriteApacheE2ESummary(out, run.ElapsedNs)
}

// Clients builds the producer (acks as given, linger.ms=0) and the
// consumer (fetch.max.wait.ms as low as franz-go allows: 10 ms; Apache uses
// 0) that Apache's tool forces over the user's properties. The consumer has
// no group: it is assigned every partition by RunE2E. `kbox perf e2e` uses
// it too.
func Clients(ctx context.Context, f *cmdutil.Factory, ov config.Overrides, acks string) (*kafka.Client, *kafka.Client, error) {
	conn, err := f.Connection(ov)
	if err != nil {
		return nil, nil, err
	}
	pconn := *conn
	pconn.Props = conn.Props.Clone()
	pconn.Props.Set("linger.ms", "0")
	pconn.Props.Set("acks", acks)
	prod, err := f.ConnectedClient(ctx, &pconn, kafka.Producer, kafka.Options{})
	if err != nil {
		return nil, nil, err
	}
	cons, err := f.ConnectedClient(ctx, conn, kafka.Consumer, kafka.Options{Tune: func(s *kafka.Settings) {
		s.FetchMaxWait = 10 * time.Millisecond
		s.GroupID = ""
	}})
	if err != nil {
		prod.Close()
		return nil, nil, err
	}
	return prod, cons, nil
}
