//go:build integration

package verify_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// The differential fault tests run Apache's verifiable producer and kbox's
// (or consumers) side by side, each on its own topic, through one fault on
// the same 3-broker test bed, and compare what the fault cost each: failed
// sends, the error types, the acknowledged count and how long sends
// stalled. The two topics have the same replica assignment (and the two
// groups the same coordinator), so one broker kill hits both tools at the
// same moment: the same fault, half the time of running them in turn.

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

// readSends reads a verifiable producer log. A producer at 10,000/s writes
// hundreds of thousands of success lines: those are read by hand (their
// timestamp only), the rare others decoded in full (json.Unmarshal of every
// line took minutes under -race on a loaded machine).
func readSends(t *testing.T, path string) sendStats {
	t.Helper()
	s := sendStats{types: map[string]int{}}
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	success, stamp := []byte(`"name":"producer_send_success"`), []byte(`"timestamp":`)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.Contains(line, success) {
			if i := bytes.Index(line, stamp); i >= 0 {
				rest := line[i+len(stamp):]
				end := 0
				for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
					end++
				}
				if ts, err := strconv.ParseInt(string(rest[:end]), 10, 64); err == nil {
					s.acked++
					s.acks = append(s.acks, ts)
					continue
				}
			}
		}
		var e event
		if json.Unmarshal(line, &e) != nil {
			continue
		}
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
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	sort.Slice(s.acks, func(i, j int) bool { return s.acks[i] < s.acks[j] })
	return s
}

// stall is the longest time without an acknowledgement from the fault on.
func (s sendStats) stall(faultMs int64) time.Duration { return quiet(s.acks, faultMs) }

// sameLeaders is the replica assignment of the differential tests' topics
// (partitions 0..n-1, RF 3): equal for both tools' topics, so partition p
// has the same leader in both.
func sameLeaders(partitions int) string {
	var parts []string
	for p := 0; p < partitions; p++ {
		var r []string
		for i := 0; i < 3; i++ {
			r = append(r, strconv.Itoa((p+i)%3+1))
		}
		parts = append(parts, strings.Join(r, ":"))
	}
	return strings.Join(parts, ",")
}

// createSameLeaders creates topic with sameLeaders(partitions) and its
// configs.
func createSameLeaders(t *testing.T, topic string, partitions int, configs ...string) {
	t.Helper()
	args := []string{"--bootstrap-server", cluster.PlaintextBootstrap, "--create", "--topic", topic, "--replica-assignment", sameLeaders(partitions)}
	for _, c := range configs {
		args = append(args, "--config", c)
	}
	_, stderr, code, err := cluster.Apache(nil, "kafka-topics", args...)
	if err != nil || code != 0 {
		t.Fatalf("create topic: %v %d %s", err, code, stderr)
	}
}

// producersUnderFault runs Apache's verifiable producer and kbox's (acks=1,
// Apache's default retries=0) side by side, each on a fresh 1-partition,
// RF 3, min.insync.replicas=1 topic (name-apache, name-kbox; the same
// leader), runs fault once both have acknowledgements flowing, stops them
// 5 s after the fault ended, and returns each tool's sends and when the
// fault started. fault gets the topics' leader.
func producersUnderFault(t *testing.T, name string, rate int, fault func(leader int)) (a, k sendStats, faultMs int64) {
	t.Helper()
	procs := map[string]*proc{}
	// Apache's first (its JVM takes seconds to start), then kbox's once
	// Apache's acks flow, so that neither log grows while the other starts.
	for _, tool := range []string{"apache", "kbox"} {
		topic := name + "-" + tool
		createSameLeaders(t, topic, 1, "min.insync.replicas=1")
		args := []string{"--topic", topic, "--bootstrap-server", cluster.Bootstrap, "--max-messages", strconv.Itoa(rate * 300),
			"--throughput", strconv.Itoa(rate), "--acks", "1"}
		out := filepath.Join(t.TempDir(), tool+".log")
		if tool == "apache" {
			n, a := apacheArgs("kafka-verifiable-producer", args...)
			procs[tool] = start(t, out, n, a...)
		} else {
			procs[tool] = start(t, out, kboxTool("kafka-verifiable-producer"), args...)
		}
		p := procs[tool]
		waitFor(t, 60*time.Second, func() bool { return countLines(p.out, "producer_send_success") >= 2*rate })
	}
	leader := leaderOfP0(t, name+"-apache")
	if l := leaderOfP0(t, name+"-kbox"); l != leader {
		t.Fatalf("the two topics have different leaders (%d, %d)", leader, l)
	}
	faultMs = time.Now().UnixMilli()
	fault(leader)
	time.Sleep(5 * time.Second)
	for _, p := range procs {
		p.stop(t)
	}
	return readSends(t, procs["apache"].out), readSends(t, procs["kbox"].out), faultMs
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
	const name = "diff-kill"
	var electedMs int64
	a, k, faultMs := producersUnderFault(t, name, 10000, func(id int) {
		killed := time.Now()
		if err := cluster.StopBroker(id, true); err != nil {
			t.Fatal(err)
		}
		electedMs = newLeaderSeen(t, name+"-apache", id)
		t.Logf("broker %d killed, a new leader seen after %v", id, time.Duration(electedMs-killed.UnixMilli())*time.Millisecond)
		time.Sleep(time.Until(killed.Add(12 * time.Second)))
		if err := cluster.StartBroker(id); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("longest time without an ack from the kill: apache %v, kbox %v", a.stall(faultMs), k.stall(faultMs))
	compareSends(t, "leader SIGKILL", a, k, a.stall(electedMs), k.stall(electedMs), "NetworkException", "NotLeaderOrFollowerException")
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
	a, k, _ := producersUnderFault(t, "diff-roll", 2000, func(int) {
		for id := 1; id <= cluster.Brokers; id++ {
			if err := cluster.StopBroker(id, false); err != nil {
				t.Fatal(err)
			}
			if err := cluster.StartBroker(id); err != nil {
				t.Fatal(err)
			}
		}
	})
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

// offsetsPartition is the __consumer_offsets partition of group on the
// test bed (offsets.topic.num.partitions=10), as Kafka computes it:
// abs(Java's String.hashCode) mod the partition count.
func offsetsPartition(group string) int {
	var h int32
	for _, c := range group {
		h = 31*h + int32(c)
	}
	if h == -1<<31 {
		return 0
	}
	if h < 0 {
		h = -h
	}
	return int(h % 10)
}

// groupLike returns a group name starting with prefix whose offsets
// partition (so whose coordinator) is that of group.
func groupLike(group, prefix string) string {
	for i := 0; ; i++ {
		g := prefix + "-" + strconv.Itoa(i)
		if offsetsPartition(g) == offsetsPartition(group) {
			return g
		}
	}
}

// consumersUnderFault runs Apache's verifiable consumer and kbox's side by
// side, each in its own group (the same coordinator) on its own fresh
// 3-partition topic (the same leaders) fed at 2,000 records/s, runs fault
// once both consume, stops feeders and consumers 8 s after the fault ended,
// and returns each consumer's events and when the gap is measured from:
// when the fault started, or when fault says the cluster was seen recovered
// (a new leader or coordinator elected), if it says. fault gets Apache's
// topic and group.
func consumersUnderFault(t *testing.T, name string, fault func(topic, group string) int64) (a, k consumeStats, fromMs int64) {
	t.Helper()
	dir := t.TempDir()
	cfg := filepath.Join(dir, "producer.properties")
	_ = os.WriteFile(cfg, []byte("enable.idempotence=true\nretries=2147483647\nacks=all\n"), 0o644)
	groups := map[string]string{"apache": "g-" + name + "-apache"}
	groups["kbox"] = groupLike(groups["apache"], "g-"+name+"-kbox")
	consumers := map[string]*proc{}
	var feeders []*proc
	for _, tool := range []string{"apache", "kbox"} {
		topic := name + "-" + tool
		createSameLeaders(t, topic, 3, "min.insync.replicas=2")
		feeders = append(feeders, start(t, filepath.Join(dir, tool+"-feeder.log"), kboxTool("kafka-verifiable-producer"), "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
			"--max-messages", "1000000", "--throughput", "2000", "--command-config", cfg))
		args := []string{"--topic", topic, "--group-id", groups[tool], "--bootstrap-server", cluster.Bootstrap}
		out := filepath.Join(dir, tool+".log")
		if tool == "apache" {
			n, a := apacheArgs("kafka-verifiable-consumer", args...)
			consumers[tool] = start(t, out, n, a...)
		} else {
			consumers[tool] = start(t, out, kboxTool("kafka-verifiable-consumer"), args...)
		}
	}
	for _, c := range consumers {
		waitFor(t, 60*time.Second, func() bool { return countLines(c.out, "records_consumed") >= 20 })
	}
	if ca, ck := coordinatorOf(t, groups["apache"]), coordinatorOf(t, groups["kbox"]); ca != ck {
		t.Fatalf("groups %s and %s have different coordinators (%d, %d)", groups["apache"], groups["kbox"], ca, ck)
	}
	time.Sleep(2 * time.Second)
	fromMs = time.Now().UnixMilli()
	if recovered := fault(name+"-apache", groups["apache"]); recovered > 0 {
		fromMs = recovered
	}
	time.Sleep(8 * time.Second)
	for _, f := range feeders {
		f.stop(t)
	}
	for _, c := range consumers {
		c.stop(t)
	}
	return readConsumes(t, consumers["apache"].out), readConsumes(t, consumers["kbox"].out), fromMs
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

// TestDifferentialConsumer: Apache's verifiable consumer and kbox's, side
// by side, through a partition leader SIGKILL, a group coordinator SIGKILL
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
			a, k, fromMs := consumersUnderFault(t, "diff-cons-"+f.name, func(topic, group string) int64 { return f.run(t, topic, group) })
			ga, gk := a.gap(fromMs), k.gap(fromMs)
			t.Logf("%s: apache gap %v, revoked %d, assigned %d, commit failures %d; kbox gap %v, revoked %d, assigned %d, commit failures %d",
				f.name, ga, a.revoked, a.assigned, a.commitFailures, gk, k.revoked, k.assigned, k.commitFailures)
			if gk > ga+3*time.Second {
				t.Errorf("kbox stopped consuming for %v, Apache %v", gk, ga)
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
