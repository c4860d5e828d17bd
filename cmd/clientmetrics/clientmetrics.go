// Package clientmetrics is the kafka-client-metrics drop-in (kbox
// client-metrics): Apache 4.4's ClientMetricsCommand, which alters,
// deletes, describes and lists client-metrics subscriptions (KIP-714),
// with its options, checks, messages, streams and exit codes; --describe
// and --list also print as a table, JSON or YAML (-o).
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints a message and then a
//     Java stack trace on stderr, kbox prints the message line; where its
//     log4j ERROR line holds a stack trace, kbox's holds the exception's
//     first line.
//   - Every option is checked before connecting: a --name given twice
//     fails before any request (Apache reads it after creating its admin
//     client; the messages are the same).
//   - An unreachable --bootstrap-server fails within kbox's connect timeout
//     with one line (kbox: error: ...); Apache waits 30 s and prints a
//     TimeoutException.
//   - --interval takes ASCII digits only; Java's Integer.parseInt also
//     takes other Unicode decimal digits.
package clientmetrics

import (
	"context"
	_ "embed"
	"errors"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/clientmetrics"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-client-metrics (kbox client-metrics).
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-client-metrics",
	Alias: "client-metrics",
	Short: "Alter, delete, describe and list client-metrics subscriptions",
	Run:   Run,

	ConnOptions: []string{"bootstrap-server"},
}

const nativeHelp = `
kbox options:
  -o, --output FORMAT   apache (default), table, json or yaml: the result of
                        --describe or --list
`

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "alter"},
	jopt.Spec{Name: "delete"},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "name", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "generate-name"},
	jopt.Spec{Name: "interval", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "match", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "metrics", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
	// kbox's presentation flag.
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
)

const title = "This tool helps to manipulate and describe client metrics configurations."

var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp, Extensions: nativeHelp, ParseUsage: true}

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

// logClass is the logger of the tool's ERROR lines.
const logClass = "org.apache.kafka.tools.ClientMetricsCommand"

// thrown is an exception that escapes the tool's main: its message on
// stderr (Apache follows it with the stack trace), exit 1.
func thrown(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}

// caught is the tool's catch: "Error while executing client metrics
// command : MSG" on stdout, and its log4j ERROR line with the exception on
// stderr, exit 1.
func caught(f *cmdutil.Factory, class, msg string) error {
	fmt.Fprintln(f.IO.Out, "Error while executing client metrics command : "+msg)
	fmt.Fprint(f.IO.ErrOut, cmdutil.LogLine("ERROR", logClass, "%s: %s\n", class, msg))
	return cmdutil.Exit(1)
}

// invocation is a command line checked as ClientMetricsCommandOptions
// does, and what the service will read from it.
type invocation struct {
	action string // alter, delete, describe or list
	name   *string
	change clientmetrics.Change
	bs, cc string
	// nameErr is the error reading --name raises inside the tool's try
	// (given more than once).
	nameErr error
}

// Run is kafka-client-metrics.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	in, err := check(f, s)
	if err != nil {
		return err
	}
	format := output.Apache
	if in.action == "describe" || in.action == "list" {
		v, _, _ := lastValue(s, "output")
		if format, err = f.Output(v, formats); err != nil {
			return err
		}
	} else if v, given, _ := lastValue(s, "output"); given && output.Format(v) != output.Apache {
		return cmdutil.FlagErrorf("-o %s: --%s prints no result to format (-o is for --describe and --list)", v, in.action)
	}
	if cmdutil.ValidateBootstrap(in.bs, true) != "" {
		return caught(f, "org.apache.kafka.common.KafkaException", "Failed to create new KafkaAdminClient")
	}
	if in.nameErr != nil {
		return caught(f, "joptsimple.MultipleArgumentsForOptionException", in.nameErr.Error())
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: in.bs, CommandConfig: in.cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	svc := &configs.Service{Client: cl.Client, Admin: cl.Admin(), TimeoutMs: clientmetrics.TimeoutMs}
	var result any
	switch in.action {
	case "alter":
		name := clientmetrics.GenerateName()
		if in.name != nil {
			name = *in.name
		}
		if err = clientmetrics.Alter(ctx, svc, name, in.change); err == nil {
			fmt.Fprintf(f.IO.Out, "Altered client metrics config for %s.\n", name)
		}
	case "delete":
		if err = clientmetrics.Delete(ctx, svc, *in.name); err == nil {
			fmt.Fprintf(f.IO.Out, "Deleted client metrics config for %s.\n", *in.name)
		}
	case "describe":
		var d *clientmetrics.Description
		if d, err = clientmetrics.Describe(ctx, svc, in.name); err == nil {
			if format != output.Apache {
				d.Sort()
			}
			result = d
		}
	default:
		var names []string
		if names, err = clientmetrics.Names(ctx, svc); err == nil {
			result = clientmetrics.NewList(names)
		}
	}
	if err != nil {
		if class, msg, ok := clientmetrics.JavaException(err); ok {
			return caught(f, class, msg)
		}
		return cl.Explain(err)
	}
	if result == nil {
		return nil
	}
	return output.Print(f.IO, format, result)
}

// lastValue is the last value given to an option (presentation flags may
// be repeated, the last wins).
func lastValue(s *jopt.Set, name string) (string, bool, error) {
	vs := s.Values(name)
	if len(vs) == 0 {
		return "", false, nil
	}
	return vs[len(vs)-1], true, nil
}

// check is ClientMetricsCommandOptions.checkArgs and what execute reads
// before connecting, in their order; every failure is printed as Apache
// prints it.
func check(f *cmdutil.Factory, s *jopt.Set) (*invocation, error) {
	in := &invocation{}
	var n int
	for _, a := range []string{"alter", "delete", "describe", "list"} {
		if s.Has(a) {
			in.action = a
			n++
		}
	}
	if n != 1 {
		return nil, tool.Usage(f, "Command must include exactly one action: --alter, --delete, --describe or --list.")
	}
	if !s.Has("bootstrap-server") {
		return nil, thrown(f, "--bootstrap-server must be specified.")
	}
	// CommandLineUtils.checkInvalidArgs, in the tool's order.
	settings := []string{"generate-name", "interval", "match", "metrics"}
	for _, rule := range []struct {
		used    string
		invalid []string
	}{
		{"delete", settings},
		{"describe", settings},
		{"list", append([]string{"name"}, settings...)},
	} {
		if !s.Has(rule.used) {
			continue
		}
		for _, o := range rule.invalid {
			if s.Has(o) {
				return nil, tool.Usage(f, fmt.Sprintf("Option \"[%s]\" can't be used with option \"[%s]\"", rule.used, o))
			}
		}
	}
	hasName := s.Has("name")
	if s.Has("alter") {
		if hasName == s.Has("generate-name") {
			return nil, thrown(f, "One of --name or --generate-name must be specified with --alter.")
		}
		iv, given, err := s.Value("interval")
		if err != nil {
			return nil, thrown(f, err.Error())
		}
		if given {
			if !clientmetrics.ValidInterval(iv) {
				return nil, thrown(f, "Invalid interval value. Enter an integer, or leave empty to reset.")
			}
			in.change.Interval = &iv
		}
		in.change.Metrics = clientmetrics.SplitValues(s.Values("metrics"))
		in.change.Match = clientmetrics.SplitValues(s.Values("match"))
	}
	if s.Has("delete") && !hasName {
		return nil, thrown(f, "A client metrics resource name must be specified with --delete.")
	}
	// execute: the --command-config file, then the bootstrap list.
	bs, cc, err := tool.ConnArgs(s)
	if err != nil {
		return nil, thrown(f, err.Error())
	}
	in.bs, in.cc = bs, cc
	// The service reads --name (not for --generate-name).
	if !s.Has("generate-name") && in.action != "list" {
		name, given, err := s.Value("name")
		var je *jopt.Error
		switch {
		case errors.As(err, &je):
			in.nameErr = err
		case given:
			in.name = &name
		}
	}
	return in, nil
}
