// Package apachecases replays the real Apache tools' captured invocations
// (pkg/argparse/testdata, from `testbed.sh apache ...`) through an
// applet's run function: help, usage errors, config-file errors. None
// needs a broker.
package apachecases

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
)

// Replay runs every case of tool (the first line of a NAME.args file in
// dir) through run and compares stdout, stderr and exit status byte for
// byte; it fails when there are fewer than min cases.
func Replay(t *testing.T, dir, tool string, min int, run func(ctx context.Context, f *cmdutil.Factory, args []string) error) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.args"))
	n := 0
	for _, f := range files {
		rd := func(t *testing.T, ext string) string {
			b, err := os.ReadFile(strings.TrimSuffix(f, ".args") + "." + ext)
			if err != nil {
				t.Fatal(err)
			}
			return string(b)
		}
		lines := strings.Split(strings.TrimSuffix(rd(t, "args"), "\n"), "\n")
		if lines[0] != tool {
			continue
		}
		n++
		t.Run(strings.TrimSuffix(filepath.Base(f), ".args"), func(t *testing.T) {
			env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml")}
			if c := strings.TrimSpace(rd(t, "columns")); c != "" {
				env["COLUMNS"] = c
			}
			ios, _, out, errb := output.Test()
			err := run(context.Background(), cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test"), lines[1:])
			code, _ := cmdutil.ExitCode(err)
			var ee *cmdutil.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("unexpected error %v", err)
			}
			if want := strings.TrimSpace(rd(t, "exit")); want != string(rune('0'+code)) {
				t.Errorf("exit %d, want %s", code, want)
			}
			if out.String() != rd(t, "stdout") {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), rd(t, "stdout"))
			}
			if errb.String() != rd(t, "stderr") {
				t.Errorf("stderr:\n%s\nwant:\n%s", errb.String(), rd(t, "stderr"))
			}
		})
	}
	if n < min {
		t.Fatalf("only %d cases of %s", n, tool)
	}
}
