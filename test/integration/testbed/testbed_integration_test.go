//go:build integration

package testbed

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestApacheWithoutCluster needs only Java and the jars (fetched with mvn).
func TestApacheWithoutCluster(t *testing.T) {
	out, _, code, err := Apache("", nil, "kafka-topics", "--version")
	if err != nil || code != 0 || strings.TrimSpace(out) == "" {
		t.Fatalf("kafka-topics --version: out=%q code=%d err=%v", out, code, err)
	}
}

// TestLifecycle starts a 1-node cluster, uses it, restarts the node and
// checks that a second Up in the same dir fails.
func TestLifecycle(t *testing.T) {
	dir := t.TempDir()
	c, err := Up(1, "plaintext", dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := c.Down(); err != nil {
			t.Error(err)
		}
	})
	if c.PlaintextBootstrap != c.Bootstrap || c.Brokers != 1 {
		t.Fatalf("unexpected cluster %+v", c)
	}
	if _, err := Up(1, "plaintext", dir); err == nil || !strings.Contains(err.Error(), "already running") {
		t.Fatalf("second Up: %v", err)
	}
	_, stderr, code, err := c.Apache(nil, "kafka-topics", "--bootstrap-server", c.Bootstrap,
		"--create", "--topic", "tb", "--partitions", "2")
	if err != nil || code != 0 {
		t.Fatalf("create: code=%d err=%v stderr=%s", code, err, stderr)
	}
	if err := c.StopBroker(1, true); err != nil {
		t.Fatal(err)
	}
	if err := c.StartBroker(1); err != nil {
		t.Fatal(err)
	}
	out, stderr, code, err := c.Apache(nil, "kafka-topics", "--bootstrap-server", c.Bootstrap, "--list")
	if err != nil || code != 0 || !strings.Contains(out, "tb") {
		t.Fatalf("list: out=%q code=%d err=%v stderr=%s", out, code, err, stderr)
	}
	out, _, code, err = c.Apache(strings.NewReader("a\nb\n"), "kafka-console-producer",
		"--bootstrap-server", c.Bootstrap, "--topic", "tb")
	if err != nil || code != 0 {
		t.Fatalf("produce: out=%q code=%d err=%v", out, code, err)
	}
}

// TestSchemaRegistryLifecycle starts the registry alone, uses its
// Confluent API, checks that a second up in the same dir fails and that
// down stops it (twice is fine).
func TestSchemaRegistryLifecycle(t *testing.T) {
	dir := t.TempDir()
	r, err := SchemaRegistryUp(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.Down() })
	if !strings.HasPrefix(r.URL, "http://127.0.0.1:") || !strings.HasSuffix(r.URL, "/apis/ccompat/v7") {
		t.Fatalf("URL %q", r.URL)
	}
	resp, err := http.Post(r.URL+"/subjects/tb-value/versions", "application/vnd.schemaregistry.v1+json",
		strings.NewReader(`{"schema":"{\"type\":\"string\"}"}`))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id"`) {
		t.Fatalf("register: %s %s", resp.Status, body)
	}
	if _, err := SchemaRegistryUp(dir); err == nil || !strings.Contains(err.Error(), "already runs") {
		t.Fatalf("second up: %v", err)
	}
	if err := r.Down(); err != nil {
		t.Fatal(err)
	}
	if _, err := http.Get(r.URL + "/subjects"); err == nil {
		t.Fatal("the registry still answers after down")
	}
	if err := r.Down(); err != nil {
		t.Fatalf("second down: %v", err)
	}
}

// TestApacheBatch: several command lines of one tool in one JVM, each with
// its own output and exit code, as separate runs give them.
func TestApacheBatch(t *testing.T) {
	if _, err := os.Stat(filepath.Join(filepath.Dir(Script()), "ApacheBatch.java")); err != nil {
		t.Fatal(err)
	}
	cmds := [][]string{{"--version"}, {}, {"--bogus"}, {"--bootstrap-server", "127.0.0.1:1", "--list", "--command-config", "/nonexistent"}}
	res, err := ApacheBatch("", "kafka-topics", cmds)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		out, errs, code, err := Apache("", nil, "kafka-topics", c...)
		if err != nil {
			t.Fatal(err)
		}
		first := func(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }
		if res[i].Code != code || res[i].Stdout != out || first(res[i].Stderr) != first(errs) {
			t.Errorf("%q: batch exit %d stdout %q stderr %q; alone exit %d stdout %q stderr %q", c, res[i].Code, res[i].Stdout, first(res[i].Stderr), code, out, first(errs))
		}
	}
}

// TestApacheBatchSystemExit: argparse4j's parseArgsOrFail calls
// System.exit (a parse error, --help); in a batch it ends that case with
// its exit code and output, and the next case still runs.
func TestApacheBatchSystemExit(t *testing.T) {
	cmds := [][]string{{"cluster-id"}, {"--help"}, {"list-endpoints", "-b", "x", "-C", "y"}, {"nope"}}
	res, err := ApacheBatch("", "kafka-cluster", cmds)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cmds {
		out, errs, code, err := Apache("", nil, "kafka-cluster", c...)
		if err != nil {
			t.Fatal(err)
		}
		if res[i].Code != code || res[i].Stdout != out || res[i].Stderr != errs {
			t.Errorf("%q: batch exit %d stdout %q stderr %q; alone exit %d stdout %q stderr %q", c, res[i].Code, res[i].Stdout, res[i].Stderr, code, out, errs)
		}
	}
}
