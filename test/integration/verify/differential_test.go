//go:build integration

package verify_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential fault tests run Apache's verifiable producer and kbox's,
// in turn, through the same fault on the same 3-broker test bed, and
// compare what the fault cost each: failed sends, the error types, the
// acknowledged count and how long sends stalled.

// sendStats summarises a verifiable producer log.
type sendStats struct {
	sent, acked, failed int
	types               map[string]int
	acks                []int64 // timestamps of acknowledgements, sorted
}

// quiet is the longest time from faultMs on without an event of ts (sorted
// timestamps): from faultMs to the first one after it, or between two.
func quiet(ts []int64, faultMs int64) time.Duration {
	last, longest := faultMs, int64(0)
	for _, x := range ts {
		if x < faultMs {
			continue
		}
		longest = max(longest, x-last)
		last = x
	}
	return time.Duration(longest) * time.Millisecond
}

func readSends(t *testing.T, path string) sendStats {
	t.Helper()
	s := sendStats{types: map[string]int{}}
	for _, e := range events(t, path) {
		switch e.Name {
		case "producer_send_success":
			s.acked++
			s.acks = append(s.acks, e.Timestamp)
		case "producer_send_error":
			s.failed++
			s.types[strings.TrimPrefix(e.Exception, "class org.apache.kafka.common.errors.")]++
		case "tool_data":
			s.sent = e.Sent
		}
	}
	sort.Slice(s.acks, func(i, j int) bool { return s.acks[i] < s.acks[j] })
	return s
}

// stall is the longest time without an acknowledgement from the fault on.
func (s sendStats) stall(faultMs int64) time.Duration { return quiet(s.acks, faultMs) }

// producerUnderFault runs one tool's verifiable producer (acks=1, Apache's
// default retries=0) on a fresh 1-partition, RF 3, min.insync.replicas=1
// topic, runs fault once acknowledgements flow, stops the producer 5 s after
// the fault ended, and returns the sends and when the fault started.
func producerUnderFault(t *testing.T, tool, topic string, rate int, fault func()) (sendStats, int64) {
	t.Helper()
	_, stderr, code, err := cluster.Apache(nil, "kafka-topics", "--bootstrap-server", cluster.PlaintextBootstrap, "--create", "--topic", topic,
		"--partitions", "1", "--replication-factor", "3", "--config", "min.insync.replicas=1")
	if err != nil || code != 0 {
		t.Fatalf("create topic: %v %d %s", err, code, stderr)
	}
	args := []string{"--topic", topic, "--bootstrap-server", cluster.Bootstrap, "--max-messages", strconv.Itoa(rate * 300),
		"--throughput", strconv.Itoa(rate), "--acks", "1"}
	out := filepath.Join(t.TempDir(), tool+".log")
	var p *proc
	if tool == "apache" {
		name, a := apacheArgs("kafka-verifiable-producer", args...)
		p = start(t, out, name, a...)
	} else {
		p = start(t, out, kboxTool("kafka-verifiable-producer"), args...)
	}
	waitFor(t, 60*time.Second, func() bool { return countLines(out, "producer_send_success") >= 2*rate })
	faultMs := time.Now().UnixMilli()
	fault()
	time.Sleep(5 * time.Second)
	p.stop(t)
	return readSends(t, out), faultMs
}

func waitFor(t *testing.T, d time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("condition not met within %s", d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func countLines(path, substr string) int {
	b, _ := os.ReadFile(path)
	return strings.Count(string(b), substr)
}

// compareSends applies the targets: kbox fails at most twice as many sends
// as Apache (or 2,000, whichever is larger), with error types Apache's
// producer also reports for this fault, acknowledges as large a share of
// its sends (within 1 point), and (when stall is compared) resumes within 3 s of
// Apache.
func compareSends(t *testing.T, fault string, a, k sendStats, aStall, kStall time.Duration, extraTypes ...string) {
	t.Helper()
	t.Logf("%s: apache failed %d %v, acked %d/%d, stall %v; kbox failed %d %v, acked %d/%d, stall %v",
		fault, a.failed, a.types, a.acked, a.sent, aStall, k.failed, k.types, k.acked, k.sent, kStall)
	if limit := max(2*a.failed, 2000); k.failed > limit {
		t.Errorf("%s: kbox failed %d sends, Apache %d (limit %d)", fault, k.failed, a.failed, limit)
	}
	allowed := map[string]bool{}
	for typ := range a.types {
		allowed[typ] = true
	}
	for _, typ := range extraTypes {
		allowed[typ] = true
	}
	for typ, n := range k.types {
		if !allowed[typ] {
			t.Errorf("%s: kbox reported %d × %s, which Apache's producer does not for this fault (Apache: %v)", fault, n, typ, a.types)
		}
	}
	// The runs last as long as the fault does, so the shares of sends
	// acknowledged are compared, not the counts.
	if a.sent > 0 && k.sent > 0 && float64(k.acked)/float64(k.sent) < float64(a.acked)/float64(a.sent)-0.01 {
		t.Errorf("%s: kbox acknowledged %d of %d sends, Apache %d of %d", fault, k.acked, k.sent, a.acked, a.sent)
	}
	if k.acked+k.failed != k.sent {
		t.Errorf("%s: kbox sent %d, acked %d + failed %d", fault, k.sent, k.acked, k.failed)
	}
	if aStall > 0 && kStall > aStall+3*time.Second {
		t.Errorf("%s: kbox stalled %v, Apache %v", fault, kStall, aStall)
	}
}

// TestDifferentialProducerLeaderKill: SIGKILL the partition leader, restart
// it 12 s later. Java's producer fails only the batches in flight to the
// dead broker (NetworkException); the rest wait for the new leader. The
// stall compared is the longest time without an acknowledgement from the
// moment the test saw the new leader: how long the controller takes to
// fence the dead broker (broker.session.timeout.ms) varies from run to
// run and is no client's doing, so it is logged, not compared.
func TestDifferentialProducerLeaderKill(t *testing.T) {
	type res struct {
		s            sendStats
		stall, total time.Duration
	}
	run := func(tool string) res {
		topic := "diff-kill-" + tool
		var electedMs int64
		s, faultMs := producerUnderFault(t, tool, topic, 10000, func() {
			id := leaderOfP0(t, topic)
			killed := time.Now()
			if err := cluster.StopBroker(id, true); err != nil {
				t.Fatal(err)
			}
			electedMs = newLeaderSeen(t, topic, id)
			t.Logf("%s: broker %d killed, a new leader seen after %v", tool, id, time.Duration(electedMs-killed.UnixMilli())*time.Millisecond)
			time.Sleep(time.Until(killed.Add(12 * time.Second)))
			if err := cluster.StartBroker(id); err != nil {
				t.Fatal(err)
			}
		})
		return res{s, s.stall(electedMs), s.stall(faultMs)}
	}
	a := run("apache")
	k := run("kbox")
	t.Logf("longest time without an ack from the kill: apache %v, kbox %v", a.total, k.total)
	compareSends(t, "leader SIGKILL", a.s, k.s, a.stall, k.stall, "NetworkException", "NotLeaderOrFollowerException")
}

// newLeaderSeen waits until partition 0 of topic is led by a broker other
// than dead, asking with kbox's kafka-topics (it answers in milliseconds,
// Apache's in seconds), and returns when it saw it, in Unix ms.
func newLeaderSeen(t *testing.T, topic string, dead int) int64 {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command(kboxTool("kafka-topics"), "--bootstrap-server", cluster.PlaintextBootstrap, "--describe", "--topic", topic).Output()
		if err == nil {
			if m := leaderRe.FindStringSubmatch(string(out)); m != nil {
				if id, _ := strconv.Atoi(m[1]); id != dead {
					return time.Now().UnixMilli()
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no new leader for %s-0 within 60 s of killing broker %d", topic, dead)
	return 0
}

// TestDifferentialProducerRollingRestart: a clean restart of every broker
// in turn. Java's producer with retries=0 fails the batches a stopping
// leader answers with NOT_LEADER_OR_FOLLOWER or drops.
func TestDifferentialProducerRollingRestart(t *testing.T) {
	run := func(tool string) sendStats {
		topic := "diff-roll-" + tool
		s, _ := producerUnderFault(t, tool, topic, 2000, func() {
			for id := 1; id <= cluster.Brokers; id++ {
				if err := cluster.StopBroker(id, false); err != nil {
					t.Fatal(err)
				}
				if err := cluster.StartBroker(id); err != nil {
					t.Fatal(err)
				}
			}
		})
		return s
	}
	a := run("apache")
	k := run("kbox")
	compareSends(t, "rolling restart", a, k, 0, 0, "NetworkException", "NotLeaderOrFollowerException")
}

// consumeStats summarises a verifiable consumer log.
type consumeStats struct {
	batches           []int64 // timestamps of records_consumed events
	revoked, assigned int
	commitFailures    int
}

func readConsumes(t *testing.T, path string) consumeStats {
	t.Helper()
	var s consumeStats
	for _, e := range events(t, path) {
		switch e.Name {
		case "records_consumed":
			s.batches = append(s.batches, e.Timestamp)
		case "partitions_revoked":
			s.revoked++
		case "partitions_assigned":
			s.assigned++
		case "offsets_committed":
			if e.Success != nil && !*e.Success {
				s.commitFailures++
			}
		}
	}
	sort.Slice(s.batches, func(i, j int) bool { return s.batches[i] < s.batches[j] })
	return s
}

// gap is the longest time without consumption from faultMs on.
func (s consumeStats) gap(faultMs int64) time.Duration { return quiet(s.batches, faultMs) }

// consumerUnderFault runs one tool's verifiable consumer (its own group) on
// a fresh 3-partition topic fed at 2,000 records/s, runs fault once
// records flow, stops feeder and consumer 8 s after the fault ended, and
// returns the consumer's events and when the gap is measured from: when
// the fault started, or when fault says the cluster was seen recovered
// (a new leader or coordinator elected), if it says.
func consumerUnderFault(t *testing.T, tool, topic string, fault func(group string) int64) (consumeStats, int64) {
	t.Helper()
	createTopic(t, topic)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "producer.properties")
	_ = os.WriteFile(cfg, []byte("enable.idempotence=true\nretries=2147483647\nacks=all\n"), 0o644)
	feeder := start(t, filepath.Join(dir, "feeder.log"), kboxTool("kafka-verifiable-producer"), "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
		"--max-messages", "1000000", "--throughput", "2000", "--command-config", cfg)
	group := "g-" + topic
	args := []string{"--topic", topic, "--group-id", group, "--bootstrap-server", cluster.Bootstrap}
	out := filepath.Join(dir, tool+".log")
	var c *proc
	if tool == "apache" {
		name, a := apacheArgs("kafka-verifiable-consumer", args...)
		c = start(t, out, name, a...)
	} else {
		c = start(t, out, kboxTool("kafka-verifiable-consumer"), args...)
	}
	waitFor(t, 60*time.Second, func() bool { return countLines(out, "records_consumed") >= 20 })
	time.Sleep(2 * time.Second)
	fromMs := time.Now().UnixMilli()
	if recovered := fault(group); recovered > 0 {
		fromMs = recovered
	}
	time.Sleep(8 * time.Second)
	feeder.stop(t)
	c.stop(t)
	return readConsumes(t, out), fromMs
}

// killAndRestart SIGKILLs broker id and restarts it 12 s later. recovered
// (if set) waits until the cluster has replaced the dead broker in the role
// the test cares about and returns when it saw that (Unix ms), which it
// returns: how long the controller takes to fence a dead broker
// (broker.session.timeout.ms) varies by seconds from run to run and is no
// client's doing, so gaps are compared from then.
func killAndRestart(t *testing.T, id int, recovered func(dead int) int64) int64 {
	t.Helper()
	killed := time.Now()
	if err := cluster.StopBroker(id, true); err != nil {
		t.Fatal(err)
	}
	var ms int64
	if recovered != nil {
		ms = recovered(id)
		t.Logf("broker %d killed, replaced after %v", id, time.Duration(ms-killed.UnixMilli())*time.Millisecond)
	}
	time.Sleep(time.Until(killed.Add(12 * time.Second)))
	if err := cluster.StartBroker(id); err != nil {
		t.Fatal(err)
	}
	return ms
}

// newCoordinatorSeen waits until group's coordinator is a broker other than
// dead, asking with kbox's kafka-consumer-groups, and returns when it saw
// it, in Unix ms.
func newCoordinatorSeen(t *testing.T, group string, dead int) int64 {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		out, err := exec.Command(kboxTool("kafka-consumer-groups"), "--bootstrap-server", cluster.PlaintextBootstrap, "--describe", "--group", group, "--state").Output()
		if err == nil {
			if m := coordinatorRe.FindStringSubmatch(string(out)); m != nil {
				if id, _ := strconv.Atoi(m[1]); id != dead {
					return time.Now().UnixMilli()
				}
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("no new coordinator for %s within 60 s of killing broker %d", group, dead)
	return 0
}

// TestDifferentialConsumer: Apache's verifiable consumer and kbox's, in
// turn, through a partition leader SIGKILL, a group coordinator SIGKILL
// and a rolling restart (under `make soak` only: it takes about a minute
// and the producer's rolling-restart case stays in make test). Compared: the longest gap in consumption after
// the fault (after a kill: from when the new leader or coordinator was
// seen) (kbox within 3 s of Apache), rebalances (at most one more than
// Apache) and failed commits (at most two more).
func TestDifferentialConsumer(t *testing.T) {
	faults := []struct {
		name string
		run  func(t *testing.T, topic, group string) int64
		long bool // only under `make soak`
	}{
		{"leader", func(t *testing.T, topic, _ string) int64 {
			return killAndRestart(t, leaderOfP0(t, topic), func(dead int) int64 { return newLeaderSeen(t, topic, dead) })
		}, false},
		{"coordinator", func(t *testing.T, _, group string) int64 {
			return killAndRestart(t, coordinatorOf(t, group), func(dead int) int64 { return newCoordinatorSeen(t, group, dead) })
		}, false},
		{"rolling", func(t *testing.T, _, _ string) int64 {
			for id := 1; id <= cluster.Brokers; id++ {
				if err := cluster.StopBroker(id, false); err != nil {
					t.Fatal(err)
				}
				if err := cluster.StartBroker(id); err != nil {
					t.Fatal(err)
				}
			}
			return 0
		}, true},
	}
	for _, f := range faults {
		t.Run(f.name, func(t *testing.T) {
			if f.long && !long {
				t.Skip("runs under make soak")
			}
			res := map[string]consumeStats{}
			gaps := map[string]time.Duration{}
			for _, tool := range []string{"apache", "kbox"} {
				topic := "diff-cons-" + f.name + "-" + tool
				s, faultMs := consumerUnderFault(t, tool, topic, func(group string) int64 { return f.run(t, topic, group) })
				res[tool], gaps[tool] = s, s.gap(faultMs)
			}
			a, k := res["apache"], res["kbox"]
			t.Logf("%s: apache gap %v, revoked %d, assigned %d, commit failures %d; kbox gap %v, revoked %d, assigned %d, commit failures %d",
				f.name, gaps["apache"], a.revoked, a.assigned, a.commitFailures, gaps["kbox"], k.revoked, k.assigned, k.commitFailures)
			if gaps["kbox"] > gaps["apache"]+3*time.Second {
				t.Errorf("kbox stopped consuming for %v, Apache %v", gaps["kbox"], gaps["apache"])
			}
			if k.revoked > a.revoked+1 || k.assigned > a.assigned+1 {
				t.Errorf("kbox rebalanced more: revoked %d/assigned %d, Apache %d/%d", k.revoked, k.assigned, a.revoked, a.assigned)
			}
			if k.commitFailures > a.commitFailures+2 {
				t.Errorf("kbox failed %d commits, Apache %d", k.commitFailures, a.commitFailures)
			}
		})
	}
}
