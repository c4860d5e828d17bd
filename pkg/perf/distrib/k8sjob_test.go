package distrib

import (
	"bytes"
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/distrib/distribtest"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/kboxdev/kbox/pkg/trogdor"
)

// Pod i of N gets what kbox perf distributed gives agent i: its share of
// the records and the rate, a disjoint key range, its client id and seed
// index; the shares add up to the totals.
func TestJobShares(t *testing.T) {
	j := JobWorkload{Name: "perf1", Pods: 3, Workload: AgentWorkload{Kind: "produce", Topic: "t", Bootstrap: "k:9092", Records: 1000,
		Rate: 300, KeyCardinality: 10, Clients: 2, RecordSize: 100, ClientID: "kbox-perf-producer", StartMs: 1234}}
	want := []struct {
		records  int64
		keyFirst int64
		keys     int
	}{{334, 0, 4}, {333, 4, 3}, {333, 7, 3}}
	var records int64
	for i, w := range want {
		env, _ := json.Marshal(j)
		task, err := JobTask(string(env), []string{"0", "1", "2"}[i])
		if err != nil {
			t.Fatal(err)
		}
		s := task.Workload
		if s.Records != w.records || s.KeyFirst != w.keyFirst || s.KeyCardinality != w.keys || s.Rate != 100 || s.Index != i || s.Agents != 3 ||
			s.Agent != PodNames("perf1", 3)[i] || s.ClientID != "kbox-perf-producer-perf1-"+[]string{"0", "1", "2"}[i] || s.StartMs != 1234 || task.ID != s.Agent {
			t.Errorf("pod %d: %+v", i, s)
		}
		if d := SplitWorkload(j.Workload, PodNames("perf1", 3), false)[i]; !reflect.DeepEqual(d, s) {
			t.Errorf("pod %d: %+v, the distributed driver's share %+v", i, s, d)
		}
		records += s.Records
	}
	if records != 1000 {
		t.Errorf("shares add up to %d", records)
	}
	j.PerAgent = true
	if s, err := j.Share(2); err != nil || s.Records != 1000 || s.Rate != 300 || s.KeyFirst != 20 || s.KeyCardinality != 10 {
		t.Errorf("per pod: %+v %v", s, err)
	}
	env, _ := json.Marshal(j)
	for _, c := range []struct{ env, index, want string }{
		{"", "0", "$KBOX_PERF_JOB is not set"},
		{string(env), "", `$JOB_COMPLETION_INDEX "" is not a pod index`},
		{string(env), "3", "index 3 is not in 0..2"},
		{string(env), "-1", "index -1 is not in 0..2"},
		{`{"name":"x","pods":1,"bogus":1}`, "0", `unknown field "bogus"`},
		{`{"name":"x","pods":1,"workload":{"kind":"produce","topic":"t","bootstrap":"b","records":1,"clients":1}}`, "0", "record_size > 0"},
	} {
		if _, err := JobTask(c.env, c.index); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s / %q: %v, want %q", c.env, c.index, err, c.want)
		}
	}
}

// podLog is what a pod prints: progress statuses, then the last one.
func podLog(t *testing.T, last *WorkerStatus) string {
	var b bytes.Buffer
	b.WriteString("some runtime noise\n")
	for i := int64(1); i <= 2; i++ {
		l, _ := StatusLine(&WorkerStatus{State: WorkerRunning, Agent: last.Agent, Seq: i, Records: 5 * i})
		b.Write(l)
	}
	l, err := StatusLine(last)
	if err != nil {
		t.Fatal(err)
	}
	b.Write(l)
	if last.State == WorkerFailed {
		b.Write(ErrorLine(last.Error))
	}
	return b.String()
}

// The merge of the pods' logs is the distributed driver's merge of the
// same worker results: the same merged result, aggregate rates, merged
// agents and per-agent states.
func TestMergePodsEqualsDistributed(t *testing.T) {
	start := time.Now().Truncate(time.Millisecond)
	results := map[string]*perf.Result{"p-0": perftest.Result(t, 100, time.Millisecond, start), "p-1": perftest.Result(t, 250, 3*time.Millisecond, start.Add(10*time.Millisecond)),
		"p-2": perftest.Result(t, 77, 7*time.Millisecond, start.Add(20*time.Millisecond))}
	failed := perftest.Result(t, 40, 2*time.Millisecond, start)
	final := func(agent string) *WorkerStatus {
		if agent == "p-3" {
			return &WorkerStatus{State: WorkerFailed, Agent: agent, Seq: 3, TaskMs: start.UnixMilli(), Error: "broker gone", Records: 40,
				Histogram: failed.Histogram, StartMs: start.UnixMilli(), UpdatedMs: start.Add(time.Second).UnixMilli()}
		}
		return &WorkerStatus{State: WorkerDone, Agent: agent, Seq: 9, TaskMs: start.UnixMilli(), StartMs: start.UnixMilli(), Result: results[agent]}
	}
	agents := []string{"p-0", "p-1", "p-2", "p-3"}
	_, srv := distribtest.NewCoordinator(func(agent string, _ int, _ bool) trogdor.TaskState {
		st := final(agent)
		if st.State == WorkerFailed {
			return trogdor.TaskState{State: trogdor.Done, Error: "broker gone", Status: distribtest.StatusJSON(t, st)}
		}
		return trogdor.TaskState{State: trogdor.Done, Status: distribtest.StatusJSON(t, st)}
	})
	defer srv.Close()
	cl, _ := trogdor.New(srv.URL)
	dist, err := RunDistributed(context.Background(), cl, srv.URL, DistributedConfig{RunID: "run", Command: []string{"kbox"},
		Workloads: workloads(agents...), TaskDuration: time.Minute, Poll: 10 * time.Millisecond}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var pods []*PodOutcome
	for _, a := range agents {
		p, err := ReadPodLog(a+".log", strings.NewReader(podLog(t, final(a))))
		if err != nil {
			t.Fatal(err)
		}
		pods = append(pods, p)
	}
	got, err := MergePods(pods)
	if err != nil {
		t.Fatal(err)
	}
	mj := func(r *perf.Result) string { b, _ := json.Marshal(r); return string(b) }
	if got.Merged == nil || mj(got.Merged) != mj(dist.Merged) || got.Merged.Records != 427 {
		t.Fatalf("merged\n%s\nwant the distributed merge\n%s", mj(got.Merged), mj(dist.Merged))
	}
	if got.AggregateRecordsPerSec != dist.AggregateRecordsPerSec || got.AggregateMBPerSec != dist.AggregateMBPerSec ||
		strings.Join(got.MergedAgents, ",") != strings.Join(dist.MergedAgents, ",") || got.FailedAgents != 1 || got.Agents != 4 {
		t.Fatalf("k8s %+v\ndistributed %+v", got, dist)
	}
	for i := range agents {
		g, d := got.PerAgent[i], dist.PerAgent[i]
		if g.Agent != d.Agent || g.State != d.State || mj(g.Result) != mj(d.Result) || !strings.Contains(d.Error, g.Error) {
			t.Errorf("agent %d: k8s %+v, distributed %+v", i, g, d)
		}
	}
	if got.Coordinator != "k8s-job p" || !got.SubmitTime.Equal(start) {
		t.Errorf("coordinator %q submit %s", got.Coordinator, got.SubmitTime)
	}

	// A log that ends while the pod runs is lost, with what it measured;
	// two logs of one pod and a log without status are refused.
	lost, _ := ReadPodLog("l", strings.NewReader(podLog(t, &WorkerStatus{State: WorkerRunning, Agent: "p-0", Seq: 3, Records: 40,
		Histogram: failed.Histogram, StartMs: start.UnixMilli(), UpdatedMs: start.Add(time.Second).UnixMilli()})))
	r, err := MergePods([]*PodOutcome{lost, pods[1]})
	if err != nil || r.PerAgent[0].State != AgentLost || r.PerAgent[0].Result == nil || r.PerAgent[0].Result.Records != 40 || r.FailedAgents != 1 {
		t.Errorf("lost pod: %+v %v", r, err)
	}
	if _, err := MergePods([]*PodOutcome{pods[0], pods[0]}); err == nil || !strings.Contains(err.Error(), "both the log of p-0") {
		t.Errorf("duplicate: %v", err)
	}
	if _, err := ReadPodLog("empty.log", strings.NewReader("Error from server (NotFound)\n")); err == nil || !strings.Contains(err.Error(), "empty.log: no kbox perf worker status line") {
		t.Errorf("empty log: %v", err)
	}
}
