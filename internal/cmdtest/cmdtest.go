// Package cmdtest is the command test kit: run a command (a drop-in, a
// native command or the whole program) with a Factory over fake streams,
// start a kfake cluster for the test, and wait on observable state.
//
// It imports no command package (not cmd/app), so the internal tests of an
// applet package can use it without an import cycle; a test that runs the
// whole program passes app.Main as Options.Main.
package cmdtest

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
	"github.com/twmb/franz-go/pkg/kfake"
)

// Options say what runs and in what environment. Exactly one of Main,
// Applet, Cmd and New is set.
type Options struct {
	// Main runs the whole program (app.Main) with argv = [Invoked or
	// "kbox"] + args; its exit code and streams are the result as is.
	Main func(argv []string, ios *output.IOStreams, getenv func(string) string) int
	// Applet runs a registry entry as the command layer does under
	// Invoked: a drop-in's native subcommand when Invoked is "kbox ALIAS"
	// and the first argument names one, else its Apache Run; a native
	// entry's command tree.
	Applet *cmdutil.Applet
	// Cmd runs a function of the Factory and the arguments.
	Cmd func(ctx context.Context, f *cmdutil.Factory, args []string) error
	// New builds a native command tree, run as cmdutil.ExecuteNative does.
	New func(f *cmdutil.Factory) *cobra.Command

	// Invoked is the name the program was invoked as: a link name
	// ("kafka-topics") or "kbox ALIAS"; "" is "kbox".
	Invoked string
	// Env is the environment. KBOX_CONFIG defaults to a missing file in
	// the test's temporary directory, so no test reads the user's config.
	Env map[string]string
	// Stdin is the standard input.
	Stdin string
	// TTY makes stdout and stderr terminals; StderrTTY stderr only.
	TTY, StderrTTY bool
	// Secret, when set, makes stdin a terminal that answers password
	// prompts with it.
	Secret func(prompt string) (string, error)
	// Context is the command's context (default context.Background()).
	Context context.Context
	// Factory, when set, adjusts the Factory before the run (globals).
	Factory func(f *cmdutil.Factory)
}

// Result is one run: the exit code, what the command wrote, and (except
// under Main) the error it returned.
type Result struct {
	Code   int
	Stdout string
	// Stderr is what the command wrote to stderr; except under Main, an
	// error's message follows as the program prints it, one line
	// "kbox: error: MSG".
	Stderr string
	// ErrOut is what the command itself wrote to stderr, without the
	// error line.
	ErrOut string
	// Err is the command's error (nil under Main).
	Err error
	// Msg is the error's message as ExitCode gives it ("" for none).
	Msg string
}

// Run runs the command of opts with args and returns its result.
func Run(t testing.TB, opts Options, args ...string) Result {
	t.Helper()
	ios, in, out, errOut := output.Test()
	in.WriteString(opts.Stdin)
	if opts.TTY {
		ios.SetStdoutTTY(true)
		ios.SetStderrTTY(true)
	}
	if opts.StderrTTY {
		ios.SetStderrTTY(true)
	}
	if opts.Secret != nil {
		ios.SetSecretReader(opts.Secret)
	}
	env := map[string]string{}
	for k, v := range opts.Env {
		env[k] = v
	}
	if _, ok := env["KBOX_CONFIG"]; !ok {
		env["KBOX_CONFIG"] = filepath.Join(t.TempDir(), "none.yaml")
	}
	getenv := func(k string) string { return env[k] }
	if opts.Main != nil {
		name := opts.Invoked
		if name == "" {
			name = "kbox"
		}
		code := opts.Main(append([]string{name}, args...), ios, getenv)
		return Result{Code: code, Stdout: out.String(), Stderr: errOut.String(), ErrOut: errOut.String()}
	}
	ctx := opts.Context
	if ctx == nil {
		ctx = context.Background()
	}
	f := cmdutil.NewFactory(ios, getenv, "test")
	if opts.Invoked != "" {
		f.Invoked = opts.Invoked
	}
	if opts.Factory != nil {
		opts.Factory(f)
	}
	var err error
	switch {
	case opts.Cmd != nil:
		err = opts.Cmd(ctx, f, args)
	case opts.New != nil:
		err = cmdutil.ExecuteNative(ctx, f, opts.New(f), args)
	case opts.Applet != nil:
		a := opts.Applet
		switch {
		case a.Run == nil:
			err = cmdutil.ExecuteNative(ctx, f, a.New(f), args)
		case f.Invoked == "kbox "+a.Alias && len(args) > 0 && a.NativeSub(f, args[0]):
			err = cmdutil.ExecuteNative(ctx, f, a.Native(f), args)
		default:
			err = a.Run(ctx, f, args)
		}
	default:
		t.Fatal("cmdtest.Run: no command (Main, Applet, Cmd or New)")
	}
	code, msg := cmdutil.ExitCode(err)
	written := errOut.String()
	if msg != "" {
		errOut.WriteString("kbox: error: " + msg + "\n")
	}
	return Result{Code: code, Stdout: out.String(), Stderr: errOut.String(), ErrOut: written, Err: err, Msg: msg}
}

// Kfake starts a kfake cluster closed when the test ends and returns its
// bootstrap list (comma-separated) with it.
func Kfake(t testing.TB, opts ...kfake.Opt) (string, *kfake.Cluster) {
	t.Helper()
	c, err := kfake.NewCluster(opts...)
	if err != nil {
		t.Fatalf("kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return strings.Join(c.ListenAddrs(), ","), c
}

// Eventually polls cond until it reports true, failing the test after
// timeout with the last thing cond saw. cond observes state (a count, a
// file, an HTTP answer); the wait is never a fixed sleep.
func Eventually(t testing.TB, timeout time.Duration, cond func() (ok bool, seen string)) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	wait := 5 * time.Millisecond
	for {
		ok, seen := cond()
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("not within %v; last seen: %s", timeout, seen)
		}
		time.Sleep(wait)
		if wait < 200*time.Millisecond {
			wait *= 2
		}
	}
}

// FirstDiff names the first line where Apache's output (want) and kbox's
// (got) differ, or is "" when they are the same: a failure message shows
// it where the whole output is too long to read.
func FirstDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	for i := range max(len(w), len(g)) {
		var a, b string
		if i < len(w) {
			a = w[i]
		}
		if i < len(g) {
			b = g[i]
		}
		if a != b {
			return fmt.Sprintf("first difference, line %d:\nApache: %s\nkbox:   %s", i+1, a, b)
		}
	}
	return ""
}
