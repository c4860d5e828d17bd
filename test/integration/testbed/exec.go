package testbed

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Result is what a command run by Exec did.
type Result struct {
	Stdout, Stderr string
	// Code is the exit status (-1 when killed by a signal, e.g. at the
	// timeout).
	Code int
	// Took is the wall time of the run.
	Took time.Duration
}

func (r Result) String() string {
	return fmt.Sprintf("exit %d after %s\nstdout:\n%s\nstderr:\n%s", r.Code, r.Took.Round(time.Millisecond), r.Stdout, r.Stderr)
}

// Runner says how Exec runs a command. Its zero value runs with no time
// limit and a fresh KBOX_CONFIG per call.
type Runner struct {
	// Timeout kills the command after this long; 0 means no limit.
	Timeout time.Duration
	// Config is KBOX_CONFIG; "" means a fresh (absent) file in a new
	// t.TempDir() for every call, so no profile leaks in.
	Config string
	// InTempDir runs the command in a new t.TempDir() (which then also
	// holds the fresh KBOX_CONFIG).
	InTempDir bool
	// Env is added to the environment after KBOX_CONFIG, e.g.
	// "KBOX_PROFILE=" and "KBOX_OUTPUT=" to clear those.
	Env []string
}

// With returns r with env added to r.Env.
func (r Runner) With(env ...string) Runner {
	r.Env = append(append([]string(nil), r.Env...), env...)
	return r
}

// Exec runs path with args the zero Runner's way.
func Exec(t testing.TB, path string, args ...string) Result {
	if t != nil {
		t.Helper()
	}
	return Runner{}.Exec(t, path, args...)
}

// Exec runs path with args and returns its output and exit status. A
// command that cannot run at all fails t; t may be nil outside a test (then
// r.Config must be set, and such a failure gives exit status 0 and no
// output).
func (r Runner) Exec(t testing.TB, path string, args ...string) Result {
	if t != nil {
		t.Helper()
	}
	ctx := context.Background()
	if r.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, r.Timeout)
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, path, args...)
	cfg := r.Config
	if cfg == "" || r.InTempDir {
		dir := t.TempDir()
		if r.InTempDir {
			cmd.Dir = dir
		}
		if cfg == "" {
			cfg = filepath.Join(dir, "config.yaml")
		}
	}
	cmd.Env = append(append(os.Environ(), "KBOX_CONFIG="+cfg), r.Env...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	start := time.Now()
	err := cmd.Run()
	res := Result{Stdout: out.String(), Stderr: errb.String(), Took: time.Since(start)}
	if ee, ok := err.(*exec.ExitError); ok {
		res.Code = ee.ExitCode()
	} else if err != nil && t != nil {
		t.Fatalf("run %s %v: %v\nstderr: %s", path, args, err, res.Stderr)
	}
	return res
}
