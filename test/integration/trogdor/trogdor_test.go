//go:build integration

// Package trogdor_test runs kbox perf distributed on a Trogdor coordinator
// with 3 agents (Apache Kafka's trogdor 4.3.0 jar) against a 3-broker test
// bed: every agent runs kbox perf worker through an ExternalCommand task.
package trogdor_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	trog    *testbed.Trogdor
	kboxBin string
)

func TestMain(m *testing.M) { os.Exit(run(m)) }

// run starts Trogdor (its own state dir) while testbed.Main starts the
// brokers: the two start-ups overlap.
func run(m *testing.M) int {
	dir, err := os.MkdirTemp("", "kbox-trogdor-it-agents")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	// The agents (and the workers they start) inherit this: no user config
	// file reaches the workers.
	if err := os.Setenv("KBOX_CONFIG", filepath.Join(dir, "none.yaml")); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	type up struct {
		t   *testbed.Trogdor
		err error
	}
	ch := make(chan up, 1)
	go func() {
		t, err := testbed.TrogdorUp(filepath.Join(dir, "tb"), 3)
		ch <- up{t, err}
	}()
	var started *up
	wait := func() *up {
		if started == nil {
			u := <-ch
			started = &u
		}
		return started
	}
	defer func() {
		// Down also when up failed half-way, so no JVM outlives the run.
		if err := (&testbed.Trogdor{Dir: wait().t.Dir}).Down(); err != nil {
			fmt.Fprintln(os.Stderr, "trogdor down:", err)
		}
	}()
	return testbed.Main(m, testbed.Options{Name: "trogdor", Brokers: 3, Ready: func(e testbed.Env) error {
		kboxBin, cluster = e.Kbox, e.Cluster
		u := wait()
		trog = u.t
		return u.err
	}})
}

func createTopic(t *testing.T, name string) {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := kadm.NewClient(cl).CreateTopic(ctx, 3, 3, nil, name); err != nil {
		t.Fatal(err)
	}
}

func topicRecords(t *testing.T, name string) int64 {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, name)
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	ends.Each(func(o kadm.ListedOffset) { n += o.Offset })
	return n
}

func distArgs(topic string, extra ...string) []string {
	return append([]string{"perf", "distributed", "produce", "--coordinator", trog.Coordinator, "--agents", strings.Join(trog.Agents, ","),
		"--worker-command", kboxBin + " perf worker", "--bootstrap-server", cluster.Bootstrap, "--topic", topic,
		"--record-size", "100", "--start-delay", "2s", "-o", "json"}, extra...)
}

func decode(t *testing.T, out string) *distrib.DistributedResult {
	t.Helper()
	var d distrib.DistributedResult
	if err := json.Unmarshal([]byte(out), &d); err != nil {
		t.Fatalf("%v in %q", err, out)
	}
	return &d
}

// A distributed produce: the merged count is what the brokers hold, the
// merged percentiles are those of an independent merge of the agents'
// histograms, and the aggregate rate is the sum of the agents'.
func TestDistributedProduce(t *testing.T) {
	createTopic(t, "dist")
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, distArgs("dist", "--records", "30001", "--producers", "2")...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	d := decode(t, r.Stdout)
	if d.Agents != 3 || d.FailedAgents != 0 || len(d.MergedAgents) != 3 || d.Merged == nil {
		t.Fatalf("result %+v", d)
	}
	if got := topicRecords(t, "dist"); d.Merged.Records != 30001 || got != 30001 {
		t.Fatalf("merged %d records, topic holds %d, want 30001", d.Merged.Records, got)
	}
	merged := hdr.New(1, int64(time.Hour/time.Microsecond), 3)
	var sumRate, sumMB float64
	for i, a := range d.PerAgent {
		if a.State != distrib.AgentDone || a.Result == nil {
			t.Fatalf("agent %+v", a)
		}
		if want := distrib.Split(30001, i, 3); a.Result.Records != want {
			t.Errorf("agent %s produced %d, its share is %d", a.Agent, a.Result.Records, want)
		}
		h, err := hdr.Decode([]byte(a.Result.Histogram))
		if err != nil {
			t.Fatal(err)
		}
		merged.Merge(h)
		sumRate += a.Result.RecordsPerSec
		sumMB += a.Result.MBPerSec
	}
	ms := func(us int64) float64 { return float64(us) / 1000 }
	l := d.Merged.Latency
	for _, c := range []struct {
		name      string
		got, want float64
	}{
		{"count", float64(l.Count), float64(merged.TotalCount())},
		{"p50", l.P50Ms, ms(merged.ValueAtQuantile(50))},
		{"p99", l.P99Ms, ms(merged.ValueAtQuantile(99))},
		{"p99.9", l.P999Ms, ms(merged.ValueAtQuantile(99.9))},
		{"max", l.MaxMs, ms(merged.Max())},
	} {
		if c.got != c.want {
			t.Errorf("merged %s %v, independent merge %v", c.name, c.got, c.want)
		}
	}
	if math.Abs(d.AggregateRecordsPerSec-sumRate) > 1e-6*sumRate || math.Abs(d.AggregateMBPerSec-sumMB) > 1e-6*sumMB {
		t.Errorf("aggregate %f rec/s %f MB/s, sum of the agents %f %f", d.AggregateRecordsPerSec, d.AggregateMBPerSec, sumRate, sumMB)
	}
	if d.SubmitToFirstRecordMs < 1900 || d.SubmitToFirstRecordMs > 30000 {
		t.Errorf("submit to first record %.1f ms, want after the 2 s start delay", d.SubmitToFirstRecordMs)
	}
	t.Logf("3 agents: %.0f rec/s aggregate, submit to first record %.0f ms", d.AggregateRecordsPerSec, d.SubmitToFirstRecordMs)
}

// A throttled run: the total rate is split evenly (each agent's target is
// exactly a third), and every agent kept to its share: its measured span
// (first intended send to last acknowledgement) is its schedule,
// (records-1)/share, plus the last record's latency, so its rate is never
// more than 1 % above its share, and below it only by what its latency
// explains. (How close the aggregate comes to the target depends on the
// machine's load: a loaded 2-core test machine adds latency to every agent.)
func TestDistributedThrottled(t *testing.T) {
	createTopic(t, "throttled")
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, distArgs("throttled", "--records", "12000", "--throughput", "3000")...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	d := decode(t, r.Stdout)
	if d.Merged == nil || d.Merged.TargetRate != 3000 {
		t.Fatalf("merged %+v", d.Merged)
	}
	var sum float64
	for _, a := range d.PerAgent {
		res := a.Result
		if res == nil || res.TargetRate != 1000 || res.Records != 4000 {
			t.Fatalf("agent %+v", a)
		}
		sum += res.RecordsPerSec
		schedule := float64(res.Records-1) / 1000
		if res.RecordsPerSec > 1000*1.01 || res.ElapsedSec < schedule*0.99 {
			t.Errorf("agent %s: %.1f rec/s in %.3f s: faster than its 1000 rec/s share", a.Agent, res.RecordsPerSec, res.ElapsedSec)
		}
		if slack := res.ElapsedSec - schedule - res.Latency.MaxMs/1000; slack > 0.01 {
			t.Errorf("agent %s: %.3f s for a %.3f s schedule and %.1f ms max latency: behind its share by %.3f s", a.Agent, res.ElapsedSec, schedule, res.Latency.MaxMs, slack)
		}
	}
	if math.Abs(d.AggregateRecordsPerSec-sum) > 1e-6*sum {
		t.Errorf("aggregate %.1f, sum of the agents %.1f", d.AggregateRecordsPerSec, sum)
	}
	t.Logf("throttled at 3000 rec/s: aggregate %.1f rec/s (%.2f %% of the target)", sum, 100*sum/3000)
}

// A distributed e2e: every agent keeps one record in flight on its own
// topic; the merge holds every round trip.
func TestDistributedE2E(t *testing.T) {
	args := distArgs("rt", "--records", "300")
	args[2] = "e2e"
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, args...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	d := decode(t, r.Stdout)
	if d.Kind != perf.KindE2E || d.Merged == nil || d.Merged.Records != 300 || d.Merged.Latency.Count != 300 || d.FailedAgents != 0 {
		t.Fatalf("result %+v merged %+v", d, d.Merged)
	}
	for _, a := range d.PerAgent {
		if got := topicRecords(t, "rt-"+a.Agent); a.Result.Records != 100 || got != 100 {
			t.Errorf("agent %s: %d round trips, its topic holds %d records", a.Agent, a.Result.Records, got)
		}
	}
}

// --agent-counts repeats the run with the first N agents for each N.
func TestDistributedAgentCounts(t *testing.T) {
	createTopic(t, "counts")
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, distArgs("counts", "--records", "3000", "--agent-counts", "1,3")...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var s distrib.AgentSweep
	if err := json.Unmarshal([]byte(r.Stdout), &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Runs) != 2 || s.Runs[0].Agents != 1 || s.Runs[1].Agents != 3 {
		t.Fatalf("sweep %+v", s)
	}
	for _, d := range s.Runs {
		if d.Merged == nil || d.Merged.Records != 3000 || d.FailedAgents != 0 || len(d.PerAgent) != d.Agents {
			t.Fatalf("run %+v", d)
		}
	}
	if got := topicRecords(t, "counts"); got != 6000 {
		t.Errorf("topic holds %d records, want 6000", got)
	}
}

// kbox perf sweep produce --vary agents=1,2,3: three cells, each on the
// first N agents through the distributed driver, each on a topic of its
// own holding exactly the cell's merged count (plus the one readiness
// record per partition the sweep writes to every topic it creates); the
// JSON names each cell's agents and its rate is the agents' aggregate.
func TestSweepOverAgents(t *testing.T) {
	args := []string{"perf", "sweep", "produce", "--topic-prefix", "agsweep", "--vary", "agents=1,2,3",
		"--coordinator", trog.Coordinator, "--agents", strings.Join(trog.Agents, ","), "--worker-command", kboxBin + " perf worker",
		"--bootstrap-server", cluster.Bootstrap, "--records", "3000", "--record-size", "100", "--repeat", "1", "--partitions", "3",
		"--replication-factor", "3", "--cluster-warmup", "0", "--warmup-duration", "0", "--start-delay", "1s", "--rerun-outliers", "0",
		"--keep-topics", "-o", "json"}
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, args...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	var res sweep.Result
	if err := json.Unmarshal([]byte(r.Stdout), &res); err != nil {
		t.Fatalf("%v in %q", err, r.Stdout)
	}
	if len(res.Cells) != 3 || strings.Join(res.Plan.Agents, ",") != strings.Join(trog.Agents, ",") || res.Plan.Coordinator != trog.Coordinator {
		t.Fatalf("plan %+v, %d cells", res.Plan, len(res.Cells))
	}
	for _, c := range res.Cells {
		n, _ := c.Get("agents")
		want := trog.Agents[:len(c.Agents)]
		if n != fmt.Sprint(len(c.Agents)) || strings.Join(c.Agents, ",") != strings.Join(want, ",") || len(c.Runs) != 1 {
			t.Fatalf("cell %d (agents=%s): agents %v, %d runs", c.Index, n, c.Agents, len(c.Runs))
		}
		run := c.Runs[0]
		d := run.Distributed
		if run.Error != "" || run.Result == nil || d == nil || d.FailedAgents != 0 || strings.Join(d.Agents, ",") != strings.Join(want, ",") {
			t.Fatalf("cell %d run %+v", c.Index, run)
		}
		if got := topicRecords(t, c.Topic); run.Result.Records != 3000 || got != 3000+3 {
			t.Errorf("cell %d: merged %d records, topic %s holds %d (want 3000 + 3 readiness records)", c.Index, run.Result.Records, c.Topic, got)
		}
		var sum float64
		for _, a := range d.PerAgent {
			if a.State != distrib.AgentDone || a.Records != distrib.Split(3000, indexOf(trog.Agents, a.Agent), len(want)) {
				t.Errorf("cell %d agent %+v", c.Index, a)
			}
			sum += a.RecordsPerSec
		}
		if math.Abs(c.RecordsPerSec-sum) > 1e-6*sum || math.Abs(d.AggregateRecordsPerSec-sum) > 1e-6*sum {
			t.Errorf("cell %d: %.1f records/s, sum of its agents %.1f", c.Index, c.RecordsPerSec, sum)
		}
		t.Logf("agents=%s: %.0f rec/s aggregate, %.2f MB/s, p99 %.1f ms", n, c.RecordsPerSec, c.MBPerSec, c.Latency.P99Ms)
	}
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// -o apache for a distributed consume: kafka-consumer-perf-test's header and
// one data line for the merged totals, in its column layout (dates in its
// default yyyy-MM-dd HH:mm:ss:SSS, rebalance.time.ms 0: the agents report
// no join time, fetch.time.ms the measured span).
func TestDistributedConsumeApache(t *testing.T) {
	createTopic(t, "apachecons")
	if r := (testbed.Runner{Timeout: 3 * time.Minute}).Exec(t, kboxBin, distArgs("apachecons", "--records", "3000")...); r.Code != 0 {
		t.Fatalf("fill: exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	args := distArgs("apachecons", "--records", "3000", "-o", "apache")
	args[2] = "consume"
	args = removeFlag(args, "--record-size")
	// One agent reads every partition: the split of a count over a group
	// needs balanced partitions, which a keyless produce does not promise.
	args[indexOf(args, "--agents")+1] = trog.Agents[0]
	r := testbed.Runner{Timeout: 3 * time.Minute}.Exec(t, kboxBin, args...)
	if r.Code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.Code, r.Stdout, r.Stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.Stdout, "\n"), "\n")
	if len(lines) != 2 || lines[0] != "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec" {
		t.Fatalf("output %q", r.Stdout)
	}
	cols := strings.Split(lines[1], ", ")
	if len(cols) != 10 {
		t.Fatalf("%d columns in %q", len(cols), lines[1])
	}
	layout := "2006-01-02 15:04:05.000"
	var times []time.Time
	for _, c := range cols[:2] {
		i := strings.LastIndex(c, ":")
		ts, err := time.ParseInLocation(layout, c[:i]+"."+c[i+1:], time.Local)
		if err != nil {
			t.Fatalf("date %q: %v", c, err)
		}
		times = append(times, ts)
	}
	num := func(i int) float64 {
		v, err := strconv.ParseFloat(cols[i], 64)
		if err != nil {
			t.Fatalf("column %d %q: %v", i, cols[i], err)
		}
		return v
	}
	sec := times[1].Sub(times[0]).Seconds()
	if num(4) != 3000 || math.Abs(num(2)-3000*100/1048576.0) > 0.0001 || sec <= 0 || num(6) != 0 || math.Abs(num(7)-sec*1000) > 1 {
		t.Fatalf("columns %q", cols)
	}
	if math.Abs(num(5)-3000/sec) > 0.01*3000/sec || math.Abs(num(3)-num(2)/sec) > 0.01*num(2)/sec+1e-4 {
		t.Errorf("rates %q over %.3f s", cols, sec)
	}
}

func removeFlag(args []string, name string) []string {
	for i, a := range args {
		if a == name {
			return append(append([]string(nil), args[:i]...), args[i+2:]...)
		}
	}
	return args
}

// coordinatorTasks lists the coordinator's tasks.
func coordinatorTasks(t *testing.T) map[string]json.RawMessage {
	t.Helper()
	resp, err := http.Get(trog.Coordinator + "/coordinator/tasks/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		Tasks map[string]json.RawMessage `json:"tasks"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.Tasks
}

// waitRunning waits until every agent's task (of agents, by name suffix)
// reports measured records; it returns how many tasks there are.
func waitRunning(t *testing.T, agents ...string) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	for time.Now().Before(deadline) {
		ok := 0
		for id, raw := range coordinatorTasks(t) {
			var ts struct {
				State  string          `json:"state"`
				Status json.RawMessage `json:"status"`
			}
			_ = json.Unmarshal(raw, &ts)
			st, isKbox := distrib.ParseStatus(ts.Status)
			for _, a := range agents {
				if strings.HasSuffix(id, "-"+a) && ts.State == "RUNNING" && isKbox && st.Records > 0 {
					ok++
				}
			}
		}
		if ok == len(agents) {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Fatalf("the tasks of %v never reported records", agents)
}

func start(t *testing.T, args ...string) (*exec.Cmd, *bytes.Buffer, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(kboxBin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, &out, &errb
}

// Ctrl-C stops every task: the run ends with the agents' partial results,
// and no task is left on the coordinator.
func TestDistributedInterrupt(t *testing.T) {
	createTopic(t, "interrupted")
	cmd, out, errb := start(t, distArgs("interrupted", "--records", "600000", "--throughput", "3000")...)
	waitRunning(t, trog.Agents...)
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errb.String(), "interrupted: every task was stopped") {
		t.Fatalf("exit %v\nstdout %s\nstderr %s", err, out, errb)
	}
	d := decode(t, out.String())
	var partial int64
	for _, a := range d.PerAgent {
		if a.State != distrib.AgentStopped || a.Result == nil || a.Result.Records == 0 || a.Result.Records >= 200000 {
			t.Fatalf("agent %+v", a)
		}
		partial += a.Result.Records
	}
	if n := len(coordinatorTasks(t)); n != 0 {
		t.Errorf("%d tasks left on the coordinator", n)
	}
	// A task is DONE only once its worker process has exited: none is left.
	if ws := workers(t); len(ws) > 0 {
		t.Errorf("worker processes left: %v", ws)
	}
	if n := topicRecords(t, "interrupted"); n < partial {
		t.Errorf("topic holds %d records; the agents reported %d acknowledged", n, partial)
	}
}

// workers lists the running kbox perf worker processes of this test's binary.
func workers(t *testing.T) []string {
	t.Helper()
	var found []string
	ents, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		if cl := strings.ReplaceAll(string(b), "\x00", " "); strings.Contains(cl, kboxBin+" perf worker") {
			found = append(found, e.Name()+": "+cl)
		}
	}
	return found
}

// An agent killed mid-run is reported lost (exit 1) while the others finish
// and are merged. Runs last: the agent stays dead.
func TestDistributedAgentKilled(t *testing.T) {
	createTopic(t, "killed")
	victim := trog.Agents[2]
	cmd, out, errb := start(t, distArgs("killed", "--records", "24000", "--throughput", "3000", "--agent-timeout", "5s")...)
	waitRunning(t, victim)
	if err := trog.KillAgent(victim); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	if cmd.ProcessState.ExitCode() != 1 || !strings.Contains(errb.String(), fmt.Sprintf("1 of 3 agents did not finish: %s lost", victim)) {
		t.Fatalf("exit %d\nstdout %s\nstderr %s", cmd.ProcessState.ExitCode(), out, errb)
	}
	d := decode(t, out.String())
	if d.FailedAgents != 1 || strings.Join(d.MergedAgents, ",") != strings.Join(trog.Agents[:2], ",") || d.Merged == nil || d.Merged.Records != 16000 {
		t.Fatalf("result %+v merged %+v", d, d.Merged)
	}
	for _, a := range d.PerAgent {
		switch {
		case a.Agent == victim:
			if a.State != distrib.AgentLost || a.Result == nil || a.Result.Records == 0 || a.Result.Records >= 8000 {
				t.Errorf("victim %+v", a)
			}
		case a.State != distrib.AgentDone || a.Result.Records != 8000:
			t.Errorf("agent %+v", a)
		}
	}
}
