//go:build integration

// Package clientmetrics_test checks kafka-client-metrics against Apache
// 4.4's ClientMetricsCommand on a 1-broker bed: the cases that leave the
// cluster as it is (reads, every error path, refused alterations) in one
// JVM, then the alterations and deletions in a second JVM, each repeated
// by kbox on a subscription of its own and the resulting configs compared.
package clientmetrics_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/configs"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

const tool = "kafka-client-metrics"

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "clientmetrics", Applets: []string{tool, tool + ".sh"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return seed()
	}}))
}

// seed: two subscriptions the read cases describe.
func seed() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		return err
	}
	defer cl.Close()
	s := &configs.Service{Client: cl}
	for name, ops := range map[string][]configs.Op{
		"seed-a": {{Name: "metrics", Value: "org.apache.kafka.producer.,org.apache.kafka.consumer.", Op: configs.Set},
			{Name: "interval.ms", Value: "1000", Op: configs.Set}, {Name: "match", Value: "client_id=c1,client_software_name=kafka-python", Op: configs.Set}},
		"seed-b": {{Name: "metrics", Value: "*", Op: configs.Set}},
	} {
		if err := s.Alter(ctx, configs.Resource{Type: configs.ClientMetrics, Name: name}, ops, false); err != nil {
			return fmt.Errorf("seed %s: %w", name, err)
		}
	}
	return nil
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, path, args...)
}

var logTime = regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] `)

const logEnd = " (org.apache.kafka.tools.ClientMetricsCommand)\n"

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// same compares kbox's run with Apache's: exit code and stdout exactly,
// stderr with the log4j time masked; where Apache prints a Java stack
// trace (a listed difference) kbox prints its first line only (and, in a
// log4j line, the line's end).
func same(got, want testbed.Result) bool {
	ge, we := logTime.ReplaceAllString(got.Stderr, "[T] "), logTime.ReplaceAllString(want.Stderr, "[T] ")
	errOK := ge == we
	if strings.Contains(we, "\n\tat ") {
		if strings.HasPrefix(we, "[T] ") {
			errOK = strings.HasSuffix(we, logEnd) && ge == firstLine(we)+"\n"+logEnd
		} else {
			errOK = ge == firstLine(we)+"\n"
		}
	}
	return got.Code == want.Code && got.Stdout == want.Stdout && errOK
}

// The cases that change nothing: every read, every refusal, in one JVM.
func TestDifferential(t *testing.T) {
	bs := cluster.Bootstrap
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(props, []byte("client.id=someone\nrequest.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	cases := [][]string{
		b("--list"),
		b("--describe"),
		b("--describe", "--name", "seed-a"),
		b("--describe", "--name", "seed-b", "--command-config", props),
		b("--list", "--command-config", props),
		// Unknown names: described as missing, deleted without complaint.
		b("--describe", "--name", "nope"),
		b("--describe", "--name", ""),
		b("--delete", "--name", "nope"),
		// --alter with nothing to set changes nothing.
		b("--alter", "--name", "nothing"),
		// The broker's refusals.
		b("--alter", "--name", "bad", "--match", "bogus=1"),
		b("--alter", "--name", "bad", "--match", "client_id"),
		b("--alter", "--name", "bad", "--match", "client_id=["),
		b("--alter", "--name", "bad", "--interval", "10"),
		b("--alter", "--name", "bad", "--interval", "-5", "--metrics", "m"),
		b("--alter", "--name", "bad", "--metrics", ","),
		b("--alter", "--name", "", "--metrics", "x"),
		b("--delete", "--name", ""),
		// A refused alteration of an existing subscription changes none of it.
		b("--alter", "--name", "seed-a", "--metrics", "other.", "--interval", "10"),
		// The tool's own checks.
		b("--alter"),
		b("--alter", "--name", "x", "--generate-name"),
		b("--alter", "--name", "x", "--interval", "abc"),
		b("--alter", "--name", "x", "--interval", "99999999999"),
		b("--alter", "--name", "x", "--interval", "1", "--interval", "2"),
		b("--alter", "--name", "x", "--name", "y", "--interval", "100"),
		b("--describe", "--name", "x", "--name", "y"),
		b("--delete", "--name", "x", "--name", "y"),
		b("--delete"),
		b(),
		b("--list", "--describe"),
		b("--alter", "--delete", "--name", "x"),
		b("--list", "--name", "a"),
		b("--list", "--generate-name"),
		b("--describe", "--interval", "5"),
		b("--describe", "--generate-name"),
		b("--describe", "--name", "x", "--match", "m", "--metrics", "n"),
		b("--delete", "--name", "x", "--metrics", "m"),
		b("--delete", "--generate-name", "--name", "x"),
		b("--bogus"),
		b("--list", "--name"),
		b("--list", "--command-config", filepath.Join(dir, "missing.properties")),
		b("--list", "--bootstrap-server", bs),
		{"--bootstrap-server", "bad", "--list"},
		{"--list"},
		{"--help"},
		{"--help", "--list"},
		{"--version"},
		{},
	}
	want, err := cluster.ApacheBatch(tool, cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, tool)
	for i, args := range cases {
		got := kbox(t, link, args...)
		if !same(got, want[i]) {
			t.Errorf("%q:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, want[i].Code, want[i].Stdout, want[i].Stderr)
		}
	}
	if !strings.Contains(want[2].Stdout, "  match=client_id=c1,client_software_name=kafka-python\n") || !strings.Contains(want[0].Stdout, "seed-b\n") {
		t.Errorf("the seed is not what Apache sees: %q %q", want[0].Stdout, want[2].Stdout)
	}
	// The .sh link and kbox's own names are the same tool.
	for _, argv := range [][]string{{filepath.Join(binDir, tool+".sh")}, {kboxBin, tool}, {kboxBin, "client-metrics"}} {
		args := append(argv[1:], "--bootstrap-server", bs, "--describe", "--name", "seed-a")
		if got := kbox(t, argv[0], args...); got.Code != 0 || got.Stdout != want[2].Stdout {
			t.Errorf("%v: %s", argv, got)
		}
	}
}

// The alterations and deletions: Apache's on ap-* subscriptions (one JVM),
// kbox's on kb-* ones with the same arguments; the outputs and the
// resulting subscriptions must match.
func TestChanges(t *testing.T) {
	bs := cluster.Bootstrap
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	steps := func(p string) [][]string {
		return [][]string{
			b("--alter", "--name", p+"full", "--metrics", "org.apache.kafka.producer.,org.apache.kafka.consumer.coordinator.rebalance.latency.max", "--interval", "1000", "--match", "client_id=c1,client_software_name=kafka-python"),
			b("--alter", "--name", p+"all", "--metrics", "*"),
			b("--alter", "--name", p+"multi", "--metrics", "a,,b", "--metrics", "c", "--match", "client_id=x", "--match", "client_source_port=5", "--interval", "+500"),
			b("--alter", "--name", p+"reset", "--metrics", "m", "--interval", "2000", "--match", "client_id=z"),
			b("--alter", "--name", p+"reset", "--interval", "", "--match", ""),
			b("--alter", "--name", p+"gone", "--metrics", "m"),
			b("--alter", "--name", p+"gone", "--metrics", ""),
			b("--alter", "--name", p+"del", "--metrics", "m", "--interval", "700"),
			b("--delete", "--name", p+"del"),
			b("--alter", "--name", p+"a/b", "--metrics", "m"),
			b("--alter", "--generate-name", "--metrics", "gen."+p),
		}
	}
	names := []string{"full", "all", "multi", "reset", "gone", "del", "a/b"}
	want, err := cluster.ApacheBatch(tool, steps("ap-"))
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, tool)
	uuid := regexp.MustCompile(`for [A-Za-z0-9_][A-Za-z0-9_-]{21}\.\n$`)
	for i, args := range steps("kb-") {
		got := kbox(t, link, args...)
		w := want[i]
		w.Stdout = strings.ReplaceAll(w.Stdout, "ap-", "kb-")
		if strings.Contains(args[len(args)-1], "gen.") {
			if !uuid.MatchString(got.Stdout) || !uuid.MatchString(w.Stdout) {
				t.Errorf("--generate-name: kbox %q, apache %q", got.Stdout, w.Stdout)
			}
			continue
		}
		if !same(got, w) {
			t.Errorf("%q:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
	}
	// What each left behind, described by kbox (whose --describe the
	// differential test pins).
	for _, n := range names {
		ap := kbox(t, link, b("--describe", "--name", "ap-"+n)...)
		kb := kbox(t, link, b("--describe", "--name", "kb-"+n)...)
		if ap.Code != 0 || kb.Code != 0 || strings.ReplaceAll(ap.Stdout, "ap-", "kb-") != kb.Stdout {
			t.Errorf("%s:\napache's %s\nkbox's %s", n, ap, kb)
		}
	}
	list := kbox(t, link, b("--list")...)
	for _, n := range names {
		listed := strings.Contains(list.Stdout, "\nkb-"+n+"\n") || strings.HasPrefix(list.Stdout, "kb-"+n+"\n")
		if listed != (n != "gone" && n != "del") {
			t.Errorf("kb-%s listed %v: %q", n, listed, list.Stdout)
		}
	}
	// Both --generate-name subscriptions exist with their metrics.
	d := kbox(t, link, b("--describe")...)
	for _, p := range []string{"ap-", "kb-"} {
		if !strings.Contains(d.Stdout, "  metrics=gen."+p+"\n") {
			t.Errorf("no generated subscription with metrics gen.%s:\n%s", p, d.Stdout)
		}
	}
	// The native views of the same subscriptions.
	j := kbox(t, kboxBin, append([]string{"client-metrics"}, b("--describe", "--name", "kb-multi", "-o", "json")...)...)
	if j.Code != 0 || !strings.Contains(j.Stdout, `"name":"kb-multi","interval_ms":500,"metrics":["a","b","c"],"match":["client_id=x","client_source_port=5"]`) {
		t.Errorf("-o json: %s", j)
	}
	tab := kbox(t, kboxBin, append([]string{"client-metrics"}, b("--list", "-o", "table")...)...)
	if tab.Code != 0 || !strings.HasPrefix(tab.Stdout, "NAME\n") || !strings.Contains(tab.Stdout, "\nkb-full\n") {
		t.Errorf("-o table: %s", tab)
	}
}
