//go:build integration

// Package getoffsets_test checks kafka-get-offsets against Apache 4.4's
// GetOffsetShell on a 1-broker cluster (every Apache case in one JVM), and
// kbox offsets get on the same data.
package getoffsets_test

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
	// base is the timestamp of each orders partition's first record; the
	// i-th record of a partition is at base + i*10 min.
	base time.Time
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "getoffsets", Applets: []string{"kafka-get-offsets"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return seed()
	}}))
}

// seed: orders (12 partitions, partition p holds p records, 10 minutes
// apart from base; partition 0 is empty), logs (3 partitions, 30 records
// on partition 1), empty (2 partitions).
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
	for name, p := range map[string]int32{"orders": 12, "logs": 3, "empty": 2} {
		if _, err := adm.CreateTopic(ctx, p, 1, nil, name); err != nil {
			return fmt.Errorf("create %s: %w", name, err)
		}
	}
	base = time.Now().Truncate(time.Minute).Add(-2 * time.Hour)
	var recs []*kgo.Record
	for p := int32(1); p < 12; p++ {
		for i := 0; i < int(p); i++ {
			recs = append(recs, &kgo.Record{Topic: "orders", Partition: p, Value: []byte("v"), Timestamp: base.Add(time.Duration(i) * 10 * time.Minute)})
		}
	}
	for i := 0; i < 30; i++ {
		recs = append(recs, &kgo.Record{Topic: "logs", Partition: 1, Value: []byte(strconv.Itoa(i))})
	}
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

func kbox(t *testing.T, path string, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.Exec(t, path, args...)
}

// firstLine is the line Apache prints before a Java stack trace.
func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func TestDifferential(t *testing.T) {
	bs := cluster.Bootstrap
	dir := t.TempDir()
	props := filepath.Join(dir, "client.properties")
	if err := os.WriteFile(props, []byte("client.id=someone\nrequest.timeout.ms=20000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	at := strconv.FormatInt(base.Add(25*time.Minute).UnixMilli(), 10)
	future := strconv.FormatInt(time.Now().Add(time.Hour).UnixMilli(), 10)
	b := func(args ...string) []string { return append([]string{"--bootstrap-server", bs}, args...) }
	cases := [][]string{
		b(),
		b("--exclude-internal-topics"),
		b("--topic", "orders"),
		b("--topic", "ord.*|logs", "--time", "-2"),
		b("--topic", "orders,empty", "--time", "earliest"),
		b("--topic", "orders", "--time", "-3"),
		b("--topic", "orders", "--time", "max-timestamp"),
		b("--topic", "orders", "--time", "-4"),
		b("--topic", "orders", "--time", "earliest-local"),
		b("--topic", "orders", "--time", "-5"),
		b("--topic", "orders", "--time", "latest-tiered"),
		b("--topic", "orders", "--time", "-6"),
		b("--topic", "orders", "--time", "earliest-pending-upload"),
		b("--topic", "orders", "--time", at),
		b("--topic", "orders", "--time", "0"),
		b("--topic", "orders", "--time", future),
		b("--topic", "orders", "--time", "-7"),
		b("--topic", "orders", "--partitions", "1,3,11,"),
		b("--partitions", "1"),
		b("--topic-partitions", "orders:1-3,logs:-2,:0"),
		b("--topic-partitions", "orders:9-,empty:"),
		b("--topic-partitions", "logs"),
		b("--topic", "orders", "--command-config", props),
		// Errors.
		b("--topic", "nope"),
		b("--topic-partitions", "nope:1"),
		b("--topic", "orders", "--partitions", "99"),
		b("--topic", "orders", "--partitions", "1,x"),
		b("--topic-partitions", "orders", "--topic", "orders"),
		b("--topic-partitions", "orders:x"),
		b("--topic-partitions", "orders:99999999999"),
		b("--topic", "("),
		b("--time", "abc"),
		b("--time"),
		b("--time", "1", "--time", "2"),
		b("--command-config", filepath.Join(dir, "missing.properties")),
		b("--bogus"),
		b("--broker-list", bs),
		{"--bootstrap-server", "bad"},
		{"--bootstrap-server", "127.0.0.1:1,,x:2"},
		{"--topic", "orders"},
		{"--help"},
		{"--version"},
		{},
	}
	want, err := cluster.ApacheBatch("kafka-get-offsets", cases)
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(binDir, "kafka-get-offsets")
	for i, args := range cases {
		w := want[i]
		// The admin client's own log4j ERROR line per failed partition is
		// a listed difference (see the package doc): not compared.
		w.Stderr = adminClientLog.ReplaceAllString(w.Stderr, "")
		got := kbox(t, link, args...)
		errOK := got.Stderr == w.Stderr
		if strings.Contains(w.Stderr, "\n\tat ") || strings.Contains(w.Stderr, "\n\tat\t") {
			errOK = firstLine(got.Stderr) == firstLine(w.Stderr) && strings.Count(got.Stderr, "\n") == 1
		}
		if got.Code != w.Code || got.Stdout != w.Stdout || !errOK {
			t.Errorf("%v:\nkbox   exit %d\nstdout %q\nstderr %.400q\napache exit %d\nstdout %q\nstderr %.400q", args, got.Code, got.Stdout, got.Stderr, w.Code, w.Stdout, w.Stderr)
		}
		if i == 0 && (w.Code != 0 || !strings.Contains(w.Stdout, "orders:11:11\n")) {
			t.Errorf("the seed is not what Apache sees: %q", w.Stdout)
		}
	}
	// The .sh link name and kbox's own names are the same tool.
	for _, argv := range [][]string{{"kafka-get-offsets.sh"}, {"kbox", "kafka-get-offsets"}, {"kbox", "offsets"}} {
		path := kboxBin
		args := append([]string(nil), argv[1:]...)
		if argv[0] != "kbox" {
			path = filepath.Join(binDir, argv[0])
			if err := os.Symlink(kboxBin, path); err != nil && !os.IsExist(err) {
				t.Fatal(err)
			}
		}
		args = append(args, "--bootstrap-server", bs, "--topic", "orders", "--time", at)
		if got := kbox(t, path, args...); got.Code != 0 || got.Stdout != want[13].Stdout {
			t.Errorf("%v: %s", argv, got)
		}
	}
}

type report struct {
	Time       string `json:"time"`
	AtMs       *int64 `json:"at_ms"`
	Partitions []struct {
		Topic       string `json:"topic"`
		Partition   int32  `json:"partition"`
		Offset      *int64 `json:"offset"`
		TimestampMs *int64 `json:"timestamp_ms"`
		Error       *string
	} `json:"partitions"`
}

func native(t *testing.T, args ...string) report {
	t.Helper()
	r := kbox(t, kboxBin, append([]string{"offsets", "get", "--bootstrap-server", cluster.Bootstrap, "-o", "json"}, args...)...)
	if r.Code != 0 {
		t.Fatalf("%v: %s", args, r)
	}
	var rep report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, r.Stdout)
	}
	return rep
}

// offsetsAt is what the seed makes of a time: partition p has records
// 0..p-1 at base + i*10 min, so the offset at base+d is ceil(d / 10 min),
// none when that is p or more.
func offsetsAt(d time.Duration) map[int32]*int64 {
	out := map[int32]*int64{}
	i := int64((d + 10*time.Minute - 1) / (10 * time.Minute))
	for p := int32(0); p < 12; p++ {
		if i < int64(p) {
			v := i
			out[p] = &v
		} else {
			out[p] = nil
		}
	}
	return out
}

func check(t *testing.T, what string, rep report, d time.Duration) {
	t.Helper()
	want := offsetsAt(d)
	if len(rep.Partitions) != 12 {
		t.Fatalf("%s: %d partitions", what, len(rep.Partitions))
	}
	for i, p := range rep.Partitions {
		w := want[int32(i)]
		if p.Topic != "orders" || p.Partition != int32(i) || (w == nil) != (p.Offset == nil) || (w != nil && *w != *p.Offset) {
			t.Errorf("%s: partition %d: %+v, want offset %v", what, i, p, w)
			continue
		}
		if w != nil {
			if ts := base.Add(time.Duration(*w) * 10 * time.Minute).UnixMilli(); p.TimestampMs == nil || *p.TimestampMs != ts {
				t.Errorf("%s: partition %d: timestamp %v, want %d", what, i, p.TimestampMs, ts)
			}
		}
	}
}

func TestNativeAt(t *testing.T) {
	// Local time, as a person types it (the test's zone is the command's).
	at := base.Add(25 * time.Minute)
	rep := native(t, "--topic", "orders", "--at", at.Local().Format("2006-01-02T15:04"))
	if rep.Time != "timestamp" || rep.AtMs == nil || *rep.AtMs != at.UnixMilli() {
		t.Errorf("time %q at %v, want %d", rep.Time, rep.AtMs, at.UnixMilli())
	}
	check(t, "--at local", rep, 25*time.Minute)
	// With a zone.
	check(t, "--at zoned", native(t, "--topic", "orders", "--at", base.Add(30*time.Minute).In(time.FixedZone("", -5*3600)).Format("2006-01-02T15:04:05-07:00")), 30*time.Minute)
	// --ago: now-65m is 55 to 56 minutes after base.
	check(t, "--ago", native(t, "--topic", "orders", "--ago", "65m"), 55*time.Minute+30*time.Second)
	// --time earliest: every non-empty partition at 0, timestamps not named.
	rep = native(t, "--topic", "orders", "--time", "earliest", "--partitions", "0,5")
	if rep.Time != "earliest" || rep.AtMs != nil || len(rep.Partitions) != 2 || rep.Partitions[0].Offset == nil || *rep.Partitions[0].Offset != 0 || *rep.Partitions[1].Offset != 0 {
		t.Errorf("--time earliest: %+v", rep)
	}
	// The table names the same offsets.
	r := kbox(t, kboxBin, "offsets", "get", "--bootstrap-server", cluster.Bootstrap, "--topic", "orders", "--partitions", "5", "--at", at.Local().Format("2006-01-02 15:04"))
	if r.Code != 0 || !strings.Contains(r.Stdout, "TOPIC") || !strings.Contains(r.Stdout, at.Add(5*time.Minute).Local().Format("2006-01-02T15:04:05.000")) {
		t.Errorf("table: %s", r)
	}
	// No partition: exit 1 with one line.
	r = kbox(t, kboxBin, "offsets", "get", "--bootstrap-server", cluster.Bootstrap, "--topic", "nope")
	if r.Code != 1 || r.Stderr != "kbox: error: no partition matches --topic and --partitions\n" {
		t.Errorf("unknown topic: %s", r)
	}
}
