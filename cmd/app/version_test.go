package app

import (
	"runtime"
	"runtime/debug"
	"strings"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	bi := &debug.BuildInfo{Deps: []*debug.Module{
		{Path: "github.com/twmb/franz-go/pkg/kmsg", Version: "v1.15.1"},
		{Path: "github.com/twmb/franz-go", Version: "v1.22.3"},
		{Path: "example.com/replaced", Version: "v1.0.0", Replace: &debug.Module{Path: "../fork", Version: "v1.0.1"}},
		{Path: "example.com/local", Version: "v1.0.0", Replace: &debug.Module{Path: "../local"}},
	}}
	for path, want := range map[string]string{
		"github.com/twmb/franz-go": "v1.22.3",
		"example.com/replaced":     "v1.0.1",
		"example.com/local":        "v1.0.0",
		"example.com/absent":       "unknown",
	} {
		if got := moduleVersion(bi, path); got != want {
			t.Errorf("moduleVersion(%s) = %q, want %q", path, got, want)
		}
	}
}

func TestVersionText(t *testing.T) {
	code, out, errOut := run(t, nil, "kbox", "version")
	if code != 0 || out != "kbox "+Version+" (commit "+Commit+")\n" {
		t.Errorf("kbox version: %d %q %q", code, out, errOut)
	}
	code, out, _ = run(t, nil, "kbox", "version", "-o", "json")
	if code != 0 || !strings.Contains(out, `"go_version":"`+runtime.Version()+`"`) {
		t.Errorf("kbox version -o json: %d %q", code, out)
	}
	if code, _, errOut := run(t, nil, "kbox", "version", "-o", "csv"); code != 2 || !strings.Contains(errOut, "allowed: table, json, yaml") {
		t.Errorf("kbox version -o csv: %d %q", code, errOut)
	}
}
