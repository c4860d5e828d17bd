//go:build integration

package ui_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An unreachable cluster's card shows "–" for what is unknown (brokers,
// partition counts), not 0, and says why it is unreachable.
func TestUnreachableClusterCard(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  real:\n    bootstrap-servers: "+cluster.Bootstrap+"\n  gone:\n    bootstrap-servers: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	printed, _ := startBackground(t, cfg, func(l string) bool { return strings.HasPrefix(l, "http://127.0.0.1:") }, "ui", "--listen", "127.0.0.1:0")
	dom, _ := chromium(t, splitURL(t, printed).open("#/"), "--dump-dom")
	if err := os.WriteFile(filepath.Join(outDir, "unreachable.html"), []byte(dom), 0o644); err != nil {
		t.Fatal(err)
	}
	card := func(name string) string {
		_, after, ok := strings.Cut(dom, `class="card cluster" data-cluster="`+name+`"`)
		if !ok {
			t.Fatalf("no card for %s:\n%s", name, tail(dom))
		}
		if i := strings.Index(after, `class="card cluster"`); i >= 0 {
			after = after[:i]
		}
		return after
	}
	gone, real := card("gone"), card("real")
	for _, w := range []string{"<dt>Brokers up</dt><dd>–</dd>", "<dt>Controller</dt><dd>–</dd>", "<dt>Topics / partitions</dt><dd>–</dd>",
		"<dt>Under-replicated</dt><dd>–</dd>", "<dt>Offline</dt><dd>–</dd>", `<p class="bad">cannot connect to 127.0.0.1:1: `} {
		if !strings.Contains(gone, w) {
			t.Errorf("unreachable card lacks %q:\n%s", w, gone)
		}
	}
	if !strings.Contains(real, "<dt>Brokers up</dt><dd>1 / 1</dd>") || !strings.Contains(real, "<dt>Under-replicated</dt><dd>0</dd>") {
		t.Errorf("reachable card:\n%s", real)
	}
}
