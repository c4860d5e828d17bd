package verifiableconsumer

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kboxdev/kbox/cmd/cmdutil"
	"github.com/kboxdev/kbox/pkg/output"
)

// TestAgainstApache replays the real tool's captured invocations
// (pkg/argparse/testdata, from `testbed.sh apache ...`) through the
// applet: help, usage errors, config-file errors. None needs a broker.
func TestAgainstApache(t *testing.T) {
	files, _ := filepath.Glob("../../pkg/argparse/testdata/*.args")
	n := 0
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f), ".args")
		if !strings.HasPrefix(name, "consumer") {
			continue
		}
		n++
		t.Run(name, func(t *testing.T) {
			rd := func(ext string) string {
				b, err := os.ReadFile(strings.TrimSuffix(f, ".args") + "." + ext)
				if err != nil {
					t.Fatal(err)
				}
				return string(b)
			}
			lines := strings.Split(strings.TrimSuffix(rd("args"), "\n"), "\n")
			tool, args := lines[0], lines[1:]
			env := map[string]string{"KBOX_CONFIG": filepath.Join(t.TempDir(), "none.yaml")}
			if c := strings.TrimSpace(rd("columns")); c != "" {
				env["COLUMNS"] = c
			}
			ios, _, out, errb := output.Test()
			f := cmdutil.NewFactory(ios, func(k string) string { return env[k] }, "test")
			if tool != Applet.Name {
				t.Fatalf("a case of %s", tool)
			}
			err := run(f, args)
			code, _ := cmdutil.ExitCode(err)
			var ee *cmdutil.ExitError
			if err != nil && !errors.As(err, &ee) {
				t.Fatalf("unexpected error %v", err)
			}
			if want := strings.TrimSpace(rd("exit")); want != string(rune('0'+code)) {
				t.Errorf("exit %d, want %s", code, want)
			}
			if out.String() != rd("stdout") {
				t.Errorf("stdout:\n%s\nwant:\n%s", out.String(), rd("stdout"))
			}
			if errb.String() != rd("stderr") {
				t.Errorf("stderr:\n%s\nwant:\n%s", errb.String(), rd("stderr"))
			}
		})
	}
	if n < 8 {
		t.Fatalf("only %d cases", n)
	}
}
