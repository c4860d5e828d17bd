//go:build integration

// Package replicas_test checks kafka-replica-verification against Apache
// 4.4's ReplicaVerificationTool on a 3-broker cluster (its error cases in
// one JVM; its report lines side by side with the drop-in's, both stopped
// after a few reports), and kbox replicas verify's verdict on a follower
// whose segment copy was corrupted on disk while it was stopped.
package replicas_test

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	binDir  string
)

const topic = "rv"

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "replicas", Applets: []string{"kafka-replica-verification"}, Brokers: 3,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			return seed()
		}}))
}

func client() (*kgo.Client, error) {
	return kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.RecordPartitioner(kgo.ManualPartitioner()),
		kgo.ProducerBatchCompression(kgo.NoCompression()), kgo.UnknownTopicRetries(-1))
}

// seed: rv, 3 partitions on all 3 brokers, 100 uncompressed records each
// (one batch per partition).
func seed() error {
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cl, err := client()
	if err != nil {
		return err
	}
	defer cl.Close()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 3, nil, topic); err != nil {
		return err
	}
	var recs []*kgo.Record
	for p := int32(0); p < 3; p++ {
		for i := 0; i < 100; i++ {
			recs = append(recs, &kgo.Record{Topic: topic, Partition: p, Value: []byte(fmt.Sprintf("value-%03d-of-partition-%d", i, p))})
		}
	}
	return cl.ProduceSync(ctx, recs...).FirstErr()
}

func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 120 * time.Second}.Exec(t, kboxBin, args...)
}

// javaTrace matches the lines of a Java stack trace Apache prints after an
// exception's message (kbox prints the message only).
var javaTrace = regexp.MustCompile(`(?m)^(\S+(Exception|Error)(: .*)?|\s+at .*|\s*\.\.\. \d+ more|Caused by: .*)\n`)

// noTrace is Apache's stderr without its stack traces (and the blank line
// that ends one).
func noTrace(s string) string {
	if !javaTrace.MatchString(s) {
		return s
	}
	return strings.TrimRight(javaTrace.ReplaceAllString(s, ""), "\n") + "\n"
}

// stamps are the tools' timestamps: log4j's "[yyyy-MM-dd HH:mm:ss,SSS]"
// and the report's "yyyy-MM-dd HH:mm:ss,SSS:".
var stamps = regexp.MustCompile(`\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}`)

func norm(s string) string { return stamps.ReplaceAllString(s, "TIME") }

// The error paths print what Apache prints (stack traces aside), on the
// same stream, with the same exit code.
func TestErrorsMatchApache(t *testing.T) {
	bs := cluster.Bootstrap
	cases := [][]string{
		{},
		{"--help"},
		{"--broker-list"},
		{"--broker-list", "x"},
		{"--bogus"},
		{"--fetch-size", "1"},
		{"--broker-list", bs, "--topics-include", "no-such-topic"},
		{"--broker-list", bs, "--topics-include", "("},
		{"--broker-list", bs, "--topics-include", topic, "--fetch-size", "abc"},
		{"--broker-list", bs, "--topics-include", topic, "--report-interval-ms", "1x"},
	}
	want, err := cluster.ApacheBatch("kafka-replica-verification", cases)
	if err != nil {
		t.Fatal(err)
	}
	for i, c := range cases {
		got := testbed.Runner{Config: filepath.Join(binDir, "no-config.yaml"), Timeout: 60 * time.Second}.
			Exec(t, filepath.Join(binDir, "kafka-replica-verification"), c...)
		wantErr := norm(noTrace(want[i].Stderr))
		if got.Code != want[i].Code || got.Stdout != want[i].Stdout || norm(got.Stderr) != wantErr {
			t.Errorf("%v:\nkbox %s\napache exit %d\nstdout:\n%s\nstderr:\n%s", c, got, want[i].Code, want[i].Stdout, wantErr)
		}
	}
}

// lines runs argv until it has printed n lines on stdout (or timeout), then
// kills its process group (the tool runs until killed), and returns them.
func lines(t *testing.T, n int, timeout time.Duration, env []string, argv ...string) []string {
	t.Helper()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(timeout, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
	defer timer.Stop()
	var got []string
	sc := bufio.NewScanner(out)
	for len(got) < n && sc.Scan() {
		got = append(got, sc.Text())
	}
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Wait()
	if len(got) < n {
		t.Fatalf("%v: %d of %d lines before the timeout:\n%s\nstderr:\n%s", argv, len(got), n, strings.Join(got, "\n"), errb.String())
	}
	return got
}

// reportLine is a report of the tool; the lag may vary between two runs.
var lagNumber = regexp.MustCompile(`max lag is -?\d+ `)

// corrupt flips a byte of the value of the record at offset 2 in the first
// batch of the segment file (uncompressed records; the batch's stored CRC
// is left as it was, so the bytes no longer match it).
func corrupt(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	pos := 61 // the first record of the first batch
	for i := 0; i < 3; i++ {
		size, n := binary.Varint(b[pos:])
		if i == 2 {
			b[pos+n+int(size)-2] ^= 0x01 // the value's last byte (a 0-header count follows)
		}
		pos += n + int(size)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// A byte flipped on a stopped follower's disk survives its clean restart
// (a clean shutdown leaves no segment to recover, and followers do not
// check CRCs of what they already hold): the verdict names the partition,
// the offset and the follower; Apache's tool, which compares the stored
// checksums, and the drop-in print the same "max lag" lines.
func TestCorruptFollower(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, err := client()
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	td, err := adm.ListTopics(ctx, topic)
	if err != nil {
		t.Fatal(err)
	}
	p := td[topic].Partitions[0]
	follower := p.Replicas[0]
	if follower == p.Leader {
		follower = p.Replicas[1]
	}
	if err := cluster.StopBroker(int(follower), false); err != nil {
		t.Fatal(err)
	}
	corrupt(t, filepath.Join(cluster.Dir, fmt.Sprintf("n%d", follower), "data", topic+"-0", "00000000000000000000.log"))
	if err := cluster.StartBroker(int(follower)); err != nil {
		t.Fatal(err)
	}
	// Wait until the follower is in sync again on every partition.
	for {
		td, err := adm.ListTopics(ctx, topic)
		if err == nil && td[topic].Err == nil {
			in := 0
			for _, pd := range td[topic].Partitions {
				if len(pd.ISR) == 3 {
					in++
				}
			}
			if in == 3 {
				break
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("the restarted broker %d did not rejoin every ISR: %v", follower, err)
		}
		time.Sleep(200 * time.Millisecond) // polling observable state
	}
	type report struct {
		Diverged   int `json:"partitions_diverged"`
		Partitions []struct {
			Partition  int32
			Status     string
			OutOfSync  []int32 `json:"replicas_out_of_sync"`
			Divergence *struct {
				Offset  int64
				Replica int32
				Reason  string
			}
		}
	}
	// The broker kbox asks may learn of the ISR a moment after the one
	// asked above: until its metadata has the follower back in sync, the
	// verdict leaves the follower out (replicas_out_of_sync). Run it again
	// until it compares every replica.
	var rep report
	var r testbed.Result
	for {
		r = kbox(t, "replicas", "verify", "--bootstrap-server", cluster.Bootstrap, "--topic", topic, "-o", "json")
		rep = report{}
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
			t.Fatalf("kbox replicas verify: %v\n%s", err, r)
		}
		synced := true
		for _, pr := range rep.Partitions {
			synced = synced && len(pr.OutOfSync) == 0
		}
		if synced {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("kbox replicas verify never compared every replica:\n%s", r)
		}
		time.Sleep(200 * time.Millisecond) // polling observable state
	}
	if r.Code != 1 {
		t.Fatalf("kbox replicas verify: want exit 1 (diverged)\n%s", r)
	}
	for _, pr := range rep.Partitions {
		d := pr.Divergence
		switch {
		case pr.Partition == 0 && (pr.Status != "diverged" || d == nil || d.Offset != 2 || d.Replica != follower || d.Reason != "crc_mismatch"):
			t.Errorf("partition 0: want diverged at offset 2 on replica %d (crc_mismatch)\n%s", follower, r.Stdout)
		case pr.Partition != 0 && pr.Status != "ok":
			t.Errorf("partition %d: want ok\n%s", pr.Partition, r.Stdout)
		}
	}
	table := kbox(t, "replicas", "verify", "--bootstrap-server", cluster.Bootstrap, "--topic", topic)
	if table.Code != 1 || !strings.Contains(table.Stdout, fmt.Sprintf("offset 2: replica %d differs", follower)) {
		t.Errorf("the table names no divergence:\n%s", table)
	}
	compareReports(t)
}

// compareReports runs Apache's tool and the drop-in side by side until
// each printed three reports: the same lines, timestamps and lag values
// aside.
func compareReports(t *testing.T) {
	args := []string{"--broker-list", cluster.Bootstrap, "--topics-include", topic, "--time", "-2", "--report-interval-ms", "300"}
	apache := lines(t, 4, 3*time.Minute, []string{"KBOX_TESTBED_DIR=" + cluster.Dir},
		append([]string{testbed.Script(), "apache", "kafka-replica-verification"}, args...)...)
	got := lines(t, 4, time.Minute, []string{"KBOX_CONFIG=" + filepath.Join(binDir, "no-config.yaml")},
		append([]string{filepath.Join(binDir, "kafka-replica-verification")}, args...)...)
	for i := range apache {
		w, g := lagNumber.ReplaceAllString(norm(apache[i]), "max lag is N "), lagNumber.ReplaceAllString(norm(got[i]), "max lag is N ")
		if w != g {
			t.Errorf("line %d: kbox %q, apache %q", i, got[i], apache[i])
		}
	}
	if !strings.Contains(got[1], "max lag is 0 ") {
		t.Errorf("the drop-in noticed the corruption, which Apache's tool does not: %q", got[1])
	}
}
