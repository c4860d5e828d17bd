package e2elatency

import (
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

// Outputs captured from Kafka 4.4.0's kafka-e2e-latency.sh (no cluster needed).
func TestE2EAppletArgErrors(t *testing.T) {
	req := []string{"--bootstrap-server", "x", "--topic", "t", "--num-records", "1", "--producer-acks", "1", "--record-size", "1"}
	with := func(extra ...string) []string { return append(append([]string{}, req...), extra...) }
	const table = "\nOption                                   Description"
	pos := "Invalid number of arguments. Expected 5 or 6 positional arguments, but got %s. Usage: bootstrap-server topic num-records producer-acks record-size [optional] command-config\n"
	mod := func(i int, v string) []string { a := with(); a[i] = v; return a }
	type e2eCase struct {
		args     []string
		out, err string // err: exact stderr, or its first line when usage is true
		usage    bool
		exit     int
	}
	cases := []e2eCase{
		{nil, "", "This tool measures end-to-end latency in Kafka by sending messages and timing their reception.", true, 1},
		{[]string{"--help"}, "", strings.Replace(pos, "%s", "1", 1), false, 1},
		{[]string{"--version"}, "", strings.Replace(pos, "%s", "1", 1), false, 1},
		{[]string{"a", "b", "c", "d"}, "", strings.Replace(pos, "%s", "4", 1), false, 1},
		{[]string{"a", "b", "c", "d", "e", "f", "g"}, "", strings.Replace(pos, "%s", "7", 1), false, 1},
		{[]string{"--topic", "t", "--help"}, "", "This tool measures end-to-end latency in Kafka by sending messages and timing their reception.", true, 1},
		{[]string{"--topic", "t", "--version"}, "4.4.0\n", "", false, 0},
		{[]string{"--topic", "t"}, "", `Missing required argument "[bootstrap-server]"`, true, 1},
		{[]string{"--topic", "t", "--bogus"}, "", "bogus is not a recognized option", true, 1},
		{mod(7, "-1"), "", "Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use '1' or 'all'.", true, 1},
		{mod(5, "0"), "", "Value for --num-records must be a positive integer.", true, 1},
		{mod(5, "abc"), "", "Cannot parse argument 'abc' of option num-records\n", false, 1},
		{mod(9, "-1"), "", "Value for --record-size must be a non-negative integer.", true, 1},
		{with("--record-key-size", "-1"), "", "Value for --record-key-size must be a non-negative integer.", true, 1},
		{with("--record-header-key-size", "-1"), "", "Value for --record-header-key-size must be a non-negative integer.", true, 1},
		{with("--record-header-size", "-2"), "", "Value for --record-header-size must be a non-negative integer or -1 for null header value.", true, 1},
		{with("--num-headers", "-1"), "", "Value for --num-headers must be a non-negative integer.", true, 1},
		{with("--bootstrap-server", "y"), "", "Found multiple arguments for option bootstrap-server, but you asked for only one\n", false, 1},
		{[]string{"x", "t", "1", "-1", "5"}, "WARNING: Positional argument usage is deprecated and will be removed in Apache Kafka 5.0. Please use named arguments instead: --bootstrap-server, --topic, --num-records, --producer-acks, --record-size, --command-config\n",
			"Invalid value for --producer-acks. Latency testing requires synchronous acknowledgement. Please use '1' or 'all'.", true, 1},
	}
	for _, c := range cases {
		r := cmdtest.Run(t, cmdtest.Options{Cmd: runE2EApplet}, c.args...)
		if r.Code != c.exit {
			t.Errorf("%q: exit %d want %d (%v)", c.args, r.Code, c.exit, r.Err)
		}
		if r.Stdout != c.out {
			t.Errorf("%q: stdout %q want %q", c.args, r.Stdout, c.out)
		}
		want := c.err
		if c.usage {
			want = c.err + "\n" + e2eUsage()
			if !strings.Contains(want, table) {
				t.Fatal("usage table missing")
			}
		}
		if r.ErrOut != want {
			t.Errorf("%q: stderr\n%q\nwant\n%q", c.args, r.ErrOut, want)
		}
	}
}

func TestE2EUsageIsJoptTable(t *testing.T) {
	u := e2eUsage()
	lines := strings.Split(strings.TrimSuffix(u, "\n"), "\n")
	if len(lines) != 28 || lines[0] != "Option                                   Description                            " {
		t.Fatalf("table: %d lines, first %q", len(lines), lines[0])
	}
	for _, l := range lines {
		if len(l) != 80 {
			t.Fatalf("line not padded to 80 columns: %q", l)
		}
	}
}

func TestE2EParseValues(t *testing.T) {
	o, err := parseE2E([]string{"--bootstrap-server=b:1", "--topic", "t", "--num-records", "7", "--producer-acks", "all",
		"--record-size", "0", "--record-key-size", "--record-header-size", "-1", "--num-headers", "2", "--command-config", "c.properties", "stray"})
	if err != nil {
		t.Fatal(err)
	}
	if o.bootstrap != "b:1" || o.cfg.Topic != "t" || o.cfg.Records != 7 || o.acks != "all" || o.cfg.RecordSize != 0 ||
		o.cfg.KeySize != 0 || o.cfg.HeaderValueSize != -1 || o.cfg.NumHeaders != 2 || o.configFile != "c.properties" {
		t.Fatalf("parsed %+v", o)
	}
}
