//go:build integration

// Package groups_test runs kbox's kafka-consumer-groups and Apache's
// kafka-consumer-groups.sh (Kafka 4.4.0, via testbed.sh) side by side on a
// 3-broker cluster with live groups made by Apache's console consumer
// (classic with two members, KIP-848, a static member), an empty group with committed
// offsets and unknown groups, and compares stdout, stderr's first line and
// exit codes byte for byte. Execute-mode resets and deletes run on twin
// groups and are compared by their effect.
package groups_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/groups"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	applet  string
	cfgDir  string
)

func TestMain(m *testing.M) {
	// A JVM start dominates each Apache case: C1 only and the serial GC
	// halve its CPU on a loaded machine without changing what it prints.
	os.Setenv("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -XX:CICompilerCount=1 -Djava.awt.headless=true")
	os.Exit(testbed.Main(m, testbed.Options{Name: "groups", Applets: []string{"kafka-consumer-groups"}, Brokers: 3, Ready: func(e testbed.Env) error {
		applet, cfgDir, cluster = filepath.Join(e.BinDir, "kafka-consumer-groups"), e.Dir, e.Cluster
		return nil
	}}))
}

func client(t *testing.T) (*kgo.Client, *kadm.Client) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl, kadm.NewClient(cl)
}

// seed creates the topics, writes keyed records to every partition and
// commits offsets for an empty group (and its twins).
func seed(t *testing.T, ctx context.Context, cl *kgo.Client, adm *kadm.Client) {
	t.Helper()
	for _, tp := range []struct {
		name string
		p    int32
		rf   int16
		n    int
	}{{"orders", 3, 3, 30}, {"other", 2, 2, 10}} {
		if _, err := adm.CreateTopic(ctx, tp.p, tp.rf, nil, tp.name); err != nil {
			t.Fatalf("create %s: %v", tp.name, err)
		}
		for i := 0; i < tp.n; i++ {
			r := &kgo.Record{Topic: tp.name, Partition: int32(i) % tp.p, Value: []byte(fmt.Sprint(i))}
			if err := cl.ProduceSync(ctx, r).FirstErr(); err != nil {
				t.Fatalf("produce: %v", err)
			}
		}
	}
	commits := kadm.Offsets{}
	for p, at := range []int64{5, 3, 7} {
		commits.Add(kadm.Offset{Topic: "orders", Partition: int32(p), At: at, LeaderEpoch: -1})
	}
	commits.Add(kadm.Offset{Topic: "other", Partition: 0, At: 1, LeaderEpoch: -1})
	for _, g := range []string{"empty1", "ka-exec", "kk-exec", "ka-del", "kk-del", "ka-doff", "kk-doff", "ka-file", "kk-file"} {
		if err := adm.CommitAllOffsets(ctx, g, commits); err != nil {
			t.Fatalf("commit %s: %v", g, err)
		}
	}
}

// consumer starts Apache's console consumer in the background; it is
// killed (with its JVM) when the test ends.
func consumer(t *testing.T, group string, extra ...string) {
	t.Helper()
	args := append([]string{"apache", "kafka-console-consumer", "--bootstrap-server", cluster.Bootstrap, "--group", group, "--from-beginning"}, extra...)
	cmd := exec.Command(testbed.Script(), args...)
	cmd.Env = append(os.Environ(), "KBOX_TESTBED_DIR="+cluster.Dir)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	})
}

// waitLive waits until each live group is Stable with its number of
// members, every member holding partitions, and has committed every
// partition's log end offset, so both tools see the same, settled state.
func waitLive(t *testing.T, ctx context.Context, cl *kgo.Client, members map[string]int) {
	t.Helper()
	gc := groups.New(cl)
	deadline := time.Now().Add(90 * time.Second)
	names := make([]string, 0, len(members))
	for g := range members {
		names = append(names, g)
	}
	sort.Strings(names)
	for _, g := range names {
		for {
			ok := false
			if gs, err := gc.Offsets(ctx, []string{g}); err == nil && len(gs) == 1 {
				d := gs[0]
				ok = d.Err == nil && d.State == "Stable" && len(d.Members) == members[g] && len(d.Partitions) > 0
				for _, m := range d.Members {
					ok = ok && len(m.Assignment) > 0
				}
				for _, p := range d.Partitions {
					if p.Lag == nil || *p.Lag != 0 || !p.Assigned {
						ok = false
					}
				}
			}
			if ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("group %s did not settle", g)
			}
			time.Sleep(300 * time.Millisecond)
		}
	}
}

type result struct {
	stdout, stderr string
	code           int
}

// runKbox runs kbox's applet (t may be nil: Config is set).
func runKbox(t testing.TB, args ...string) result {
	if t != nil {
		t.Helper()
	}
	r := testbed.Runner{
		Timeout: 90 * time.Second,
		Config:  filepath.Join(cfgDir, "none.yaml"),
		Env:     []string{"KBOX_PROFILE=", "KBOX_OUTPUT=", "KBOX_BOOTSTRAP_SERVERS="},
	}.Exec(t, applet, args...)
	return result{r.Stdout, r.Stderr, r.Code}
}

func apache(args ...string) (result, error) {
	out, errs, code, err := cluster.Apache(nil, "kafka-consumer-groups", args...)
	if err != nil {
		return result{}, fmt.Errorf("run apache: %v\n%s", err, errs)
	}
	return result{out, errs, code}, nil
}

func runApache(t *testing.T, args ...string) result {
	t.Helper()
	r, err := apache(args...)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// stderr comparison modes.
const (
	firstLine = iota // the first line byte for byte (after normalising)
	trace            // Apache prints only a Java stack trace: kbox prints nothing
)

var (
	// Set.of iteration order varies from JVM to JVM: option lists.
	bracketListRe = regexp.MustCompile(`(\[[a-z-]+\](?:, \[[a-z-]+\])+)`)
	statesRe      = regexp.MustCompile(`(Valid states are: )(.*)`)
	log4jTimeRe   = regexp.MustCompile(`(?m)^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] `)
)

func normalize(s string) string {
	s = bracketListRe.ReplaceAllStringFunc(s, func(m string) string {
		parts := strings.Split(m, ", ")
		sort.Strings(parts)
		return strings.Join(parts, ", ")
	})
	s = statesRe.ReplaceAllStringFunc(s, func(m string) string {
		sub := statesRe.FindStringSubmatch(m)
		parts := strings.Split(sub[2], ", ")
		sort.Strings(parts)
		return sub[1] + strings.Join(parts, ", ")
	})
	return log4jTimeRe.ReplaceAllString(s, "[TS] ")
}

// sortRows sorts the lines after the first (the header): the order in
// which the broker lists groups, which Apache prints as it comes.
func sortRows(s string) string {
	lines := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	if len(lines) > 1 {
		sort.Strings(lines[1:])
	}
	return strings.Join(lines, "\n") + "\n"
}

func head(s string, n int) string {
	lines := strings.SplitAfter(s, "\n")
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "")
}

type tcase struct {
	name string
	args []string
	mode int
	// sorted: stdout lines after the first are in an order Apache does
	// not fix (plain --list has no header: all lines).
	sorted bool
}

func bs(args ...string) []string {
	return append([]string{"--bootstrap-server", cluster.Bootstrap}, args...)
}

func compare(t *testing.T, c tcase, a, k result) {
	t.Helper()
	if a.code != k.code {
		t.Errorf("exit code: apache %d, kbox %d\napache stdout:\n%s\napache stderr:\n%s\nkbox stdout:\n%s\nkbox stderr:\n%s", a.code, k.code, a.stdout, head(a.stderr, 3), k.stdout, head(k.stderr, 3))
	}
	ao, ko := normalize(a.stdout), normalize(k.stdout)
	if c.sorted {
		ao, ko = sortRows("\n"+ao), sortRows("\n"+ko)
	}
	if ao != ko {
		t.Errorf("stdout differs\napache:\n%q\nkbox:\n%q", a.stdout, k.stdout)
	}
	switch c.mode {
	case firstLine:
		if normalize(head(a.stderr, 1)) != normalize(head(k.stderr, 1)) {
			t.Errorf("stderr first line differs\napache: %q\nkbox:   %q", head(a.stderr, 1), head(k.stderr, 1))
		}
	case trace:
		if !regexp.MustCompile(`^[a-z][\w.$]*(Exception|Error)\b`).MatchString(a.stderr) {
			t.Errorf("expected a Java stack trace from Apache, got %q", head(a.stderr, 2))
		}
		if k.stderr != "" {
			t.Errorf("kbox stderr: %q", k.stderr)
		}
	}
}

// run runs Apache on every case in one JVM (testbed.ApacheBatch: a JVM
// start dominates each case), then kbox on each, two at a time, and
// compares them in order. The cases must not change what the others see.
func run(t *testing.T, cases []tcase) {
	t.Helper()
	cmds := make([][]string, len(cases))
	for i, c := range cases {
		cmds[i] = c.args
	}
	ars, err := cluster.ApacheBatch("kafka-consumer-groups", cmds)
	if err != nil {
		t.Fatalf("run apache: %v", err)
	}
	ks := make([]result, len(cases))
	sem := make(chan struct{}, 2)
	var wg sync.WaitGroup
	for i, c := range cases {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			ks[i] = runKbox(nil, c.args...)
		}()
	}
	wg.Wait()
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := result{ars[i].Stdout, ars[i].Stderr, ars[i].Code}
			compare(t, c, a, ks[i])
		})
	}
}

func TestGroups(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cl, adm := client(t)
	seed(t, ctx, cl, adm)
	// Two members in live-classic: Apache prints them in the broker's
	// order (--members), not sorted.
	consumer(t, "live-classic", "--topic", "orders")
	consumer(t, "live-classic", "--topic", "orders")
	consumer(t, "live-848", "--topic", "orders", "--consumer-property", "group.protocol=consumer")
	consumer(t, "live-static", "--include", "orders|other", "--consumer-property", "group.instance.id=inst-1")
	waitLive(t, ctx, cl, map[string]int{"live-classic": 2, "live-848": 1, "live-static": 1})
	// The coordinator's member order follows its hash map: say whether
	// this run tells it from a sort by member id (half the runs do).
	if ds, err := groups.New(cl).Describe(ctx, []string{"live-classic"}); err == nil && len(ds) == 1 && len(ds[0].Members) == 2 {
		ms := ds[0].Members
		t.Logf("live-classic members in broker order: %s, %s (unlike a sort by member id: %v)", ms[0].MemberID, ms[1].MemberID, ms[0].MemberID > ms[1].MemberID)
	}

	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.csv")
	if err := os.WriteFile(plan, []byte("orders,0,2\norders,1,100\nother,1,4\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	plan2 := filepath.Join(dir, "plan2.csv")
	if err := os.WriteFile(plan2, []byte("empty1,orders,2,1\nlive-classic,orders,0,0\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	// Argument errors: a few through the real binary (all of them are in
	// cmd/consumergroups' unit tests against captured Apache output).
	t.Run("args", func(t *testing.T) {
		run(t, []tcase{
			{name: "help", args: []string{"--help"}},
			{name: "unknown-option", args: bs("--list", "--lst")},
			{name: "no-bootstrap", args: []string{"--list"}},
			{name: "members-without-describe", args: bs("--list", "--members")},
			{name: "describe-two-sub", args: bs("--describe", "--group", "g", "--members", "--state")},
			{name: "reset-dry-and-execute", args: bs("--reset-offsets", "--group", "g", "--all-topics", "--to-earliest", "--dry-run", "--execute")},
			{name: "reset-no-group", args: bs("--reset-offsets", "--all-topics", "--to-earliest")},
			{name: "list-bad-state", args: bs("--list", "--state", "stable,bogus")},
			{name: "validate-regex-bad", args: []string{"--validate-regex", "a(b"}},
			{name: "timeout-not-a-number", args: bs("--describe", "--group", "empty1", "--timeout", "abc"), mode: trace},
		})
	})

	t.Run("read", func(t *testing.T) {
		run(t, []tcase{
			{name: "list", args: bs("--list"), sorted: true},
			{name: "list-state-type", args: bs("--list", "--state", "--type"), sorted: true},
			{name: "list-consumer", args: bs("--list", "--type", "consumer"), sorted: true},
			{name: "describe-all", args: bs("--describe", "--all-groups")},
			{name: "describe-verbose", args: bs("--describe", "--group", "live-static", "--group", "empty1", "--group", "live-848", "--offsets", "--verbose")},
			{name: "members", args: bs("--describe", "--all-groups", "--members")},
			{name: "members-verbose", args: bs("--describe", "--all-groups", "--members", "--verbose")},
			{name: "state", args: bs("--describe", "--all-groups", "--state")},
			{name: "state-verbose", args: bs("--describe", "--all-groups", "--state", "--verbose")},
			{name: "unknown-group", args: bs("--describe", "--group", "nosuch"), mode: trace},
		})
	})

	t.Run("reset-plan", func(t *testing.T) {
		dry := func(args ...string) []string {
			return bs(append([]string{"--reset-offsets", "--group", "empty1"}, args...)...)
		}
		run(t, []tcase{
			{name: "no-execute", args: dry("--all-topics", "--to-earliest")},
			{name: "to-latest", args: dry("--all-topics", "--to-latest", "--dry-run")},
			{name: "to-current", args: dry("--topic", "orders", "--topic", "other", "--to-current", "--dry-run")},
			{name: "to-offset-clamped", args: dry("--topic", "orders", "--to-offset", "9", "--dry-run")},
			{name: "shift-by-clamped", args: dry("--topic", "orders:0,2", "--shift-by", "-6", "--dry-run")},
			{name: "to-datetime-past", args: dry("--all-topics", "--to-datetime", "2000-01-01T00:00:00.000", "--dry-run")},
			{name: "to-datetime-future-zone", args: dry("--all-topics", "--to-datetime", "2099-01-01T00:00:00.000+02:00", "--dry-run")},
			{name: "by-duration", args: dry("--all-topics", "--by-duration", "P1D", "--dry-run")},
			{name: "from-file", args: dry("--from-file", plan, "--dry-run")},
			{name: "from-file-groups", args: bs("--reset-offsets", "--group", "empty1", "--group", "live-classic", "--group", "nosuch", "--from-file", plan2, "--dry-run")},
			{name: "export-groups", args: bs("--reset-offsets", "--group", "empty1", "--group", "nosuch", "--topic", "orders:1", "--to-latest", "--dry-run", "--export")},
			{name: "active-refused", args: bs("--reset-offsets", "--group", "live-classic", "--group", "live-848", "--group", "empty1", "--all-topics", "--to-earliest", "--dry-run")},
			{name: "no-scope", args: dry("--to-earliest", "--dry-run")},
			{name: "missing-partition", args: dry("--topic", "orders:9", "--to-earliest", "--dry-run"), mode: trace},
		})
	})

	t.Run("execute", func(t *testing.T) {
		offsets := func(g string) map[string]map[int32]int64 {
			out := map[string]map[int32]int64{}
			rs, err := adm.FetchOffsets(ctx, g)
			if err != nil {
				out[err.Error()] = nil
				return out
			}
			rs.Each(func(o kadm.OffsetResponse) {
				if out[o.Topic] == nil {
					out[o.Topic] = map[int32]int64{}
				}
				out[o.Topic][o.Partition] = o.At
			})
			return out
		}
		twin := func(name string, args func(g string) []string, check func(a, k result)) {
			t.Run(name, func(t *testing.T) {
				ga, gk := "ka-"+name, "kk-"+name
				a, k := runApache(t, args(ga)...), runKbox(t, args(gk)...)
				k.stdout = strings.ReplaceAll(k.stdout, gk, ga)
				compare(t, tcase{name: name}, a, k)
				if check != nil {
					check(a, k)
				}
				if oa, ok := offsets(ga), offsets(gk); !reflect.DeepEqual(oa, ok) {
					t.Errorf("committed offsets after: apache %v, kbox %v", oa, ok)
				}
			})
		}
		twin("exec", func(g string) []string {
			return bs("--reset-offsets", "--group", g, "--topic", "orders", "--shift-by", "2", "--execute")
		}, nil)
		twin("file", func(g string) []string {
			return bs("--reset-offsets", "--group", g, "--from-file", plan, "--execute")
		}, nil)
		twin("doff", func(g string) []string {
			return bs("--delete-offsets", "--group", g, "--topic", "orders:1", "--topic", "other", "--topic", "nosuchtopic")
		}, nil)
		twin("del", func(g string) []string {
			return bs("--delete", "--group", g, "--group", "live-classic", "--group", "nosuch")
		}, nil)
		run(t, []tcase{
			{name: "delete-unknown", args: bs("--delete", "--group", "nosuch1", "--group", "nosuch2")},
			{name: "delete-offsets-unknown-group", args: bs("--delete-offsets", "--group", "nosuch", "--topic", "orders")},
			{name: "delete-offsets-subscribed", args: bs("--delete-offsets", "--group", "live-classic", "--topic", "orders")},
		})
	})
}
