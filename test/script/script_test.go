// Package script holds kbox's fast end-to-end tests: testscript scripts
// (testdata/*.txtar) that drive the real kbox program, under its own name
// and under every applet name (argv[0]), against an in-process playground
// cluster. No Java, no external broker.
package script

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/kboxdev/kbox/pkg/playground"
	"github.com/rogpeppe/go-internal/testscript"
)

// unknownApplet is a link name that is not an applet, to test the error.
const unknownApplet = "kafka-no-such-tool"

func kboxMain() { os.Exit(app.Main(os.Args, output.System(), os.Getenv)) }

func TestMain(m *testing.M) {
	cmds := map[string]func(){"kbox": kboxMain, unknownApplet: kboxMain}
	for _, n := range app.LinkNames() {
		cmds[n] = kboxMain
	}
	testscript.Main(m, cmds)
}

func TestScripts(t *testing.T) {
	applets := map[string]bool{}
	for _, n := range app.LinkNames() {
		applets[n] = true
	}
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata",
		RequireExplicitExec: true,
		Setup: func(env *testscript.Env) error {
			home := filepath.Join(env.WorkDir, "home")
			env.Setenv("HOME", home)
			env.Setenv("XDG_CONFIG_HOME", "")
			env.Setenv("KBOX_CONFIG", "")
			env.Setenv("KBOX_PROFILE", "")
			env.Setenv("KBOX_OUTPUT", "")
			env.Setenv("KBOX_BOOTSTRAP_SERVERS", "")
			env.Setenv("KBOX_CONNECT_TIMEOUT", "")
			env.Setenv("CONFIG", filepath.Join(home, ".config", "kbox", "config.yaml"))
			// A -race build sleeps 1s at exit by default; the scripts run
			// the program dozens of times.
			env.Setenv("GORACE", strings.TrimSpace(os.Getenv("GORACE")+" atexit_sleep_ms=0"))
			return nil
		},
		Condition: func(cond string) (bool, error) {
			if name, ok := strings.CutPrefix(cond, "applet:"); ok {
				return applets[name], nil
			}
			return false, fmt.Errorf("unknown condition %q", cond)
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"playground":  cmdPlayground,
			"filemode":    cmdFileMode,
			"waitprofile": cmdWaitProfile,
		},
	})
}

// playground [-brokers N] [-topic NAME:P]... starts an in-process playground
// for the rest of the script and sets $BOOTSTRAP (all brokers), $BROKER0
// (the first one) and $PORT0 (its port).
func cmdPlayground(ts *testscript.TestScript, neg bool, args []string) {
	if neg {
		ts.Fatalf("unsupported: ! playground")
	}
	o := playground.Options{Brokers: 3}
	for len(args) > 0 {
		if len(args) < 2 {
			ts.Fatalf("usage: playground [-brokers N] [-topic NAME:P]...")
		}
		switch args[0] {
		case "-brokers":
			n, err := strconv.Atoi(args[1])
			ts.Check(err)
			o.Brokers = n
		case "-topic":
			tp, err := playground.ParseTopic(args[1])
			ts.Check(err)
			o.Topics = append(o.Topics, tp)
		default:
			ts.Fatalf("playground: unknown flag %s", args[0])
		}
		args = args[2:]
	}
	p, err := playground.Start(o)
	ts.Check(err)
	ts.Defer(p.Close)
	ts.Setenv("BOOTSTRAP", p.Bootstrap())
	ts.Setenv("BROKER0", p.Addrs()[0])
	_, port, _ := strings.Cut(p.Addrs()[0], ":")
	ts.Setenv("PORT0", port)
}

// filemode PERM FILE checks a file's permission bits (octal).
func cmdFileMode(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) != 2 {
		ts.Fatalf("usage: filemode PERM FILE")
	}
	want, err := strconv.ParseUint(args[0], 8, 32)
	ts.Check(err)
	st, err := os.Stat(ts.MkAbs(args[1]))
	ts.Check(err)
	got := st.Mode().Perm()
	if (uint64(got) == want) == neg {
		ts.Fatalf("%s has mode %04o, want %s%04o", args[1], got, map[bool]string{true: "not ", false: ""}[neg], want)
	}
}

// waitprofile NAME waits until the config file ($CONFIG) holds profile NAME
// and sets $PROFILE_BOOTSTRAP to its bootstrap servers.
func cmdWaitProfile(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: waitprofile NAME")
	}
	path := ts.Getenv("CONFIG")
	deadline := time.Now().Add(15 * time.Second)
	for {
		f, _, err := config.ReadFile(path)
		if err == nil {
			if p, ok := f.Profiles[args[0]]; ok {
				ts.Setenv("PROFILE_BOOTSTRAP", strings.Join(p.BootstrapServers, ","))
				return
			}
		}
		if time.Now().After(deadline) {
			ts.Fatalf("profile %q did not appear in %s", args[0], path)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
