package cmdtest_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Run gives the command the streams, environment, terminal flags and
// invoked name of its options; an error is one "kbox: error:" line and
// its exit code.
func TestRun(t *testing.T) {
	cmd := func(_ context.Context, f *cmdutil.Factory, args []string) error {
		in, _ := io.ReadAll(f.IO.In)
		fmt.Fprintf(f.IO.Out, "%s|%s|%s|%v%v%v|%s", f.Invoked, strings.Join(args, " "), in,
			f.IO.IsStdoutTTY(), f.IO.IsStderrTTY(), f.IO.IsStdinTTY(), f.Getenv("X"))
		if f.Getenv("KBOX_CONFIG") == "" {
			return errors.New("no isolated config")
		}
		if len(args) > 0 && args[0] == "bad" {
			return cmdutil.FlagErrorf("bad flag")
		}
		return nil
	}
	r := cmdtest.Run(t, cmdtest.Options{Cmd: cmd, Invoked: "kafka-x", Stdin: "in", Env: map[string]string{"X": "y"}, TTY: true}, "a", "b")
	if r.Code != 0 || r.Stdout != "kafka-x|a b|in|truetruefalse|y" || r.Stderr != "" || r.Err != nil {
		t.Errorf("ok run: %+v", r)
	}
	r = cmdtest.Run(t, cmdtest.Options{Cmd: cmd, Secret: func(string) (string, error) { return "", nil }}, "bad")
	if r.Code != cmdutil.ExitUsage || r.Stdout != "kbox|bad||falsefalsetrue|" || r.Stderr != "kbox: error: bad flag\n" || r.Msg != "bad flag" {
		t.Errorf("flag error: %+v", r)
	}
	// Main: the whole program, argv[0] the invoked name, streams as is.
	main := func(argv []string, ios *output.IOStreams, getenv func(string) string) int {
		fmt.Fprint(ios.ErrOut, strings.Join(argv, " "))
		return 3
	}
	if r := cmdtest.Run(t, cmdtest.Options{Main: main, Invoked: "/usr/bin/kafka-x.sh"}, "--a"); r.Code != 3 || r.Stderr != "/usr/bin/kafka-x.sh --a" {
		t.Errorf("main: %+v", r)
	}
	if r := cmdtest.Run(t, cmdtest.Options{Main: main}); r.Stderr != "kbox" {
		t.Errorf("main, default name: %+v", r)
	}
}

// Kfake's cluster answers at the bootstrap list it returns.
func TestKfake(t *testing.T) {
	bs, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	if bs != c.ListenAddrs()[0] {
		t.Fatalf("bootstrap %q, cluster at %v", bs, c.ListenAddrs())
	}
	cl, err := kgo.NewClient(kgo.SeedBrokers(bs))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "t", Value: []byte("v")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
}

// Eventually returns once the condition holds, and otherwise fails naming
// what it last saw.
func TestEventually(t *testing.T) {
	var n atomic.Int32
	cmdtest.Eventually(t, 5*time.Second, func() (bool, string) {
		v := n.Add(1)
		return v >= 3, fmt.Sprintf("n=%d", v)
	})
	ft := &fatalT{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		cmdtest.Eventually(ft, 50*time.Millisecond, func() (bool, string) { return false, "state 7" })
	}()
	<-done
	if !strings.Contains(ft.msg, "last seen: state 7") || !strings.Contains(ft.msg, "50ms") {
		t.Errorf("failure message %q", ft.msg)
	}
}

// fatalT records Fatalf and ends the goroutine, as testing.T does.
type fatalT struct {
	testing.TB
	msg string
}

func (f *fatalT) Helper() {}
func (f *fatalT) Fatalf(format string, a ...any) {
	f.msg = fmt.Sprintf(format, a...)
	runtime.Goexit()
}
