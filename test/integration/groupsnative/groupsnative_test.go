//go:build integration

// Package groupsnative_test checks the native `kbox groups` commands on a
// 1-broker cluster: lag in time against records with known timestamps,
// --watch rates against a producer at a known rate, resets as a plan
// checked by the committed offsets afterwards, and an active group refused.
package groupsnative_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"regexp"
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
	kboxBin string
	binDir  string // holds the kafka-consumer-groups link
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "groupsnative", Applets: []string{"kafka-consumer-groups"}, Brokers: 1, Ready: func(e testbed.Env) error {
		kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
		return nil
	}}))
}

// kbox runs `kbox groups ARGS --bootstrap-server B`.
func kbox(t *testing.T, args ...string) testbed.Result {
	t.Helper()
	args = append(append([]string{"groups"}, args...), "--bootstrap-server", cluster.Bootstrap)
	return testbed.Runner{Timeout: 2 * time.Minute}.Exec(t, kboxBin, args...)
}

func client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func createTopic(t *testing.T, adm *kadm.Client, name string, partitions int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := adm.CreateTopic(ctx, partitions, 1, nil, name); err != nil {
		t.Fatalf("create %s: %v", name, err)
	}
}

func commit(t *testing.T, adm *kadm.Client, group string, offs map[string]map[int32]int64) {
	t.Helper()
	var os kadm.Offsets
	for tp, ps := range offs {
		for p, at := range ps {
			os.AddOffset(tp, p, at, -1)
		}
	}
	if err := adm.CommitAllOffsets(context.Background(), group, os); err != nil {
		t.Fatalf("commit %s: %v", group, err)
	}
}

// committed returns a group's committed offsets of topic.
func committed(t *testing.T, adm *kadm.Client, group, topic string) map[int32]int64 {
	t.Helper()
	r, err := adm.FetchOffsets(context.Background(), group)
	if err != nil {
		t.Fatal(err)
	}
	out := map[int32]int64{}
	r.Each(func(o kadm.OffsetResponse) {
		if o.Topic == topic && o.Err == nil && o.At >= 0 {
			out[o.Partition] = o.At
		}
	})
	return out
}

// Records written with known timestamps: the time lag of a group is how
// long ago the record at its committed offset was written.
func TestLagInTime(t *testing.T) {
	cl := client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kadm.NewClient(cl)
	createTopic(t, adm, "timed", 2)
	start := time.Now().Add(-time.Hour).Truncate(time.Millisecond)
	ts := func(i int) time.Time { return start.Add(time.Duration(i) * 10 * time.Second) }
	var recs []*kgo.Record
	for i := 0; i < 20; i++ {
		recs = append(recs, &kgo.Record{Topic: "timed", Partition: int32(i % 2), Value: []byte("x"), Timestamp: ts(i)})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	// Partition 0 holds records 0,2,..,18 at offsets 0..9; partition 1
	// holds 1,3,..,19. The group stands at offset 4 of p0 (record 8) and
	// at the end of p1.
	commit(t, adm, "timed-g", map[string]map[int32]int64{"timed": {0: 4, 1: 10}})

	before := time.Now()
	r := kbox(t, "lag", "timed-g", "-o", "json")
	after := time.Now()
	if r.Code != 0 {
		t.Fatalf("%s", r)
	}
	var rep groups.LagReport
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("%v\n%s", err, r.Stdout)
	}
	if len(rep.Groups) != 1 || len(rep.Groups[0].Partitions) != 2 {
		t.Fatalf("report: %s", r.Stdout)
	}
	g := rep.Groups[0]
	p0, p1 := g.Partitions[0], g.Partitions[1]
	if p0.Lag != 6 || p0.CaughtUp || p0.NextRecordTimestampMs == nil || *p0.NextRecordTimestampMs != ts(8).UnixMilli() {
		t.Errorf("p0: lag %d, next record %v, want 6 and %d", p0.Lag, p0.NextRecordTimestampMs, ts(8).UnixMilli())
	}
	lo, hi := before.Sub(ts(8)).Milliseconds(), after.Sub(ts(8)).Milliseconds()
	if p0.TimeLagMs == nil || *p0.TimeLagMs < lo || *p0.TimeLagMs > hi {
		t.Errorf("p0 time lag %v ms, want within [%d, %d]", p0.TimeLagMs, lo, hi)
	}
	if !p1.CaughtUp || p1.Lag != 0 || p1.TimeLagMs == nil || *p1.TimeLagMs != 0 {
		t.Errorf("p1 should be caught up: %+v", p1)
	}
	if g.Lag != 6 || g.TimeLagMs == nil || *g.TimeLagMs != *p0.TimeLagMs {
		t.Errorf("group: lag %d time %v", g.Lag, g.TimeLagMs)
	}

	// The table says it in words: 59 minutes and some seconds, caught up.
	r = kbox(t, "lag", "timed-g", "-o", "wide")
	if r.Code != 0 || !strings.Contains(r.Stdout, "caught up") || !strings.Contains(r.Stdout, "58m") && !strings.Contains(r.Stdout, "59m") {
		t.Errorf("wide table:\n%s", r)
	}
	// --only-lagging drops the caught-up partition.
	r = kbox(t, "lag", "timed-g", "--only-lagging", "-o", "json")
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || len(rep.Groups) != 1 || len(rep.Groups[0].Partitions) != 1 {
		t.Errorf("--only-lagging: %s", r)
	}
}

// A producer at a known rate and a consumer that keeps up, committing
// after every poll: --watch reports both rates within 10 % of it.
func TestWatchRates(t *testing.T) {
	const rate = 400.0 // records/s
	const interval = 4 * time.Second
	cl := client(t, kgo.ProducerLinger(0), kgo.RecordPartitioner(kgo.RoundRobinPartitioner()))
	adm := kadm.NewClient(cl)
	createTopic(t, adm, "rated", 3)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()

	// The producer: record i is sent at start + i/rate.
	wg.Add(1)
	go func() {
		defer wg.Done()
		start := time.Now()
		for i := 0; ctx.Err() == nil; i++ {
			due := start.Add(time.Duration(float64(i) / rate * float64(time.Second)))
			if d := time.Until(due); d > 0 {
				select {
				case <-ctx.Done():
					return
				case <-time.After(d):
				}
			}
			cl.Produce(ctx, &kgo.Record{Topic: "rated", Value: []byte(fmt.Sprint(i))}, nil)
		}
	}()
	cons := client(t, kgo.ConsumerGroup("rated-g"), kgo.ConsumeTopics("rated"), kgo.DisableAutoCommit(),
		kgo.FetchMaxWait(100*time.Millisecond))
	wg.Add(1)
	go func() {
		defer wg.Done()
		for ctx.Err() == nil {
			fs := cons.PollFetches(ctx)
			if fs.NumRecords() > 0 {
				_ = cons.CommitUncommittedOffsets(ctx)
			}
		}
	}()
	// Wait until the group has committed on every partition (the
	// coordinator may not be ready yet on a fresh cluster).
	deadline := time.Now().Add(60 * time.Second)
	for {
		if r, err := adm.FetchOffsets(context.Background(), "rated-g"); err == nil && len(r["rated"]) == 3 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the consumer committed nothing within 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}

	r := kbox(t, "lag", "rated-g", "--watch", "--interval", interval.String(), "--count", "4", "-o", "json")
	if r.Code != 0 {
		t.Fatalf("%s", r)
	}
	sc := bufio.NewScanner(strings.NewReader(r.Stdout))
	n := 0
	for sc.Scan() {
		var ws groups.WatchSample
		if err := json.Unmarshal(sc.Bytes(), &ws); err != nil {
			t.Fatalf("line %d: %v: %s", n+1, err, sc.Text())
		}
		n++
		if ws.Sample != n || len(ws.Groups) != 1 {
			t.Fatalf("sample %d: %s", n, sc.Text())
		}
		g := ws.Groups[0]
		if n == 1 {
			if g.ProduceRecordsPerSec != nil || ws.IntervalSec != nil {
				t.Errorf("first sample has rates: %s", sc.Text())
			}
			continue
		}
		if g.ProduceRecordsPerSec == nil || g.ConsumeRecordsPerSec == nil {
			t.Fatalf("sample %d without rates: %s", n, sc.Text())
		}
		t.Logf("sample %d over %.3fs: produce %.1f/s consume %.1f/s lag %d status %s", n, *ws.IntervalSec, *g.ProduceRecordsPerSec, *g.ConsumeRecordsPerSec, g.Lag, g.Status)
		for what, v := range map[string]float64{"produce": *g.ProduceRecordsPerSec, "consume": *g.ConsumeRecordsPerSec} {
			if math.Abs(v-rate)/rate > 0.10 {
				t.Errorf("sample %d: %s rate %.1f/s, want %.0f/s within 10%% (interval %.3fs)", n, what, v, rate, *ws.IntervalSec)
			}
		}
		if g.Status == groups.StatusFallingBehind && g.Lag > int64(rate) {
			t.Errorf("sample %d: a consumer that keeps up is reported falling behind with lag %d", n, g.Lag)
		}
	}
	if n != 4 {
		t.Errorf("%d samples, want 4:\n%s", n, r.Stdout)
	}
}

// A reset plan: dry run changes nothing, --execute commits the diff,
// --save-plan/--plan replays it later; checked by the committed offsets.
func TestResetPlan(t *testing.T) {
	cl := client(t, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	adm := kadm.NewClient(cl)
	createTopic(t, adm, "resets", 2)
	var recs []*kgo.Record
	for i := 0; i < 200; i++ {
		recs = append(recs, &kgo.Record{Topic: "resets", Partition: int32(i % 2), Value: []byte("x")})
	}
	if err := cl.ProduceSync(context.Background(), recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	commit(t, adm, "resets-g", map[string]map[int32]int64{"resets": {0: 50, 1: 60}})
	plan := t.TempDir() + "/plan.json"

	r := kbox(t, "reset", "resets-g", "--topic", "resets", "--shift-by", "-20", "--save-plan", plan)
	if r.Code != 0 || !strings.Contains(r.Stdout, "replay 20") || !strings.Contains(r.Stderr, "nothing committed") {
		t.Fatalf("dry run: %s", r)
	}
	if got := committed(t, adm, "resets-g", "resets"); got[0] != 50 || got[1] != 60 {
		t.Fatalf("the dry run committed: %v", got)
	}
	r = kbox(t, "reset", "resets-g", "--topic", "resets:1", "--to-latest", "--execute", "-o", "json")
	var p groups.Plan
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &p) != nil || !p.Executed || p.Groups[0].Partitions[0].RecordsSkipped != 40 {
		t.Fatalf("execute: %s", r)
	}
	if got := committed(t, adm, "resets-g", "resets"); got[0] != 50 || got[1] != 100 {
		t.Fatalf("after --to-latest on resets:1: %v", got)
	}
	// The saved plan was computed from (50, 60); resets:1 is at 100 now:
	// the replay refuses with the diff and commits nothing.
	r = kbox(t, "reset", "--plan", plan, "--execute")
	if r.Code != 1 || r.Stdout != "" || !strings.Contains(r.Stderr, "the plan is stale: the committed offsets of 1 partition(s) moved") ||
		!regexp.MustCompile(`(?m)^resets-g\s+resets\s+1\s+60\s+100$`).MatchString(r.Stderr) || strings.Contains(r.Stderr, "resets  0") {
		t.Fatalf("stale replay: %s", r)
	}
	if got := committed(t, adm, "resets-g", "resets"); got[0] != 50 || got[1] != 100 {
		t.Fatalf("a refused replay committed: %v", got)
	}
	// --allow-stale applies the plan's new offsets (30, 40), from what is
	// committed now, and still says what moved.
	r = kbox(t, "reset", "--plan", plan, "--execute", "--allow-stale")
	if r.Code != 0 || !strings.Contains(r.Stdout, "replay 60") || !strings.Contains(r.Stderr, "applying it anyway (--allow-stale)") ||
		!strings.Contains(r.Stderr, "Committed new offsets for 2 partition(s): 0 record(s) skipped, 80 replayed") {
		t.Fatalf("replay --allow-stale: %s", r)
	}
	if got := committed(t, adm, "resets-g", "resets"); got[0] != 30 || got[1] != 40 {
		t.Fatalf("after replaying the plan: %v", got)
	}
	// A fresh plan replays as reviewed while nothing moves.
	r = kbox(t, "reset", "resets-g", "--topic", "resets", "--shift-by", "5", "--save-plan", plan)
	if r.Code != 0 {
		t.Fatalf("plan: %s", r)
	}
	r = kbox(t, "reset", "--plan", plan, "--execute")
	if r.Code != 0 || strings.Contains(r.Stderr, "stale") {
		t.Fatalf("replay of an unchanged group: %s", r)
	}
	if got := committed(t, adm, "resets-g", "resets"); got[0] != 35 || got[1] != 45 {
		t.Fatalf("after replaying the fresh plan: %v", got)
	}
	// A group that does not exist: planned, with a note saying executing creates it.
	r = kbox(t, "reset", "resets-new", "--topic", "resets", "--to-earliest")
	if r.Code != 0 || !strings.Contains(r.Stderr, "group resets-new does not exist: executing the plan creates it") {
		t.Errorf("unknown group: %s", r)
	}
	// By time: the records were just written, so one hour back is the start.
	r = kbox(t, "reset", "resets-g", "--all-topics", "--by-duration", "PT1H", "-o", "json")
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &p) != nil || p.Groups[0].Partitions[0].NewOffset != 0 {
		t.Errorf("by duration: %s", r)
	}
}

// An active group is refused with its state; nothing is committed, also
// for the other (empty) group of the same command; delete refuses it too.
func TestActiveGroupRefused(t *testing.T) {
	cl := client(t)
	adm := kadm.NewClient(cl)
	createTopic(t, adm, "live", 1)
	if err := cl.ProduceSync(context.Background(), &kgo.Record{Topic: "live", Value: []byte("x")}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	commit(t, adm, "idle-g", map[string]map[int32]int64{"live": {0: 0}})
	// A classic member, and a KIP-848 (group.protocol=consumer) one.
	classic := client(t, kgo.ConsumerGroup("live-g"), kgo.ConsumeTopics("live"), kgo.FetchMaxWait(200*time.Millisecond))
	kip848 := client(t, kgo.ConsumerGroup("live848-g"), kgo.ConsumeTopics("live"), kgo.FetchMaxWait(200*time.Millisecond),
		kgo.ServerSideBalancer(), kgo.Balancers(kgo.StickyBalancer()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, cons := range []*kgo.Client{classic, kip848} {
		go func() {
			for ctx.Err() == nil {
				cons.PollFetches(ctx)
			}
		}()
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		ls, err := adm.ListGroups(context.Background())
		if err == nil && ls["live-g"].State == "Stable" && ls["live848-g"].State == "Stable" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("live-g did not become Stable within 60 s")
		}
		time.Sleep(200 * time.Millisecond)
	}
	r := kbox(t, "reset", "live-g", "idle-g", "--topic", "live", "--to-latest", "--execute")
	if r.Code != 1 || !strings.Contains(r.Stderr, "group live-g is active (state Stable)") || !strings.Contains(r.Stdout, "refused: state Stable") {
		t.Fatalf("active group: %s", r)
	}
	if got := committed(t, adm, "idle-g", "live"); got[0] != 0 {
		t.Errorf("the empty group of a refused plan was reset: %v", got)
	}
	r = kbox(t, "reset", "live848-g", "--all-topics", "--to-earliest")
	if r.Code != 1 || !strings.Contains(r.Stderr, "group live848-g is active (state Stable)") {
		t.Errorf("active KIP-848 group: %s", r)
	}
	r = kbox(t, "list", "-o", "json")
	var l groups.GroupList
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &l) != nil {
		t.Fatalf("list: %s", r)
	}
	types := map[string]string{}
	for _, g := range l.Groups {
		types[g.Group] = g.Type + "/" + g.State
	}
	if types["live-g"] != "Classic/Stable" || types["live848-g"] != "Consumer/Stable" || types["idle-g"] != "Classic/Empty" {
		t.Errorf("list: %v", types)
	}
	r = kbox(t, "delete", "live-g")
	if r.Code != 1 || !strings.Contains(r.Stdout, "not deleted: the group has active members") {
		t.Errorf("delete active: %s", r)
	}
	r = kbox(t, "delete", "idle-g", "-o", "json")
	if r.Code != 0 || !strings.Contains(r.Stdout, `"deleted":true`) {
		t.Errorf("delete idle: %s", r)
	}
}

// `kbox groups SUBCOMMAND` through the drop-in's registry entry with a
// profile: its bootstrap servers (which the layer puts first in the
// drop-in's arguments) and its output format reach the native command;
// Apache options still reach the drop-in.
func TestProfileDispatch(t *testing.T) {
	cfg := t.TempDir() + "/config.yaml"
	yaml := "current-profile: tb\nprofiles:\n  tb:\n    bootstrap-servers: " + cluster.Bootstrap + "\n    output: json\n"
	if err := os.WriteFile(cfg, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	run := testbed.Runner{Config: cfg, Timeout: time.Minute}
	r := run.Exec(t, kboxBin, "groups", "list", "--state", "Empty")
	var l groups.GroupList
	if r.Code != 0 || json.Unmarshal([]byte(r.Stdout), &l) != nil {
		t.Fatalf("native list with a profile: %s", r)
	}
	r = run.Exec(t, kboxBin, "groups", "lag", "--sort", "lag", "-o", "table")
	if r.Code != 0 || !strings.HasPrefix(r.Stdout, "GROUP") {
		t.Errorf("native lag with a profile, -o table: %s", r)
	}
	r = run.Exec(t, kboxBin, "groups", "--list")
	if r.Code != 0 || strings.HasPrefix(r.Stdout, "{") || r.Stderr != "" {
		t.Errorf("Apache --list with a profile: %s", r)
	}
	// Under the link name the arguments are Apache's: no native subcommands.
	r = run.Exec(t, binDir+"/kafka-consumer-groups", "list", "--bootstrap-server", cluster.Bootstrap)
	if r.Code != 1 || !strings.HasPrefix(r.Stderr, "Command must include exactly one action") {
		t.Errorf("kafka-consumer-groups list: %s", r)
	}
	// kbox groups --help: Apache's help, then the native subcommands.
	r = run.Exec(t, kboxBin, "groups", "--help")
	if !strings.Contains(r.Stderr, "--reset-offsets") || !strings.Contains(r.Stderr, "Native subcommands") || !strings.Contains(r.Stderr, "\n  lag ") {
		t.Errorf("kbox groups --help: %s", r)
	}
}

// A group that does not exist is an error naming it (exit 1), for a
// one-shot lag and for --watch; with a group that exists, the existing
// one is still shown.
func TestLagNoSuchGroup(t *testing.T) {
	cl := client(t)
	adm := kadm.NewClient(cl)
	createTopic(t, adm, "present", 1)
	commit(t, adm, "present-g", map[string]map[int32]int64{"present": {0: 0}})
	for _, args := range [][]string{
		{"lag", "no-such-group"},
		{"lag", "no-such-group", "-o", "json"},
		{"lag", "no-such-group", "--watch", "--interval", "200ms"},
	} {
		r := kbox(t, args...)
		if r.Code != 1 || r.Stdout != "" || r.Stderr != "kbox: error: group no-such-group not found\n" {
			t.Errorf("%v: %s", args, r)
		}
	}
	r := kbox(t, "lag", "present-g", "no-such-group", "other-missing")
	if r.Code != 1 || !strings.Contains(r.Stdout, "present-g") || strings.Contains(r.Stdout, "no-such-group") ||
		r.Stderr != "kbox: error: groups no-such-group, other-missing not found\n" {
		t.Errorf("one present, two missing: %s", r)
	}
}

// watchLines runs `kbox groups lag ARGS --watch -o json` and sends each
// sample as it comes; stop interrupts it and returns its exit code.
func watchLines(t *testing.T, args ...string) (<-chan groups.WatchSample, func() int) {
	t.Helper()
	args = append(append([]string{"groups", "lag"}, args...), "--watch", "-o", "json", "--bootstrap-server", cluster.Bootstrap)
	cmd := exec.Command(kboxBin, args...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+t.TempDir()+"/none.yaml")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	ch := make(chan groups.WatchSample, 1000)
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer close(ch)
		sc := bufio.NewScanner(out)
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			var ws groups.WatchSample
			if err := json.Unmarshal(sc.Bytes(), &ws); err != nil {
				t.Errorf("watch line: %v: %s", err, sc.Text())
				return
			}
			ch <- ws
		}
	}()
	stopped := false
	stop := func() int {
		if stopped {
			return 0
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGINT)
		<-done
		err := cmd.Wait()
		if stderr.Len() > 0 {
			t.Logf("watch stderr: %s", stderr.String())
		}
		if ee, ok := err.(*exec.ExitError); ok {
			return ee.ExitCode()
		}
		return 0
	}
	t.Cleanup(func() { stop() })
	return ch, stop
}

// A consumer paused mid-run goes STALL, then STOP; the group reset back
// goes REWIND: `kbox groups lag --watch` judges a window of the last 10
// commits it saw, sampled every 300 ms against a consumer that commits
// after every poll while a producer writes 200 records/s.
func TestWatchVerdicts(t *testing.T) {
	const topic, group = "verdicts", "verdicts-g"
	cl := client(t, kgo.ProducerLinger(0))
	adm := kadm.NewClient(cl)
	createTopic(t, adm, topic, 1)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel()
	wg.Add(1)
	go func() { // 200 records/s until the test ends
		defer wg.Done()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				cl.Produce(ctx, &kgo.Record{Topic: topic, Value: []byte("v")}, nil)
			}
		}
	}()
	cons, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cons.Close()
	pause := make(chan struct{})
	consumerDone := make(chan struct{})
	go func() { // polls and commits until paused; then only its group membership lives on
		defer close(consumerDone)
		for {
			select {
			case <-pause:
				return
			default:
			}
			fs := cons.PollFetches(ctx)
			if ctx.Err() != nil {
				return
			}
			if fs.NumRecords() > 0 {
				_ = cons.CommitUncommittedOffsets(ctx)
			}
		}
	}()
	deadline := time.Now().Add(60 * time.Second)
	for len(committed(t, adm, group, topic)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the consumer committed nothing within 60 s")
		}
		time.Sleep(100 * time.Millisecond)
	}

	samples, stop := watchLines(t, group, "--interval", "300ms", "--no-time-lag")
	// next returns the next sample's partition and group verdict.
	next := func(deadline time.Time) (groups.PartitionRate, groups.Verdict, time.Time) {
		t.Helper()
		select {
		case ws, ok := <-samples:
			if !ok {
				t.Fatalf("the watch ended (exit %d)", stop())
			}
			if len(ws.Groups) != 1 || len(ws.Groups[0].Partitions) != 1 {
				t.Fatalf("sample %d: %+v", ws.Sample, ws.Groups)
			}
			return ws.Groups[0].Partitions[0], ws.Groups[0].Verdict, ws.Time
		case <-time.After(time.Until(deadline)):
			t.Fatal("no sample before the deadline")
		}
		panic("unreachable")
	}
	// A full window of commits, each sample with a new commit: its
	// longest gap is short against its span (at least 5 gaps), so that a
	// pause has time to show STALL before STOP even on a loaded machine.
	deadline = time.Now().Add(90 * time.Second)
	var times []time.Time
	for {
		p, v, at := next(deadline)
		if p.SinceCommitMs != 0 {
			times = times[:0] // a sample without a new commit
			continue
		}
		times = append(times, at)
		if len(times) > 10 {
			times = times[1:]
		}
		var gap time.Duration
		for i := 1; i < len(times); i++ {
			gap = max(gap, times[i].Sub(times[i-1]))
		}
		if p.WindowCommits == groups.WindowCommits && len(times) == 10 && v == groups.VerdictOK &&
			time.Duration(p.WindowSpanMs)*time.Millisecond > 5*gap {
			t.Logf("running: window of %d commits over %dms, longest gap %s, lag %d", p.WindowCommits, p.WindowSpanMs, gap, p.Lag)
			break
		}
	}
	close(pause)
	<-consumerDone
	paused := time.Now()
	var seen []string
	deadline = time.Now().Add(60 * time.Second)
	for {
		p, v, _ := next(deadline)
		if p.SinceCommitMs == 0 && p.CommittedOffset > 0 && len(seen) == 0 {
			continue // the last commits before the pause
		}
		if len(seen) == 0 || seen[len(seen)-1] != v.String() {
			seen = append(seen, v.String())
			t.Logf("%s after the pause: %s (lag %d, %dms since the last commit, window spans %dms)", time.Since(paused).Round(time.Millisecond), v, p.Lag, p.SinceCommitMs, p.WindowSpanMs)
		}
		if v == groups.VerdictStop {
			break
		}
	}
	if got := strings.Join(seen, ","); got != "OK,STALL,STOP" && got != "STALL,STOP" {
		t.Fatalf("verdicts after the pause: %s, want STALL then STOP", got)
	}

	// The consumer leaves; the group is reset to the log start.
	cons.Close()
	deadline = time.Now().Add(60 * time.Second)
	for {
		r := kbox(t, "reset", group, "--topic", topic, "--to-earliest", "--execute")
		if r.Code == 0 {
			break
		}
		if time.Now().After(deadline) || !strings.Contains(r.Stderr, "is active") {
			t.Fatalf("reset: %s", r)
		}
		time.Sleep(200 * time.Millisecond)
	}
	for {
		p, v, _ := next(deadline)
		if p.CommittedOffset == 0 {
			if v != groups.VerdictRewind || p.Verdict != groups.VerdictRewind {
				t.Fatalf("reset back: group %s, partition %+v", v, p)
			}
			break
		}
	}
	if code := stop(); code != 0 {
		t.Errorf("the interrupted watch exited %d", code)
	}
}
