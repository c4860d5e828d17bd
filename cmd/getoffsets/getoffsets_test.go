package getoffsets

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, invoked string, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Applet: &Applet, Invoked: invoked}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// Apache 4.4's messages (captured with testbed.sh apache-batch), all
// before any connection: the bootstrap address is never dialled.
func TestApacheValidation(t *testing.T) {
	bs := "127.0.0.1:1"
	nope := filepath.Join(t.TempDir(), "nope.properties")
	cases := []struct {
		args []string
		errL string
	}{
		{nil, title},
		{[]string{"--topic", "t"}, `Missing required argument "[bootstrap-server]"`},
		{[]string{"--bootstrap-server", "bad"}, "Please provide valid host:port like host1:9091,host2:9092"},
		{[]string{"--bootstrap-server", bs, "--bogus"}, "Error occurred: bogus is not a recognized option"},
		{[]string{"--bootstrap-server", bs, "--broker-list", bs}, "Error occurred: broker-list is not a recognized option"},
		{[]string{"--bootstrap-server", bs, "--time"}, "Error occurred: Option time requires an argument"},
		{[]string{"--bootstrap-server", bs, "--time", "1", "--time", "2"}, "Error occurred: Found multiple arguments for option time, but you asked for only one"},
		{[]string{"--bootstrap-server", bs, "--time", "abc"}, "Error occurred: Malformed time argument abc. Please use -1 or latest / -2 or earliest / -3 or max-timestamp / -4 or earliest-local / -5 or latest-tiered / -6 or earliest-pending-upload, or a specified long format timestamp"},
		{[]string{"--bootstrap-server", bs, "--topic-partitions", "t", "--partitions", "1"}, "Error occurred: --topic-partitions cannot be used with --topic or --partitions"},
		{[]string{"--bootstrap-server", bs, "--topic", "t", "--partitions", "1,x"}, "Error occurred: --partitions expects a comma separated list of numeric partition ids, but received: 1,x"},
		{[]string{"--bootstrap-server", bs, "--topic", "("}, "Error occurred: ( is an invalid regex."},
		{[]string{"--bootstrap-server", bs, "--topic-partitions", "t:x"}, "Error occurred: org.apache.kafka.tools.TerseException: Invalid rule specification: t:x"},
		{[]string{"--bootstrap-server", bs, "--topic-partitions", "t:99999999999"}, `Error occurred: For input string: "99999999999"`},
		{[]string{"--bootstrap-server", bs, "--command-config", nope}, "Error occurred: " + nope},
		// The time is checked before the filter, the filter before the file.
		{[]string{"--bootstrap-server", bs, "--topic", "(", "--time", "x", "--command-config", nope}, "Error occurred: Malformed time argument x."},
		{[]string{"--bootstrap-server", bs, "--topic", "(", "--command-config", nope}, "Error occurred: ( is an invalid regex."},
	}
	for _, c := range cases {
		out, errOut, code := runArgs(t, "kafka-get-offsets", c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 1 || out != "" || !strings.HasPrefix(first, c.errL) {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %q", c.args, code, out, errOut, c.errL)
		}
	}
	// --help and no arguments: the title and Apache's table on stderr, exit 1.
	_, errOut, code := runArgs(t, "kafka-get-offsets", "--help")
	if code != 1 || errOut != title+"\n"+apacheHelp {
		t.Errorf("--help: exit %d\n%s", code, errOut)
	}
	if out, _, code := runArgs(t, "kafka-get-offsets", "--version"); code != 0 || out != "4.4.0\n" {
		t.Errorf("--version: %d %q", code, out)
	}
}

// kbox offsets get: flag errors exit 2 before any connection.
func TestNativeFlagErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"get", "--at", "14:05"}, `invalid --at "14:05"`},
		{[]string{"get", "--ago", "-5m"}, `invalid --ago "-5m"`},
		{[]string{"get", "--time", "newest"}, `invalid --time "newest"`},
		{[]string{"get", "--at", "2026-11-30", "--ago", "5m"}, "give one of --at, --ago and --time"},
		{[]string{"get", "--topic", "("}, "( is an invalid regex."},
		{[]string{"get", "--partitions", "a"}, "--partitions expects a comma separated list"},
		{[]string{"get", "-o", "csv"}, "unknown output format"},
		{[]string{"get", "orders"}, `unexpected argument "orders"`},
	} {
		_, errOut, code := runArgs(t, "kbox offsets", c.args...)
		if code != 2 || !strings.Contains(errOut, c.msg) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.msg)
		}
	}
}

func TestNativeSubcommandOnlyUnderNativeName(t *testing.T) {
	// Under the link name "get" is an argument of Apache's tool: jopt
	// takes it as a non-option argument and the tool goes on.
	_, errOut, code := runArgs(t, "kafka-get-offsets", "get")
	if code != 1 || !strings.HasPrefix(errOut, `Missing required argument "[bootstrap-server]"`) {
		t.Errorf("kafka-get-offsets get: exit %d %q", code, errOut)
	}
}
