package clientmetrics

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kversion"
)

func run(t *testing.T, invoked string, args ...string) cmdtest.Result {
	t.Helper()
	return cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: invoked}, args...)
}

// Apache 4.4's messages (captured with testbed.sh apache-batch), all
// before any connection: the bootstrap address is never dialled.
func TestApacheValidation(t *testing.T) {
	bs := "127.0.0.1:1"
	nope := filepath.Join(t.TempDir(), "nope.properties")
	usage := func(msg string) string { return msg + "\n" + apacheHelp }
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	const logged = "\x00" // stdout's error line and a log4j ERROR line on stderr
	cases := []struct {
		args     []string
		out, err string
	}{
		{nil, "", usage(title)},
		{[]string{"--help", "--list"}, "", usage(title)},
		{b(), "", usage("Command must include exactly one action: --alter, --delete, --describe or --list.")},
		{b("--list", "--describe"), "", usage("Command must include exactly one action: --alter, --delete, --describe or --list.")},
		{b("--alter", "--delete", "--name", "x"), "", usage("Command must include exactly one action: --alter, --delete, --describe or --list.")},
		{[]string{"--list"}, "", "--bootstrap-server must be specified.\n"},
		{b("--list", "--name", "a"), "", usage(`Option "[list]" can't be used with option "[name]"`)},
		{b("--list", "--generate-name"), "", usage(`Option "[list]" can't be used with option "[generate-name]"`)},
		{b("--describe", "--interval", "5"), "", usage(`Option "[describe]" can't be used with option "[interval]"`)},
		{b("--describe", "--name", "x", "--match", "m", "--metrics", "n"), "", usage(`Option "[describe]" can't be used with option "[match]"`)},
		{b("--delete", "--name", "a", "--metrics", "x"), "", usage(`Option "[delete]" can't be used with option "[metrics]"`)},
		{b("--delete", "--generate-name", "--name", "x"), "", usage(`Option "[delete]" can't be used with option "[generate-name]"`)},
		{b("--alter"), "", "One of --name or --generate-name must be specified with --alter.\n"},
		{b("--alter", "--name", "x", "--generate-name"), "", "One of --name or --generate-name must be specified with --alter.\n"},
		{b("--alter", "--name", "a", "--interval", "abc"), "", "Invalid interval value. Enter an integer, or leave empty to reset.\n"},
		{b("--alter", "--name", "a", "--interval", "99999999999"), "", "Invalid interval value. Enter an integer, or leave empty to reset.\n"},
		{b("--alter", "--name", "a", "--interval", "1", "--interval", "2"), "", "Found multiple arguments for option interval, but you asked for only one\n"},
		{b("--delete"), "", "A client metrics resource name must be specified with --delete.\n"},
		{b("--list", "--command-config", nope), "", nope + "\n"},
		{b("--list", "--bootstrap-server", bs), "", "Found multiple arguments for option bootstrap-server, but you asked for only one\n"},
		{b("--bogus"), "", usage("bogus is not a recognized option")},
		{b("--list", "--name"), "", usage("Option name requires an argument")},
		{[]string{"--bootstrap-server", "bad", "--list"}, "Error while executing client metrics command : Failed to create new KafkaAdminClient\n", logged + "org.apache.kafka.common.KafkaException: Failed to create new KafkaAdminClient"},
		{b("--describe", "--name", "a", "--name", "b"), "Error while executing client metrics command : Found multiple arguments for option name, but you asked for only one\n", logged + "joptsimple.MultipleArgumentsForOptionException: Found multiple arguments for option name, but you asked for only one"},
		{b("--delete", "--name", "a", "--name", "b"), "Error while executing client metrics command : Found multiple arguments for option name, but you asked for only one\n", logged + "joptsimple.MultipleArgumentsForOptionException: Found multiple arguments for option name, but you asked for only one"},
	}
	for _, c := range cases {
		r := run(t, "kafka-client-metrics", c.args...)
		errOK := r.Stderr == c.err
		if strings.HasPrefix(c.err, logged) {
			errOK = logLine(r.Stderr) == c.err[1:]
		}
		if r.Code != 1 || r.Stdout != c.out || !errOK {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %q %.300q", c.args, r.Code, r.Stdout, r.Stderr, c.out, c.err)
		}
	}
	if r := run(t, "kafka-client-metrics", "--list", "--version"); r.Code != 0 || r.Stdout != "4.4.0\n" {
		t.Errorf("--version: %s", r.Stdout)
	}
	// kbox's options follow Apache's help under the native name only.
	if r := run(t, "kbox client-metrics", "--help"); !strings.Contains(r.Stderr, apacheHelp+nativeHelp) {
		t.Errorf("kbox client-metrics --help:\n%s", r.Stderr)
	}
	// -o is the view of a result: --alter and --delete have none.
	if r := run(t, "kafka-client-metrics", b("--alter", "--name", "a", "-o", "json")...); r.Code != 2 || !strings.Contains(r.Stderr, "-o is for --describe and --list") {
		t.Errorf("--alter -o json: %d %q", r.Code, r.Stderr)
	}
	if r := run(t, "kafka-client-metrics", b("--list", "-o", "csv")...); r.Code == 0 || !strings.Contains(r.Stderr, "unknown output format") {
		t.Errorf("--list -o csv: %d %q", r.Code, r.Stderr)
	}
}

var logRe = regexp.MustCompile(`^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ERROR (.*)\n \(org\.apache\.kafka\.tools\.ClientMetricsCommand\)\n$`)

// logLine is the exception of the tool's log4j ERROR line ("" when stderr
// is not exactly that line).
func logLine(stderr string) string {
	m := logRe.FindStringSubmatch(stderr)
	if m == nil {
		return ""
	}
	return m[1]
}

// The actions against kfake: alter, describe, list, delete and a broker's
// refusal, with Apache's texts and the native views.
func TestActions(t *testing.T) {
	bs, _ := cmdtest.Kfake(t)
	cm := func(args ...string) cmdtest.Result {
		t.Helper()
		return run(t, "kafka-client-metrics", append([]string{"--bootstrap-server", bs}, args...)...)
	}
	ok := func(r cmdtest.Result, out string) {
		t.Helper()
		if r.Code != 0 || r.Stdout != out || r.Stderr != "" {
			t.Errorf("exit %d\nstdout %q\nstderr %q\nwant   %q", r.Code, r.Stdout, r.Stderr, out)
		}
	}
	ok(cm("--list"), "\n")
	ok(cm("--describe"), "")
	ok(cm("--describe", "--name", "s1"), "The client metric resource s1 doesn't exist and doesn't have dynamic config.\n")
	ok(cm("--alter", "--name", "s1", "--metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.", "--metrics", "x.", "--interval", "1000", "--match", "client_id=c1,client_software_name=kafka-python"), "Altered client metrics config for s1.\n")
	ok(cm("--alter", "--name", "s2", "--metrics", "*"), "Altered client metrics config for s2.\n")
	ok(cm("--describe", "--name", "s1"), "Client metrics configs for s1 are:\n  interval.ms=1000\n  match=client_id=c1,client_software_name=kafka-python\n  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.,x.\n")
	r := cm("--list")
	if r.Code != 0 || (r.Stdout != "s1\ns2\n" && r.Stdout != "s2\ns1\n") {
		t.Errorf("--list: %d %q", r.Code, r.Stdout)
	}
	r = cm("--describe", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("--describe -o json: %s", r.Stderr)
	}
	y := cm("--describe", "-o", "yaml")
	golden.Output(t, "describe.json.golden", r.Stdout, y.Stdout)
	r = cm("--list", "-o", "json")
	y = cm("--list", "-o", "yaml")
	golden.Output(t, "list.json.golden", r.Stdout, y.Stdout)
	r = cm("--describe", "-o", "table")
	if r.Code != 0 || !regexp.MustCompile(`(?m)^NAME +INTERVAL MS +METRICS +MATCH\ns1 +1000 +org\.apache\.kafka\.producer\.,org\.apache\.kafka\.consumer\.,x\. +client_id=c1,client_software_name=kafka-python\ns2 +300000 +\*\s*$`).MatchString(r.Stdout) {
		t.Errorf("--describe -o table:\n%s", r.Stdout)
	}

	// An empty value deletes that config; the rest stays.
	ok(cm("--alter", "--name", "s1", "--interval", "", "--match", ""), "Altered client metrics config for s1.\n")
	ok(cm("--describe", "--name", "s1"), "Client metrics configs for s1 are:\n  interval.ms=300000\n  match=\n  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.,x.\n")

	// The broker's refusal: its exception on stdout and in the log line,
	// and nothing changed.
	r = cm("--alter", "--name", "s1", "--interval", "10", "--metrics", "y.")
	if r.Code != 1 || !strings.HasPrefix(r.Stdout, "Error while executing client metrics command : ") || !strings.HasPrefix(logLine(r.Stderr), "org.apache.kafka.common.errors.") {
		t.Errorf("bad interval: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	ok(cm("--describe", "--name", "s1"), "Client metrics configs for s1 are:\n  interval.ms=300000\n  match=\n  metrics=org.apache.kafka.producer.,org.apache.kafka.consumer.,x.\n")

	// --generate-name: a Kafka Uuid.
	r = cm("--alter", "--generate-name", "--metrics", "g.")
	m := regexp.MustCompile(`^Altered client metrics config for ([A-Za-z0-9_][A-Za-z0-9_-]{21})\.\n$`).FindStringSubmatch(r.Stdout)
	if r.Code != 0 || m == nil {
		t.Fatalf("--generate-name: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	ok(cm("--delete", "--name", m[1]), "Deleted client metrics config for "+m[1]+".\n")
	ok(cm("--delete", "--name", "s1"), "Deleted client metrics config for s1.\n")
	ok(cm("--delete", "--name", "nope"), "Deleted client metrics config for nope.\n")
	ok(cm("--list"), "s2\n")
	// The native name prints the same text by default.
	if r := run(t, "kbox client-metrics", "--bootstrap-server", bs, "--list"); r.Code != 0 || r.Stdout != "s2\n" {
		t.Errorf("kbox client-metrics --list: %d %q", r.Code, r.Stdout)
	}
}

// A broker of Kafka 3.7 to 4.0 knows the request only as
// ListClientMetricsResources (ListConfigResources v0, no resource types):
// --list and --describe work the same.
func TestListClientMetricsResourcesBroker(t *testing.T) {
	v := kversion.Stable()
	v.SetMaxKeyVersion(74, 0)
	bs, _ := cmdtest.Kfake(t, kfake.MaxVersions(v))
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	if r := run(t, "kafka-client-metrics", b("--alter", "--name", "old", "--metrics", "m")...); r.Code != 0 {
		t.Fatalf("--alter: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, "kafka-client-metrics", b("--list")...); r.Code != 0 || r.Stdout != "old\n" {
		t.Errorf("--list: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r := run(t, "kafka-client-metrics", b("--describe", "--name", "old")...); r.Code != 0 || !strings.HasPrefix(r.Stdout, "Client metrics configs for old are:\n") {
		t.Errorf("--describe: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
}
