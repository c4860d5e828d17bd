//go:build integration

// Package e2e_test checks kafka-e2e-latency and `kbox perf e2e` against a
// real 1-broker Apache Kafka test bed, next to Apache 4.4.0's
// kafka-e2e-latency run on the same cluster in the same test.
package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	kboxBin string
	binDir  string
	cluster *testbed.Cluster
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "e2e", Applets: []string{"kafka-e2e-latency"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return nil
	}}))
}

type result struct {
	out, err string
	exit     int
}

func runKbox(t *testing.T, name string, args ...string) result {
	t.Helper()
	path := filepath.Join(binDir, name)
	if name == "kbox" {
		path = kboxBin
	}
	r := testbed.Runner{Timeout: 90 * time.Second}.Exec(t, path, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

func runApache(t *testing.T, args ...string) result {
	t.Helper()
	o, e, code, err := cluster.Apache(nil, "kafka-e2e-latency", args...)
	if err != nil {
		t.Fatalf("apache %v: %v", args, err)
	}
	return result{o, e, code}
}

func firstLine(s string) string { l, _, _ := strings.Cut(s, "\n"); return l }

// Argument errors: same stdout, same exit code; usage errors print the same
// message and option table; Java exceptions print the same message (Apache
// adds a stack trace, kbox does not).
func TestArgErrorsMatchApache(t *testing.T) {
	bs := cluster.Bootstrap
	req := []string{"--bootstrap-server", bs, "--topic", "e2e-args", "--num-records", "1", "--producer-acks", "1", "--record-size", "1"}
	with := func(i int, v string, extra ...string) []string {
		a := append([]string{}, req...)
		if i >= 0 {
			a[i] = v
		}
		return append(a, extra...)
	}
	cases := [][]string{
		nil,
		{"--help"},
		{"a", "b", "c", "d"},
		{"--topic", "t"},
		{"--topic", "t", "--bogus"},
		{"--topic", "t", "--version"},
		{"--topic", "t", "--help"},
		with(7, "-1"),
		with(5, "0"),
		with(5, "abc"),
		with(9, "-3"),
		with(-1, "", "--record-header-size", "-2"),
		with(-1, "", "--num-headers", "-1"),
		with(-1, "", "--bootstrap-server", bs),
		{bs, "e2e-args", "1", "0", "1"},
	}
	// Apache's cases in one JVM (a JVM start costs seconds).
	as, err := cluster.ApacheBatch("kafka-e2e-latency", cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, args := range cases {
		k, a := runKbox(t, "kafka-e2e-latency", args...), result{as[i].Stdout, as[i].Stderr, as[i].Code}
		if k.exit != a.exit {
			t.Errorf("%q: exit kbox %d apache %d", args, k.exit, a.exit)
		}
		if k.out != a.out {
			t.Errorf("%q: stdout\nkbox   %q\napache %q", args, k.out, a.out)
		}
		if strings.Contains(a.err, "\n\tat ") { // Java exception: message line only
			if firstLine(k.err) != firstLine(a.err) || strings.Count(k.err, "\n") != 1 {
				t.Errorf("%q: stderr\nkbox   %q\napache %q", args, k.err, firstLine(a.err))
			}
		} else if k.err != a.err {
			t.Errorf("%q: stderr\nkbox   %q\napache %q", args, k.err, a.err)
		}
	}
}

var (
	javaDouble = `(?:\d+\.\d+(?:E-?\d+)?)`
	progressRe = regexp.MustCompile(`^(\d+)\t` + javaDouble + `$`)
	avgRe      = regexp.MustCompile(`^Avg latency: \d+\.\d{4} ms$`)
	pctRe      = regexp.MustCompile(`^Percentiles: 50th = (\d+), 99th = (\d+), 99\.9th = (\d+)$`)
)

// shape reduces an output to its line kinds, with the topic name replaced.
func shape(t *testing.T, out, topic string) []string {
	t.Helper()
	var s []string
	for _, l := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		switch {
		case l == fmt.Sprintf(`Topic "%s" does not exist. Will create topic with 1 partition(s) and replication factor = 1`, topic):
			s = append(s, "create")
		case progressRe.MatchString(l):
			s = append(s, "progress "+progressRe.FindStringSubmatch(l)[1])
		case avgRe.MatchString(l):
			s = append(s, "avg")
		case pctRe.MatchString(l):
			s = append(s, "percentiles")
		case strings.HasPrefix(l, "WARNING: Positional argument usage is deprecated"):
			s = append(s, l)
		default:
			t.Errorf("unexpected line %q", l)
		}
	}
	return s
}

func TestRunMatchesApacheShape(t *testing.T) {
	bs := cluster.Bootstrap
	opts := []string{"--num-records", "1001", "--producer-acks", "all", "--record-size", "64",
		"--record-key-size", "2", "--num-headers", "2", "--record-header-key-size", "3", "--record-header-size", "-1"}
	a := runApache(t, append([]string{"--bootstrap-server", bs, "--topic", "e2e-apache"}, opts...)...)
	k := runKbox(t, "kafka-e2e-latency", append([]string{"--bootstrap-server", bs, "--topic", "e2e-kbox"}, opts...)...)
	if a.exit != 0 || k.exit != 0 {
		t.Fatalf("exit apache %d (%s) kbox %d (%s)", a.exit, a.err, k.exit, k.err)
	}
	if k.err != "" {
		t.Errorf("kbox stderr: %q", k.err)
	}
	want := []string{"create", "progress 0", "progress 1000", "avg", "percentiles"}
	if g := shape(t, a.out, "e2e-apache"); strings.Join(g, "|") != strings.Join(want, "|") {
		t.Fatalf("apache shape %q (the reference changed?)", g)
	}
	if g := shape(t, k.out, "e2e-kbox"); strings.Join(g, "|") != strings.Join(want, "|") {
		t.Errorf("kbox shape %q want %q\n%s", g, want, k.out)
	}
	// percentiles are ordered
	m := pctRe.FindStringSubmatch(strings.Split(strings.TrimSuffix(k.out, "\n"), "\n")[4])
	if m == nil || atoi(m[1]) > atoi(m[2]) || atoi(m[2]) > atoi(m[3]) {
		t.Errorf("percentiles %v", m)
	}
	// the consumed positions are committed for a test-group-<ms> group, as Apache does
	adm := admin(t)
	groups, err := adm.ListGroups(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, g := range groups.Groups() {
		if !strings.HasPrefix(g, "test-group-") {
			continue
		}
		offs, err := adm.FetchOffsets(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if o, ok := offs.Lookup("e2e-kbox", 0); ok && o.At == 1001 {
			found = true
		}
	}
	if !found {
		t.Errorf("no test-group-* group committed offset 1001 on e2e-kbox-0 (groups %v)", groups.Groups())
	}

	// positional (deprecated) form on the existing topics: no create line
	pos := []string{bs, "e2e-apache", "3", "1", "10"}
	a = runApache(t, pos...)
	pos[1] = "e2e-kbox"
	k = runKbox(t, "kafka-e2e-latency", pos...)
	if a.exit != 0 || k.exit != 0 {
		t.Fatalf("positional: exit apache %d kbox %d (%s)", a.exit, k.exit, k.err)
	}
	sa, sk := shape(t, a.out, "e2e-apache"), shape(t, k.out, "e2e-kbox")
	if strings.Join(sa, "|") != strings.Join(sk, "|") || len(sk) != 4 {
		t.Errorf("positional shapes\nkbox   %q\napache %q", sk, sa)
	}
}

func atoi(s string) int { n, _ := strconv.Atoi(s); return n }

func admin(t *testing.T) *kadm.Client {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

type jsonResult struct {
	Kind          string `json:"kind"`
	Records       int64  `json:"records"`
	WarmupRecords int64  `json:"warmup_records"`
	Histogram     string `json:"histogram"`
	MergedFrom    int    `json:"merged_from"`
	Latency       struct {
		Count int64   `json:"count"`
		P50   float64 `json:"p50_ms"`
		P99   float64 `json:"p99_ms"`
		Max   float64 `json:"max_ms"`
	} `json:"latency"`
}

func TestNativeJSONAndMerge(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for i, n := range []string{"150", "250"} {
		r := runKbox(t, "kbox", "perf", "e2e", "--bootstrap-server", cluster.Bootstrap, "--topic", "e2e-native",
			"--records", n, "--warmup-records", "20", "--key-size", "0", "--headers", "1", "--header-size", "4", "-o", "json")
		if r.exit != 0 {
			t.Fatalf("kbox perf e2e: exit %d: %s", r.exit, r.err)
		}
		var jr jsonResult
		if err := json.Unmarshal([]byte(r.out), &jr); err != nil {
			t.Fatalf("json: %v\n%s", err, r.out)
		}
		// Warm-up comes on top of --records (as in every perf command).
		want := map[int]int64{0: 150, 1: 250}[i]
		if jr.Kind != "e2e" || jr.Records != want || jr.WarmupRecords != 20 || jr.Latency.Count != want || jr.Histogram == "" ||
			jr.Latency.P50 <= 0 || jr.Latency.P50 > jr.Latency.P99 || jr.Latency.P99 > jr.Latency.Max {
			t.Fatalf("result %+v", jr)
		}
		f := filepath.Join(dir, fmt.Sprintf("r%d.json", i))
		if err := os.WriteFile(f, []byte(r.out), 0o644); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	r := runKbox(t, "kbox", append([]string{"perf", "merge", "-o", "json"}, files...)...)
	var m jsonResult
	if r.exit != 0 || json.Unmarshal([]byte(r.out), &m) != nil {
		t.Fatalf("merge: exit %d %s %s", r.exit, r.err, r.out)
	}
	if m.Kind != "e2e" || m.Records != 400 || m.Latency.Count != 400 || m.MergedFrom != 2 {
		t.Errorf("merged %+v", m)
	}
	// bad flags are one-line errors, before anything runs
	r = runKbox(t, "kbox", "perf", "e2e", "--bootstrap-server", cluster.Bootstrap, "--topic", "x", "--acks", "0")
	if r.exit == 0 || strings.Count(r.err, "\n") > 3 || !strings.Contains(r.err, "use 1 or all") {
		t.Errorf("--acks 0: exit %d stderr %q", r.exit, r.err)
	}
}
