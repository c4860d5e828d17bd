package reassign

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// wavesCluster is a 3-broker kfake cluster with topic t of 5 partitions,
// and a plan moving each partition's replicas one broker on.
func wavesCluster(t *testing.T) (*kfake.Cluster, *Service, *Plan, map[TP][]int32) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.SeedTopics(5, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	cl, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	svc := &Service{Client: cl, Admin: kadm.NewClient(cl)}
	var tps []TP
	for p := int32(0); p < 5; p++ {
		tps = append(tps, TP{"t", p})
	}
	current, err := svc.PartitionAssignment(context.Background(), tps)
	if err != nil {
		t.Fatal(err)
	}
	var moves []string
	for _, tp := range tps {
		var reps []string
		for _, b := range current[tp] {
			reps = append(reps, fmt.Sprint((b+1)%3))
		}
		moves = append(moves, fmt.Sprintf(`{"topic":"t","partition":%d,"replicas":[%s]}`, tp.Partition, strings.Join(reps, ",")))
	}
	p, err := ParsePlan([]byte(`{"version":1,"partitions":[` + strings.Join(moves, ",") + `]}`))
	if err != nil {
		t.Fatal(err)
	}
	return c, svc, p, current
}

func kinds(evs []WaveEvent) string {
	names := map[WaveEventKind]string{WavesNothingToMove: "nothing", WavesPlanned: "planned", WaveStarted: "start", WaveProgress: "progress",
		WaveDone: "done", WavesReleased: "released", WavesDone: "all-done", WavesInterrupted: "interrupted", WavesReleaseFailed: "release-failed"}
	var out []string
	for _, e := range evs {
		out = append(out, names[e.Kind])
	}
	return strings.Join(out, " ")
}

// The wave execution of kbox reassign execute, driven on kfake without the
// command: 5 moves in waves of 2, each wave throttled and its throttles
// cleared before the next; a plan already in place moves nothing.
func TestWavesThrottledOnKfake(t *testing.T) {
	_, svc, p, current := wavesCluster(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var evs []WaveEvent
	w := &Waves{Service: svc, MaxMoves: 2, Throttle: 1000, Interval: 10 * time.Millisecond, Report: func(e WaveEvent) { evs = append(evs, e) }}
	if err := w.Run(ctx, p); err != nil {
		t.Fatal(err)
	}
	if got := kinds(evs); got != "planned start done released start done released start done released all-done" {
		t.Fatalf("events %s", got)
	}
	if e := evs[0]; e.Moves != 5 || e.Partitions != 5 || e.Waves != 3 || e.MaxMoves != 2 {
		t.Fatalf("plan %+v", e)
	}
	if e := evs[7]; e.Wave != 3 || e.Waves != 3 || len(e.TPs) != 1 || e.TPs[0] != (TP{"t", 4}) {
		t.Fatalf("third wave %+v", e)
	}
	for _, i := range []int{3, 6, 9} {
		rel := evs[i].Released
		if len(rel.ClearedBrokers) == 0 || len(rel.ClearedTopics) != 1 || rel.Kept != "" {
			t.Fatalf("release %d: %+v", i, rel)
		}
	}
	rates, err := svc.brokerRates(ctx, []int32{0, 1, 2}, RateNames)
	if err != nil || len(rates) != 0 {
		t.Fatalf("rates left %v %v", rates, err)
	}
	lists, err := svc.topicLists(ctx, []string{"t"})
	if err != nil || len(lists) != 0 {
		t.Fatalf("throttled replicas left %v %v", lists, err)
	}

	// The same plan with every partition in place: nothing to move.
	in := &Plan{}
	for _, mv := range p.Moves {
		mv.Replicas = current[mv.TP]
		in.Moves = append(in.Moves, mv)
	}
	evs = nil
	if err := w.Run(ctx, in); err != nil || kinds(evs) != "nothing" {
		t.Fatalf("in place: %v %s", err, kinds(evs))
	}
}

// Interrupted while a wave's moves copy: the run says so, releases by the
// same rule (the throttles of moves still copying are kept, and said so)
// and returns the context's error.
func TestWavesInterruptedKeepsCopyingThrottles(t *testing.T) {
	c, svc, p, _ := wavesCluster(t)
	// Every partition of t reports a reassignment in progress.
	c.ControlKey(46, func(kreq kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		resp := kreq.ResponseKind().(*kmsg.ListPartitionReassignmentsResponse)
		rt := kmsg.NewListPartitionReassignmentsResponseTopic()
		rt.Topic = "t"
		for i := int32(0); i < 5; i++ {
			rp := kmsg.NewListPartitionReassignmentsResponseTopicPartition()
			rp.Partition, rp.Replicas, rp.AddingReplicas = i, []int32{0, 1, 2}, []int32{(i + 1) % 3}
			rt.Partitions = append(rt.Partitions, rp)
		}
		resp.Topics = append(resp.Topics, rt)
		return resp, nil, true
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var evs []WaveEvent
	w := &Waves{Service: svc, MaxMoves: 5, Throttle: 1000, Interval: 10 * time.Millisecond, Report: func(e WaveEvent) {
		evs = append(evs, e)
		if e.Kind == WaveProgress {
			cancel()
		}
	}}
	err := w.Run(ctx, p)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v", err)
	}
	if got := kinds(evs); got != "planned start progress interrupted released" {
		t.Fatalf("events %s", got)
	}
	if e := evs[2]; e.Moving != 5 || e.Progress == nil {
		t.Fatalf("progress %+v", e)
	}
	rel := evs[4].Released
	if len(rel.ClearedBrokers) != 0 || len(rel.KeptBrokers) == 0 || !strings.Contains(rel.Kept, "still in progress") {
		t.Fatalf("release %+v", rel)
	}
	rates, err := svc.brokerRates(context.Background(), []int32{0, 1, 2}, RateNames)
	if err != nil || len(rates) == 0 {
		t.Fatalf("rates %v %v", rates, err)
	}
}
