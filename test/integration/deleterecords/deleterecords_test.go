//go:build integration

// Package deleterecords_test checks kafka-delete-records against Apache
// 4.4's DeleteRecordsCommand on a 1-broker cluster, every Apache case in
// one JVM. The deletes are idempotent (the same offsets twice), so Apache
// and kbox see the same cluster.
package deleterecords_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

// adminClientLog is a line the Java admin client logs for a partition whose
// request failed.
var adminClientLog = regexp.MustCompile(`(?m)^\[[^\]]+\] ERROR \[AdminClient clientId=[^\]]*\] \w+ request for topic partition \S+ failed due to an unexpected error \w+ \(org\.apache\.kafka\.clients\.admin\.internals\.\w+\)\n`)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "deleterecords", Applets: []string{"kafka-delete-records", "kafka-get-offsets"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return seed()
	}}))
}

// seed: orders (12 partitions, 10 records each), logs (3 partitions, 30
// records on partition 1).
func seed() error {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		// A topic just created may be unknown to the broker for a moment
		// on a loaded machine; the context bounds the wait.
		kgo.UnknownTopicRetries(-1))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for name, p := range map[string]int32{"orders": 12, "logs": 3} {
		if _, err := adm.CreateTopic(ctx, p, 1, nil, name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	var recs []*kgo.Record
	for p := int32(0); p < 12; p++ {
		for i := 0; i < 10; i++ {
			recs = append(recs, &kgo.Record{Topic: "orders", Partition: p, Value: []byte("v")})
		}
	}
	for i := 0; i < 30; i++ {
		recs = append(recs, &kgo.Record{Topic: "logs", Partition: 1, Value: []byte(strconv.Itoa(i))})
	}
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 90 * time.Second}.Exec(t, path, args...)
}

// javaTimeout is the admin client's TimeoutException line, whose message
// depends on where its retries were when the deadline passed ("Timed out
// waiting for a node assignment. Call: ..." or "Call(callName=...,
// deadlineMs=..., tries=N, ...) timed out at ... after N attempt(s)").
var javaTimeout = regexp.MustCompile(`(error: org\.apache\.kafka\.common\.errors\.TimeoutException: ).*`)

// sameLines compares the reports: the two header lines exactly, the
// per-partition lines as sets (Apache's order is salted per JVM run), a
// TimeoutException's message aside.
func sameLines(a, b string) bool {
	a, b = javaTimeout.ReplaceAllString(a, "${1}..."), javaTimeout.ReplaceAllString(b, "${1}...")
	la, lb := strings.Split(a, "\n"), strings.Split(b, "\n")
	if len(la) != len(lb) {
		return false
	}
	for i := 0; i < len(la) && i < 2; i++ {
		if la[i] != lb[i] {
			return false
		}
	}
	if len(la) > 2 {
		sort.Strings(la[2:])
		sort.Strings(lb[2:])
	}
	return strings.Join(la, "\n") == strings.Join(lb, "\n")
}

func TestDifferential(t *testing.T) {
	bs := cluster.Bootstrap
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	short := file("short.properties", "default.api.timeout.ms=4000\nrequest.timeout.ms=3000\n")
	ok := file("ok.json", `{"partitions":[{"topic":"logs","partition":1,"offset":5},{"topic":"orders","partition":2,"offset":1},{"topic":"orders","partition":3,"offset":-1},{"topic":"orders","partition":11,"offset":0},{"topic":"logs","partition":0,"offset":0}],"version":1}`)
	cases := [][]string{
		{"--bootstrap-server", bs, "--offset-json-file", ok},
		{"--bootstrap-server", bs, "--offset-json-file", file("oor.json", `{"partitions":[{"topic":"logs","partition":1,"offset":1000},{"topic":"orders","partition":4,"offset":3}]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("unknown.json", `{"partitions":[{"topic":"nope","partition":0,"offset":1},{"topic":"logs","partition":99,"offset":1},{"topic":"logs","partition":2,"offset":0}]}`), "--command-config", short},
		{"--bootstrap-server", bs, "--offset-json-file", file("empty.json", `{"partitions":[]}`)},
		// Errors.
		{"--bootstrap-server", bs, "--offset-json-file", filepath.Join(dir, "missing.json")},
		{"--bootstrap-server", bs, "--offset-json-file", file("bad.json", "not json")},
		{"--bootstrap-server", bs, "--offset-json-file", file("arr.json", "[1]")},
		{"--bootstrap-server", bs, "--offset-json-file", file("nop.json", "{}")},
		{"--bootstrap-server", bs, "--offset-json-file", file("v2.json", `{"version":2,"partitions":[]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("vstr.json", `{"version":"1","partitions":[]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("nooff.json", `{"partitions":[{"topic":"logs","partition":1}]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("strpart.json", `{"partitions":[{"topic":"logs","partition":"1","offset":2}]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("pobj.json", `{"partitions":{"a":1}}`)},
		{"--bootstrap-server", bs, "--offset-json-file", file("dup.json", `{"partitions":[{"topic":"logs","partition":1,"offset":2},{"topic":"orders","partition":3,"offset":1},{"topic":"logs","partition":1,"offset":3},{"topic":"orders","partition":3,"offset":1},{"topic":"orders","partition":10,"offset":0},{"topic":"orders","partition":10,"offset":0}]}`)},
		{"--bootstrap-server", bs, "--offset-json-file", ok, "--command-config", filepath.Join(dir, "missing.properties")},
		{"--bootstrap-server", "bad", "--offset-json-file", ok},
		{"--bootstrap-server", bs, "--bogus"},
		{"--bootstrap-server", bs},
		{"--offset-json-file", ok},
		{"--help"},
		{"--version"},
		{},
	}
	want, err := cluster.ApacheBatch("kafka-delete-records", cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, "kafka-delete-records")
	for i, args := range cases {
		w := want[i]
		// The admin client's own log4j ERROR line per failed partition is
		// a listed difference (see the package doc): not compared.
		w.Stderr = adminClientLog.ReplaceAllString(w.Stderr, "")
		got := kbox(t, link, args...)
		errOK := got.Stderr == w.Stderr
		if strings.Contains(w.Stderr, "\n\tat ") {
			first, _, _ := strings.Cut(w.Stderr, "\n")
			errOK = got.Stderr == first+"\n"
		}
		if got.Code != w.Code || !sameLines(got.Stdout, w.Stdout) || !errOK {
			t.Errorf("%v:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
	}
	if !strings.Contains(want[0].Stdout, "partition: logs-1\tlow_watermark: 5\n") || !strings.Contains(want[0].Stdout, "partition: orders-3\tlow_watermark: 10\n") {
		t.Errorf("Apache's delete is not what the seed makes: %q", want[0].Stdout)
	}
	// The records are gone: the earliest offsets moved.
	r := kbox(t, filepath.Join(binDir, "kafka-get-offsets"), "--bootstrap-server", bs, "--topic-partitions", "logs:1,orders:2-4", "--time", "earliest")
	if r.Code != 0 || r.Stdout != "logs:1:5\norders:2:1\norders:3:10\n" {
		t.Errorf("earliest offsets after the deletes: %s", r)
	}
	// kbox's own name is the same tool; the .sh link too.
	if err := os.Symlink(kboxBin, filepath.Join(binDir, "kafka-delete-records.sh")); err != nil {
		t.Fatal(err)
	}
	for _, run := range []testbed.Result{
		kbox(t, kboxBin, "delete-records", "--bootstrap-server", bs, "--offset-json-file", ok),
		kbox(t, filepath.Join(binDir, "kafka-delete-records.sh"), "--bootstrap-server", bs, "--offset-json-file", ok),
	} {
		if run.Code != 0 || !sameLines(run.Stdout, want[0].Stdout) {
			t.Errorf("%s", run)
		}
	}
}
