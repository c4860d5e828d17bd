package sweep

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/kafka"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kerr"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// fakeEnv is a Env on an in-process kfake cluster.
type fakeEnv struct {
	t       *testing.T
	addrs   []string
	adm     *kadm.Client
	created []string
	readied map[string]int
}

func newFakeEnv(t *testing.T) *fakeEnv {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	e := &fakeEnv{t: t, addrs: c.ListenAddrs(), readied: map[string]int{}}
	e.adm = kadm.NewClient(perftest.Client(t, e.addrs))
	return e
}

func (e *fakeEnv) Clients(_ context.Context, role kafka.Role, n int, _ map[string]string, _ Workload, topic string) ([]*kgo.Client, []string, int, error) {
	var out []*kgo.Client
	for i := 0; i < n; i++ {
		opts := []kgo.Opt{kgo.SeedBrokers(e.addrs...)}
		if role == kafka.Consumer {
			opts = append(opts, kgo.ConsumeTopics(topic))
		}
		cl, err := kgo.NewClient(opts...)
		if err != nil {
			return nil, nil, 0, err
		}
		out = append(out, cl)
	}
	return out, []string{"fake=1"}, 500, nil
}

func (e *fakeEnv) E2EClients(context.Context, map[string]string, Workload) (*kgo.Client, *kgo.Client, *kadm.Client, []string, error) {
	p, err := kgo.NewClient(kgo.SeedBrokers(e.addrs...))
	if err != nil {
		return nil, nil, nil, nil, err
	}
	c, err := kgo.NewClient(kgo.SeedBrokers(e.addrs...), kgo.FetchMaxWait(10*time.Millisecond))
	if err != nil {
		p.Close()
		return nil, nil, nil, nil, err
	}
	return p, c, kadm.NewClient(p), []string{"fake=1"}, nil
}

func (e *fakeEnv) CreateTopic(ctx context.Context, name string, partitions, rf int) (bool, error) {
	r, err := e.adm.CreateTopic(ctx, int32(partitions), int16(rf), nil, name)
	if err == nil {
		err = r.Err
	}
	if errors.Is(err, kerr.TopicAlreadyExists) {
		return false, nil
	}
	e.created = append(e.created, name)
	return err == nil, err
}

func (e *fakeEnv) Ready(ctx context.Context, topic string, partitions int) error {
	p := perftest.Client(e.t, e.addrs, kgo.RecordPartitioner(kgo.ManualPartitioner()))
	e.readied[topic] = partitions
	return perf.WaitTopicReady(ctx, e.adm, p, topic, partitions, 10*time.Second)
}

func (e *fakeEnv) Brokers(context.Context) (int, error) { return 1, nil }

func (e *fakeEnv) DeleteTopics(ctx context.Context, names ...string) error {
	_, err := e.adm.DeleteTopics(ctx, names...)
	return err
}

// A produce sweep sized by time on a fresh (kfake) cluster: warm-up first,
// every created topic readied, every run measured for at least its
// duration after its warm-up, 2 repeats per cell, topics deleted.
func TestSweeperProduceByDuration(t *testing.T) {
	env := newFakeEnv(t)
	p := &Plan{Mode: "produce", Strategy: StrategyOneAtATime, Dimensions: dims(t, "produce", "partitions=1,2"), TopicPrefix: "s",
		DurationSec: 0.3, WarmupDurationSec: 0.1, Repeat: 2, RecordSize: 100, Producers: 1, Consumers: 1, Partitions: 1, ReplicationFactor: 1, Throughput: 5000}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cells, _ := Expand(p.Dimensions, p.Strategy)
	var warm, reruns int
	var order []string
	sw := &Sweeper{Plan: *p, Env: env, Interval: time.Second, Interleave: true, Checks: Checks{MinRunSec: 0.25, MaxSpreadPercent: 1000, StallFactor: 10, RerunOutliers: 1},
		ClusterWarmup: 3 * time.Second, Events: func(e Event) {
			switch e.Kind {
			case EventWarmup:
				warm++
			case EventRerun:
				reruns++
			case EventCellStart:
				order = append(order, fmt.Sprintf("%d.%d", e.Cell.Index, e.Repeat))
			}
		}}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // loose: a loaded -race run is slow
	defer cancel()
	loads := 0.0
	defer func(f func() (float64, bool)) { loadAverage = f }(loadAverage)
	loadAverage = func() (float64, bool) { loads++; return 40 + loads, true }
	res, err := sw.Run(ctx, cells, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The machine it ran on: its CPUs, the load after every run.
	if lo, hi, n := res.LoadRange(); res.CPUs != runtime.NumCPU() || lo != 41 || hi != 44 || n != 4 {
		t.Errorf("cpus %d, load average %v to %v over %d runs", res.CPUs, lo, hi, n)
	}
	cw := res.ClusterWarmup
	// Stable or not (a loaded machine), the warm-up is bounded in time
	// (with slack for a machine so loaded that no window ended).
	if cw == nil || cw.MaxSeconds != 3 || cw.Seconds > 8 || warm != 2 || res.Brokers != 1 {
		t.Fatalf("cluster warm-up %+v, %d events, brokers %d", cw, warm, res.Brokers)
	}
	if got := strings.Join(order, " "); got != "1.1 2.1 1.2 2.2" {
		t.Errorf("interleaved order %s", got)
	}
	if len(res.Cells) != 2 || !res.Complete || reruns != 0 {
		t.Fatalf("cells %d complete %v reruns %d", len(res.Cells), res.Complete, reruns)
	}
	for _, c := range res.Cells {
		if len(c.Runs) != 2 || c.Attempts != 1 || len(c.Flags) != 0 {
			t.Errorf("cell %d: runs %d attempts %d flags %v", c.Index, len(c.Runs), c.Attempts, c.Flags)
		}
		for _, r := range c.Runs {
			if r.Result == nil || r.Result.ElapsedSec < 0.3 || r.Result.WarmupRecords == 0 {
				t.Errorf("cell %d run: %+v", c.Index, r.Result)
			}
		}
	}
	if env.readied["s-warmup"] != 1 || env.readied["s-c1"] != 1 || env.readied["s-c2"] != 2 {
		t.Errorf("readied %v", env.readied)
	}
	td, err := env.adm.ListTopics(ctx)
	if err != nil || len(td.Names()) != 0 {
		t.Errorf("topics left: %v %v", td.Names(), err)
	}
	// A 1000 % spread limit never re-runs; a 0.001 % one re-runs each
	// cell once and keeps the attempt whose repeats agree best. Throttled,
	// two repeats can measure the very same rate (no spread at all), so
	// these runs are unthrottled.
	sw.Checks.MaxSpreadPercent, sw.ClusterWarmup, sw.Interleave, order = 0.001, 0, false, nil
	sw.Plan.Throughput = 0
	res, err = sw.Run(ctx, cells, nil)
	if got := strings.Join(order, " "); got != "1.1 1.2 1.1 1.2 2.1 2.2 2.1 2.2" {
		t.Errorf("back-to-back order with re-runs %s", got)
	}
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		if c.Attempts != 2 || len(c.DiscardedRuns) != 2 || len(c.Runs) != 2 || !c.HasFlag(FlagOutlier) {
			t.Errorf("cell %d: attempts %d discarded %d runs %d flags %v", c.Index, c.Attempts, len(c.DiscardedRuns), len(c.Runs), c.Flags)
		}
	}
	if reruns != 2 || res.ClusterWarmup != nil {
		t.Errorf("reruns %d, cluster warm-up %+v", reruns, res.ClusterWarmup)
	}
}

// An e2e sweep sized by time, latency objective.
func TestSweeperE2E(t *testing.T) {
	env := newFakeEnv(t)
	p := &Plan{Mode: "e2e", Strategy: StrategyGrid, Dimensions: dims(t, "e2e", "record-size=10,1000"), TopicPrefix: "e",
		DurationSec: 0.3, WarmupRecords: 5, Repeat: 1, RecordSize: 100, Producers: 1, Consumers: 1, Partitions: 1, ReplicationFactor: 1}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cells, _ := Expand(p.Dimensions, p.Strategy)
	sw := &Sweeper{Plan: *p, Env: env, Interval: time.Second, Checks: DefaultChecks}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute) // loose: a loaded -race run is slow
	defer cancel()
	res, err := sw.Run(ctx, cells, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range res.Cells {
		r := c.Runs[0]
		if r.Error != "" || r.Result == nil || r.Result.Kind != perf.KindE2E || r.Result.WarmupRecords != 5 || r.Result.ElapsedSec < 0.3 || c.Latency.P99Ms <= 0 {
			t.Fatalf("cell %d: %s %+v", c.Index, r.Error, r.Result)
		}
		if !c.HasFlag(FlagShortRun) {
			t.Errorf("cell %d: a 0.3 s run is not flagged short-run: %v", c.Index, c.Flags)
		}
	}
	o, _ := ParseObjective("p99")
	if best := o.Best(res.Cells); best < 0 {
		t.Error("no best cell")
	}
}
