package configs

import (
	"context"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func run(t *testing.T, invoked string, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: invoked}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// The help captured from Apache kafka-configs 4.4.0 (stderr, exit 1), under
// either name.
func TestHelpMatchesApache(t *testing.T) {
	want := string(golden.Read(t, "apache-help.golden"))
	out, errs, code := run(t, "kafka-configs", "--help")
	if out != "" || code != 1 || errs != want {
		t.Errorf("--help: code %d, stdout %q, stderr differs from testdata/apache-help.golden:\n%s", code, out, errs)
	}
	if _, errs, code = run(t, "kafka-configs"); code != 1 || errs != want {
		t.Errorf("no args: code %d, stderr:\n%s", code, errs)
	}
	// The native subcommands that follow under kbox configs are the
	// layer's (cmd/app TestNativeHelpList).
	if _, errs, _ = run(t, "kbox configs", "--help"); errs != want {
		t.Errorf("kbox configs --help: stderr differs from the Apache help:\n%s", errs)
	}
}

// Argument errors need no cluster (the bootstrap is never dialled).
func TestArgErrors(t *testing.T) {
	const b = "127.0.0.1:1"
	usage := func(msg string) string { return msg + "\n" + apacheOptions }
	cases := []struct {
		args   []string
		stderr string
	}{
		{[]string{"--bootstrap-server", b, "--topic", "x"}, usage("Command must include exactly one action: --describe, --alter")},
		{[]string{"--bootstrap-server", b, "--describe", "--topic", "x", "--delete-config", "a"}, usage(`Option "[describe]" can't be used with option "[delete-config]"`)},
		{[]string{"--describe", "--topic", "x"}, "Either --bootstrap-server or --bootstrap-controller must be specified.\n"},
		{[]string{"--bootstrap-server", b, "--describe", "--user", "u", "--client", "c", "--user", "v"}, "Found multiple arguments for option user, but you asked for only one\n"},
		{[]string{"--bootstrap-server", b, "--alter", "--broker-logger", "x", "--add-config", "a=b"}, "The entity name for broker-loggers must be a valid integer broker id, but it is: x\n"},
		{[]string{"--bootstrap-server", b, "--alter", "--ip", "1.2.3.4", "--add-config", "a=1,b=2"}, "Only connection quota configs can be added for 'ips' using --bootstrap-server. Unexpected config names: a, b\n"},
		{[]string{"--bootstrap-server", b, "--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[iterations=8192,password]"}, "Invalid credential property SCRAM_SHA_256=iterations=8192,password\n"},
		{[]string{"--bootstrap-server", b, "--alter", "--client", "c", "--delete-config", "SCRAM-SHA-256"}, "Only quota configs can be deleted for 'clients' using --bootstrap-server. Unexpected config names: SCRAM-SHA-256\n"},
		{[]string{"--bootstrap-server", b, "--describe", "--entity-type", "clients", "--entity-type", "topics"}, "Only 'users' and 'clients' entity types may be specified together\n"},
	}
	for _, c := range cases {
		out, errs, code := run(t, "kafka-configs", c.args...)
		if out != "" || code != 1 || errs != c.stderr {
			t.Errorf("%v: code %d, stdout %q, stderr\n%q\nwant\n%q", c.args, code, out, errs, c.stderr)
		}
	}
	// A password is never echoed, in a message or in the command line.
	_, errs, _ := run(t, "kafka-configs", "--bootstrap-server", b, "--alter", "--user", "u", "--add-config", "SCRAM-SHA-256=[iterations=x,password=hunter2]")
	if strings.Contains(errs, "hunter2") {
		t.Errorf("password printed: %q", errs)
	}
}

func TestNativeFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"get"},
		{"get", "--topic", "a", "--broker", "1"},
		{"get", "--broker", "x"},
		{"set", "--topic", "a"},
		{"set", "--topic", "a", "novalue"},
		{"diff", "--topic", "a", "--broker", "1"},
		{"diff", "--topic", "a", "--topic", "b", "--topic", "c"},
		{"get", "--topic", "a", "-o", "csv"},
		{"get", "--topic", "a", "--nosuch"},
	} {
		_, errs, code := run(t, "kbox configs", args...)
		if code == 0 || code == 1 && !strings.Contains(errs, "arg") {
			if code != 2 {
				t.Errorf("%v: exit %d, want 2; stderr %q", args, code, errs)
			}
		}
		if strings.Count(strings.TrimSpace(errs), "\n") > 1 {
			t.Errorf("%v: more than a short error: %q", args, errs)
		}
	}
}

// The -o json output of every native command, run against an in-process
// cluster and pinned by golden files.
func TestNativeJSONGolden(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.ClusterID("configs-golden"))
	bs := strings.Join(c.ListenAddrs(), ",")
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	ret, pol := "3600000", "compact"
	if _, err := adm.CreateTopic(context.Background(), 1, 1, map[string]*string{"retention.ms": &ret, "cleanup.policy": &pol}, "orders"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(context.Background(), 1, 1, nil, "payments"); err != nil {
		t.Fatal(err)
	}
	check := func(name string, args ...string) {
		t.Helper()
		args = append(args, "--bootstrap-server", bs)
		jout, errs, code := run(t, "kbox configs", append(args, "-o", "json")...)
		if code != 0 {
			t.Fatalf("%s: exit %d: %s", name, code, errs)
		}
		var yout string
		if args[0] != "set" && args[0] != "unset" || contains(args, "--dry-run") {
			if yout, errs, code = run(t, "kbox configs", append(args, "-o", "yaml")...); code != 0 {
				t.Fatalf("%s yaml: exit %d: %s", name, code, errs)
			}
		}
		golden.Output(t, name+".json.golden", jout, yout)
	}
	check("get", "get", "--topic", "orders")
	check("get-keys", "get", "--topic", "orders", "retention.ms", "segment.ms")
	check("set-dry-run", "set", "--topic", "orders", "retention.ms=7200000", "--dry-run")
	check("set", "set", "--topic", "orders", "retention.ms=7200000", "cleanup.policy=[compact,delete]")
	check("unset", "unset", "--topic", "orders", "cleanup.policy")
	check("diff-defaults", "diff", "--topic", "orders")
	check("diff-topics", "diff", "--topic", "orders", "--topic", "payments")
	check("explain", "explain", "retention.ms", "--topic", "orders")

	// The table forms.
	out, errs, code := run(t, "kbox configs", "get", "--topic", "orders", "--bootstrap-server", bs)
	if code != 0 || !strings.Contains(out, "retention.ms") || !strings.Contains(out, "dynamic topic") {
		t.Errorf("get table: exit %d %s\n%s", code, errs, out)
	}
	out, _, code = run(t, "kbox configs", "explain", "retention.ms", "--topic", "orders", "--bootstrap-server", bs)
	if code != 0 || !strings.HasPrefix(out, "retention.ms (LONG) on topic orders\n") {
		t.Errorf("explain text: exit %d\n%s", code, out)
	}
	_, errs, code = run(t, "kbox configs", "explain", "no.such.key", "--topic", "orders", "--bootstrap-server", bs)
	if code != 1 || !strings.Contains(errs, "unknown config no.such.key for topic orders") {
		t.Errorf("explain unknown: exit %d %q", code, errs)
	}

	// A config name the broker does not know is refused with the nearest
	// known one, and nothing is applied (not the known key beside it).
	_, errs, code = run(t, "kbox configs", "set", "--topic", "payments", "segment.ms=1000", "retension.ms=1000", "--bootstrap-server", bs)
	if code != 1 || !strings.Contains(errs, "unknown config retension.ms for topic payments (did you mean retention.ms?); nothing was changed") || strings.Count(errs, "\n") != 1 {
		t.Errorf("set unknown: exit %d %q", code, errs)
	}
	out, errs, _ = run(t, "kbox configs", "get", "--topic", "payments", "--bootstrap-server", bs, "-o", "json")
	if strings.Contains(out, "dynamic_topic") {
		t.Errorf("a refused set changed the topic: %s %s", out, errs)
	}

	// A secret the broker does not list (set on purpose) is never echoed,
	// in the table or in JSON.
	for _, o := range []string{"table", "json"} {
		out, errs, code = run(t, "kbox configs", "set", "--broker", "0", "--allow-unknown", "--dry-run", "-o", o,
			"listener.name.internal.ssl.keystore.password=S3CR3T", "my.plugin.secret=S3CR3T", "--bootstrap-server", bs)
		if code != 0 || strings.Contains(out+errs, "S3CR3T") || !strings.Contains(out, "my.plugin.secret") {
			t.Errorf("set secret -o %s: exit %d %q\n%s", o, code, errs, out)
		}
	}
}

// The native subcommands name the topic or broker that does not exist.
func TestNativeNotFoundNamed(t *testing.T) {
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "orders"))
	bs := strings.Join(c.ListenAddrs(), ",")
	for _, cc := range []struct {
		args []string
		want string
	}{
		{[]string{"get", "--topic", "nosuch"}, "topic nosuch not found"},
		{[]string{"get", "--broker", "99"}, "broker 99 not found"},
		{[]string{"diff", "--topic", "nosuch"}, "topic nosuch not found"},
		{[]string{"diff", "--topic", "orders", "--topic", "nosuch"}, "topic nosuch not found"},
		{[]string{"diff", "--topic", "nosuch", "--topic", "orders"}, "topic nosuch not found"},
		{[]string{"explain", "retention.ms", "--topic", "nosuch"}, "topic nosuch not found"},
		{[]string{"explain", "log.cleaner.threads", "--broker", "99"}, "broker 99 not found"},
	} {
		_, errOut, code := run(t, "kbox configs", append(cc.args, "--bootstrap-server", bs)...)
		if code != 1 || errOut != "kbox: error: "+cc.want+"\n" {
			t.Errorf("%v: exit %d %q, want %q", cc.args, code, errOut, cc.want)
		}
	}
}
