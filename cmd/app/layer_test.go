package app_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/cmd/app"
	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/output"
	"github.com/spf13/cobra"
)

// The command layer's policies hold in every applet: these tests walk the
// registry rather than naming applets one by one.

func apacheNames() []string {
	var out []string
	for _, a := range app.Applets() {
		if a.Offline { // reads files: no cluster, no profile's connection
			continue
		}
		out = append(out, a.Name)
	}
	return out
}

// An unknown profile is one error naming it, the same under every Apache
// name, every native alias and every native command, by flag or by
// KBOX_PROFILE, before any other check.
func TestUnknownProfileSameEverywhere(t *testing.T) {
	env := writeProfiles(t, "", map[string]string{"known": "127.0.0.1:1"})
	want := fmt.Sprintf("kbox: error: profile %q not found in %s\n", "no-such-profile", env["KBOX_CONFIG"])
	var invocations [][]string
	for _, a := range app.Applets() {
		invocations = append(invocations,
			[]string{a.Name, "--profile", "no-such-profile", "--topic", "t"},
			[]string{"kbox", a.Alias, "--profile=no-such-profile", "--describe"},
			[]string{"kbox", "--profile", "no-such-profile", a.Name, "--list"})
	}
	invocations = append(invocations,
		[]string{"kbox", "--profile", "no-such-profile", "cluster", "describe"},
		[]string{"kbox", "cluster", "describe", "--profile", "no-such-profile"},
		[]string{"kbox", "perf", "produce", "--profile", "no-such-profile", "--topic", "t", "--records", "1"},
		[]string{"kbox", "perf", "sweep", "produce", "--profile", "no-such-profile", "--topic-prefix", "p", "--records", "1", "--vary", "acks=1,all"},
		[]string{"kbox", "verify", "run", "--profile", "no-such-profile", "--topic", "t", "--messages", "1"},
		[]string{"kbox", "groups", "lag", "--profile", "no-such-profile"})
	for _, argv := range invocations {
		ios, _, out, errOut := output.Test()
		code := app.Main(argv, ios, func(k string) string { return env[k] })
		if code != 1 || errOut.String() != want || out.Len() != 0 {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %q\nwant   %q", argv, code, out, errOut, want)
		}
	}
	// KBOX_PROFILE: the same line.
	envp := map[string]string{"KBOX_CONFIG": env["KBOX_CONFIG"], "KBOX_PROFILE": "no-such-profile"}
	for _, name := range apacheNames() {
		ios, _, _, errOut := output.Test()
		code := app.Main([]string{name, "--bootstrap-server", "127.0.0.1:1", "--topic", "t"}, ios, func(k string) string { return envp[k] })
		if code != 1 || errOut.String() != want {
			t.Errorf("KBOX_PROFILE %s: exit %d stderr %q", name, code, errOut)
		}
	}
	// Profile management works whatever profile is selected.
	if r := kbox(t, envp, "profile", "list"); r.code != 0 {
		t.Errorf("profile list under an unknown KBOX_PROFILE: %d %q", r.code, r.errOut)
	}
}

// --profile gives every Apache applet its cluster: no --bootstrap-server.
func TestProfileServesEveryApplet(t *testing.T) {
	c := startKfake(t, "profile-everywhere", 1)
	env := writeProfiles(t, "", map[string]string{"p": strings.Join(c.ListenAddrs(), ",")})
	deleteJSON := filepath.Join(t.TempDir(), "delete.json")
	if err := os.WriteFile(deleteJSON, []byte(`{"partitions":[{"topic":"pt","partition":0,"offset":0}]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	runs := map[string][]string{
		"kafka-topics":              {"--profile", "p", "--create", "--topic", "pt", "--partitions", "1", "--replication-factor", "1"},
		"kafka-log-dirs":            {"--profile", "p", "--describe"},
		"kafka-producer-perf-test":  {"--profile", "p", "--topic", "pt", "--num-records", "20", "--record-size", "10", "--throughput", "-1"},
		"kafka-consumer-perf-test":  {"--profile", "p", "--topic", "pt", "--messages", "20", "--timeout", "20000"},
		"kafka-verifiable-producer": {"--profile", "p", "--topic", "pt", "--max-messages", "5"},
		"kafka-verifiable-consumer": {"--profile", "p", "--topic", "pt", "--group-id", "g", "--max-messages", "5", "--reset-policy", "earliest"},
		"kafka-e2e-latency":         {"--profile", "p", "--topic", "pt", "--num-records", "3", "--producer-acks", "1", "--record-size", "10"},
		"kafka-consumer-groups":     {"--profile", "p", "--describe", "--group", "g", "--state"},
		"kafka-console-producer":    {"--profile", "p", "--topic", "pt"},
		"kafka-console-consumer":    {"--profile", "p", "--topic", "pt", "--from-beginning", "--max-messages", "1", "--timeout-ms", "20000"},
		"kafka-reassign-partitions": {"--profile", "p", "--list"},
		"kafka-leader-election":     {"--profile", "p", "--election-type", "preferred", "--all-topic-partitions"},
		"kafka-configs":             {"--profile", "p", "--describe", "--topic", "pt"},
		"kafka-get-offsets":         {"--profile", "p", "--topic", "pt"},
		"kafka-delete-records":      {"--profile", "p", "--offset-json-file", deleteJSON},
		"kafka-acls":                {"--profile", "p", "--list"},
		"kafka-cluster":             {"--profile", "p", "cluster-id"},
		"kafka-broker-api-versions": {"--profile", "p", "--output", "apache"},
		"kafka-groups":              {"--profile", "p", "--list"},
		// It verifies until killed: a filter that leaves nothing ends it
		// after the connection (exit 1, "No topics found").
		"kafka-replica-verification": {"--profile", "p", "--topics-include", "no-such-topic"},
		"kafka-metadata-quorum":      {"--profile", "p", "remove-controller", "-i", "1", "-d", "AAAAAAAAAAAAAAAAAAAAAQ", "--dry-run"},
		"kafka-client-metrics":       {"--profile", "p", "--list"},
		// kfake has no delegation tokens: the request fails after the
		// connection (exit 1, not a bootstrap error).
		"kafka-delegation-tokens": {"--profile", "p", "--describe", "--command-config", os.DevNull},
		"kafka-features":          {"--profile", "p", "describe"},
		"kafka-transactions":      {"--profile", "p", "list"},
	}
	order := []string{"kafka-topics", "kafka-log-dirs", "kafka-producer-perf-test", "kafka-consumer-perf-test", "kafka-verifiable-producer", "kafka-verifiable-consumer", "kafka-e2e-latency", "kafka-consumer-groups",
		"kafka-reassign-partitions", "kafka-leader-election"}
	order = append(order, "kafka-console-producer", "kafka-console-consumer", "kafka-configs", "kafka-get-offsets", "kafka-delete-records", "kafka-acls",
		"kafka-cluster", "kafka-broker-api-versions", "kafka-groups", "kafka-replica-verification", "kafka-metadata-quorum")
	order = append(order, "kafka-client-metrics", "kafka-delegation-tokens", "kafka-features", "kafka-transactions")
	if len(order) != len(apacheNames()) {
		t.Fatalf("registry has %v; this test covers %v", apacheNames(), order)
	}
	for _, name := range order {
		ios, _, out, errOut := output.Test()
		code := app.Main(append([]string{name}, runs[name]...), ios, func(k string) string { return env[k] })
		if name == "kafka-replica-verification" && code == 1 && strings.Contains(errOut.String(), "No topics found.") {
			continue
		}
		if name == "kafka-delegation-tokens" && code == 1 && strings.Contains(out.String(), "Calling describe token operation") {
			if strings.Contains(errOut.String(), "bootstrap") {
				t.Errorf("%s: %q", name, errOut)
			}
			continue
		}
		if code != 0 || strings.Contains(errOut.String(), "bootstrap") {
			t.Errorf("%s: exit %d\nstdout %.300q\nstderr %.300q", name, code, out, errOut)
		}
	}
	// A drop-in's native subcommands take the profile too (the layer puts
	// its bootstrap list in front of the arguments).
	ios, _, out, errOut := output.Test()
	code := app.Main([]string{"kbox", "--profile", "p", "configs", "get", "--topic", "pt", "-o", "json"}, ios, func(k string) string { return env[k] })
	if code != 0 || !strings.Contains(out.String(), `"name":"pt"`) {
		t.Errorf("kbox configs get under a profile: exit %d\nstdout %.300q\nstderr %.300q", code, out, errOut)
	}
}

// A SASL profile with no stored password is asked for once per invocation,
// however many times the applet resolves its connection.
func TestSecretPromptedOnce(t *testing.T) {
	c := startKfake(t, "prompt-once", 1)
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := fmt.Sprintf("profiles:\n  s:\n    bootstrap-servers: [%s]\n    connect-timeout: 2s\n    sasl: {mechanism: PLAIN, username: u}\n", c.ListenAddrs()[0])
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"KBOX_CONFIG": path}
	for _, argv := range [][]string{
		{"kafka-topics", "--profile", "s", "--list"},
		{"kafka-log-dirs", "--profile", "s", "--describe"},
		{"kbox", "--profile", "s", "cluster", "describe"},
	} {
		ios, _, _, errOut := output.Test()
		prompts := 0
		ios.SetSecretReader(func(string) (string, error) { prompts++; return "typed-secret", nil })
		app.Main(argv, ios, func(k string) string { return env[k] })
		if prompts != 1 {
			t.Errorf("%v: %d prompts, want 1 (stderr %q)", argv, prompts, errOut)
		}
		if strings.Contains(errOut.String(), "typed-secret") {
			t.Errorf("%v: the secret is in stderr", argv)
		}
	}
}

// A bad -o fails before any request or load, in every command that has -o.
func TestBadOutputBeforeWork(t *testing.T) {
	env := writeProfiles(t, "", nil)
	for _, argv := range [][]string{
		{"perf", "produce", "--topic", "t", "--duration", "5s"},
		{"perf", "consume", "--topic", "t", "--records", "10"},
		{"perf", "e2e", "--topic", "t", "--records", "10"},
		{"perf", "merge", "nonexistent.json", "-o", "x"},
		{"perf", "sweep", "produce", "--topic-prefix", "p", "--records", "10", "--vary", "acks=1,all"},
		{"perf", "sweep", "merge", "nonexistent.json", "-o", "x"},
		{"cluster", "describe"},
		{"verify", "run", "--topic", "t", "--messages", "10"},
		{"verify", "check", "--producer-log", "nonexistent.log", "--consumer-log", "nonexistent.log"},
		{"log-dirs", "--describe"},
	} {
		// A listener that accepts and never answers: any request would hang.
		start := time.Now()
		if argv[len(argv)-1] == "x" { // merge commands read files, no cluster
			argv = argv[:len(argv)-2]
		} else {
			argv = append(argv, "--bootstrap-server", blackhole(t))
		}
		r := kbox(t, env, append(argv, "-o", "wide-and-bogus")...)
		if r.code == 0 || !strings.Contains(r.errOut, `unknown output format "wide-and-bogus"`) || strings.Count(r.errOut, "\n") > 2 {
			t.Errorf("%v: exit %d stderr %q", argv, r.code, r.errOut)
		}
		if d := time.Since(start); d > 3*time.Second {
			t.Errorf("%v: took %v: work started before -o was checked", argv, d)
		}
	}
	// `-o wide` where a command has no wide form: the allowed list is named.
	r := kbox(t, env, "perf", "produce", "--bootstrap-server", blackhole(t), "--topic", "t", "--duration", "5s", "-o", "wide")
	if r.code != 2 || !strings.Contains(r.errOut, `unknown output format "wide" (allowed: table, json, csv)`) {
		t.Errorf("perf produce -o wide: exit %d stderr %q", r.code, r.errOut)
	}
}

// Live progress is the stderr terminal's business: stdout on a terminal with
// stderr redirected to a log gets no escape codes in the log; stderr on a
// terminal gets the status line.
func TestProgressFollowsStderr(t *testing.T) {
	c := startKfake(t, "progress", 1)
	bs := c.ListenAddrs()[0]
	env := writeProfiles(t, "", nil)
	if r := kbox(t, env, "kafka-topics", "--bootstrap-server", bs, "--create", "--topic", "prog", "--partitions", "1", "--replication-factor", "1"); r.code != 0 {
		t.Fatalf("create: %d %s", r.code, r.errOut)
	}
	for _, tc := range []struct {
		outTTY, errTTY, want bool
	}{{true, false, false}, {false, true, true}} {
		ios, _, _, errOut := output.Test()
		ios.SetStdoutTTY(tc.outTTY)
		ios.SetStderrTTY(tc.errTTY)
		code := app.Main([]string{"kbox", "perf", "produce", "--bootstrap-server", bs, "--topic", "prog", "--duration", "1500ms", "--throughput", "2000", "-o", "json"}, ios, func(k string) string { return env[k] })
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errOut)
		}
		if got := strings.Contains(errOut.String(), "\r\033[K"); got != tc.want {
			t.Errorf("stdout tty %v, stderr tty %v: status line drawn %v, want %v (stderr %q)", tc.outTTY, tc.errTTY, got, tc.want, errOut)
		}
	}
}

// blackhole returns an address that accepts connections and never answers.
func blackhole(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			t.Cleanup(func() { c.Close() })
		}
	}()
	return l.Addr().String()
}

// A drop-in's native subcommands (`kbox groups lag`, `kbox configs get`,
// `kbox reassign status`) are reached through the layer like any native
// command: --help is the subcommand's, an unknown profile is the one
// error, a bad -o is refused before any request; under the link name the
// same word is the Apache tool's argument.
func TestDropInNativeSubcommands(t *testing.T) {
	env := writeProfiles(t, "", map[string]string{"known": "127.0.0.1:1"})
	wantProfile := fmt.Sprintf("kbox: error: profile %q not found in %s\n", "no-such-profile", env["KBOX_CONFIG"])
	n := 0
	for _, a := range dropInsWithNative(t, env) {
		for _, sub := range a.subs {
			name := sub.Name()
			n++
			pos := positional(sub)
			if r := kbox(t, env, a.Alias, name, "--help"); r.code != 0 || !strings.Contains(r.out, "kbox "+a.Alias+" "+name) {
				t.Errorf("kbox %s %s --help: exit %d\n%s%s", a.Alias, name, r.code, r.out, r.errOut)
			}
			if r := kbox(t, env, append([]string{"--profile", "no-such-profile", a.Alias, name}, pos...)...); r.code != 1 || r.errOut != wantProfile {
				t.Errorf("kbox --profile no-such-profile %s %s: exit %d stderr %q", a.Alias, name, r.code, r.errOut)
			}
			if sub.Flags().Lookup("output") != nil {
				start := time.Now()
				r := kbox(t, env, append([]string{a.Alias, name, "--bootstrap-server", blackhole(t), "-o", "wide-and-bogus"}, pos...)...)
				if r.code == 0 || !strings.Contains(r.errOut, `unknown output format "wide-and-bogus"`) || time.Since(start) > 3*time.Second {
					t.Errorf("kbox %s %s -o wide-and-bogus: exit %d stderr %q", a.Alias, name, r.code, r.errOut)
				}
			}
			// Under the link name it is an Apache argument, never the native command.
			ios, _, out, errOut := output.Test()
			if code := app.Main([]string{a.Name, name, "--help"}, ios, func(k string) string { return env[k] }); strings.Contains(out.String()+errOut.String(), "kbox "+a.Alias+" "+name) {
				t.Errorf("%s %s --help ran the native command (exit %d)", a.Name, name, code)
			}
		}
	}
	if n < 3 {
		t.Errorf("only %d native subcommands of drop-ins found", n)
	}
}

// No drop-in's native subcommand takes the name (or a prefix) of one of
// its Apache tool's subcommands (the rule of docs/DEVELOPING.md).
func TestNativeNamesLeaveApacheSubcommands(t *testing.T) {
	f := cmdutil.NewFactory(output.System(), func(string) string { return "" }, "test")
	for _, a := range app.Applets() {
		if err := a.CheckNames(f); err != nil {
			t.Error(err)
		}
	}
}

// The native subcommands of a drop-in are listed after its Apache help
// under the native name, by the layer from the entry's native tree: every
// subcommand, once; under the link name, and for a drop-in without a
// native tree, nothing follows the help.
// log4jTime is the time stamp of a log4j line as the drop-ins print it.
var log4jTime = regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\]`)

func TestNativeHelpList(t *testing.T) {
	env := writeProfiles(t, "", map[string]string{"known": "127.0.0.1:1"})
	withNative := map[string][]*cobra.Command{}
	for _, d := range dropInsWithNative(t, env) {
		withNative[d.Name] = d.subs
	}
	for _, a := range app.Applets() {
		ios, _, _, linkErr := output.Test()
		linkCode := app.Main([]string{a.Name, "--help"}, ios, func(k string) string { return env[k] })
		if strings.Contains(linkErr.String(), "Native subcommands") {
			t.Errorf("%s --help (exit %d) lists native subcommands:\n%s", a.Name, linkCode, linkErr)
		}
		r := kbox(t, env, a.Alias, "--help")
		subs, ok := withNative[a.Name]
		if !ok {
			if strings.Contains(r.errOut, "Native subcommands") {
				t.Errorf("kbox %s --help lists native subcommands it has none of:\n%s", a.Alias, r.errOut)
			}
			continue
		}
		// A log4j line's time (kafka-replica-verification's deprecation
		// WARN) differs between the two runs when a second passes.
		list, ok := strings.CutPrefix(log4jTime.ReplaceAllString(r.errOut, "[TIME]"), log4jTime.ReplaceAllString(linkErr.String(), "[TIME]"))
		if r.code != linkCode || !ok {
			t.Errorf("kbox %s --help: exit %d, stderr does not start with the Apache help of %s:\n%s", a.Alias, r.code, a.Name, r.errOut)
			continue
		}
		head := "\nNative subcommands (details: kbox " + a.Alias + " SUBCOMMAND --help):\n"
		// The drop-in's own kbox options (ApacheTool.Extensions) come first.
		if i := strings.Index(list, head); i > 0 && strings.HasPrefix(list, "\nkbox options:\n") {
			list = list[i:]
		}
		if !strings.HasPrefix(list, head) {
			t.Errorf("kbox %s --help: the list does not start with %q:\n%s", a.Alias, head, list)
		}
		lines := strings.Split(strings.TrimSuffix(strings.TrimPrefix(list, head), "\n"), "\n")
		if len(lines) != len(subs) {
			t.Errorf("kbox %s --help: %d lines for %d subcommands:\n%s", a.Alias, len(lines), len(subs), list)
			continue
		}
		for i, sub := range subs {
			if fs := strings.Fields(lines[i]); len(fs) < 2 || fs[0] != sub.Name() {
				t.Errorf("kbox %s --help: line %q, want subcommand %s with its description", a.Alias, lines[i], sub.Name())
			}
		}
		// No arguments is the help too, and so is the list (not for a
		// tool with subcommands: argparse4j's "too few arguments").
		if len(a.ApacheCommands) > 0 {
			continue
		}
		if r0 := kbox(t, env, a.Alias); r0.code != 1 || !strings.HasSuffix(r0.errOut, list) {
			t.Errorf("kbox %s: exit %d, no native list:\n%s", a.Alias, r0.code, r0.errOut)
		}
	}
}

// The layer's global flags may stand between a drop-in's native name and
// a native subcommand (`kbox groups --profile p lag`): they are the
// layer's and SUB still runs the native tree; under the link name every
// argument stays Apache's.
func TestGlobalFlagsBeforeNativeSubcommand(t *testing.T) {
	env := writeProfiles(t, "", map[string]string{"known": "127.0.0.1:1"})
	wantProfile := fmt.Sprintf("kbox: error: profile %q not found in %s\n", "no-such-profile", env["KBOX_CONFIG"])
	for _, a := range dropInsWithNative(t, env) {
		var sub string   // a subcommand with -o
		var pos []string // the positional arguments it needs
		for _, c := range a.subs {
			if c.Flags().Lookup("output") != nil {
				sub, pos = c.Name(), positional(c)
				break
			}
		}
		if sub == "" {
			t.Errorf("kbox %s: no native subcommand with -o", a.Alias)
			continue
		}
		native := "kbox " + a.Alias + " " + sub // the subcommand's own usage line
		for _, globals := range [][]string{
			{"--profile", "known"},
			{"--profile=known"},
			{"--config", env["KBOX_CONFIG"], "--profile", "known"},
			{"-o", "json"},
			{"--output=yaml", "--profile=known"},
		} {
			argv := append(append([]string{a.Alias}, globals...), sub, "--help")
			if r := kbox(t, env, argv...); r.code != 0 || !strings.Contains(r.out, native) {
				t.Errorf("kbox %s: exit %d, not the native %s --help:\n%s%s", strings.Join(argv, " "), r.code, sub, r.out, r.errOut)
			}
			// help SUB too.
			argv = append(append([]string{a.Alias}, globals...), "help", sub)
			if r := kbox(t, env, argv...); r.code != 0 || !strings.Contains(r.out, native) {
				t.Errorf("kbox %s: exit %d, not the native help of %s:\n%s%s", strings.Join(argv, " "), r.code, sub, r.out, r.errOut)
			}
		}
		// The flag before SUB is in effect: an unknown profile is the one
		// error, a bad -o is the native flag error (exit 2).
		if r := kbox(t, env, a.Alias, "--profile", "no-such-profile", sub); r.code != 1 || r.errOut != wantProfile {
			t.Errorf("kbox %s --profile no-such-profile %s: exit %d stderr %q", a.Alias, sub, r.code, r.errOut)
		}
		if r := kbox(t, env, append([]string{a.Alias, "-o", "bogus", sub, "--bootstrap-server", blackhole(t)}, pos...)...); r.code != 2 || !strings.Contains(r.errOut, `unknown output format "bogus"`) {
			t.Errorf("kbox %s -o bogus %s: exit %d stderr %q", a.Alias, sub, r.code, r.errOut)
		}
		// A global flag with no SUB after it stays the Apache tool's
		// (kbox's --profile extension): the Apache help.
		// jopt tools print their help on stderr and exit 1; argparse4j tools
		// on stdout, exiting 0 (kafka-metadata-quorum) or 1 (kafka-cluster).
		if r := kbox(t, env, a.Alias, "--profile", "known", "--help"); (r.code != 0 && r.code != 1) || strings.Contains(r.out+r.errOut, native) || !strings.Contains(r.out+r.errOut, "--help") {
			t.Errorf("kbox %s --profile known --help: exit %d\n%s%s", a.Alias, r.code, r.out, r.errOut)
		}
		// Under the link name every argument is Apache's.
		for _, argv := range [][]string{
			{a.Name, "--profile", "known", sub, "--help"},
			{a.Name, "--profile=known", sub, "--help"},
			{a.Name, "-o", "json", sub, "--help"},
		} {
			ios, _, out, errOut := output.Test()
			code := app.Main(argv, ios, func(k string) string { return env[k] })
			if code == 0 || strings.Contains(out.String()+errOut.String(), native) {
				t.Errorf("%s: exit %d, ran the native command:\n%s%s", strings.Join(argv, " "), code, out, errOut)
			}
		}
	}
}

// dropIn is a drop-in with a native tree and the subcommands its help lists.
type dropIn struct {
	cmdutil.Applet
	subs []*cobra.Command
}

// dropInsWithNative walks the registry for the drop-ins with a native tree
// (at least three: groups, configs, reassign).
func dropInsWithNative(t *testing.T, env map[string]string) []dropIn {
	t.Helper()
	ios, _, _, _ := output.Test()
	f := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
	var out []dropIn
	for _, a := range app.Applets() {
		if a.Native == nil {
			continue
		}
		d := dropIn{Applet: a}
		for _, c := range a.Native(f).Commands() {
			if !c.Hidden && c.Name() != "help" && c.Name() != "completion" {
				d.subs = append(d.subs, c)
			}
		}
		out = append(out, d)
	}
	if len(out) < 3 {
		t.Errorf("only %d drop-ins with a native tree found", len(out))
	}
	return out
}

// positional is what a subcommand needs as positional arguments to run.
func positional(c *cobra.Command) []string {
	if c.Args != nil && c.Args(c, nil) != nil {
		return []string{"x"}
	}
	return nil
}

// link runs argv as the link argv[0] (an Apache name).
func link(t *testing.T, env map[string]string, argv ...string) run {
	t.Helper()
	ios, _, out, errOut := output.Test()
	code := app.Main(argv, ios, func(k string) string { return env[k] })
	return run{code, out.String(), errOut.String()}
}

// Every drop-in declares the options that name its connection; the layer
// adds a default bootstrap list only when none of them is given, whatever
// other option starts like one (kafka-configs --broker, kafka-log-dirs
// --broker-list).
func TestConnOptionsPerApplet(t *testing.T) {
	env := writeProfiles(t, "", nil)
	env["KBOX_BOOTSTRAP_SERVERS"] = "default.invalid:9092"
	const added = "--bootstrap-server default.invalid:9092"
	for _, a := range app.Applets() {
		if a.Offline {
			continue
		}
		if len(a.ConnOptions) == 0 {
			t.Errorf("%s declares no connection option", a.Name)
			continue
		}
		h := link(t, env, a.Name, "--help")
		if a.ConnAfterCommand { // the options are the subcommands'
			h = link(t, env, a.Name, a.ApacheCommands[0], "--help")
		}
		for _, o := range a.ConnOptions {
			if !strings.Contains(h.out+h.errOut, "--"+o) {
				t.Errorf("%s: connection option --%s is not in its help", a.Name, o)
			}
			forms := [][]string{{"--" + o, "x:1", "--describe"}, {"--describe", "--" + o + "=x:1"}}
			if a.AbbrevOptions {
				forms = append(forms, []string{"--" + o[:len(o)-2], "x:1", "--describe"})
			}
			for _, args := range forms {
				f := cmdutil.NewFactory(output.System(), func(k string) string { return env[k] }, "test")
				f.Invoked = a.Name
				got, err := f.PrepareApache(a, args)
				if err != nil || strings.Contains(strings.Join(got, " "), added) {
					t.Errorf("%s %v: %v %v: a bootstrap list was added", a.Name, args, got, err)
				}
			}
		}
		for _, args := range [][]string{{"--describe"}, {"--describe", "--broker", "1"}, {"--describe", "--broker-list", "1,2"}} {
			if a.NamesConnection(args) {
				continue // kafka-replica-verification's --broker-list is its servers
			}
			f := cmdutil.NewFactory(output.System(), func(k string) string { return env[k] }, "test")
			f.Invoked = a.Name
			want := added + " "
			if a.ConnAfterCommand { // after the subcommand, whose options they are
				args = append([]string{a.ApacheCommands[0]}, args...)
				want = a.ApacheCommands[0] + " " + want
			}
			got, err := f.PrepareApache(a, args)
			if err != nil || !strings.HasPrefix(strings.Join(got, " "), want) {
				t.Errorf("%s %v: %v %v: the default bootstrap list was not added", a.Name, args, got, err)
			}
		}
	}
}

// Under a link name nothing from the environment or a profile changes
// what Apache's tool would print: a connection the arguments name is
// theirs (kafka-configs --bootstrap-controller gets no --bootstrap-server
// added; the current profile's security settings stay out of it), and
// KBOX_OUTPUT or a profile's output format do not switch the output; only
// an explicit -o does. The kbox forms keep those defaults.
func TestLinkNameTakesNothingFromEnvironment(t *testing.T) {
	c := startKfake(t, "link-env", 1)
	k := c.ListenAddrs()[0]
	path := filepath.Join(t.TempDir(), "config.yaml")
	cfg := &config.File{CurrentProfile: "cur", Profiles: map[string]*config.Profile{
		// The current profile would break any connection it took part in.
		"cur": {BootstrapServers: []string{blackhole(t)}, Output: "json", Properties: map[string]string{"security.protocol": "SSL"}},
		"p":   {BootstrapServers: []string{k}, Output: "json"},
		"q":   {BootstrapServers: []string{k}},
	}}
	if err := config.WriteFile(path, cfg); err != nil {
		t.Fatal(err)
	}
	base := map[string]string{"KBOX_CONFIG": path, "KBOX_CONNECT_TIMEOUT": "5s"}
	if r := link(t, base, "kafka-topics", "--bootstrap-server", k, "--create", "--topic", "pt", "--partitions", "1", "--replication-factor", "1"); r.code != 0 || r.out != "Created topic pt.\n" {
		t.Fatalf("create: %+v", r)
	}
	withEnv := func(kv ...string) map[string]string {
		m := map[string]string{}
		for k, v := range base {
			m[k] = v
		}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	for name, env := range map[string]map[string]string{
		"KBOX_OUTPUT and KBOX_BOOTSTRAP_SERVERS": withEnv("KBOX_OUTPUT", "json", "KBOX_BOOTSTRAP_SERVERS", blackhole(t)),
		"the current profile":                    base,
	} {
		for _, tc := range []struct {
			argv []string
			want string // stdout, or its first line
		}{
			{[]string{"kafka-configs", "--bootstrap-controller", k, "--describe", "--topic", "pt"}, "Dynamic configs for topic pt are:\n"},
			{[]string{"kafka-configs.sh", "--bootstrap-server", k, "--describe", "--topic", "pt"}, "Dynamic configs for topic pt are:\n"},
			{[]string{"kafka-topics", "--bootstrap-server", k, "--list"}, "pt\n"},
			{[]string{"kafka-log-dirs", "--bootstrap-server", k, "--describe", "--topic-list", "pt"}, "Querying brokers for log directories information\n"},
		} {
			r := link(t, env, tc.argv...)
			if r.code != 0 || !strings.HasPrefix(r.out, tc.want) || (strings.HasSuffix(tc.want, "are:\n") || tc.want == "pt\n") && r.out != tc.want {
				t.Errorf("%s: %v: exit %d\nstdout %q\nstderr %q\nwant %q", name, tc.argv, r.code, r.out, r.errOut, tc.want)
			}
		}
	}
	// An explicit profile gives its bootstrap servers, not its output
	// format; the drop-in's connection options still win over it.
	envJSON := withEnv("KBOX_OUTPUT", "json")
	for _, env := range []map[string]string{base, envJSON} {
		for _, argv := range [][]string{
			{"kafka-topics", "--profile", "p", "--list"},
			{"kafka-log-dirs", "--profile", "p", "--describe", "--broker-list", "0", "--topic-list", "pt"},
			{"kafka-configs", "--profile", "p", "--describe", "--topic", "pt"},
			{"kafka-configs", "--profile", "p", "--bootstrap-controller", k, "--describe", "--topic", "pt"},
		} {
			r := link(t, env, argv...)
			if r.code != 0 || strings.HasPrefix(r.out, "{") || strings.HasPrefix(r.out, "[") || r.out == "" {
				t.Errorf("%v (KBOX_OUTPUT=%q): exit %d\nstdout %q\nstderr %q", argv, env["KBOX_OUTPUT"], r.code, r.out, r.errOut)
			}
		}
	}
	// Only an explicit -o switches a drop-in; the kbox forms take
	// KBOX_OUTPUT and the profile's format.
	for _, tc := range []struct {
		env  map[string]string
		argv []string
	}{
		{base, []string{"kafka-topics", "--bootstrap-server", k, "--list", "-o", "json"}},
		{withEnv("KBOX_OUTPUT", "json", "KBOX_PROFILE", "q"), []string{"kbox", "topics", "--list"}},
		{base, []string{"kbox", "--profile", "p", "topics", "--list"}},
		{base, []string{"kbox", "--profile", "p", "log-dirs", "--describe"}},
	} {
		r := link(t, tc.env, tc.argv...)
		if r.code != 0 || !strings.HasPrefix(r.out, "{") && !strings.HasPrefix(r.out, "[") {
			t.Errorf("%v: exit %d, not JSON\nstdout %q\nstderr %q", tc.argv, r.code, r.out, r.errOut)
		}
	}
}

// A bootstrap list the layer adds from a profile is the last resort: a
// bootstrap.servers the tool's own properties or properties file give
// wins over it (as over the profile), in every drop-in that takes one.
func TestAddedBootstrapYieldsToToolProperties(t *testing.T) {
	c := startKfake(t, "yield", 1)
	k := c.ListenAddrs()[0]
	env := writeProfiles(t, "", map[string]string{"p": blackhole(t)})
	env["KBOX_CONNECT_TIMEOUT"] = "3s"
	if r := link(t, env, "kafka-topics", "--bootstrap-server", k, "--create", "--topic", "yt", "--partitions", "1", "--replication-factor", "1"); r.code != 0 {
		t.Fatalf("create: %+v", r)
	}
	file := filepath.Join(t.TempDir(), "client.properties")
	if err := os.WriteFile(file, []byte("bootstrap.servers="+k+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, argv := range [][]string{
		{"kafka-producer-perf-test", "--profile", "p", "--topic", "yt", "--num-records", "5", "--record-size", "10", "--throughput", "-1", "--command-property", "bootstrap.servers=" + k},
		{"kafka-producer-perf-test", "--profile", "p", "--topic", "yt", "--num-records", "5", "--record-size", "10", "--throughput", "-1", "--command-config", file},
		{"kafka-consumer-perf-test", "--profile", "p", "--topic", "yt", "--messages", "5", "--timeout", "20000", "--command-property", "bootstrap.servers=" + k},
		{"kafka-consumer-perf-test", "--profile", "p", "--topic", "yt", "--messages", "5", "--timeout", "20000", "--command-config", file},
		{"kafka-topics", "--profile", "p", "--command-config", file, "--list"},
	} {
		if r := link(t, env, argv...); r.code != 0 {
			t.Errorf("%v: exit %d\nstdout %.300q\nstderr %.300q", argv, r.code, r.out, r.errOut)
		}
	}
}
