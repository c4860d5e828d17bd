//go:build integration

// Package cluster_test checks kafka-cluster, kafka-broker-api-versions and
// kafka-groups against Apache 4.4's ClusterTool, BrokerApiVersionsCommand
// and GroupsCommand on a 3-broker cluster (each tool's cases in one JVM),
// and their native views.
package cluster_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/cmdtest"
	"github.com/kboxdev/kbox/pkg/apiversions"
	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	bed     *testbed.Cluster
	kboxBin string
	binDir  string
	ctl     string // the controllers' listeners
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "cluster", Brokers: 3,
		Applets: []string{"kafka-cluster", "kafka-cluster.sh", "kafka-broker-api-versions", "kafka-groups"},
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, bed = e.Kbox, e.BinDir, e.Cluster
			var err error
			if ctl, err = controllers(); err != nil {
				return err
			}
			return seed()
		}}))
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 90 * time.Second}.Exec(t, path, args...)
}

// adminClientLog is the Java admin client's own log4j ERROR line for a
// failed request (a listed difference: kbox prints the tool's line only).
var adminClientLog = regexp.MustCompile(`(?m)^\[[^\]]+\] ERROR \[AdminClient clientId=[^\]]*\] .*\(org\.apache\.kafka\.clients\.admin\.KafkaAdminClient\)\n`)

// sameAs compares kbox's result with Apache's: exit code, stdout, and
// stderr; where Apache prints a stack trace, kbox prints its first line.
// norm, if not nil, is applied to both stdouts first: it removes what
// Apache itself varies.
func sameAs(t *testing.T, args []string, got, want testbed.Result, norm func(string) string) {
	t.Helper()
	want.Stderr = adminClientLog.ReplaceAllString(want.Stderr, "")
	errOK := got.Stderr == want.Stderr
	if strings.Contains(want.Stderr, "\n\tat ") {
		first, _, _ := strings.Cut(want.Stderr, "\n")
		errOK = got.Stderr == first+"\n"
	}
	if norm != nil {
		want.Stdout, got.Stdout = norm(want.Stdout), norm(got.Stdout)
	}
	if got.Code != want.Code || got.Stdout != want.Stdout || !errOK {
		t.Errorf("%q:\nkbox   exit %d\nstdout %.3000q\nstderr %.600q\napache exit %d\nstdout %.3000q\nstderr %.600q\n%s", args, got.Code, got.Stdout, got.Stderr, want.Code, want.Stdout, want.Stderr, cmdtest.FirstDiff(want.Stdout, got.Stdout))
	}
}

// sortedRows: a table's rows after the header may come in any order
// (kafka-groups lists in the order the brokers answer).
func sortedRows(s string) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > 2 {
		sort.Strings(lines[1:])
	}
	return strings.Join(lines, "")
}

// brokerHeader starts a broker's block in kafka-broker-api-versions.
var brokerHeader = regexp.MustCompile(`(?m)^(\S+):(\d+) \(id: (-?\d+) rack: .* isFenced: (true|false)\) -> `)

// sharedBucketsByID puts the broker blocks that share a bucket of Java's
// HashMap in id order. Apache's tool prints its brokers in HashMap order,
// and within a bucket in the order its Cluster shuffled them into: random
// (pkg/apiversions.HashMapOrder). Blocks in different buckets keep their
// order, so the bucket order stays pinned. The bed's brokers have no rack.
func sharedBucketsByID(s string) string {
	at := brokerHeader.FindAllStringSubmatchIndex(s, -1)
	if len(at) < 2 {
		return s
	}
	type block struct {
		node apiversions.Node
		text string
	}
	blocks := make([]block, len(at))
	for i, m := range at {
		end := len(s)
		if i+1 < len(at) {
			end = at[i+1][0]
		}
		port, _ := strconv.Atoi(s[m[4]:m[5]])
		id, _ := strconv.Atoi(s[m[6]:m[7]])
		blocks[i] = block{apiversions.Node{ID: int32(id), Host: s[m[2]:m[3]], Port: int32(port), Fenced: s[m[8]:m[9]] == "true"}, s[m[0]:end]}
	}
	// A bucket's blocks are adjacent (HashMap iterates bucket by bucket):
	// sort each run of one bucket by id.
	bucket := func(b block) int { return apiversions.HashMapBucket(b.node, len(blocks)) }
	for i := 0; i < len(blocks); {
		j := i + 1
		for j < len(blocks) && bucket(blocks[j]) == bucket(blocks[i]) {
			j++
		}
		run := blocks[i:j]
		sort.Slice(run, func(x, y int) bool { return run[x].node.ID < run[y].node.ID })
		i = j
	}
	var b strings.Builder
	b.WriteString(s[:at[0][0]])
	for _, bl := range blocks {
		b.WriteString(bl.text)
	}
	return b.String()
}

// differential runs every case through Apache's tool (one JVM) and the
// kbox link of the same name.
func differential(t *testing.T, tool string, cases [][]string, norm func(string) string) []testbed.Result {
	t.Helper()
	want, err := bed.ApacheBatch(tool, cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, args := range cases {
		sameAs(t, args, kbox(t, filepath.Join(binDir, tool), args...), want[i], norm)
	}
	return want
}

func TestClusterTool(t *testing.T) {
	bs := bed.Bootstrap
	dir := t.TempDir()
	props := filepath.Join(dir, "admin.properties")
	if err := os.WriteFile(props, []byte("request.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.properties")
	cases := [][]string{
		{}, {"--help"}, {"-h"}, {"nope"}, {"cl", "-b", bs},
		{"cluster-id"}, {"cluster-id", "--help"}, {"cluster-id", "-b", bs}, {"cluster-id", "--bootstrap-server", bs},
		{"cluster-id", "-C", ctl}, {"cluster-id", "-b", bs, "-C", ctl}, {"cluster-id", "--boot", bs},
		{"cluster-id", "-b", bs, "--config", props}, {"cluster-id", "-b", bs, "-c", props},
		{"cluster-id", "-b", bs, "--config", props, "--command-config", props}, {"cluster-id", "-b", bs, "-c", missing},
		{"cluster-id", "-b", bs, "--bogus"},
		{"list-endpoints", "-b", bs}, {"list-endpoints", "-C", ctl}, {"list-endpoints", "-b", bs, "--include-fenced-brokers"},
		{"list-endpoints", "-C", ctl, "--include-fenced-brokers"}, {"list-endpoints", "--help"},
		{"api-versions", "-b", bs}, {"api-versions", "-C", ctl},
		{"unregister", "-b", bs}, {"unregister", "-b", bs, "--id", "x"}, {"unregister", "-b", bs, "--id", "99"},
		{"unregister", "-b", bs, "-i", "99"}, {"unregister", "-C", ctl, "--id", "99"},
		{"unregister-controller", "-C", ctl, "--id", "99"}, {"unregister-controller", "-b", bs, "--id", "99"},
		{"unregister-controller", "--help"},
	}
	differential(t, "kafka-cluster", cases, nil)
	// The .sh name and kbox's own names are the same tool.
	link := filepath.Join(binDir, "kafka-cluster.sh")
	want := kbox(t, filepath.Join(binDir, "kafka-cluster"), "cluster-id", "-b", bs)
	for _, got := range []testbed.Result{kbox(t, link, "cluster-id", "-b", bs), kbox(t, kboxBin, "cluster", "cluster-id", "-b", bs),
		kbox(t, kboxBin, "kafka-cluster", "cluster-id", "-b", bs)} {
		if got.Code != 0 || got.Stdout != want.Stdout || !strings.HasPrefix(want.Stdout, "Cluster ID: ") {
			t.Errorf("%s, want %q", got, want.Stdout)
		}
	}
}

func TestBrokerAPIVersions(t *testing.T) {
	bs := bed.Bootstrap
	dir := t.TempDir()
	props := filepath.Join(dir, "admin.properties")
	if err := os.WriteFile(props, []byte("request.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cases := [][]string{
		{}, {"--help"}, {"--version"}, {"--bogus"}, {"--bootstrap-server"},
		{"--command-config", props}, {"--bootstrap-server", bs, "--command-config", filepath.Join(dir, "missing")},
		{"--bootstrap-server", bs}, {"--bootstrap-server", bs, "--command-config", props},
	}
	want := differential(t, "kafka-broker-api-versions", cases, sharedBucketsByID)
	if !strings.Contains(want[7].Stdout, "\tProduce(0): ") || strings.Count(want[7].Stdout, " -> (\n") != 3 {
		t.Errorf("Apache's table is not of three brokers: %q", want[7].Stdout)
	}
}

func TestGroups(t *testing.T) {
	bs := bed.Bootstrap
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	cases := [][]string{
		{}, {"--help"}, {"--version"}, {"--bogus"}, {"--list"}, b(), b("--list", "--list"),
		b("--list"), b("--list", "--group-type", "classic"), b("--list", "--group-type", "CONSUMER"),
		b("--list", "--group-type", "share"), b("--list", "--group-type", "streams"), b("--list", "--group-type", "bogus"),
		b("--list", "--group-type"), b("--list", "--protocol", "consumer"), b("--list", "--protocol", ""),
		b("--list", "--group-type", "classic", "--protocol", "consumer"), b("--list", "--consumer"), b("--list", "--share"),
		b("--list", "--streams"), b("--list", "--consumer", "--share"), b("--list", "--share", "--protocol", "x"),
		b("--list", "--streams", "--group-type", "share"), b("--list", "--command-config", "/nonexistent"),
	}
	want := differential(t, "kafka-groups", cases, sortedRows)
	for _, g := range []string{"simple ", "a-classic-group-with-a-rather-long-name ", "next-gen ", "sharing "} {
		if !strings.Contains(want[7].Stdout, "\n"+g) {
			t.Errorf("Apache lists no group %q: %q", g, want[7].Stdout)
		}
	}
	// The native view: the same groups, with their types.
	r := kbox(t, kboxBin, "kafka-groups", "--bootstrap-server", bs, "--list", "-o", "json")
	var got struct {
		Groups []struct{ Group, Type, Protocol, State string }
	}
	if err := json.Unmarshal([]byte(r.Stdout), &got); r.Code != 0 || err != nil {
		t.Fatalf("%s: %v", r, err)
	}
	types := map[string]string{}
	for _, g := range got.Groups {
		types[g.Group] = g.Type
	}
	if types["simple"] != "Classic" || types["next-gen"] != "Consumer" || types["sharing"] != "Share" {
		t.Errorf("types %v", types)
	}
}
