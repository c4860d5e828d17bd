// Package kafkagroups is the kafka-groups drop-in (kbox all-groups; kbox
// groups is kafka-consumer-groups): Apache's GroupsCommand,
// --list over every group type and protocol with --group-type,
// --protocol, --consumer, --share and --streams, its checks, messages,
// streams and exit codes; -o table|json|yaml shows the same listing
// natively (with each group's state).
//
// Deliberate differences from Apache 4.4's tool:
//   - The groups come sorted by id; Apache prints them in the order the
//     brokers' answers arrive.
//   - Stack traces are left out: where Apache prints an exception's
//     message and then its stack trace, kbox prints the message line.
//   - An unreachable --bootstrap-server fails within kbox's connect
//     timeout with one line (kbox: error: ...).
package kafkagroups

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/grouplist"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-groups.
var Applet = cmdutil.Applet{
	Kind:  cmdutil.Apache,
	Name:  "kafka-groups",
	Alias: "all-groups",
	Short: "List the groups of every type: classic, consumer, share, streams",
	Run:   Run,

	ConnOptions: []string{"bootstrap-server"},
}

const nativeHelp = `
kbox options:
  -o, --output FORMAT   apache (default under the Apache name), table, json
                        or yaml (with each group's state)
`

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "group-type", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "protocol", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "consumer"},
	jopt.Spec{Name: "share"},
	jopt.Spec{Name: "streams"},
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{
	Title:      "This tool helps to list groups of all types.",
	Bare:       "Missing required option(s) [bootstrap-server]",
	Options:    apacheHelp,
	Extensions: nativeHelp,
	ParseUsage: true,
}

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

// exclusive is checkArgs' checkInvalidArgs, in its order: each option and
// the options it cannot be used with.
var exclusive = []struct {
	opt     string
	invalid []string
}{
	{"consumer", []string{"group-type", "protocol", "share", "streams"}},
	{"share", []string{"consumer", "group-type", "protocol", "streams"}},
	{"streams", []string{"consumer", "group-type", "protocol", "share"}},
}

// Run is kafka-groups.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	// jopt's required option, checked by the parse (help and version
	// aside).
	if !s.Has("bootstrap-server") {
		return tool.Usage(f, "Missing required option(s) [bootstrap-server]")
	}
	flt, err := filter(f, s)
	if err != nil {
		return err
	}
	out, _, err := s.Value("output")
	if err != nil {
		return failure(f, err.Error())
	}
	format, err := f.Output(out, formats)
	if err != nil {
		return err
	}
	bs, cc, err := tool.ConnArgs(s)
	if err != nil {
		return failure(f, err.Error())
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	r, err := grouplist.List(ctx, cl.Client, flt)
	if err != nil {
		return failure(f, "Error while executing groups command : "+cl.Explain(err).Error())
	}
	return output.Print(f.IO, format, r)
}

// filter is checkArgs: the one action, a known --group-type, the options
// that exclude each other; then the filter they ask for.
func filter(f *cmdutil.Factory, s *jopt.Set) (grouplist.Filter, error) {
	var flt grouplist.Filter
	if !s.Has("list") {
		return flt, tool.Usage(f, "Command must include exactly one action: --list.")
	}
	if s.Has("group-type") {
		v, _, err := s.Value("group-type")
		if err != nil {
			return flt, failure(f, err.Error())
		}
		t, ok := grouplist.ParseType(v)
		if !ok {
			return flt, failure(f, "--group-type must be a valid group type.")
		}
		flt.Type = t
	}
	for _, e := range exclusive {
		if !s.Has(e.opt) {
			continue
		}
		for _, o := range e.invalid {
			if s.Has(o) {
				return flt, tool.Usage(f, fmt.Sprintf(`Option "[%s]" can't be used with option "[%s]"`, e.opt, o))
			}
		}
	}
	if s.Has("protocol") {
		v, _, err := s.Value("protocol")
		if err != nil {
			return flt, failure(f, err.Error())
		}
		flt.Protocol = &v
	}
	flt.Consumer, flt.Share, flt.Streams = s.Has("consumer"), s.Has("share"), s.Has("streams")
	return flt, nil
}

// failure is GroupsCommand's catch-all: the message on stderr, exit 1.
func failure(f *cmdutil.Factory, msg string) error {
	fmt.Fprintln(f.IO.ErrOut, msg)
	return cmdutil.Exit(1)
}
