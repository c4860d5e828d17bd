package cluster

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kboxdev/kbox/internal/cmdtest"
)

// Texts captured from Apache 4.4's kafka-cluster (testbed.sh apache):
// the parser's help and errors, byte for byte, with no cluster.
func TestApacheTexts(t *testing.T) {
	for _, c := range []struct {
		args         []string
		file         string
		stdout, code int
	}{
		{[]string{"--help"}, "help.stdout", 1, 1},
		{nil, "noargs.stderr", 0, 1},
		{[]string{"list-endpoints", "--help"}, "list-endpoints-help.stdout", 1, 1},
		{[]string{"unregister", "-b", "x", "--id", "x"}, "unregister-bad-id.stderr", 0, 1},
	} {
		want, err := os.ReadFile(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		r := cmdtest.Run(t, cmdtest.Options{Cmd: Run, Invoked: "kafka-cluster"}, c.args...)
		got := r.Stderr
		if c.stdout == 1 {
			got = r.Stdout
		}
		if r.Code != c.code || got != string(want) {
			t.Errorf("%q: exit %d\n%s\nwant\n%s", c.args, r.Code, got, want)
		}
	}
}
