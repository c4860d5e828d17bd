//go:build integration

// Package verify_test runs kbox's verifiable producer and consumer against
// a real 3-broker Apache Kafka test bed, in both interop directions with
// the Apache tools, under a leader SIGKILL and a rolling restart, and has
// `kbox verify check` judge every run.
package verify_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	kboxBin string
	binDir  string
	cluster *testbed.Cluster
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{
		Name:    "verify",
		Applets: []string{"kafka-verifiable-producer", "kafka-verifiable-consumer", "kafka-topics", "kafka-consumer-groups"},
		Brokers: 3,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			return nil
		},
	}))
}

func createTopic(t *testing.T, name string) {
	t.Helper()
	_, stderr, code, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.PlaintextBootstrap, "--create", "--topic", name,
		"--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=2")
	if err != nil || code != 0 {
		t.Fatalf("create topic: %v %d %s", err, code, stderr)
	}
}

// proc is a background tool writing its stdout to a file.
type proc struct {
	cmd  *exec.Cmd
	out  string
	done chan error
}

func start(t *testing.T, out string, name string, args ...string) *proc {
	t.Helper()
	fh, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	errf, _ := os.Create(out + ".err")
	cmd := exec.Command(name, args...)
	cmd.Stdout, cmd.Stderr = fh, errf
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &proc{cmd: cmd, out: out, done: make(chan error, 1)}
	go func() { p.done <- cmd.Wait(); fh.Close(); errf.Close() }()
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			_ = cmd.Process.Kill()
			<-p.done
		}
	})
	return p
}

func (p *proc) wait(t *testing.T, d time.Duration) {
	t.Helper()
	select {
	case err := <-p.done:
		if err != nil {
			b, _ := os.ReadFile(p.out + ".err")
			t.Fatalf("%s: %v\n%s", p.out, err, b)
		}
	case <-time.After(d):
		_ = p.cmd.Process.Kill()
		t.Fatalf("%s did not finish within %s", p.out, d)
	}
}

// stop sends SIGTERM and waits; the tools exit 143 then.
func (p *proc) stop(t *testing.T) {
	t.Helper()
	_ = p.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(60 * time.Second):
		_ = p.cmd.Process.Kill()
		t.Fatalf("%s ignored SIGTERM", p.out)
	}
}

// apacheCmd runs an Apache tool through testbed.sh in the background.
func apacheArgs(tool string, args ...string) (string, []string) {
	return "bash", append([]string{testbed.Script(), "apache", tool}, args...)
}

type event struct {
	Timestamp  int64  `json:"timestamp"`
	Name       string `json:"name"`
	Exception  string `json:"exception"`
	Sent       int    `json:"sent"`
	Success    *bool  `json:"success"`
	Partition  int32  `json:"partition"`
	Offset     int64  `json:"offset"`
	Partitions []struct {
		Partition int32 `json:"partition"`
		MaxOffset int64 `json:"maxOffset"`
	} `json:"partitions"`
}

func events(t *testing.T, path string) []event {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []event
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) == nil && e.Name != "" {
			out = append(out, e)
		}
	}
	return out
}

// lastAcked is the producer log's highest acked offset per partition.
func lastAcked(t *testing.T, path string) map[int32]int64 {
	m := map[int32]int64{}
	for _, e := range events(t, path) {
		if e.Name == "producer_send_success" && e.Offset >= m[e.Partition] {
			m[e.Partition] = e.Offset
		}
	}
	return m
}

// waitCaughtUp waits until the consumer log has consumed every partition
// up to the last acked offset (the checker's R1 "caught up").
func waitCaughtUp(t *testing.T, consumerLog string, acked map[int32]int64, d time.Duration) {
	t.Helper()
	waitCaughtUpAll(t, []string{consumerLog}, acked, d)
}

type verdict struct {
	Valid         bool     `json:"valid"`
	BadErrorTypes []string `json:"bad_error_types"`
	Anomalies     []struct {
		Type     string   `json:"type"`
		Count    int      `json:"count"`
		Examples []string `json:"examples"`
	} `json:"anomalies"`
	Stats struct {
		Acked          int   `json:"acked"`
		Consumed       int64 `json:"consumed"`
		UniqueConsumed int   `json:"unique_consumed"`
		TxnCommitted   int   `json:"txn_committed"`
		TxnAborted     int   `json:"txn_aborted"`
	} `json:"stats"`
	Liveness *struct {
		AcksAfterFault int  `json:"acks_after_fault"`
		Judged         bool `json:"judged"`
		MinAcks        int  `json:"min_acks"`
	} `json:"liveness"`
}

func (v verdict) count(typ string) int {
	for _, a := range v.Anomalies {
		if a.Type == typ {
			return a.Count
		}
	}
	return 0
}

func check(t *testing.T, wantExit int, args ...string) verdict {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, kboxBin, append([]string{"verify", "check", "-o", "json", "--bootstrap-server", cluster.PlaintextBootstrap}, args...)...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+filepath.Join(t.TempDir(), "none.yaml"))
	out, err := cmd.Output()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	var v verdict
	if jerr := json.Unmarshal(out, &v); jerr != nil {
		t.Fatalf("verify check output %q: %v", out, jerr)
	}
	if code != wantExit {
		t.Fatalf("verify check exit %d, want %d: %s", code, wantExit, out)
	}
	return v
}

func kboxTool(name string) string { return filepath.Join(binDir, name) }

// TestInteropApacheProducerKboxConsumer: Apache's producer, kbox's consumer.
func TestInteropApacheProducerKboxConsumer(t *testing.T) {
	const topic, n = "interop-a", 3000
	createTopic(t, topic)
	dir := t.TempDir()
	cons := start(t, filepath.Join(dir, "c.log"), kboxTool("kafka-verifiable-consumer"), "--topic", topic, "--group-id", "ga",
		"--bootstrap-server", cluster.Bootstrap, "--verbose", "--max-messages", strconv.Itoa(n))
	name, args := apacheArgs("kafka-verifiable-producer", "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
		"--max-messages", strconv.Itoa(n), "--throughput", "2000", "--value-prefix", "7")
	prod := start(t, filepath.Join(dir, "p.log"), name, args...)
	prod.wait(t, 90*time.Second)
	cons.wait(t, 60*time.Second)
	v := check(t, 0, "--producer-log", prod.out, "--consumer-log", cons.out)
	if v.Stats.Acked != n || v.Stats.UniqueConsumed != n {
		t.Errorf("acked %d consumed %d, want %d", v.Stats.Acked, v.Stats.UniqueConsumed, n)
	}
	// The negative end-to-end test: remove one consumed record and repeat
	// another; the verdict must name both anomalies.
	b, _ := os.ReadFile(cons.out)
	lines := strings.Split(string(b), "\n")
	var edited []string
	removed, duplicated := false, false
	for _, l := range lines {
		if strings.Contains(l, `"name":"record_data"`) {
			if !removed && strings.Contains(l, `"value":"7.100"`) {
				removed = true
				continue
			}
			if !duplicated && strings.Contains(l, `"value":"7.200"`) {
				duplicated = true
				edited = append(edited, l)
			}
		}
		edited = append(edited, l)
	}
	if !removed || !duplicated {
		t.Fatal("values 7.100/7.200 not in the consumer log")
	}
	bad := filepath.Join(dir, "c-edited.log")
	_ = os.WriteFile(bad, []byte(strings.Join(edited, "\n")), 0o644)
	v = check(t, 3, "--producer-log", prod.out, "--consumer-log", bad)
	if v.count("lost") != 1 || v.count("lost-in-consumption") != 1 || v.count("duplicate-offset") != 1 {
		t.Errorf("edited log: %+v", v)
	}
}

// TestInteropKboxProducerApacheConsumer: kbox's producer, Apache's consumer.
func TestInteropKboxProducerApacheConsumer(t *testing.T) {
	const topic, n = "interop-b", 3000
	createTopic(t, topic)
	dir := t.TempDir()
	name, args := apacheArgs("kafka-verifiable-consumer", "--topic", topic, "--group-id", "gb",
		"--bootstrap-server", cluster.Bootstrap, "--verbose", "--max-messages", strconv.Itoa(n))
	cons := start(t, filepath.Join(dir, "c.log"), name, args...)
	prod := start(t, filepath.Join(dir, "p.log"), kboxTool("kafka-verifiable-producer"), "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
		"--max-messages", strconv.Itoa(n), "--throughput", "2000", "--repeating-keys", "10")
	prod.wait(t, 60*time.Second)
	cons.wait(t, 90*time.Second)
	v := check(t, 0, "--producer-log", prod.out, "--consumer-log", cons.out)
	if v.Stats.Acked != n || v.Stats.UniqueConsumed != n {
		t.Errorf("acked %d consumed %d, want %d", v.Stats.Acked, v.Stats.UniqueConsumed, n)
	}
}

var leaderRe = regexp.MustCompile(`Partition: 0\s+Leader: (\d+)`)

func leaderOfP0(t *testing.T, topic string) int {
	t.Helper()
	out, _, _, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.PlaintextBootstrap, "--describe", "--topic", topic)
	if err != nil {
		t.Fatal(err)
	}
	m := leaderRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no leader in %q", out)
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

var coordinatorRe = regexp.MustCompile(`\((\d+)\)`)

// coordinatorOf is the group's coordinator, from Apache's consumer groups
// tool.
func coordinatorOf(t *testing.T, group string) int {
	t.Helper()
	out, _, _, err := cluster.Apache(nil, "kafka-consumer-groups", "--bootstrap-server", cluster.PlaintextBootstrap, "--describe", "--group", group, "--state")
	if err != nil {
		t.Fatal(err)
	}
	m := coordinatorRe.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no coordinator in %q", out)
	}
	id, _ := strconv.Atoi(m[1])
	return id
}

// faultRun produces at a fixed rate with kbox's tools while fault runs,
// stops the producer, waits for the consumer to catch up with every acked
// offset, and returns the verdict.
func faultRun(t *testing.T, topic string, idempotent bool, fault func()) verdict {
	createTopic(t, topic)
	dir := t.TempDir()
	cons := start(t, filepath.Join(dir, "c.log"), kboxTool("kafka-verifiable-consumer"), "--topic", topic, "--group-id", "g-"+topic,
		"--bootstrap-server", cluster.Bootstrap, "--verbose")
	pargs := []string{"--topic", topic, "--bootstrap-server", cluster.Bootstrap, "--max-messages", "60000", "--throughput", "400"}
	if idempotent {
		cfg := filepath.Join(dir, "producer.properties")
		_ = os.WriteFile(cfg, []byte("enable.idempotence=true\nretries=2147483647\nmax.in.flight.requests.per.connection=5\n"), 0o644)
		pargs = append(pargs, "--command-config", cfg)
	}
	prod := start(t, filepath.Join(dir, "p.log"), kboxTool("kafka-verifiable-producer"), pargs...)
	time.Sleep(3 * time.Second)
	fault()
	time.Sleep(3 * time.Second)
	prod.stop(t)
	if code := prod.cmd.ProcessState.ExitCode(); code != 143 && !(prod.cmd.ProcessState.Sys().(syscall.WaitStatus).Signaled()) {
		t.Errorf("producer exit %d after SIGTERM, want 143", code)
	}
	acked := lastAcked(t, prod.out)
	waitCaughtUp(t, cons.out, acked, 90*time.Second)
	cons.stop(t)
	args := []string{"--producer-log", prod.out, "--consumer-log", cons.out}
	if idempotent {
		args = append(args, "--idempotent")
	}
	v := check(t, 0, args...)
	if v.Stats.Acked < 1000 {
		t.Errorf("only %d acked", v.Stats.Acked)
	}
	if v.count("lost") != 0 || v.count("unseen") != 0 {
		t.Errorf("acked records lost: %+v", v)
	}
	if idempotent && v.count("duplicate") != 0 {
		t.Errorf("duplicates with idempotence: %+v", v)
	}
	t.Logf("acked %d, consumed %d (distinct %d), anomalies %+v", v.Stats.Acked, v.Stats.Consumed, v.Stats.UniqueConsumed, v.Anomalies)
	return v
}

// TestLeaderKill: SIGKILL the leader of partition 0 mid-run, restart it;
// idempotent producer: nothing lost, no duplicates.
func TestLeaderKill(t *testing.T) {
	faultRun(t, "fault-kill", true, func() {
		id := leaderOfP0(t, "fault-kill")
		if err := cluster.StopBroker(id, true); err != nil {
			t.Fatal(err)
		}
		time.Sleep(5 * time.Second)
		if err := cluster.StartBroker(id); err != nil {
			t.Fatal(err)
		}
	})
}

// TestRollingRestart: clean restart of every broker with Apache's default
// producer settings (retries=0): failed sends are allowed, lost acks not.
func TestRollingRestart(t *testing.T) {
	faultRun(t, "fault-roll", false, func() {
		for id := 1; id <= cluster.Brokers; id++ {
			if err := cluster.StopBroker(id, false); err != nil {
				t.Fatal(err)
			}
			if err := cluster.StartBroker(id); err != nil {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Second)
		}
	})
}

// TestKIP848Consumers: kbox's consumer with --group-protocol consumer
// (KIP-848) against the real broker. Apache's producer and kbox's
// producer write concurrently; two kbox consumers of one consumer-protocol
// group (the second joins mid-run, so the broker reassigns partitions)
// read everything, and `verify check` judges all four logs valid.
func TestKIP848Consumers(t *testing.T) {
	// Producing lasts 10 s (2000 records at 200/s each): with KIP-848 the
	// broker moves partitions to the second member only after the first
	// acknowledges the revocation on its next heartbeat (5 s by default),
	// so a shorter run can end before the second member gets any records.
	const topic, n = "kip848", 2000
	createTopic(t, topic)
	dir := t.TempDir()
	consumer := func(name string) *proc {
		return start(t, filepath.Join(dir, name+".log"), kboxTool("kafka-verifiable-consumer"), "--topic", topic, "--group-id", "g848",
			"--group-protocol", "consumer", "--bootstrap-server", cluster.Bootstrap, "--verbose")
	}
	c1 := consumer("c1")
	name, args := apacheArgs("kafka-verifiable-producer", "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
		"--max-messages", strconv.Itoa(n), "--throughput", "200", "--value-prefix", "7")
	pa := start(t, filepath.Join(dir, "pa.log"), name, args...)
	pk := start(t, filepath.Join(dir, "pk.log"), kboxTool("kafka-verifiable-producer"), "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
		"--max-messages", strconv.Itoa(n), "--throughput", "200", "--value-prefix", "8")
	time.Sleep(1500 * time.Millisecond)
	c2 := consumer("c2")
	pk.wait(t, 60*time.Second)
	pa.wait(t, 60*time.Second)
	logs := []string{pa.out, pk.out}
	// The broker gives c2 partitions only after c1 acknowledged the
	// revocation on a heartbeat, which on a slow machine can be after the
	// producers ended (CI: c2 had nothing to read). Wait for c2's
	// assignment, then feed rounds of 100 records until c2 has read some.
	waitFor(t, 60*time.Second, func() bool {
		for _, e := range events(t, c2.out) {
			if e.Name == "partitions_assigned" && len(e.Partitions) > 0 {
				return true
			}
		}
		return false
	})
	extra := 0
	for round := 0; countLines(c2.out, "records_consumed") == 0; round++ {
		if round == 10 {
			t.Fatalf("c2 read nothing after %d more records", extra)
		}
		pr := start(t, filepath.Join(dir, "pr"+strconv.Itoa(round)+".log"), kboxTool("kafka-verifiable-producer"), "--topic", topic,
			"--bootstrap-server", cluster.Bootstrap, "--max-messages", "100", "--throughput", "200", "--value-prefix", strconv.Itoa(10+round))
		pr.wait(t, 60*time.Second)
		logs = append(logs, pr.out)
		extra += 100
		// Give c2 a moment to fetch what went to its partitions.
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) && countLines(c2.out, "records_consumed") == 0 {
			time.Sleep(200 * time.Millisecond)
		}
	}
	acked := map[int32]int64{}
	for _, l := range logs {
		for p, o := range lastAcked(t, l) {
			acked[p] = max(acked[p], o)
		}
	}
	waitCaughtUpAll(t, []string{c1.out, c2.out}, acked, 60*time.Second)
	c2.stop(t)
	c1.stop(t)
	// The group really used the consumer protocol.
	out, _, _, err := cluster.Apache(nil, "kafka-groups", "--bootstrap-server", cluster.PlaintextBootstrap, "--list")
	if err != nil || !regexp.MustCompile(`(?m)^g848\s+Consumer\s+consumer`).MatchString(out) {
		t.Errorf("group g848 is not a consumer-protocol group: %v %q", err, out)
	}
	checkArgs := []string{"--consumer-log", c1.out, "--consumer-log", c2.out}
	for _, l := range logs {
		checkArgs = append(checkArgs, "--producer-log", l)
	}
	v := check(t, 0, checkArgs...)
	if v.Stats.Acked != 2*n+extra || v.Stats.UniqueConsumed != 2*n+extra {
		t.Errorf("acked %d, distinct consumed %d, want %d", v.Stats.Acked, v.Stats.UniqueConsumed, 2*n+extra)
	}
	assigned := map[string]bool{}
	for _, c := range []string{c1.out, c2.out} {
		for _, e := range events(t, c) {
			if e.Name == "records_consumed" {
				assigned[c] = true
			}
		}
	}
	if len(assigned) != 2 {
		t.Errorf("both members should have consumed after the reassignment: %v", assigned)
	}
	t.Logf("KIP-848: acked %d, consumed %d, anomalies %+v", v.Stats.Acked, v.Stats.Consumed, v.Anomalies)
}

// waitCaughtUpAll is waitCaughtUp over the union of several consumer logs.
func waitCaughtUpAll(t *testing.T, logs []string, acked map[int32]int64, d time.Duration) {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		got := map[int32]int64{}
		for _, l := range logs {
			for _, e := range events(t, l) {
				if e.Name == "records_consumed" {
					for _, p := range e.Partitions {
						got[p.Partition] = max(got[p.Partition], p.MaxOffset)
					}
				}
			}
		}
		ok := true
		for p, off := range acked {
			if got[p] < off {
				ok = false
			}
		}
		if ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("consumers did not catch up within %s: consumed %v, acked %v", d, got, acked)
		}
		time.Sleep(300 * time.Millisecond)
	}
}
