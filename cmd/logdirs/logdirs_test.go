package logdirs

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runAs(t *testing.T, invoked string, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: run, Invoked: invoked}, args...)
	return r.Stdout, r.Stderr, r.Code
}

func TestApacheValidation(t *testing.T) {
	title := "This tool helps to query log directory usage on the specified brokers.\n"
	cases := []struct {
		args       []string
		stdout     string
		stderrHead string
		fullHelp   bool
	}{
		{nil, "", title, true},
		{[]string{"--help", "--describe"}, "", title, true},
		{[]string{"--version", "--help"}, "", title, true},
		{[]string{"--describe"}, "", "Missing required argument \"[bootstrap-server]\"\n", true},
		{[]string{"--bootstrap-server=x:1"}, "", "Missing required argument \"[describe]\"\n", true},
		{[]string{"--bogus", "--version"}, "", "bogus is not a recognized option\n", false},
		{[]string{"-d"}, "", "d is not a recognized option\n", false},
		{[]string{"--descr"}, "", "descr is not a recognized option\n", false},
		{[]string{"--describe", "--bootstrap-server"}, "", "Option bootstrap-server requires an argument\n", false},
		{[]string{"--describe", "--bootstrap-server", "a:1", "--bootstrap-server", "b:1"}, "", "Found multiple arguments for option bootstrap-server, but you asked for only one\n", false},
		{[]string{"-describe", "--bootstrap-server", "x", "--command-config", "/nonexistent/cc"}, "", "/nonexistent/cc\n", false},
		{[]string{"--describe", "--bootstrap-server", "noport"}, "", "Failed to create new KafkaAdminClient\n", false},
		{[]string{"--describe", "--bootstrap-server", ""}, "", "Failed to create new KafkaAdminClient\n", false},
	}
	for _, c := range cases {
		out, errOut, code := runAs(t, "kafka-log-dirs", c.args...)
		if code != 1 || out != c.stdout {
			t.Errorf("%v: exit %d stdout %q", c.args, code, out)
		}
		want := c.stderrHead
		if c.fullHelp {
			want += apacheHelp
		}
		if errOut != want {
			t.Errorf("%v: stderr\n%q\nwant\n%q", c.args, errOut, want)
		}
	}
	out, errOut, code := runAs(t, "kafka-log-dirs", "--version", "stray")
	if code != 0 || out != "4.4.0\n" || errOut != "" {
		t.Errorf("--version: %d %q %q", code, out, errOut)
	}
	if !strings.HasPrefix(apacheHelp, "Option                                  Description                           \n") {
		t.Errorf("help table must keep jopt's 80-column padding")
	}
}

func TestValidJavaBootstrap(t *testing.T) {
	for s, want := range map[string]bool{"a:1": true, " a:1 , b:2 ": true, "[::1]:9092": true, "a": false, "": false, ",": false, "a:1,b": false, "a:x": false} {
		if got := validJavaBootstrap(s); got != want {
			t.Errorf("%q: %v", s, got)
		}
	}
}

func TestNativeFlagErrors(t *testing.T) {
	cases := map[string][]string{
		"unknown flag: --bogus":                        {"--bogus"},
		"invalid --aggregate-into \"disk\"":            {"--aggregate-into", "disk"},
		"invalid --top \"0\"":                          {"--top", "0"},
		"--health and --aggregate-into cannot be used": {"--health", "--aggregate-into", "topic"},
		"invalid --topic-regex":                        {"--topic-regex", "("},
		"invalid broker id \"x\"":                      {"--broker-list", "1,x"},
		"flag --top given more than once":              {"--top", "1", "--top", "2"},
		"unknown output format":                        {"-o", "xml", "--bootstrap-server", "127.0.0.1:1"},
	}
	for want, args := range cases {
		_, errOut, code := runAs(t, "kbox log-dirs", args...)
		if code != cmdutil.ExitUsage || !strings.Contains(errOut, want) {
			t.Errorf("%v: exit %d stderr %q, want %q", args, code, errOut, want)
		}
	}
	out, _, code := runAs(t, "kbox log-dirs", "--help")
	if code != 0 || !strings.Contains(out, "--aggregate-into") {
		t.Errorf("native help: %d %q", code, out)
	}
}
