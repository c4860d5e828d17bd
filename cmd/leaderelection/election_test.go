package leaderelection

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: run, Invoked: "kafka-leader-election"}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// Messages as the 4.4 tool prints them (captured with testbed.sh apache),
// all before any connection (the bootstrap address is unreachable).
func TestApacheValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	dup := write("dup.json", `{"partitions":[{"topic":"b","partition":1},{"topic":"a","partition":0},{"topic":"b","partition":1},{"topic":"a","partition":0},{"topic":"c","partition":5},{"topic":"c","partition":5}]}`)
	noParts := write("np.json", `{"x":1}`)
	notJSON := write("bad.json", `not json`)
	bs := "127.0.0.1:1"
	title := "This tool attempts to elect a new leader for a set of topic partitions. The type of elections supported are preferred replicas and unclean replicas."
	cases := []struct {
		args         []string
		stdout, errL string
	}{
		{nil, "", title},
		{[]string{"--bootstrap-server", bs}, "", "Missing required option(s): election-type"},
		{[]string{"--all-topic-partitions"}, "", "Missing required option(s): bootstrap-server, election-type"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred"}, "", "One and only one of the following options is required: topic, all-topic-partitions, path-to-json-file"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--topic", "t"}, "", "Missing required option(s): partition"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--all-topic-partitions", "--partition", "1"}, "", "Option partition is only allowed if topic is used"},
		{[]string{"--bootstrap-server", bs, "--election-type", "bogus", "--all-topic-partitions"}, "", "Cannot parse argument 'bogus' of option election-type"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--topic", "t", "--partition", "x"}, "", "Cannot parse argument 'x' of option partition"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--path-to-json-file", filepath.Join(dir, "nope")}, "", "java.io.IOException: Unable to read file " + filepath.Join(dir, "nope")},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--path-to-json-file", dup}, "", "Replica election data contains duplicate partitions: [b-1, a-0, c-5]"}, // captured from Apache 4.4: a-0 and b-1 share a bucket,
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--path-to-json-file", noParts}, "", `Replica election data is missing "partitions" field`},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--path-to-json-file", notJSON}, "", "Replica election data is empty"},
		{[]string{"--bootstrap-server", bs, "--election-type", "preferred", "--all-topic-partitions", "--admin.config", filepath.Join(dir, "nope")},
			"Option --admin.config has been deprecated and will be removed in a future version. Use --command-config instead.\n", filepath.Join(dir, "nope")},
		{[]string{"--bootstrap-server", bs, "--bogus"}, "", "bogus is not a recognized option"},
	}
	for _, c := range cases {
		out, errOut, code := runArgs(t, c.args...)
		first, _, _ := strings.Cut(errOut, "\n")
		if code != 1 || out != c.stdout || first != c.errL {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.200q\nwant   %q", c.args, code, out, errOut, c.errL)
		}
	}
}
