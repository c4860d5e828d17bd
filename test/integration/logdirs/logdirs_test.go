//go:build integration

// Package logdirs_test checks kafka-log-dirs against the real Apache tool
// on a 3-broker cluster, and the native report on the same data.
package logdirs_test

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string // holds kafka-log-dirs -> kbox
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "logdirs", Applets: []string{"kafka-log-dirs"}, Brokers: 3, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		if err := seed(); err != nil {
			return fmt.Errorf("seed: %w", err)
		}
		return nil
	}}))
}

// seed creates topics and produces data with acks=all, so every replica
// holds the same bytes when it returns.
func seed() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.RequiredAcks(kgo.AllISRAcks()))
	if err != nil {
		return err
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for _, t := range []struct {
		name string
		p    int32
		rf   int16
	}{{"orders", 6, 3}, {"logs", 3, 2}, {"empty", 2, 1}} {
		if _, err := adm.CreateTopic(ctx, t.p, t.rf, nil, t.name); err != nil {
			return fmt.Errorf("create %s: %w", t.name, err)
		}
	}
	var recs []*kgo.Record
	for i := 0; i < 3000; i++ {
		topic := "orders"
		if i%3 == 0 {
			topic = "logs"
		}
		recs = append(recs, &kgo.Record{Topic: topic, Key: []byte(fmt.Sprint(i)), Value: bytes.Repeat([]byte{'a' + byte(i%26)}, 200)})
	}
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		return err
	}
	// Wait until two reads a second apart agree (followers caught up).
	var prev string
	for i := 0; i < 30; i++ {
		out, _, code := kbox(nil, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "-o", "json", "--aggregate-into", "replica")
		if code == 0 && out == prev {
			return nil
		}
		prev = out
		time.Sleep(time.Second)
	}
	return fmt.Errorf("log dir sizes did not settle")
}

// kbox runs kafka-log-dirs, or the native `kbox log-dirs` when args start
// with "log-dirs". t is nil in seed (then a failure to run is not fatal).
func kbox(t *testing.T, args ...string) (string, string, int) {
	path := filepath.Join(binDir, "kafka-log-dirs")
	if len(args) > 0 && args[0] == "log-dirs" {
		path = kboxBin
	}
	var tb testing.TB
	if t != nil {
		tb = t
	}
	r := testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml")}.Exec(tb, path, args...)
	return r.Stdout, r.Stderr, r.Code
}

func apache(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	out, errOut, code, err := cluster.Apache(nil, "kafka-log-dirs", args...)
	if err != nil {
		t.Fatal(err)
	}
	return out, errOut, code
}

// firstErrLine drops Java's log lines and stack trace.
func firstErrLine(s string) string {
	for _, l := range strings.Split(s, "\n") {
		if l == "" || strings.HasPrefix(l, "[") {
			continue
		}
		return l
	}
	return ""
}

// compareApache runs both tools and compares exit codes, the two text
// lines exactly, the JSON line parsed (structure and content) and byte
// for byte (key and array order), and the first stderr line.
func compareApache(t *testing.T, args ...string) (string, int) {
	t.Helper()
	aOut, aErr, aCode := apache(t, args...)
	return compareResult(t, testbed.Result{Stdout: aOut, Stderr: aErr, Code: aCode}, args...)
}

// compareResult runs kbox with args and compares it with Apache's result
// a as compareApache does.
func compareResult(t *testing.T, a testbed.Result, args ...string) (string, int) {
	t.Helper()
	aOut, aErr, aCode := a.Stdout, a.Stderr, a.Code
	kOut, kErr, kCode := kbox(t, args...)
	if aCode != kCode {
		t.Errorf("%v: exit apache %d kbox %d\napache stderr: %s\nkbox stderr: %s", args, aCode, kCode, aErr, kErr)
	}
	if firstErrLine(aErr) != firstErrLine(kErr) {
		t.Errorf("%v: stderr apache %q kbox %q", args, firstErrLine(aErr), firstErrLine(kErr))
	}
	al, kl := strings.Split(aOut, "\n"), strings.Split(kOut, "\n")
	if len(al) != len(kl) {
		t.Fatalf("%v: stdout lines apache %d kbox %d\n%s\n---\n%s", args, len(al), len(kl), aOut, kOut)
	}
	for i := range al {
		if i == 2 {
			var aj, kj any
			if err := json.Unmarshal([]byte(al[i]), &aj); err != nil {
				t.Fatalf("apache JSON: %v", err)
			}
			if err := json.Unmarshal([]byte(kl[i]), &kj); err != nil {
				t.Fatalf("kbox JSON: %v: %s", err, kl[i])
			}
			if !reflect.DeepEqual(aj, kj) {
				t.Errorf("%v: JSON differs\napache %s\nkbox   %s", args, al[i], kl[i])
			} else if al[i] != kl[i] {
				t.Errorf("%v: JSON equal but key/array order differs\napache %s\nkbox   %s", args, al[i], kl[i])
			}
			continue
		}
		if al[i] != kl[i] {
			t.Errorf("%v: line %d apache %q kbox %q", args, i+1, al[i], kl[i])
		}
	}
	return kOut, kCode
}

func TestApacheDifferential(t *testing.T) {
	bs := cluster.Bootstrap
	cases := [][]string{
		{"--bootstrap-server", bs, "--describe"},
		{"--describe", "--bootstrap-server=" + bs, "--topic-list", "logs,empty,nosuch"},
		{"--bootstrap-server", bs, "--describe", "--topic-list", "nosuch"},
		{"--bootstrap-server", bs, "--describe", "--broker-list", "3,1"},
		{"--bootstrap-server", bs, "--describe", "--broker-list", "2,,2", "--topic-list", ",orders"},
		{"--bootstrap-server", bs, "--describe", "--broker-list", "2,9,7"},
		{"--bootstrap-server", bs, "--describe", "--broker-list", "42"},
		{"--bootstrap-server", bs, "--describe", "--broker-list", "1,x"},
		{"--bootstrap-server", bs, "--describe", "--topic-list", "a", "--topic-list", "b"},
		{"--bootstrap-server", bs, "-describe", "stray-positional"},
		{"--bootstrap-server", bs},
		{"--describe"},
		{"--bogus"},
		{"--help"},
		{},
		{"--version"},
	}
	// One JVM for every Apache case (a JVM start costs seconds); the cases
	// change nothing, so kbox runs after them on the same state.
	last := []string{"--bootstrap-server", bs, "--describe"}
	as, err := cluster.ApacheBatch("kafka-log-dirs", append(cases, last))
	if err != nil {
		t.Fatal(err)
	}
	for i, args := range cases {
		compareResult(t, as[i], args...)
	}
	out, code := compareResult(t, as[len(cases)], last...)
	if code != 0 || !strings.Contains(out, `"partition":"orders-0","size":`) || strings.Contains(out, `"partition":"orders-0","size":0,`) {
		t.Errorf("expected non-empty orders-0 replicas:\n%s", out)
	}
}

func nativeJSON(t *testing.T, v any, args ...string) string {
	t.Helper()
	out, errOut, code := kbox(t, append([]string{"log-dirs", "--bootstrap-server", cluster.Bootstrap, "-o", "json"}, args...)...)
	if code != 0 {
		t.Fatalf("%v: exit %d: %s", args, code, errOut)
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		t.Fatalf("%v: %v\n%s", args, err, out)
	}
	return errOut
}

func TestNativeReport(t *testing.T) {
	var dirs struct {
		Dirs []struct {
			Broker      int32
			Dir         string
			Error       *string
			SizeBytes   int64    `json:"size_bytes"`
			TotalBytes  *int64   `json:"total_bytes"`
			UsableBytes *int64   `json:"usable_bytes"`
			UsedPercent *float64 `json:"used_percent"`
			Partitions  int
		}
		FailedBrokers []any `json:"failed_brokers"`
	}
	nativeJSON(t, &dirs)
	if len(dirs.Dirs) != 3 || len(dirs.FailedBrokers) != 0 {
		t.Fatalf("dirs: %+v", dirs)
	}
	total := 0
	for _, d := range dirs.Dirs {
		if d.Error != nil || d.TotalBytes == nil || *d.TotalBytes <= 0 || d.UsableBytes == nil || d.UsedPercent == nil {
			t.Errorf("dir without volume numbers (DescribeLogDirs v4): %+v", d)
		}
		total += d.Partitions
	}
	// 6×3 + 3×2 + 2×1 replicas, plus __consumer_offsets if it exists.
	if total < 26 {
		t.Errorf("replicas: %d", total)
	}

	var topics struct {
		Topics []struct {
			Topic         string
			Partitions    int
			Replicas      int
			PhysicalBytes int64 `json:"physical_bytes"`
			LogicalBytes  int64 `json:"logical_bytes"`
		}
	}
	nativeJSON(t, &topics, "--aggregate-into", "topic", "--topic-regex", "^(orders|logs)$", "--sort-by-size")
	if len(topics.Topics) != 2 || topics.Topics[0].Topic != "orders" {
		t.Fatalf("topics: %+v", topics)
	}
	for _, tp := range topics.Topics {
		rf := int64(3)
		if tp.Topic == "logs" {
			rf = 2
		}
		if tp.LogicalBytes <= 0 || tp.PhysicalBytes != rf*tp.LogicalBytes {
			t.Errorf("%s: physical %d should be %d × logical %d", tp.Topic, tp.PhysicalBytes, rf, tp.LogicalBytes)
		}
	}
	// In-sync replicas of equal size: no health issues.
	var health struct {
		Health []any `json:"replica_health"`
	}
	nativeJSON(t, &health, "--health", "--skew-min-bytes", "0", "--skew-threshold", "0")
	if len(health.Health) != 0 {
		t.Errorf("unexpected health issues: %v", health.Health)
	}
	// Table with --top: sizes in binary units by default (-H is still
	// accepted), byte counts with --bytes.
	for _, args := range [][]string{nil, {"-H"}} {
		out, _, code := kbox(t, append([]string{"log-dirs", "--bootstrap-server", cluster.Bootstrap, "--aggregate-into", "partition", "--top", "2", "--sort-by-size"}, args...)...)
		lines := strings.Split(strings.TrimSpace(out), "\n")
		if code != 0 || len(lines) != 3 || !strings.HasPrefix(lines[0], "TOPIC") || !regexp.MustCompile(`\d\.\d KiB`).MatchString(out) {
			t.Errorf("partition table %v:\n%s", args, out)
		}
	}
	out, _, code := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--aggregate-into", "partition", "--top", "2", "--sort-by-size", "--bytes")
	if code != 0 || strings.Contains(out, "iB") || !regexp.MustCompile(`(?m)^\S+\s+\d+\s+\d+\s+\d+\s+\d{4,}\s+\d{4,}\s`).MatchString(out) {
		t.Errorf("partition table --bytes:\n%s", out)
	}
	out, _, code = kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--aggregate-into", "dir")
	if code != 0 || !regexp.MustCompile(`\d\.\d GiB`).MatchString(out) {
		t.Errorf("dir table: volume sizes not in GiB:\n%s", out)
	}
	// Unknown broker: non-zero, one line.
	_, errOut, code := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--broker-list", "1,9")
	if code != 1 || strings.TrimSpace(errOut) != "kbox: error: unknown broker 9 in --broker-list (cluster brokers: 1,2,3)" {
		t.Errorf("unknown broker: %d %q", code, errOut)
	}
}

// TestOfflineLogDir gives broker 3 a second log dir, places a partition
// there, deletes the directory under the running broker and waits for
// the broker to mark it offline (a failed checkpoint write). Both tools
// must report the KafkaStorageException.
func TestOfflineLogDir(t *testing.T) {
	const id = 3
	nd := filepath.Join(cluster.Dir, fmt.Sprintf("n%d", id))
	extra := filepath.Join(nd, "data2")
	if err := cluster.StopBroker(id, false); err != nil {
		t.Fatal(err)
	}
	meta, err := os.ReadFile(filepath.Join(nd, "data", "meta.properties"))
	if err != nil {
		t.Fatal(err)
	}
	var u [16]byte
	rand.Read(u[:])
	dirID := base64.RawURLEncoding.EncodeToString(u[:])
	meta = regexp.MustCompile(`(?m)^directory\.id=.*$`).ReplaceAll(meta, []byte("directory.id="+dirID))
	os.MkdirAll(extra, 0o755)
	if err := os.WriteFile(filepath.Join(extra, "meta.properties"), meta, 0o644); err != nil {
		t.Fatal(err)
	}
	props := filepath.Join(nd, "server.properties")
	f, err := os.OpenFile(props, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(f, "\nlog.dirs=%s,%s\nlog.flush.offset.checkpoint.interval.ms=1000\nlog.flush.start.offset.checkpoint.interval.ms=1000\n", filepath.Join(nd, "data"), extra)
	f.Close()
	if err := cluster.StartBroker(id); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--broker-list", "3", "-o", "json")
	if code != 0 {
		t.Fatalf("after restart: %s", errOut)
	}
	// Both dirs are on one volume: the broker's volume is that volume,
	// not the sum of two dirs' readings (their free bytes differ by
	// whatever was written between the two reads).
	var dirs struct {
		Dirs []struct {
			Dir        string `json:"dir"`
			TotalBytes *int64 `json:"total_bytes"`
		} `json:"dirs"`
	}
	nativeJSON(t, &dirs, "--broker-list", "3")
	var brokers struct {
		Brokers []struct {
			Dirs       int    `json:"dirs"`
			TotalBytes *int64 `json:"total_bytes"`
		} `json:"brokers"`
	}
	nativeJSON(t, &brokers, "--broker-list", "3", "--aggregate-into", "broker")
	if len(dirs.Dirs) != 2 || dirs.Dirs[0].TotalBytes == nil || len(brokers.Brokers) != 1 || brokers.Brokers[0].Dirs != 2 ||
		brokers.Brokers[0].TotalBytes == nil || *brokers.Brokers[0].TotalBytes != *dirs.Dirs[0].TotalBytes {
		t.Errorf("broker 3 with two dirs on one volume: dirs %+v, broker %+v", dirs.Dirs, brokers.Brokers)
	}
	if tbl, _, _ := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--aggregate-into", "broker", "--broker-list", "3"); !strings.Contains(tbl, "dirs may share a volume") {
		t.Errorf("broker table without the shared-volume note:\n%s", tbl)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	// A partition on broker 3 only: the new, empty dir gets it.
	ct := kmsg.NewPtrCreateTopicsRequest()
	ctt := kmsg.NewCreateTopicsRequestTopic()
	ctt.Topic, ctt.NumPartitions, ctt.ReplicationFactor = "doomed", -1, -1
	as := kmsg.NewCreateTopicsRequestTopicReplicaAssignment()
	as.Partition, as.Replicas = 0, []int32{id}
	ctt.ReplicaAssignment = append(ctt.ReplicaAssignment, as)
	ct.Topics = append(ct.Topics, ctt)
	ct.TimeoutMillis = 15000
	resp, err := ct.RequestWith(ctx, cl)
	if err != nil || resp.Topics[0].ErrorCode != 0 {
		t.Fatalf("create doomed: %v %+v", err, resp)
	}
	var placed bool
	for i := 0; i < 20 && !placed; i++ {
		_, err := os.Stat(filepath.Join(extra, "doomed-0"))
		placed = err == nil
		if !placed {
			time.Sleep(500 * time.Millisecond)
		}
	}
	if !placed {
		t.Skip("could not place a partition in the second log dir; offline-dir case not exercised")
	}
	if err := os.RemoveAll(extra); err != nil {
		t.Fatal(err)
	}
	var offline bool
	for i := 0; i < 30 && !offline; i++ {
		var r struct {
			Dirs []struct {
				Dir   string
				Error *string
			}
		}
		nativeJSON(t, &r, "--broker-list", "3")
		for _, d := range r.Dirs {
			if d.Dir == extra && d.Error != nil && *d.Error == "offline (KAFKA_STORAGE_ERROR)" {
				offline = true
			}
		}
		if !offline {
			time.Sleep(time.Second)
		}
	}
	if !offline {
		t.Fatalf("broker 3 never reported %s offline", extra)
	}
	out, _ := compareApache(t, "--bootstrap-server", cluster.Bootstrap, "--describe", "--broker-list", "3")
	want := `{"partitions":[],"error":"org.apache.kafka.common.errors.KafkaStorageException","logDir":"` + extra + `"}`
	if !strings.Contains(out, want) {
		t.Errorf("apache output lacks %s:\n%s", want, out)
	}
	tbl, _, _ := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--aggregate-into", "broker", "--broker-list", "3")
	if !strings.Contains(tbl, "2 (1 offline)") || !strings.Contains(tbl, "offline (KAFKA_STORAGE_ERROR)") {
		t.Errorf("broker table:\n%s", tbl)
	}
}

// TestBrokerStopped must run last: it stops broker 2.
func TestBrokerStopped(t *testing.T) {
	if err := cluster.StopBroker(2, false); err != nil {
		t.Fatal(err)
	}
	out, errOut, code := kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap)
	if code != 0 {
		t.Fatalf("partial result must exit 0: %d %s", code, errOut)
	}
	if !regexp.MustCompile(`(?m)^kbox: warning: partial result, no answer from broker 2 \(.+\)$`).MatchString(errOut) {
		t.Errorf("failure line: %q", errOut)
	}
	if strings.Contains(out, "\n2 ") || !strings.Contains(out, "\n1 ") || !strings.Contains(out, "\n3 ") {
		t.Errorf("rows:\n%s", out)
	}
	var r struct {
		Failed []struct {
			Broker int32
			Error  string
		} `json:"failed_brokers"`
	}
	nativeJSON(t, &r)
	if len(r.Failed) != 1 || r.Failed[0].Broker != 2 || r.Failed[0].Error == "" {
		t.Errorf("failed_brokers: %+v", r.Failed)
	}
	// Nothing readable: non-zero.
	_, errOut, code = kbox(t, "log-dirs", "--bootstrap-server", cluster.Bootstrap, "--broker-list", "2")
	if code != 1 || !strings.Contains(errOut, "no broker answered: broker 2") {
		t.Errorf("only broker 2: %d %q", code, errOut)
	}
	// The drop-in sees what Apache sees (a stopped broker is fenced and
	// leaves the cluster's broker list).
	compareApache(t, "--bootstrap-server", cluster.Bootstrap, "--describe")
	compareApache(t, "--bootstrap-server", cluster.Bootstrap, "--describe", "--broker-list", "2")
}
