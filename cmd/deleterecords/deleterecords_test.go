package deleterecords

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

func runArgs(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-delete-records"}, args...)
	return r.Stdout, r.Stderr, r.Code
}

// Apache 4.4's messages (captured with testbed.sh apache-batch), all
// before any connection: the bootstrap address is never dialled.
func TestApacheValidation(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ok := write("ok.json", `{"partitions":[{"topic":"t","partition":0,"offset":1}]}`)
	bs := "127.0.0.1:1"
	cases := []struct {
		args []string
		err  string
	}{
		{nil, title + "\n" + apacheHelp},
		{[]string{"--help"}, title + "\n" + apacheHelp},
		{[]string{"--bootstrap-server", bs}, "Missing required argument \"[offset-json-file]\"\n" + apacheHelp},
		{[]string{"--offset-json-file", ok}, "Missing required argument \"[bootstrap-server]\"\n" + apacheHelp},
		{[]string{"--bootstrap-server", bs, "--bogus"}, "bogus is not a recognized option\n"},
		{[]string{"--bootstrap-server", bs, "--offset-json-file", ok, "--command-config", filepath.Join(dir, "nope")}, filepath.Join(dir, "nope") + "\n"},
		{[]string{"--bootstrap-server", "bad", "--offset-json-file", ok}, "Failed to create new KafkaAdminClient\n"},
		{[]string{"--bootstrap-server", bs, "--offset-json-file", filepath.Join(dir, "missing.json")}, "Unable to read file " + filepath.Join(dir, "missing.json") + "\n"},
		{[]string{"--bootstrap-server", bs, "--offset-json-file", write("bad.json", "nope")}, "The input string is not a valid JSON\n"},
		{[]string{"--bootstrap-server", bs, "--offset-json-file", write("v3.json", `{"version":3}`)}, "Not supported version field value 3\n"},
	}
	for _, c := range cases {
		out, errOut, code := runArgs(t, c.args...)
		if code != 1 || out != "" || errOut != c.err {
			t.Errorf("%v: exit %d\nstdout %q\nstderr %.300q\nwant   %.300q", c.args, code, out, errOut, c.err)
		}
	}
	if out, _, code := runArgs(t, "--version"); code != 0 || !strings.HasPrefix(out, "4.4.0") {
		t.Errorf("--version: %d %q", code, out)
	}
}
