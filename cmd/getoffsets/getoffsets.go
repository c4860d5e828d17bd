// Package getoffsets is the kafka-get-offsets drop-in (kbox offsets):
// Apache's GetOffsetShell, its topic:partition:offset lines, messages,
// streams and exit codes; and the native `kbox offsets get`, the offset
// at a human point in time (--at 2026-11-30T14:05, --ago 15m) on every
// partition, as a table, JSON or YAML.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints "Error occurred: MSG"
//     and then the Java stack trace, kbox prints the first line only.
//   - An unreachable --bootstrap-server fails within kbox's connect timeout
//     with one line (kbox: error: ...), where the Java admin client retries
//     until its 60 s API timeout.
//   - The "Skip getting offsets for topic-partition ..." lines come in
//     topic, then partition order; Apache prints them in the order of a
//     Java HashMap of topic names. The message of the exception is Kafka's
//     default message of the error code.
//   - The Java admin client's own log4j ERROR line for a partition that
//     fails ("[time] ERROR [AdminClient clientId=...] ListOffsets request for topic
//     partition T-P failed due to an unexpected error CODE (...Handler)")
//     is not printed; the tool's own line for that partition is.
//
// The drop-in takes Apache's options only; the table, JSON and YAML views
// and the human times are the native subcommand's (kbox offsets get).
package getoffsets

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/offsets"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-get-offsets (kbox offsets).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-get-offsets",
	Alias:  "offsets",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions: []string{"bootstrap-server"},
}

const short = "Offsets of partitions at a time, or their earliest and latest"

const title = "An interactive shell for getting topic-partition offsets."

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic-partitions", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "partitions", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "time", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "exclude-internal-topics"},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

// errorOccurred is GetOffsetShell's catch: "Error occurred: " and the
// message on stderr, exit 1 (a stack trace that follows is left out).
func errorOccurred(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, "Error occurred: "+msg)
	return cmdutil.Exit(1)
}

var tool = cmdutil.ApacheTool{
	Title:      title,
	Options:    apacheHelp,
	ParseError: func(err error) string { return "Error occurred: " + err.Error() },
}

// Run is kafka-get-offsets.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := tool.Require(f, s.Has, "bootstrap-server"); err != nil {
		return err
	}
	bs, _, err := s.Value("bootstrap-server")
	if err != nil {
		return errorOccurred(f, err.Error())
	}
	if msg := cmdutil.ValidateBootstrap(bs, true); msg != "" {
		return tool.Usage(f, msg)
	}
	if s.Has("topic-partitions") && (s.Has("topic") || s.Has("partitions")) {
		return errorOccurred(f, "--topic-partitions cannot be used with --topic or --partitions")
	}
	timeArg := "latest"
	if v, ok, err := s.Value("time"); err != nil {
		return errorOccurred(f, err.Error())
	} else if ok {
		timeArg = v
	}
	ts, err := offsets.ParseApacheTime(timeArg)
	if err != nil {
		return errorOccurred(f, err.Error())
	}
	var filter offsets.Filter
	if s.Has("topic-partitions") {
		v, _, err := s.Value("topic-partitions")
		if err != nil {
			return errorOccurred(f, err.Error())
		}
		if filter, err = offsets.ParseRules(v); err != nil {
			return errorOccurred(f, err.Error())
		}
	} else {
		topic, hasTopic, err := s.Value("topic")
		if err != nil {
			return errorOccurred(f, err.Error())
		}
		parts, hasParts, err := s.Value("partitions")
		if err != nil {
			return errorOccurred(f, err.Error())
		}
		var tp, pp *string
		if hasTopic {
			tp = &topic
		}
		if hasParts {
			pp = &parts
		}
		if filter, err = offsets.NewTopicPartitions(tp, pp); err != nil {
			return errorOccurred(f, err.Error())
		}
	}
	cc, hasCC, err := s.Value("command-config")
	if err != nil {
		return errorOccurred(f, err.Error())
	}
	if err := tool.CommandConfig(cc, hasCC); err != nil {
		return errorOccurred(f, err.Error())
	}
	defaults := config.NewProperties()
	defaults.Set("client.id", "GetOffsetShell")
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{Defaults: defaults})
	if err != nil {
		return err
	}
	defer cl.Close()
	rep, err := offsets.List(ctx, cl.Client, offsets.Request{Filter: filter, ExcludeInternal: s.Has("exclude-internal-topics"), Time: ts})
	var te *offsets.TerseError
	switch {
	case errors.As(err, &te):
		return errorOccurred(f, te.Msg)
	case err != nil:
		return cl.Explain(err)
	}
	for _, l := range rep.Skipped() {
		fmt.Fprintln(f.IO.ErrOut, l)
	}
	return rep.WriteApache(f.IO.Out)
}
