package verify

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kfakeTopic starts a 1-broker kfake cluster (closed with the test) with
// a 3-partition topic "t", and returns its seed option and the topic's
// end offsets.
func kfakeTopic(t *testing.T) (kgo.Opt, map[int32]int64) {
	t.Helper()
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(3, "t"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	adm, err := kgo.NewClient(seeds)
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	ends, err := kadm.NewClient(adm).ListEndOffsets(context.Background(), "t")
	if err != nil {
		t.Fatal(err)
	}
	start := map[int32]int64{}
	ends.Each(func(lo kadm.ListedOffset) { start[lo.Partition] = lo.Offset })
	return seeds, start
}

// kfakeRun runs against kfake and returns the run, the mirrored producer
// logs (when logs), the events recorded by test sinks and the run's own
// (streaming) report, which must equal the batch checker's on them.
func kfakeRun(t *testing.T, producers, consumers int, n int64, logs bool) (*Run, []*bytes.Buffer, []*Log, []*Log, *Report) {
	t.Helper()
	seeds, start := kfakeTopic(t)
	var bufs []*bytes.Buffer
	cfg := RunConfig{
		Topic: "t", Messages: n, Producers: producers, Consumers: consumers, Throughput: -1, StartOffsets: start,
		NewProducer: func(_ int, onLoss func(string, int32)) (*kgo.Client, error) {
			return kgo.NewClient(seeds, kgo.ProducerOnDataLossDetected(onLoss), kgo.DisableIdempotentWrite(), kgo.RecordRetries(0))
		},
		NewConsumer: func(_ int, extra []kgo.Opt) (*kgo.Client, error) {
			return kgo.NewClient(append([]kgo.Opt{seeds, kgo.ConsumerGroup("g"), kgo.DisableAutoCommit(),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}, extra...)...)
		},
	}
	if logs {
		for i := 0; i < producers; i++ {
			b := &bytes.Buffer{}
			bufs = append(bufs, b)
			cfg.ProducerLogs = append(cfg.ProducerLogs, b)
		}
	}
	var precs, crecs []*Recorder
	for i := 0; i < producers; i++ {
		precs = append(precs, NewRecorder(fmt.Sprintf("producer-%d", i), nil))
		cfg.ProducerSinks = append(cfg.ProducerSinks, precs[i])
	}
	for i := 0; i < consumers; i++ {
		crecs = append(crecs, NewRecorder(fmt.Sprintf("consumer-%d", i), nil))
		cfg.ConsumerSinks = append(cfg.ConsumerSinks, crecs[i])
	}
	r, err := StartRun(cfg)
	if err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, r)
	online := r.Finish(10 * time.Second)
	var p, cs []*Log
	for _, rec := range precs {
		p = append(p, rec.Log())
	}
	for _, rec := range crecs {
		cs = append(cs, rec.Log())
	}
	sameAsBatch(t, online, p, cs, Options{})
	return r, bufs, p, cs, online
}

// TestRunKfake: two producers and two consumers against kfake produce a
// valid verdict with every value consumed once, and the mirrored producer
// log is the drop-in tool's JSON lines, readable by `verify check`.
func TestRunKfake(t *testing.T) {
	const n = 3001
	r, bufs, prods, cons, online := kfakeRun(t, 2, 2, n, true)
	if p := r.Progress(); p.Acked != n || p.Sent != n || p.Lag != 0 || !p.ProducersDone {
		t.Fatalf("progress %+v", p)
	}
	if sn := r.Checker().Snapshot(); sn.Acked != n || sn.Pending != 0 || sn.UniqueConsumed != n || len(sn.Anomalies) != 0 {
		t.Fatalf("snapshot %+v", sn)
	}
	rep := NewRunReportFrom(online, RunInfo{CaughtUp: true})
	if !rep.Valid || rep.Stats.Acked != n || rep.Stats.UniqueConsumed != n || len(rep.Anomalies) != 0 {
		t.Fatalf("verdict %+v", rep.Report)
	}
	// Producer 0 sends 1501 values "0.0".."0.1500", producer 1 "1.0".."1.1499".
	acked := 0
	for _, e := range prods[1].Events {
		if e.Name == EvSendSuccess {
			if !strings.HasPrefix(*e.Value, "1.") {
				t.Fatalf("producer 1 value %q", *e.Value)
			}
			acked++
		}
	}
	if acked != 1500 {
		t.Fatalf("producer 1 acked %d", acked)
	}
	mirrored, err := ReadLog("p0", bytes.NewReader(bufs[0].Bytes()))
	if err != nil || len(mirrored.Events) != len(prods[0].Events) {
		t.Fatalf("mirror: %v, %d vs %d events", err, len(mirrored.Events), len(prods[0].Events))
	}
	last := bufs[0].String()
	if !strings.Contains(last, `"name":"tool_data","sent":1501,"acked":1501,"target_throughput":-1,"avg_throughput":`) {
		t.Fatalf("tool_data missing: %s", last[max(0, len(last)-300):])
	}
	// Every consumer poll was followed by a successful commit.
	for _, l := range cons {
		polls, commits := 0, 0
		for _, e := range l.Events {
			switch e.Name {
			case EvRecordsConsumed:
				polls++
			case EvOffsetsCommitted:
				if e.Success == nil || !*e.Success {
					t.Fatalf("%s: failed commit %+v", l.Name, e)
				}
				commits++
			}
		}
		if polls != commits {
			t.Fatalf("%s: %d polls, %d commits", l.Name, polls, commits)
		}
	}
}

// TestRunReportAnomalies: the run-level anomalies and franz-go's data-loss
// signals make the verdict invalid (or warn for a failed --during).
func TestRunReportAnomalies(t *testing.T) {
	_, _, prods, cons, _ := kfakeRun(t, 1, 1, 200, false)
	rep := NewRunReport(prods, cons, Options{}, RunInfo{CaughtUp: true, During: &DuringInfo{Command: "false", ExitCode: 1}})
	if !rep.Valid || rep.Count(AnDuringFailed) != 1 {
		t.Fatalf("failed --during: %+v", rep.Report)
	}
	rep = NewRunReport(prods, cons, Options{}, RunInfo{CaughtUp: false})
	if rep.Valid || rep.Count(AnNotCaughtUp) != 1 || len(rep.BadErrorTypes) != 1 {
		t.Fatalf("not caught up: %+v", rep.Report)
	}
	rep = NewRunReport(prods, cons, Options{DataLoss: []string{"consumer-0: data loss on t-1"}}, RunInfo{CaughtUp: true})
	if rep.Valid || rep.Count(AnClientDataLoss) != 1 {
		t.Fatalf("data loss: %+v", rep.Report)
	}
	var b bytes.Buffer
	if err := rep.WriteText(&b); err != nil || !strings.Contains(b.String(), "INVALID: client-data-loss") || !strings.Contains(b.String(), "run: ") {
		t.Fatalf("text: %v %s", err, b.String())
	}
}

// TestStartRunValidation: bad configurations fail before any client is built.
func TestStartRunValidation(t *testing.T) {
	for _, c := range []RunConfig{
		{Topic: "", Messages: 1, Producers: 1, Consumers: 1, Throughput: -1},
		{Topic: "t", Messages: 0, Producers: 1, Consumers: 1, Throughput: -1},
		{Topic: "t", Messages: 1, Producers: 0, Consumers: 1, Throughput: -1},
		{Topic: "t", Messages: 1, Producers: 1, Consumers: 1, Throughput: 0},
	} {
		if _, err := StartRun(c); err == nil {
			t.Errorf("%+v: no error", c)
		}
	}
}

// TestRunTransactionalKfake: transactional producers (every 3rd
// transaction aborted on purpose) and read_committed consumers against
// kfake: the verdict is valid, aborted values were acked but never read,
// and every committed value was read once.
func TestRunTransactionalKfake(t *testing.T) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.SeedTopics(1, "tx"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	seeds := kgo.SeedBrokers(c.ListenAddrs()...)
	const n = 1000
	precs := []*Recorder{NewRecorder("producer-0", nil), NewRecorder("producer-1", nil)}
	crec := NewRecorder("consumer-0", nil)
	r, err := StartRun(RunConfig{
		Topic: "tx", Messages: n, Producers: 2, Consumers: 1, Throughput: -1, StartOffsets: map[int32]int64{0: 0},
		Transactional: true, TxnSize: 50, AbortEvery: 3, Check: Options{Transactional: true},
		ProducerSinks: []Sink{precs[0], precs[1]}, ConsumerSinks: []Sink{crec},
		NewProducer: func(i int, onLoss func(string, int32)) (*kgo.Client, error) {
			return kgo.NewClient(seeds, kgo.ProducerOnDataLossDetected(onLoss), kgo.TransactionalID(fmt.Sprint("tx-", i)))
		},
		NewConsumer: func(_ int, extra []kgo.Opt) (*kgo.Client, error) {
			return kgo.NewClient(append([]kgo.Opt{seeds, kgo.ConsumerGroup("g"), kgo.DisableAutoCommit(), kgo.FetchIsolationLevel(kgo.ReadCommitted()),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}, extra...)...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	waitCaughtUp(t, r)
	online := r.Finish(10 * time.Second)
	prods, cons := []*Log{precs[0].Log(), precs[1].Log()}, []*Log{crec.Log()}
	sameAsBatch(t, online, prods, cons, Options{Transactional: true})
	rep := NewRunReportFrom(online, RunInfo{CaughtUp: true})
	if !rep.Valid || !rep.Stats.Transactional {
		t.Fatalf("verdict %s", dump(rep.Report))
	}
	// 2 producers x 500 values in 10 transactions each, 3 of them aborted.
	if rep.Stats.TxnAborted != 300 || rep.Stats.TxnCommitted != 700 || rep.Stats.UniqueConsumed != 700 || rep.Stats.Consumed != 700 {
		t.Errorf("stats %+v", rep.Stats)
	}
	// The same logs with an aborted value injected into the consumer's
	// stream must fail G1a.
	var aborted string
	for _, e := range prods[0].Events {
		if e.Name == EvTxnEnd && e.Result == TxnAborted {
			aborted = e.Values[0]
			break
		}
	}
	cons[0].Events = append(cons[0].Events, Event{Name: EvRecordData, Topic: "tx", Value: &aborted, Offset: 1 << 40})
	if rep := Check(prods, cons, Options{}); rep.Count(AnAbortedRead) != 1 || rep.Valid {
		t.Errorf("injected aborted read: %s", dump(rep))
	}
}

// waitCaughtUp waits (30 s at most) until the run's consumers caught up.
func waitCaughtUp(t *testing.T, r *Run) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if !r.WaitCaughtUp(ctx) {
		t.Fatalf("not caught up: %+v", r.Progress())
	}
}
