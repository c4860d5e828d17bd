package reassignpartitions

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	// The native subcommands run under the Apache name too: one helper
	// for both trees.
	cmd := func(ctx context.Context, f *cmdutil.Factory, args []string) error {
		if len(args) > 0 && Applet.NativeSub(f, args[0]) {
			return cmdutil.ExecuteNative(ctx, f, NewNativeCmd(f), args)
		}
		return run(ctx, f, args)
	}
	r := cmdtest.Run(t, cmdtest.Options{Cmd: cmd, Invoked: "kafka-reassign-partitions"}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// Validation happens before any connection (the bootstrap address is
// unreachable); messages as the 4.4 tool prints them.
func TestApacheValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	empty := write("empty.json", `{"version":1,"partitions":[]}`)
	dup := write("dup.json", `{"partitions":[{"topic":"t","partition":0,"replicas":[1]},{"topic":"t","partition":0,"replicas":[1]}]}`)
	topics := write("topics.json", `{"topics":[{"topic":"a"}]}`)
	dupTopics := write("duptopics.json", `{"topics":[{"topic":"a"},{"topic":"b"},{"topic":"a"}]}`)
	bs := "127.0.0.1:1"
	cases := []struct {
		args           []string
		stdout, stderr string // stderr: first line
		usage          bool
	}{
		{nil, "", "This tool helps to move topic partitions between replicas.", true},
		{[]string{"--list"}, "", "Please specify either --bootstrap-server or --bootstrap-controller", true},
		{[]string{"--bootstrap-server", bs, "--list", "--generate"}, "", "Command must include exactly one action: --generate, --execute, --verify, --cancel, --list", true},
		{[]string{"--bootstrap-server", bs, "--bootstrap-controller", bs, "--list"}, "", "Please don't specify both --bootstrap-server and --bootstrap-controller", true},
		{[]string{"--bootstrap-server", bs, "--verify"}, "", `Missing required argument "[reassignment-json-file]"`, true},
		{[]string{"--bootstrap-server", bs, "--generate", "--broker-list", "1"}, "", `Missing required argument "[topics-to-move-json-file]"`, true},
		{[]string{"--bootstrap-server", bs, "--list", "--timeout", "5", "--throttle", "1"}, "", `Option "[timeout]" can't be used with action "[list]"`, true},
		{[]string{"--throttle", "1", "--bootstrap-server", bs, "--verify", "--reassignment-json-file", empty}, "", `Option "[throttle]" can't be used with action "[verify]"`, true},
		{[]string{"--bootstrap-server", bs, "--bogus"}, "", `Exception in thread "main" joptsimple.UnrecognizedOptionException: bogus is not a recognized option`, false},
		{[]string{"--bootstrap-server", bs, "--execute", "--reassignment-json-file", empty, "--throttle", "abc"}, "Error: Cannot parse argument 'abc' of option throttle\n", "", false},
		{[]string{"--bootstrap-server", bs, "--execute", "--reassignment-json-file", empty}, "Error: Partition reassignment list cannot be empty\n", "", false},
		{[]string{"--bootstrap-server", bs, "--execute", "--reassignment-json-file", dup}, "Error: Partition reassignment contains duplicate topic partitions: t-0\n", "", false},
		{[]string{"--bootstrap-server", bs, "--generate", "--topics-to-move-json-file", topics, "--broker-list", "1,x"}, "Error: For input string: \"x\"\n", "", false},
		{[]string{"--bootstrap-server", bs, "--generate", "--topics-to-move-json-file", topics, "--broker-list", "2,1,2,1"}, "Error: Broker list contains duplicate entries: [1, 2]\n", "", false},
		{[]string{"--bootstrap-server", bs, "--generate", "--topics-to-move-json-file", dupTopics, "--broker-list", "1"}, "Error: List of topics to reassign contains duplicate entries: [a]\n", "", false},
		{[]string{"--bootstrap-server", bs, "--execute", "--reassignment-json-file", filepath.Join(dir, "nope")}, "Error: Unable to read file " + filepath.Join(dir, "nope") + "\n", "", false},
	}
	for _, c := range cases {
		out, errOut, code := runArgs(t, c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 1 || out != c.stdout || first != c.stderr || strings.Contains(errOut, "--additional  ") != c.usage {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.200q", c.args, code, out, errOut)
		}
	}
}

func TestNativeFlagErrors(t *testing.T) {
	// Bad native flags: exit 2 before any connection.
	for _, args := range [][]string{
		{"execute", "--max-moves", "1"},
		{"execute", "--plan", "p.json"},
		{"status", "--interval", "0s"},
		{"status", "-o", "csv"},
		{"plan", "--add-broker", "4", "--skip-blocked"},
	} {
		if _, _, code := runArgs(t, args...); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
