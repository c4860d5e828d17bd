package cmdutil

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/kboxdev/kbox/pkg/jopt"
)

// ApacheTool is what the opening of a jopt-simple drop-in depends on: the
// texts of its help and the words it uses for the failures every such tool
// checks first. The policy itself (what is printed where, the exit codes,
// the order) is Prologue, Usage, Require and CommandConfig, written once.
type ApacheTool struct {
	// Title is the line above the option table for --help, and for an
	// invocation without arguments unless Bare is set.
	Title string
	// Bare, when set, is the line for an invocation without arguments
	// (kafka-topics prints a shorter one there).
	Bare string
	// Options is the option table jopt-simple prints, captured from the tool.
	Options string
	// Extensions follows the --help under the native name (kbox ALIAS
	// --help): the kbox options of the drop-in itself.
	Extensions string
	// ParseError is the line printed on stderr for arguments the parser
	// refuses; nil prints the parser's message.
	ParseError func(error) string
	// ParseUsage prints the option table after that line (the console
	// tools go through printUsageAndExit for a parse error).
	ParseUsage bool
	// Unreadable is the tool's message for a --command-config file that
	// cannot be opened, a format with the file's path; "" is the path
	// alone (the message of Java's NoSuchFileException).
	Unreadable string
	// NativeUsage, when set, is the synopsis of the drop-in under its
	// native name (what follows "kbox ALIAS"): there a usage error is a
	// native one, the message, that synopsis and a hint to --help, exit 2,
	// instead of Apache's option table (a native command answers in its
	// own terms, kbox consume as kbox produce).
	NativeUsage string
}

// Native says whether the drop-in runs under its native name with its own
// usage errors (NativeUsage).
func (t *ApacheTool) Native(f *Factory) bool {
	return t.NativeUsage != "" && strings.HasPrefix(f.Invoked, "kbox ")
}

// Usage is CommandLineUtils.printUsageAndExit: msg and the option table on
// stderr, exit 1; under the native name (Native) a native usage error.
func (t *ApacheTool) Usage(f *Factory, msg string) error {
	if t.Native(f) {
		fmt.Fprintf(f.IO.ErrOut, "kbox: error: %s\nUsage: %s %s\nkbox: hint: run \"%s --help\" for every option\n", msg, f.Invoked, t.NativeUsage, f.Invoked)
		return Exit(ExitUsage)
	}
	fmt.Fprint(f.IO.ErrOut, msg+"\n"+t.Options)
	return Exit(ExitFailure)
}

// Prologue is the opening every jopt-simple drop-in shares, in Apache's
// order: arguments the parser refused (perr) are one line on stderr, exit
// 1; no arguments or --help print the title and the option table on
// stderr, exit 1 (under the native name followed by Extensions, and by the
// layer's list of native subcommands: the error is a HelpExit); --version
// prints ApacheVersion on stdout, exit 0. has reports a parsed option; it
// is not called when perr is set (the parse result may be nil then).
// done is false when the tool goes on with its own checks.
func (t *ApacheTool) Prologue(f *Factory, args []string, perr error, has func(string) bool) (done bool, err error) {
	w := f.IO.ErrOut
	switch {
	case perr != nil:
		msg := perr.Error()
		if t.ParseError != nil {
			msg = t.ParseError(perr)
		}
		if t.ParseUsage || t.Native(f) {
			return true, t.Usage(f, msg)
		}
		fmt.Fprintln(w, msg)
		return true, Exit(ExitFailure)
	case len(args) == 0 && t.Bare != "":
		return true, t.Usage(f, t.Bare)
	case len(args) == 0 || has("help"):
		t.Usage(f, t.Title)
		if strings.HasPrefix(f.Invoked, "kbox ") {
			io.WriteString(w, t.Extensions)
		}
		return true, HelpExit(ExitFailure)
	case has("version"):
		fmt.Fprintln(f.IO.Out, ApacheVersion)
		return true, nil
	}
	return false, nil
}

// Require is jopt-simple's check of required options: the first one
// missing is `Missing required argument "[NAME]"` and the usage, exit 1.
func (t *ApacheTool) Require(f *Factory, has func(string) bool, names ...string) error {
	for _, n := range names {
		if !has(n) {
			return t.Usage(f, fmt.Sprintf(`Missing required argument "[%s]"`, n))
		}
	}
	return nil
}

// CommandConfig checks, before any connection, that a properties file
// given to the tool (--command-config and its older names) can be opened:
// Apache's tools load it first. The error carries the tool's message
// (Unreadable), for the tool to print its own way; nil when the file was
// not given or opens.
func (t *ApacheTool) CommandConfig(path string, given bool) error {
	if !given {
		return nil
	}
	fh, err := os.Open(path)
	if err != nil {
		if t.Unreadable == "" {
			return errors.New(path)
		}
		return fmt.Errorf(t.Unreadable, path)
	}
	return fh.Close()
}

// ConnArgs reads what a drop-in connects with, in the order Apache's tools
// do: the --command-config value, which must open (CommandConfig), then
// the --bootstrap-server value. An error is jopt's (an option given more
// than once) or the unreadable file's message, for the tool to print its
// own way.
func (t *ApacheTool) ConnArgs(s *jopt.Set) (bootstrap, commandConfig string, err error) {
	cc, given, err := s.Value("command-config")
	if err != nil {
		return "", "", err
	}
	if err := t.CommandConfig(cc, given); err != nil {
		return "", "", err
	}
	bs, _, err := s.Value("bootstrap-server")
	return bs, cc, err
}

// JoptException is the line the JVM prints for a jopt-simple parse error
// that escapes main (the tools that parse outside their try): the
// exception's class and message (kbox leaves out the stack trace).
func JoptException(err error) string {
	class := "joptsimple.OptionException"
	switch msg := err.Error(); {
	case strings.HasSuffix(msg, "is not a recognized option"):
		class = "joptsimple.UnrecognizedOptionException"
	case strings.HasSuffix(msg, "requires an argument"):
		class = "joptsimple.OptionMissingRequiredArgumentException"
	}
	return fmt.Sprintf("Exception in thread \"main\" %s: %s", class, err.Error())
}
