// Package consumergroups is the kafka-consumer-groups applet: a drop-in for
// Apache's kafka-consumer-groups.sh (ConsumerGroupCommand of Kafka 4.4),
// also `kbox groups`. Its output, streams and exit codes are Apache's;
// the known, deliberate differences:
//   - No Java stack traces: where Apache prints "Error: ..." on stdout and
//     a trace on stderr, kbox prints the stdout line only; an exception that
//     escapes main prints its first line (`Exception in thread "main" ...`).
//   - Option lists in messages ("takes one of these options: ...", the
//     valid states, the reset scenarios) are in one fixed order; Apache's
//     come from Set.of and change from JVM to JVM.
//   - `--list` prints groups sorted by name, members are printed sorted by
//     group.instance.id then member id; Apache prints both in the order the
//     broker returns them.
//   - `--reset-offsets` plans every group before printing or committing
//     anything: an error planning a later group leaves the earlier ones
//     uncommitted (Apache commits group by group), and --to-datetime,
//     --by-duration and --from-file values are checked even when every
//     group is active (Apache reads them only for an inactive group).
//   - `--timeout` bounds each request's retries (kgo's retry timeout), not
//     each admin call as a whole.
package consumergroups

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/cmd/groupsnative"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

// apacheHelp is the option table jopt-simple prints for ConsumerGroupCommand
// of Kafka 4.4.0, captured from the real tool.
//
//go:embed apache_help.txt
var apacheHelp string

const short = "List, describe, delete consumer groups and manage their offsets"

const title = "This tool helps to list, describe, delete and manage the offsets of consumer groups."

// Applet is the registry entry: kafka-consumer-groups, `kbox groups`.
var Applet = cmdutil.Applet{Kind: cmdutil.Apache, Name: "kafka-consumer-groups", Alias: "groups", Short: short, Run: Run, Native: groupsnative.NewNativeCmd,
	ConnOptions: []string{"bootstrap-server"}}

type runner struct {
	f        *cmdutil.Factory
	p        *parsed
	out, err io.Writer
}

// tool is kafka-consumer-groups' part of the drop-in prologue.
var tool = cmdutil.ApacheTool{Title: title, Options: apacheHelp, Unreadable: "java.nio.file.NoSuchFileException: %s"}

func (r *runner) usage(msg string) error { return tool.Usage(r.f, msg) }

// printError is ConsumerGroupCommand.printError: "\nError: msg" on
// stdout (the stack trace Apache adds on stderr is left out).
func (r *runner) printError(msg string) {
	fmt.Fprintln(r.out, "\nError: "+msg)
}

// failed is the catch-all of ConsumerGroupCommand.run: the error is
// printed on stdout and the tool exits 0.
func (r *runner) failed(msg string) error {
	r.printError("Executing consumer group command failed due to " + msg)
	return nil
}

// Run runs kafka-consumer-groups with Apache's argv. As `kbox groups`, the
// native subcommands (`kbox groups lag ...`, see cmd/groupsnative) are the
// layer's to dispatch and to list after --help; anything else, and
// everything under the link name (which behaves as Apache's script byte
// for byte), is Apache's command line.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	r := &runner{f: f, out: f.IO.Out, err: f.IO.ErrOut}
	p, err := parseArgs(args)
	if done, err := tool.Prologue(f, args, err, p.has); done {
		return err
	}
	r.p = p
	if err := p.checkArgs(func(s string) { fmt.Fprintln(r.err, s) }); err != nil {
		return r.usage(err.Error())
	}
	n := 0
	for _, a := range actions {
		if p.has(a) {
			n++
		}
	}
	if n != 1 {
		return r.usage("Command must include exactly one action: --list, --describe, --delete, --reset-offsets, --delete-offsets, --validate-regex")
	}
	if p.has("validate-regex") {
		re, _, err := p.Value("validate-regex")
		if err != nil {
			return r.usage(err.Error())
		}
		validateRegex(r.out, re)
		return nil
	}
	err = r.run(ctx)
	var ue *UsageError
	if errors.As(err, &ue) {
		return r.usage(ue.Msg)
	}
	return err
}

// validateRegex is ConsumerGroupCommand.validateRegex (RE2 syntax, which
// Go's regexp implements with the same error descriptions as re2j).
func validateRegex(w io.Writer, re string) {
	if _, err := regexp.Compile(re); err != nil {
		desc := err.Error()
		var se *syntax.Error
		if errors.As(err, &se) {
			desc = string(se.Code)
		}
		fmt.Fprintf(w, "The regular expression `%s` is invalid: %s.\n", re, desc)
		return
	}
	fmt.Fprintf(w, "The regular expression `%s` is valid.\n", re)
}

// service is what ConsumerGroupService's constructor reads, in its order.
type service struct {
	cl      *kafka.Client
	g       *groups.Client
	toOff   *int64
	shift   *int64
	date    string
	dur     string
	file    string
	timeout time.Duration
}

func (r *runner) service(ctx context.Context) (*service, error) {
	p := r.p
	s := &service{}
	bs, cc, err := tool.ConnArgs(p.Set)
	if err != nil {
		return nil, err
	}
	// GroupOffsetsResetterOptions: values are converted as they are read.
	if vs := p.Values("to-offset"); len(vs) > 0 {
		if _, _, err := p.Int("to-offset"); err != nil && !strings.HasPrefix(err.Error(), "Found multiple") {
			return nil, err
		}
		n, _ := parseLong(vs[0])
		s.toOff = &n
	}
	if vs := p.Values("from-file"); len(vs) > 0 {
		s.file = vs[0]
	}
	if vs := p.Values("to-datetime"); len(vs) > 0 {
		s.date = vs[0]
	}
	if d, ok, err := p.Value("by-duration"); err != nil {
		return nil, err
	} else if ok {
		s.dur = d
	}
	if n, ok, err := p.Int("shift-by"); err != nil {
		return nil, err
	} else if ok {
		s.shift = &n
	}
	s.timeout = 30 * time.Second
	if n, ok, err := p.Int("timeout"); err != nil {
		return nil, err
	} else if ok {
		s.timeout = time.Duration(int32(n)) * time.Millisecond
	}
	// Apache gives each admin call --timeout; kgo bounds each request's
	// retries by it.
	var opts kafka.Options
	if s.timeout > 0 {
		opts.Extra = []kgo.Opt{kgo.RetryTimeout(s.timeout)}
	}
	cl, err := r.f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, opts)
	if err != nil {
		return nil, err
	}
	s.cl = cl
	s.g = groups.New(cl.Client)
	return s, nil
}

func parseLong(s string) (int64, error) { return javafmt.ParseInt(s, 64) }

func (r *runner) run(ctx context.Context) error {
	s, err := r.service(ctx)
	if err != nil {
		var ue *UsageError
		if errors.As(err, &ue) {
			return err
		}
		return r.failed(err.Error())
	}
	defer s.cl.Close()
	p := r.p
	switch {
	case p.has("list"):
		err = r.list(ctx, s)
	case p.has("describe"):
		err = r.describe(ctx, s)
	case p.has("delete"):
		err = r.deleteGroups(ctx, s)
	case p.has("reset-offsets"):
		err = r.reset(ctx, s)
	case p.has("delete-offsets"):
		err = r.deleteOffsets(ctx, s)
	}
	if err == nil {
		return nil
	}
	var ue *UsageError
	var ee *cmdutil.ExitError
	if errors.As(err, &ue) || errors.As(err, &ee) {
		return err
	}
	return r.failed(javaMessage(s.cl, err))
}

// groupIDs is --group's values, or every consumer group for --all-groups.
func (r *runner) groupIDs(ctx context.Context, s *service) ([]string, error) {
	if !r.p.has("all-groups") {
		return r.p.Values("group"), nil
	}
	ls, err := s.g.List(ctx, groups.ListFilter{})
	if err != nil {
		return nil, err
	}
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.Group
	}
	return out, nil
}
