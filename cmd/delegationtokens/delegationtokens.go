// Package delegationtokens is the kafka-delegation-tokens drop-in (kbox
// delegation-tokens): Apache 4.4's DelegationTokenCommand, --create,
// --renew, --expire and --describe, its checks, messages, token table,
// streams and exit codes; -o table|json|yaml shows the token --create
// made, or the tokens --describe found, natively; and the native `kbox
// delegation-tokens list`, every token the caller may see (the HMACs
// hidden unless asked for), as a table, JSON or YAML.
//
// The HMAC is the token's password. Apache's tool prints it (in the token
// table, and in the "Calling renew/expire token operation with hmac :..."
// line it echoes): so does the drop-in, on stdout, and nowhere else: no
// error or log line of kbox quotes it.
//
// Deliberate differences from Apache 4.4's tool:
//   - Stack traces are left out: where Apache prints an exception's
//     message and then its stack trace on stderr, kbox prints the message.
//   - Every value is checked before the tool connects: a bad principal,
//     period or HMAC fails with Apache's message and Apache's stdout, but
//     no client was made (Apache makes its admin client first).
//   - Of several options an action refuses, the first in Apache's order of
//     declaration is named ("Option "[create]" can't be used with option
//     ..."); Apache checks them from a Set.of, whose order changes from
//     one JVM run to the next.
//   - An unreachable --bootstrap-server fails within kbox's connect timeout
//     with one line (kbox: error: ...), where the Java admin client retries
//     until its API timeout; an unusable bootstrap list is kbox's message,
//     not "Failed to create new KafkaAdminClient".
//
// Not a difference: like Apache's, --describe without --owner-principal
// sends an empty owner list, which the broker answers with no token
// ("Total number of tokens : 0") whatever the caller owns; kbox
// delegation-tokens list sends none (null) and gets every token.
//
// -o (a kbox option, with --create and --describe only; with --renew or
// --expire it is a usage error, exit 2) prints the result alone: the
// "Calling ..." lines are Apache's text and not part of it.
package delegationtokens

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/dtokens"
	"github.com/kboxdev/kbox/pkg/jopt"
	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kgo"
)

//go:embed apache_help.txt
var apacheHelp string

// Applet registers kafka-delegation-tokens (kbox delegation-tokens).
var Applet = cmdutil.Applet{
	Kind:   cmdutil.Apache,
	Name:   "kafka-delegation-tokens",
	Alias:  "delegation-tokens",
	Short:  short,
	Run:    Run,
	Native: NewNativeCmd,

	ConnOptions: []string{"bootstrap-server"},
}

const short = "Create, renew, expire and describe delegation tokens"

const nativeHelp = `
kbox options:
  -o, --output FORMAT   apache (default under the Apache name), table, json
                        or yaml: the token --create made, or the tokens
                        --describe found (with --create and --describe)
`

var parser = jopt.New(
	jopt.Spec{Name: "bootstrap-server", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "command-config", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "create"},
	jopt.Spec{Name: "renew"},
	jopt.Spec{Name: "expire"},
	jopt.Spec{Name: "describe"},
	jopt.Spec{Name: "owner-principal", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "renewer-principal", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "max-life-time-period", Arg: jopt.OptionalArg, Type: jopt.Long},
	jopt.Spec{Name: "renew-time-period", Arg: jopt.OptionalArg, Type: jopt.Long},
	jopt.Spec{Name: "expiry-time-period", Arg: jopt.OptionalArg, Type: jopt.Long},
	jopt.Spec{Name: "hmac", Arg: jopt.OptionalArg},
	jopt.Spec{Name: "output", Short: "o", Arg: jopt.RequiredArg},
	jopt.Spec{Name: "help"},
	jopt.Spec{Name: "version"},
)

var tool = cmdutil.ApacheTool{
	Title:      "This tool helps to create, renew, expire, or describe delegation tokens.",
	Options:    apacheHelp,
	Extensions: nativeHelp,
}

var formats = cmdutil.Formats{Default: output.Apache, Allowed: []output.Format{output.Apache, output.Table, output.JSON, output.YAML}}

// failure is the tool's catch: the message on stderr, exit 1 (Apache
// follows it with the stack trace).
type failure struct{ msg string }

func (e *failure) Error() string { return e.msg }

func fail(msg string) error { return &failure{msg: msg} }

// nullLong is the NullPointerException of a period option given without a
// value (OptionSet.valueOf is null, unboxed to long).
const nullLong = `Cannot invoke "java.lang.Long.longValue()" because the return value of "joptsimple.OptionSet.valueOf(joptsimple.OptionSpec)" is null`

// nullHMAC is Base64.Decoder.decode's NullPointerException for --hmac
// without a value.
const nullHMAC = `Cannot invoke "String.getBytes(java.nio.charset.Charset)" because "src" is null`

// action is one of the four, checked and ready to send: call is the line
// Apache prints before the request (and before a failure of the values
// it reads after it), run sends it and prints the result.
type action struct {
	call string
	err  error
	run  func(ctx context.Context, cl *kgo.Client) (output.ApacheWriter, error)
}

// Run is kafka-delegation-tokens.
func Run(ctx context.Context, f *cmdutil.Factory, args []string) error {
	s, err := parser.Parse(args)
	if done, err := tool.Prologue(f, args, err, s.Has); done {
		return err
	}
	if err := checkArgs(f, s); err != nil {
		return err
	}
	out, oGiven, err := s.Value("output")
	if err != nil {
		return report(f, "", fail(err.Error()))
	}
	format := output.Apache // --renew and --expire print Apache's line only
	switch {
	case s.Has("create") || s.Has("describe"):
		if format, err = f.Output(out, formats); err != nil {
			return err
		}
	case oGiven:
		return cmdutil.FlagErrorf("-o/--output goes with --create or --describe")
	}
	bs, cc, err := tool.ConnArgs(s)
	if err != nil {
		return report(f, "", fail(err.Error()))
	}
	a := plan(s)
	if a.err != nil {
		return report(f, a.call, a.err)
	}
	// Apache makes its admin client (the properties checked), prints the
	// "Calling ..." line, then sends: a client, the line, the connection.
	conn, err := f.Connection(config.Overrides{Bootstrap: bs, CommandConfig: cc})
	if err != nil {
		return err
	}
	cl, err := f.Client(conn, kafka.Admin, kafka.Options{})
	if err != nil {
		return err
	}
	defer cl.Close()
	if format == output.Apache {
		io.WriteString(f.IO.Out, a.call)
	}
	if err := cl.Connect(ctx); err != nil {
		return err
	}
	res, err := a.run(ctx, cl.Client)
	var te *dtokens.Error
	switch {
	case errors.As(err, &te):
		return report(f, "", fail(te.Error()))
	case err != nil:
		return cl.Explain(err)
	}
	return output.Print(f.IO, format, res)
}

// report prints a failure as Apache does: what it printed on stdout
// before it, then the message on stderr, exit 1.
func report(f *cmdutil.Factory, stdout string, err error) error {
	var fe *failure
	if !errors.As(err, &fe) {
		return err
	}
	io.WriteString(f.IO.Out, stdout)
	fmt.Fprintln(f.IO.ErrOut, fe.msg)
	return cmdutil.Exit(1)
}

// checkArgs is the tool's checks before it connects, in its order: one
// action, the required options, then the options each action refuses.
func checkArgs(f *cmdutil.Factory, s *jopt.Set) error {
	n := 0
	for _, a := range []string{"create", "renew", "expire", "describe"} {
		if s.Has(a) {
			n++
		}
	}
	if n != 1 {
		return tool.Usage(f, "Command must include exactly one action: --create, --renew, --expire or --describe")
	}
	if err := tool.Require(f, s.Has, "bootstrap-server", "command-config"); err != nil {
		return err
	}
	required := map[string][]string{
		"create": {"max-life-time-period"},
		"renew":  {"hmac", "renew-time-period"},
		"expire": {"hmac", "expiry-time-period"},
	}
	for _, a := range []string{"create", "renew", "expire"} {
		if s.Has(a) {
			if err := tool.Require(f, s.Has, required[a]...); err != nil {
				return err
			}
		}
	}
	for _, c := range invalid {
		if !s.Has(c.used) {
			continue
		}
		for _, o := range c.opts {
			if s.Has(o) {
				return tool.Usage(f, fmt.Sprintf(`Option "[%s]" can't be used with option "[%s]"`, c.used, o))
			}
		}
	}
	return nil
}

// invalid is checkInvalidArgs' table: the options each action refuses,
// in Apache's order of declaration (Apache checks them from a Set.of,
// whose order changes with every JVM run).
var invalid = []invalidArgs{
	{"create", []string{"hmac", "renew-time-period", "expiry-time-period"}},
	{"renew", []string{"renewer-principal", "max-life-time-period", "expiry-time-period", "owner-principal"}},
	{"expire", []string{"renew", "max-life-time-period", "renew-time-period", "owner-principal"}},
	{"describe", []string{"renew-time-period", "max-life-time-period", "hmac", "expiry-time-period"}},
}

type invalidArgs struct {
	used string
	opts []string
}

// text is an Apache line as a result.
type text string

func (t text) WriteApache(w io.Writer) error {
	_, err := io.WriteString(w, string(t))
	return err
}
