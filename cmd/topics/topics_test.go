package topics

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/internal/golden"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
)

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-topics"}, args...)
	return r.Stdout, r.Stderr, r.Code
}

func goldenText(t *testing.T, name string) string {
	t.Helper()
	return string(golden.Read(t, name))
}

// The help captured from Apache kafka-topics 4.4.0 (stderr, exit 1).
func TestHelpMatchesApache(t *testing.T) {
	out, errs, code := runArgs(t, "--help")
	if out != "" || code != 1 || errs != goldenText(t, "apache-help.golden") {
		t.Errorf("--help: code %d, stdout %q, stderr differs from testdata/apache-help.golden:\n%s", code, out, errs)
	}
	out, errs, code = runArgs(t)
	if out != "" || code != 1 || errs != goldenText(t, "apache-noargs.golden") {
		t.Errorf("no args: code %d, stdout %q, stderr:\n%s", code, out, errs)
	}
}

func TestArgErrors(t *testing.T) {
	const b = "127.0.0.1:1"
	usage := func(msg string) string { return msg + "\n" + apacheOptions }
	cases := []struct {
		args   []string
		stdout string
		stderr string
		code   int
	}{
		{[]string{"--version"}, "4.4.0\n", "", 0},
		{[]string{"--list", "--help"}, "", usage(helpMessage), 1},
		{[]string{"--list", "--describe"}, "", usage("Command must include exactly one action: --list, --describe, --create, --alter or --delete"), 1},
		{[]string{"--bootstrap-server", b}, "", usage("Command must include exactly one action: --list, --describe, --create, --alter or --delete"), 1},
		{[]string{"--lis"}, "", "lis is not a recognized option\n", 1},
		{[]string{"--list", "--topic"}, "", "Option topic requires an argument\n", 1},
		// Apache: a flag ignores "=value" (kafka-topics --list=x).
		{[]string{"--list=x"}, "", "--bootstrap-server must be specified\n", 1},
		{[]string{"--describe", "-topic", "x", "--create"}, "", "Command must include exactly one action: --list, --describe, --create, --alter or --delete\n" + apacheOptions, 1},
		{[]string{"-x", "--list"}, "", "x is not a recognized option\n", 1},
		{[]string{"--list"}, "", "--bootstrap-server must be specified\n", 1},
		{[]string{"--list", "--delete-config", "x"}, "", "delete-config option is no longer supported and deprecated since version 4.0. The config will be fully removed in future releases.\n--bootstrap-server must be specified\n", 1},
		{[]string{"--bootstrap-server", b, "--create"}, "", usage(`Missing required argument "[topic]"`), 1},
		{[]string{"--bootstrap-server", b, "--delete"}, "", usage(`Missing required argument "[topic]"`), 1},
		{[]string{"--bootstrap-server", b, "--alter", "--topic", "t"}, "", usage(`Missing required argument "[partitions]"`), 1},
		{[]string{"--bootstrap-server", b, "--alter", "--topic", "t", "--config", "a=b"}, "", usage(`Option combination "[[bootstrap-server], [config]]" can't be used with option "[alter]" (To alter topic configurations, the kafka-configs tool can be used.)`), 1},
		{[]string{"--bootstrap-server", b, "--describe", "--if-exists"}, "", usage("--topic or --topic-id is required to describe a topic"), 1},
		{[]string{"--bootstrap-server", b, "--list", "--partitions", "1"}, "", usage(`Option "[partitions]" can't be used with option "[list]"`), 1},
		{[]string{"--bootstrap-server", b, "--list", "--config", "a=b"}, "", usage(`Option "[config]" can't be used with option "[list]"`), 1},
		{[]string{"--bootstrap-server", b, "--alter", "--topic", "t", "--partitions", "2", "--replication-factor", "1"}, "", usage(`Option "[replication-factor]" can't be used with option "[alter]"`), 1},
		{[]string{"--bootstrap-server", b, "--delete", "--topic", "t", "--replica-assignment", "1"}, "", usage(`Option "[replica-assignment]" can't be used with option "[delete]"`), 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--replica-assignment", "1", "--replication-factor", "1"}, "", usage(`Option "[replica-assignment]" can't be used with option "[replication-factor]"`), 1},
		{[]string{"--bootstrap-server", b, "--describe", "--under-replicated-partitions", "--topics-with-overrides"}, "", usage(`Option "[under-replicated-partitions]" can't be used with option "[topics-with-overrides]"`), 1},
		{[]string{"--bootstrap-server", b, "--list", "--at-min-isr-partitions"}, "", usage(`Option "[at-min-isr-partitions]" can't be used with option "[list]"`), 1},
		{[]string{"--bootstrap-server", b, "--list", "--topics-with-overrides"}, "", usage(`Option "[topics-with-overrides]" can't be used with option "[list]"`), 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--if-exists"}, "", usage(`Option "[if-exists]" can't be used with option "[create]"`), 1},
		{[]string{"--bootstrap-server", b, "--delete", "--topic", "t", "--if-not-exists"}, "", usage(`Option "[if-not-exists]" can't be used with option "[delete]"`), 1},
		{[]string{"--bootstrap-server", b, "--delete", "--topic", "t", "--exclude-internal"}, "", usage(`Option "[exclude-internal]" can't be used with option "[delete]"`), 1},
		// Lazily parsed values: "Error while executing topic command" on stdout.
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--partitions", "x"}, "Error while executing topic command : Cannot parse argument 'x' of option partitions\n", "", 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--partitions", "1", "--partitions", "2"}, "Error while executing topic command : Found multiple arguments for option partitions, but you asked for only one\n", "", 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t.x", "--partitions", "0"}, "WARNING: Due to limitations in metric names, topics with a period ('.') or underscore ('_') could collide. To avoid issues it is best to use either, but not both.\nError while executing topic command : The partitions must be greater than 0\n", "", 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--replication-factor", "40000"}, "Error while executing topic command : The replication factor must be between 1 and 32767 inclusive\n", "", 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t_x", "--config", "foo=1"}, "Error while executing topic command : Unknown topic config name: foo\n", "", 1},
		{[]string{"--bootstrap-server", b, "--create", "--topic", "t", "--replica-assignment", "1:1"}, "Error while executing topic command : Partition replica lists may not contain duplicate entries: 1\n", "", 1},
		{[]string{"--bootstrap-server", b, "--list", "--topic", "("}, "Error while executing topic command : ( is an invalid regex.\n", "", 1},
		{[]string{"--bootstrap-server", b, "--describe", "--topic-id", "abc"}, "Error while executing topic command : Input string `abc` decoded as 2 bytes, which is not equal to the expected 16 bytes of a base64-encoded UUID\n", "", 1},
		{[]string{"--bootstrap-server", b, "--describe", "--partition-size-limit-per-response", "z"}, "Error while executing topic command : Cannot parse argument 'z' of option partition-size-limit-per-response\n", "", 1},
		{[]string{"--bootstrap-server", b, "--list", "--command-config", "/nonexistent/x.properties"}, "Error while executing topic command : /nonexistent/x.properties (No such file or directory)\n", "", 1},
		{[]string{"--bootstrap-server", b, "--list", "-o", "bogus"}, "", "unknown output format \"bogus\" (allowed: apache, table, wide, json, yaml)\n", 1},
	}
	for _, c := range cases {
		out, errs, code := runArgs(t, c.args...)
		if out != c.stdout || errs != c.stderr || code != c.code {
			t.Errorf("%v:\n got code %d stdout %q stderr %q\nwant code %d stdout %q stderr %q", c.args, code, out, head(errs), c.code, c.stdout, head(c.stderr))
		}
	}
}

func head(s string) string {
	if i := strings.Index(s, "\n"); i >= 0 && len(s) > 200 {
		return s[:i] + " ...(+option table)"
	}
	return s
}

func TestParseArgs(t *testing.T) {
	p, err := parseArgs([]string{"--topic=a", "stray", "--config", "x=1", "--config=y=2", "--list", "-o", "json", "--", "--bogus"})
	if err != nil {
		t.Fatal(err)
	}
	if !p.has("list") || p.has("describe") || p.has("bogus") {
		t.Errorf("seen %v", p)
	}
	if !reflect.DeepEqual(p.Values("config"), []string{"x=1", "y=2"}) || p.Values("topic")[0] != "a" || p.Values("output")[0] != "json" {
		t.Errorf("values %v", p)
	}
	// A required argument is the next token, whatever it looks like.
	p, err = parseArgs([]string{"--topic", "--list"})
	if err != nil || p.Values("topic")[0] != "--list" || p.has("list") {
		t.Errorf("--topic --list: %v %v", p, err)
	}
}

func TestSchemaHelp(t *testing.T) {
	out, _, code := runArgs(t, "-o", "help")
	if code != 0 || !strings.Contains(out, "partition_count") || !strings.Contains(out, "last_known_elr") {
		t.Errorf("-o help: %d %q", code, out)
	}
}

func TestCompleteFlags(t *testing.T) {
	ios, _, _, _ := output.Test()
	f := cmdutil.NewFactory(ios, func(string) string { return "" }, "test")
	got, _ := complete(context.Background(), f, nil, "--topic")
	want := []string{"--topic", "--topic-id", "--topics-with-overrides"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("complete --topic: %v, want %v", got, want)
	}
}

func TestNativeHelpOnlyUnderKbox(t *testing.T) {
	ios, _, _, errb := output.Test()
	f := cmdutil.NewFactory(ios, func(string) string { return "" }, "test")
	f.Invoked = "kbox topics"
	_ = Run(context.Background(), f, []string{"--help"})
	if !strings.HasPrefix(errb.String(), goldenText(t, "apache-help.golden")) || !strings.Contains(errb.String(), "--dry-run") {
		t.Errorf("kbox topics --help:\n%s", errb.String())
	}
	_, errs, _ := runArgs(t, "--help")
	if strings.Contains(errs, "--dry-run") {
		t.Errorf("the Apache-named applet must print Apache's help only")
	}
}
