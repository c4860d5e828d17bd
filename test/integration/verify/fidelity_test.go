//go:build integration

package verify_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

// The fidelity tests run Apache's verifiable consumer and kbox's, in turn,
// through the same steps Kafka's system tests take them through, and
// compare what a harness parsing their output would see: where the next
// owner of a partition starts after an auto-committing member was revoked
// or closed, which rebalance events are printed, and the error of a
// setting the consumer protocol refuses.

// consumerTool starts one tool's verifiable consumer writing to out.
func consumerTool(t *testing.T, tool, out string, args ...string) *proc {
	t.Helper()
	if tool == "apache" {
		name, a := apacheArgs("kafka-verifiable-consumer", args...)
		return start(t, out, name, a...)
	}
	return start(t, out, kboxTool("kafka-verifiable-consumer"), args...)
}

// rebalanceEvent is one partitions_assigned or partitions_revoked line.
type rebalanceEvent struct {
	name  string
	parts []int32
}

// consumedRange is one partition's part of a records_consumed line.
type consumedRange struct {
	partition      int32
	count          int64
	minOff, maxOff int64
}

// consumerLog is what the fidelity tests read from a consumer log.
type consumerLog struct {
	rebalances []rebalanceEvent
	consumed   []consumedRange
	commits    int // offsets_committed lines
}

func readConsumerLog(t *testing.T, path string) consumerLog {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var l consumerLog
	sc := bufio.NewScanner(fh)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Name       string `json:"name"`
			Partitions []struct {
				Partition int32 `json:"partition"`
				Count     int64 `json:"count"`
				MinOffset int64 `json:"minOffset"`
				MaxOffset int64 `json:"maxOffset"`
			} `json:"partitions"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil {
			continue
		}
		switch e.Name {
		case "partitions_assigned", "partitions_revoked":
			ev := rebalanceEvent{name: e.Name, parts: []int32{}}
			for _, p := range e.Partitions {
				ev.parts = append(ev.parts, p.Partition)
			}
			l.rebalances = append(l.rebalances, ev)
		case "records_consumed":
			for _, p := range e.Partitions {
				l.consumed = append(l.consumed, consumedRange{p.Partition, p.Count, p.MinOffset, p.MaxOffset})
			}
		case "offsets_committed":
			l.commits++
		}
	}
	return l
}

// owned replays a log's rebalance events: the partitions it owns now.
func owned(t *testing.T, path string) map[int32]bool {
	m := map[int32]bool{}
	for _, e := range readConsumerLog(t, path).rebalances {
		for _, p := range e.parts {
			m[p] = e.name == "partitions_assigned"
		}
	}
	for p, ok := range m {
		if !ok {
			delete(m, p)
		}
	}
	return m
}

// produce writes n records to topic with kbox's verifiable producer and
// returns its log. The keys 0..9 hash to all three partitions (4, 2 and 4
// of every 10 records), so every partition has records to commit: Java
// also commits the position of a partition it read nothing from, kbox
// only of those it consumed from.
func produce(t *testing.T, dir, name, topic string, n int) string {
	t.Helper()
	p := start(t, filepath.Join(dir, name+".log"), kboxTool("kafka-verifiable-producer"), "--topic", topic,
		"--bootstrap-server", cluster.Bootstrap, "--max-messages", strconv.Itoa(n), "--acks", "-1", "--repeating-keys", "10")
	p.wait(t, 60*time.Second)
	return p.out
}

// once checks that the consumer logs together consumed every offset of
// every partition from 0 to the last acked one exactly once: each member
// started where the previous owner's last consumed record ended.
func once(t *testing.T, acked map[int32]int64, logs ...string) {
	t.Helper()
	byPart := map[int32][]consumedRange{}
	for _, l := range logs {
		for _, r := range readConsumerLog(t, l).consumed {
			byPart[r.partition] = append(byPart[r.partition], r)
		}
	}
	for p, last := range acked {
		rs := byPart[p]
		sort.Slice(rs, func(i, j int) bool { return rs[i].minOff < rs[j].minOff })
		next := int64(0)
		for _, r := range rs {
			if r.minOff != next {
				t.Errorf("partition %d: a member started at offset %d, the previous one had consumed up to %d", p, r.minOff, next-1)
			}
			if r.count != r.maxOff-r.minOff+1 {
				t.Errorf("partition %d: %d records in %d..%d", p, r.count, r.minOff, r.maxOff)
			}
			next = r.maxOff + 1
		}
		if next != last+1 {
			t.Errorf("partition %d: consumed up to %d, acked up to %d", p, next-1, last)
		}
	}
}

// committedAtEnd checks with Apache's consumer groups tool that the
// group's committed offset of every partition is its log end offset.
func committedAtEnd(t *testing.T, group, topic string) {
	t.Helper()
	out, stderr, code, err := cluster.Apache(nil, "kafka-consumer-groups", "--bootstrap-server", cluster.PlaintextBootstrap, "--describe", "--group", group)
	if err != nil || code != 0 {
		t.Fatalf("describe group: %v %d %s", err, code, stderr)
	}
	rows := 0
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) >= 6 && f[0] == group && f[1] == topic {
			rows++
			if f[3] != f[4] {
				t.Errorf("partition %s: committed %s, log end %s", f[2], f[3], f[4])
			}
		}
	}
	if rows != 3 {
		t.Errorf("describe group: %d partitions of %s in\n%s", rows, topic, out)
	}
}

// TestDifferentialAutocommitHandover: two auto-committing members of one
// eager group (auto.commit.interval.ms one hour, so only the commits made
// before a revocation and on close count). A consumes everything, B
// joins (A's partitions are revoked), more records, B is SIGTERMed (its
// partitions go back to A), more records, A is SIGTERMed. Java's consumer
// commits at both points, so every offset is consumed exactly once and the
// group ends committed at the log end; kbox must do the same, and neither
// prints offsets_committed for auto commits.
func TestDifferentialAutocommitHandover(t *testing.T) {
	for _, tool := range []string{"apache", "kbox"} {
		t.Run(tool, func(t *testing.T) {
			t.Parallel()
			topic := "fid-autocommit-" + tool
			group := "g-" + topic
			createTopic(t, topic)
			dir := t.TempDir()
			cfg := filepath.Join(dir, "consumer.properties")
			if err := os.WriteFile(cfg, []byte("auto.commit.interval.ms=3600000\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			args := []string{"--topic", topic, "--group-id", group, "--bootstrap-server", cluster.Bootstrap, "--enable-autocommit", "--command-config", cfg}
			acked := lastAcked(t, produce(t, dir, "p1", topic, 1500))
			a := consumerTool(t, tool, filepath.Join(dir, "a.log"), args...)
			waitCaughtUp(t, a.out, acked, 60*time.Second)

			b := consumerTool(t, tool, filepath.Join(dir, "b.log"), args...)
			waitFor(t, 60*time.Second, func() bool { return len(owned(t, b.out)) > 0 && len(owned(t, a.out))+len(owned(t, b.out)) == 3 })
			for p, o := range lastAcked(t, produce(t, dir, "p2", topic, 1500)) {
				acked[p] = max(acked[p], o)
			}
			waitCaughtUpAll(t, []string{a.out, b.out}, acked, 60*time.Second)

			b.stop(t)
			waitFor(t, 60*time.Second, func() bool { return len(owned(t, a.out)) == 3 })
			for p, o := range lastAcked(t, produce(t, dir, "p3", topic, 1500)) {
				acked[p] = max(acked[p], o)
			}
			waitCaughtUpAll(t, []string{a.out, b.out}, acked, 60*time.Second)
			a.stop(t)

			once(t, acked, a.out, b.out)
			committedAtEnd(t, group, topic)
			for _, l := range []string{a.out, b.out} {
				if n := readConsumerLog(t, l).commits; n != 0 {
					t.Errorf("%s: %d offsets_committed lines with auto commit", filepath.Base(l), n)
				}
			}
		})
	}
}

// rebalanceShape is a member's rebalance events as a harness counting
// revokes sees them: each event's name with "+" when it lists partitions
// and "-" when empty; empty assignments are left out, since whether a
// joining member sits out one cooperative round with nothing depends on
// timing (Java's too).
func rebalanceShape(t *testing.T, path string) string {
	var out []string
	for _, e := range readConsumerLog(t, path).rebalances {
		switch {
		case e.name == "partitions_assigned" && len(e.parts) == 0:
		case len(e.parts) == 0:
			out = append(out, e.name+"-")
		default:
			out = append(out, e.name+"+")
		}
	}
	return strings.Join(out, " ")
}

// rebalanceRun: A joins a fresh 3-partition topic alone, B joins, B is
// SIGTERMed once it owns partitions, A is SIGTERMed once it owns all
// again. It returns the two logs.
func rebalanceRun(t *testing.T, tool, mode string, extra []string) (string, string) {
	topic := "fid-rebalance-" + mode + "-" + tool
	createTopic(t, topic)
	dir := t.TempDir()
	args := append([]string{"--topic", topic, "--group-id", "g-" + topic, "--bootstrap-server", cluster.Bootstrap}, extra...)
	a := consumerTool(t, tool, filepath.Join(dir, "a.log"), args...)
	waitFor(t, 60*time.Second, func() bool { return len(owned(t, a.out)) == 3 })
	b := consumerTool(t, tool, filepath.Join(dir, "b.log"), args...)
	waitFor(t, 90*time.Second, func() bool { return len(owned(t, b.out)) > 0 && len(owned(t, a.out))+len(owned(t, b.out)) == 3 })
	b.stop(t)
	waitFor(t, 90*time.Second, func() bool { return len(owned(t, a.out)) == 3 })
	a.stop(t)
	return a.out, b.out
}

// TestDifferentialRebalanceEvents: A joins a 3-partition topic alone, B
// joins, B is SIGTERMed, A is SIGTERMed; the rebalance events of A and B
// are compared between Apache's tool and kbox's for the eager range
// assignor, the cooperative-sticky assignor (classic protocol) and the
// consumer protocol (KIP-848). Under the last two, Java's listener hears
// of a revocation only when there are partitions to revoke.
func TestDifferentialRebalanceEvents(t *testing.T) {
	modes := []struct {
		name  string
		args  []string
		eager bool
	}{
		{"range", nil, true},
		{"cooperative-sticky", []string{"--assignment-strategy", "org.apache.kafka.clients.consumer.CooperativeStickyAssignor"}, false},
		{"consumer", []string{"--group-protocol", "consumer"}, false},
	}
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			var mu sync.Mutex
			shapes := map[string][2]string{}
			// The two tools run side by side, each on its own topic and
			// group.
			t.Run("tools", func(t *testing.T) {
				for _, tool := range []string{"apache", "kbox"} {
					t.Run(tool, func(t *testing.T) {
						t.Parallel()
						a, b := rebalanceRun(t, tool, m.name, m.args)
						mu.Lock()
						shapes[tool] = [2]string{rebalanceShape(t, a), rebalanceShape(t, b)}
						mu.Unlock()
						for _, l := range []string{a, b} {
							if s := rebalanceShape(t, l); !m.eager && strings.Contains(s, "partitions_revoked-") {
								t.Errorf("%s: an empty partitions_revoked: %s", filepath.Base(l), s)
							}
						}
					})
				}
			})
			if t.Failed() {
				return
			}
			t.Logf("apache A: %s; B: %s", shapes["apache"][0], shapes["apache"][1])
			t.Logf("kbox   A: %s; B: %s", shapes["kbox"][0], shapes["kbox"][1])
			if shapes["apache"] != shapes["kbox"] {
				t.Errorf("rebalance events differ:\napache A: %s\nkbox   A: %s\napache B: %s\nkbox   B: %s",
					shapes["apache"][0], shapes["kbox"][0], shapes["apache"][1], shapes["kbox"][1])
			}
		})
	}
}

// TestDifferentialConsumerProtocolConfig: settings the consumer protocol
// refuses (and group.remote.assignor with the classic one), from the
// command line or the config file: the same stdout, exit code and
// exception line as Apache's tool (kbox prints no Java stack trace).
func TestDifferentialConsumerProtocolConfig(t *testing.T) {
	dir := t.TempDir()
	file := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := []string{"--topic", "fid-config", "--group-id", "g-fid-config", "--bootstrap-server", cluster.Bootstrap, "--max-messages", "0"}
	cases := [][]string{
		{"--group-protocol", "consumer", "--session-timeout", "10000"},
		{"--group-protocol", "CONSUMER", "--session-timeout", "10000", "--assignment-strategy", "org.apache.kafka.clients.consumer.RoundRobinAssignor"},
		{"--group-protocol", "consumer", "--command-config", file("hb.properties", "heartbeat.interval.ms=3000\n")},
		{"--group-protocol", "consumer", "--command-config", file("pas.properties", "partition.assignment.strategy=org.apache.kafka.clients.consumer.RangeAssignor\n")},
		{"--group-protocol", "consumer", "--session-timeout", "10000", "--command-config", file("all.properties", "heartbeat.interval.ms=3000\npartition.assignment.strategy=org.apache.kafka.clients.consumer.RangeAssignor\n")},
		{"--command-config", file("ra.properties", "group.remote.assignor=uniform\n")},
		{"--group-protocol", "consumer", "--reset-policy", "bogus", "--session-timeout", "10000"},
		// Accepted by both: the flag is ignored with the consumer protocol.
		{"--group-protocol", "consumer", "--assignment-strategy", "org.apache.kafka.clients.consumer.RoundRobinAssignor"},
	}
	exceptionLine := regexp.MustCompile(`(?m)^Exception in thread "main" .*$`)
	for i, c := range cases {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			t.Parallel()
			args := append(append([]string(nil), base...), c...)
			aOut, aErr, aCode, err := cluster.Apache(nil, "kafka-verifiable-consumer", args...)
			if err != nil {
				t.Fatal(err)
			}
			k := testbed.Runner{Timeout: 60 * time.Second}.Exec(t, kboxTool("kafka-verifiable-consumer"), args...)
			t.Logf("%v: apache exit %d %q", c, aCode, exceptionLine.FindString(aErr))
			if k.Code != aCode {
				t.Errorf("exit %d, Apache %d (stderr %q)", k.Code, aCode, k.Stderr)
			}
			if aCode != 0 {
				want := exceptionLine.FindString(aErr)
				if want == "" {
					t.Fatalf("no exception line from Apache: %q", aErr)
				}
				if k.Stderr != want+"\n" {
					t.Errorf("stderr %q, want %q", k.Stderr, want+"\n")
				}
				if k.Stdout != aOut {
					t.Errorf("stdout %q, Apache %q", k.Stdout, aOut)
				}
			} else if names(k.Stdout) != names(aOut) {
				t.Errorf("events %s, Apache %s", names(k.Stdout), names(aOut))
			}
		})
	}
}

// names is the event names of JSON lines.
func names(out string) string {
	var ns []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n") {
		var e struct {
			Name string `json:"name"`
		}
		if json.Unmarshal([]byte(l), &e) == nil {
			ns = append(ns, e.Name)
		} else {
			ns = append(ns, fmt.Sprintf("%q", l))
		}
	}
	return strings.Join(ns, " ")
}
