// Package acls is the kafka-acls drop-in (kbox acls): Apache's AclCommand,
// its options, checks, messages, the "Adding ACLs for resource" and
// "Current ACLs for resource" blocks, streams and exit codes; and the
// native `kbox acls list|check|export|apply`.
//
// Deliberate differences from Apache 4.4's tool:
//   - Order: resources and the entries of a block come sorted by their
//     Java text. Apache's come in the order of Java HashSets and HashMaps
//     of enum-keyed objects, whose hash codes are identity hashes that
//     change with every JVM run: no fixed order to follow. For the same
//     reason the "ResourceType X only supports operations [...]" list is
//     in one order captured from 4.4.
//   - Stack traces are left out: where Apache prints "Error while
//     executing ACL command: MSG" and the Java stack trace on stdout, kbox
//     prints the first line only.
//   - An unreachable --bootstrap-server fails within kbox's connect
//     timeout with one line (kbox: error: ...); Apache waits
//     default.api.timeout.ms and prints a TimeoutException.
//   - --add checks every resource's existing ACLs first and then creates
//     every new ACL in one request (Apache creates resource by resource),
//     so a refused request adds none.
//   - --remove without --force reads the answer from stdin (Apache reads
//     the console).
//   - --bootstrap-controller is taken as the bootstrap list and spoken to
//     like brokers.
package acls

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/acls"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/twmb/franz-go/pkg/kgo"
)

//go:embed apache_help.txt
var apacheHelp string

const short = "Add, remove, list and check ACLs"

// Applet registers kafka-acls (kbox acls).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-acls",
	Alias:  "acls",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions: []string{"bootstrap-server", "bootstrap-controller"},
}

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "bootstrap-controller", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "topic", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "cluster"},
	jopt.Spec{Name: "group", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "transactional-id", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "idempotent"},
	jopt.Spec{Name: "delegation-token", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "resource-pattern-type", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "add"},
	jopt.Spec{Name: "remove"},
	jopt.Spec{Name: "list"},
	jopt.Spec{Name: "operation", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "allow-principal", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "deny-principal", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "principal", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "allow-host", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "deny-host", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "producer"},
	jopt.Spec{Name: "consumer"},
	jopt.Spec{Name: "force"},
	jopt.Spec{Name: "user-principal", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{Title: "This tool helps to manage acls on kafka.", Options: apacheHelp, ParseUsage: true}

// Run is kafka-acls.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := checkArgs(s); err != nil {
		return report(f, err)
	}
	bs, cc, err := connArgs(s)
	if err != nil {
		return report(f, &execError{msg: err.Error()})
	}
	var do func(context.Context, *kgo.Client) error
	switch {
	case s.Has("add"):
		cs, err := addPlan(s)
		if err != nil {
			return report(f, err)
		}
		do = func(ctx context.Context, cl *kgo.Client) error { return add(ctx, f.IO.Out, cl, cs) }
	case s.Has("remove"):
		cs, err := plan(s)
		if err != nil {
			return report(f, err)
		}
		do = func(ctx context.Context, cl *kgo.Client) error { return remove(ctx, f, s.Has("force"), cl, cs) }
	default:
		ps, err := resources(s, false)
		if err != nil {
			return report(f, err)
		}
		who, err := principals(s, "principal")
		if err != nil {
			return report(f, err)
		}
		do = func(ctx context.Context, cl *kgo.Client) error { return list(ctx, f.IO.Out, cl, ps, who) }
	}
	cl, err := f.Connect(ctx, config.Overrides{Bootstrap: bs, CommandConfig: cc}, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := do(ctx, cl.Client); err != nil {
		var ae *acls.APIError
		if errors.As(err, &ae) {
			return report(f, &execError{msg: ae.Error()})
		}
		return cl.Explain(err)
	}
	return nil
}

// connArgs: the --command-config file must open, then the bootstrap list
// of --bootstrap-server or --bootstrap-controller.
func connArgs(s *jopt.Set) (bs, cc string, err error) {
	cc, given, err := s.Value("command-config")
	if err != nil {
		return "", "", err
	}
	if err := tool.CommandConfig(cc, given); err != nil {
		return "", "", err
	}
	name := "bootstrap-server"
	if s.Has("bootstrap-controller") {
		name = "bootstrap-controller"
	}
	bs, _, err = s.Value(name)
	return bs, cc, err
}

// report prints a usage or execution error as Apache does.
func report(f *cmdutil.Factory, err error) error {
	var ue *usageError
	var ee *execError
	switch {
	case errors.As(err, &ue):
		return tool.Usage(f, ue.msg)
	case errors.As(err, &ee):
		fmt.Fprintln(f.IO.Out, "Error while executing ACL command: "+ee.msg)
		return cmdutil.Exit(1)
	}
	return err
}

// addPlan is getResourceToAcls: a specific pattern type, and an entry for
// every resource.
func addPlan(s *jopt.Set) ([]change, error) {
	pt, err := patternType(s)
	if err != nil {
		return nil, err
	}
	if pt != "LITERAL" && pt != "PREFIXED" {
		return nil, usagef("A '--resource-pattern-type' value of '%s' is not valid when adding acls.", pt)
	}
	cs, err := plan(s)
	if err != nil {
		return nil, err
	}
	for _, c := range cs {
		if len(c.entries) == 0 {
			return nil, usagef("You must specify one of: --allow-principal, --deny-principal when trying to add ACLs.")
		}
	}
	return cs, nil
}

func add(ctx context.Context, w io.Writer, cl *kgo.Client, cs []change) error {
	var create []acls.Binding
	var text strings.Builder
	for _, c := range cs {
		existing, err := acls.Describe(ctx, cl, acls.Filter{Pattern: c.pattern})
		if err != nil {
			return err
		}
		have := map[acls.Binding]bool{}
		for _, b := range existing {
			have[b] = true
		}
		var lines []string
		for _, e := range c.entries {
			b := acls.Binding{Pattern: c.pattern, Entry: e}
			if have[b] {
				fmt.Fprintf(&text, "Acl %s already exists.\n", b)
				continue
			}
			create = append(create, b)
			lines = append(lines, "\t"+e.String())
		}
		if len(lines) > 0 {
			fmt.Fprintf(&text, "Adding ACLs for resource `%s`: \n %s\n\n", c.pattern, strings.Join(lines, "\n"))
		}
	}
	io.WriteString(w, text.String())
	return acls.Create(ctx, cl, create)
}

func remove(ctx context.Context, f *cmdutil.Factory, force bool, cl *kgo.Client, cs []change) error {
	in := bufio.NewReader(f.IO.In)
	for _, c := range cs {
		msg := "Are you sure you want to delete all ACLs for resource filter `" + c.pattern.String() + "`? (y/n)"
		if len(c.entries) > 0 {
			var lines []string
			for _, e := range c.entries {
				lines = append(lines, "\t"+e.String())
			}
			msg = "Are you sure you want to remove ACLs: \n " + strings.Join(lines, "\n") + "\n from resource filter `" + c.pattern.String() + "`? (y/n)"
		}
		if !force {
			fmt.Fprintln(f.IO.Out, msg)
			line, _ := in.ReadString('\n')
			if !strings.EqualFold(strings.TrimRight(line, "\r\n"), "y") {
				continue
			}
		}
		fs := []acls.Filter{{Pattern: c.pattern}}
		if len(c.entries) > 0 {
			fs = nil
			for _, e := range c.entries {
				fs = append(fs, acls.Filter{Pattern: c.pattern, Entry: e})
			}
		}
		if _, err := acls.Delete(ctx, cl, fs); err != nil {
			return err
		}
	}
	return nil
}

func list(ctx context.Context, w io.Writer, cl *kgo.Client, ps []acls.Pattern, who []string) error {
	var found []acls.Binding
	if len(ps) == 0 {
		all, err := acls.All(ctx, cl)
		if err != nil {
			return err
		}
		found = all
	}
	for _, p := range ps {
		bs, err := acls.Describe(ctx, cl, acls.Filter{Pattern: p})
		if err != nil {
			return err
		}
		found = append(found, bs...)
	}
	if len(who) == 0 {
		_, err := io.WriteString(w, blocks(found, ""))
		return err
	}
	var b strings.Builder
	for _, p := range who {
		fmt.Fprintf(&b, "ACLs for principal `%s`\n", p)
		b.WriteString(blocks(found, p))
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// blocks is printResourceAcls: one "Current ACLs for resource" block per
// resource pattern (of principal's ACLs only, unless "").
func blocks(bs []acls.Binding, principal string) string {
	byPattern := map[acls.Pattern]map[acls.Entry]bool{}
	var order []acls.Pattern
	for _, b := range bs {
		if principal != "" && b.Principal != principal {
			continue
		}
		if byPattern[b.Pattern] == nil {
			byPattern[b.Pattern] = map[acls.Entry]bool{}
			order = append(order, b.Pattern)
		}
		byPattern[b.Pattern][b.Entry] = true
	}
	sortPatterns(order)
	var out strings.Builder
	for _, p := range order {
		var lines []string
		for e := range byPattern[p] {
			lines = append(lines, "\t"+e.String())
		}
		sortStrings(lines)
		fmt.Fprintf(&out, "Current ACLs for resource `%s`:\n%s\n\n", p, strings.Join(lines, "\n"))
	}
	return out.String()
}
