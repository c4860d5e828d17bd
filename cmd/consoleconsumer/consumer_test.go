package consoleconsumer

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

func runArgs(t *testing.T, invoked string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: invoked}, args...)
	return r.Stdout, r.ErrOut + r.Msg, r.Code
}

// TestUsage: help and validation errors Apache prints with its option
// table (captured from Kafka 4.4's tool; the integration test compares
// them live).
func TestUsage(t *testing.T) {
	_, errOut, code := runArgs(t, "kafka-console-consumer")
	if code != 1 || !strings.HasPrefix(errOut, helpMessage+"\nOption ") || strings.Contains(errOut, "kbox extensions") {
		t.Errorf("no args: %d %q", code, errOut)
	}
	_, errOut, code = runArgs(t, "kbox consume", "--help")
	if code != 1 || !strings.Contains(errOut, "kbox extensions") || !strings.Contains(errOut, "%t  topic") {
		t.Errorf("kbox consume --help: %d %q", code, errOut)
	}
	cases := map[string][]string{
		"Exactly one of the following arguments is required: [topic], [include]":                                     {"--bootstrap-server", "b"},
		`Missing required argument "[bootstrap-server]"`:                                                             {"--topic", "t"},
		"The partition is required when offset is specified.":                                                        {"--bootstrap-server", "b", "--topic", "t", "--offset", "1"},
		"The provided offset value 'x' is incorrect. Valid values are 'earliest', 'latest', or a non-negative long.": {"--bootstrap-server", "b", "--topic", "t", "--partition", "0", "--offset", "x"},
		"Options group and partition cannot be specified together.":                                                  {"--bootstrap-server", "b", "--topic", "t", "--partition", "0", "--group", "g"},
		"no.Such":                          {"--bootstrap-server", "b", "--topic", "t", "--formatter", "no.Such"},
		"bogus is not a recognized option": {"--bootstrap-server", "b", "--topic", "t", "--bogus"},
	}
	for want, args := range cases {
		_, errOut, code := runArgs(t, "kafka-console-consumer", args...)
		if code != 1 || !strings.HasPrefix(errOut, want+"\nOption ") {
			t.Errorf("%q: exit %d, stderr %.200q", args, code, errOut)
		}
	}
}

// TestNativeErrors: bad native flags fail with one line, exit 2, before
// any connection (the bootstrap address is unreachable).
func TestNativeErrors(t *testing.T) {
	for _, bad := range [][]string{
		{"-f", "%z"}, {"--start", "soon"}, {"--since", "yesterday"}, {"--grep", "("}, {"-o", "table"},
		{"--start", "0", "--group", "g"}, {"--start", "0", "--since", "1m"}, {"-f", "%v", "-o", "json"},
	} {
		args := append([]string{"--bootstrap-server", "127.0.0.1:1", "--topic", "t"}, bad...)
		_, errOut, code := runArgs(t, "kbox consume", args...)
		if code != 2 || !strings.HasPrefix(errOut, "kbox: error: ") || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%q: exit %d, stderr %q", bad, code, errOut)
		}
	}
}

func TestVersion(t *testing.T) {
	out, _, code := runArgs(t, "kafka-console-consumer", "--version")
	if code != 0 || out != cmdutil.ApacheVersion+"\n" {
		t.Errorf("%d %q", code, out)
	}
}

// abcTopic starts a kfake cluster whose topic "t" holds the values a, b, c.
func abcTopic(t *testing.T) *kfake.Cluster {
	t.Helper()
	_, c := cmdtest.Kfake(t, kfake.NumBrokers(1), kfake.SeedTopics(1, "t"))
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	for _, v := range []string{"a", "b", "c"} {
		if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "t", Value: []byte(v)}).FirstErr(); err != nil {
			t.Fatal(err)
		}
	}
	return c
}

// TestNativeCountsOnTerminal: native output reports the count and rate on
// stderr only when stderr is a terminal; Apache's count line is not printed.
func TestNativeCountsOnTerminal(t *testing.T) {
	c := abcTopic(t)
	for _, tty := range []bool{false, true} {
		r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kbox consume", StderrTTY: tty},
			"--bootstrap-server", c.ListenAddrs()[0], "--topic", "t", "--start", "earliest", "--exit-at-end", "-f", `%v\n`)
		if r.Err != nil {
			t.Fatal(r.Err)
		}
		if r.Stdout != "a\nb\nc\n" {
			t.Errorf("tty %v: stdout %q", tty, r.Stdout)
		}
		if got := r.ErrOut; tty != strings.Contains(got, "3 records in ") || strings.Contains(got, "Processed a total") {
			t.Errorf("tty %v: stderr %q", tty, got)
		}
	}
}

// TestNativeUsageErrors: under its native name a usage error is kbox
// consume's own (the message, its usage and a hint, exit 2), not Apache's
// 150-line option table; under the link name it stays Apache's.
func TestNativeUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bootstrap-server", "b", "--topic", "t", "--bogus"},
		{"--bootstrap-server", "b"},
		{"--bootstrap-server", "b", "--topic", "t", "-X", "no-equals"},
		{"--bootstrap-server", "b", "--topic", "t", "--partition", "x"},
		{"--bootstrap-server", "b", "--topic", "t", "--group", "a", "-X", "group.id=b"},
		{"--bootstrap-server", "b", "--topic", "t", "-n", "many"},
	} {
		_, errOut, code := runArgs(t, "kbox consume", args...)
		lines := strings.Split(strings.TrimSuffix(errOut, "\n"), "\n")
		if code != 2 || len(lines) != 4 || !strings.HasPrefix(lines[0], "kbox: error: ") || !strings.HasPrefix(lines[1], "Usage: kbox consume ") || lines[3] != `kbox: hint: run "kbox consume --help" for every option` {
			t.Errorf("%q: exit %d, stderr %q", args, code, errOut)
		}
		if strings.Contains(errOut, "Option ") {
			t.Errorf("%q: Apache's option table: %q", args, errOut)
		}
	}
	_, errOut, code := runArgs(t, "kbox consume", "--bootstrap-server", "b", "--topic", "t", "--group", "a", "-X", "group.id=b")
	if code != 2 || !strings.Contains(errOut, "Detected group ids: 'a', 'b'") {
		t.Errorf("-X group.id is not the group: %q", errOut)
	}
	_, errOut, code = runArgs(t, "kafka-console-consumer", "--bootstrap-server", "b", "--topic", "t", "--bogus")
	if code != 1 || !strings.HasPrefix(errOut, "bogus is not a recognized option\nOption ") {
		t.Errorf("link name: exit %d, %.100q", code, errOut)
	}
}

// TestNativeClientProperties: -X passes client properties, as every
// native command takes them; they win over --command-property.
func TestNativeClientProperties(t *testing.T) {
	c := abcTopic(t)
	// A new group reads from the end unless auto.offset.reset says
	// earliest; -X overrides --command-property.
	for i, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-X", "auto.offset.reset=earliest"}, "a\nb\nc\n"},
		{[]string{"--command-property", "auto.offset.reset=latest", "-Xauto.offset.reset=earliest"}, "a\nb\nc\n"},
		{nil, ""},
	} {
		args := append([]string{"--bootstrap-server", c.ListenAddrs()[0], "--topic", "t", "--group", fmt.Sprintf("g%d", i), "--timeout-ms", "1500", "-f", `%v\n`}, tc.args...)
		out, errOut, code := runArgs(t, "kbox consume", args...)
		if out != tc.want || code != 0 {
			t.Errorf("%q: exit %d, stdout %q, stderr %q", tc.args, code, out, errOut)
		}
	}
}
