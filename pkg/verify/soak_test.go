package verify

import (
	"bytes"
	"fmt"
	"math/rand"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
	"github.com/twmb/franz-go/pkg/kgo"
)

// A window verdict lists the faults that overlapped it (a running one
// has no end yet) and the acks and consumption within it.
func TestNewWindowVerdict(t *testing.T) {
	t0 := time.UnixMilli(1_000_000)
	faults := []FaultInfo{
		{Name: "every#1", StartMs: 1_050_000, EndMs: 1_055_000}, // in window 1
		{Name: "every#2", StartMs: 1_055_000, EndMs: 1_065_000}, // windows 1 and 2
		{Name: "at-70s", StartMs: 1_070_000},                    // running
	}
	v := Verdict{Acked: 100, Consumed: 90, Lag: 10, Valid: true}
	w1 := NewWindowVerdict(1, t0, t0.Add(time.Minute), t0, v, nil, faults)
	if w1.AckedInWindow != 100 || w1.ConsumedInWindow != 90 || strings.Join(w1.Faults, ",") != "every#1,every#2" ||
		w1.BadErrorTypes == nil || w1.Anomalies == nil {
		t.Fatalf("window 1: %+v", w1)
	}
	v.Acked, v.Consumed = 250, 240
	w2 := NewWindowVerdict(2, t0.Add(time.Minute), t0.Add(2*time.Minute), t0, v, &w1, faults)
	if w2.AckedInWindow != 150 || w2.ConsumedInWindow != 150 || w2.ElapsedMs != 120_000 || strings.Join(w2.Faults, ",") != "every#2,at-70s" {
		t.Fatalf("window 2: %+v", w2)
	}
	w3 := NewWindowVerdict(3, t0.Add(2*time.Minute), t0.Add(3*time.Minute), t0, v, &w2, faults[:2])
	if len(w3.Faults) != 0 || w3.Faults == nil {
		t.Fatalf("window 3: %+v", w3)
	}
	v.Valid, v.BadErrorTypes = false, []string{AnLost}
	v.Anomalies = []AnomalyCount{{Type: AnLost, Severity: Fail, Count: 2}, {Type: AnCommitFailed, Severity: Info, Count: 1}}
	golden.JSON(t, "window.json.golden", NewWindowVerdict(2, t0.Add(time.Minute), t0.Add(2*time.Minute), t0, v, &w1, faults))
}

// The report of a soak run: each fault, the interruption, the windows;
// a failed fault command is a warning naming the fault; an interrupted
// run that did not catch up warns instead of failing.
func TestRunReportSoak(t *testing.T) {
	prod, cons := livenessLogs(25_000, 10, false)
	info := RunInfo{Topic: "kbox-verify", Group: "kbox-verify-group", Producers: 1, Consumers: 1, Idempotent: true, Acks: "all",
		Sent: 20, Acked: 20, Consumed: 20, CaughtUp: false, ProduceMs: 20000, DurationMs: 26000, AckedPerSec: 1,
		DurationLimitMs: 600_000, WindowMs: 60_000, Windows: 3, Interrupted: true,
		Faults: []FaultInfo{
			{Name: "every#1", Command: "./kill-leader.sh", StartMs: 10_000, EndMs: 14_000, DurationMs: 4000},
			{Name: "every#2", Command: "./kill-leader.sh", StartMs: 16_000, EndMs: 20_000, DurationMs: 4000, ExitCode: 137, Error: "killed: the run was interrupted"},
		}}
	// Value "12" (offset 12) delivered again, 5 s after the second
	// fault ended.
	cons = append(cons, RecordData(25_002, nil, sp("12"), "t", 0, 100))
	opts := Options{Faults: []FaultWindow{info.Faults[0].Window(), info.Faults[1].Window()}, MinAcks: 20}
	r := NewRunReport([]*Log{logOf(t, "producer", prod...)}, []*Log{logOf(t, "consumer", cons...)}, opts, info)
	golden.JSON(t, "run-soak.json.golden", r)
	if !r.Valid || r.Count(AnDuringFailed) != 1 || r.Count(AnNotCaughtUp) != 1 || r.Count(AnDuplicate) != 1 || len(r.Report.Faults) != 2 {
		t.Fatalf("verdict %s", dump(r.Report))
	}
	if len(r.AnomalyFaults) != 1 || r.AnomalyFaults[0].Type != AnDuplicate || *r.AnomalyFaults[0].Fault != "every#2" || r.AnomalyFaults[0].SinceFaultEndMs != 5002 {
		t.Fatalf("anomaly faults %+v", r.AnomalyFaults)
	}
	var b bytes.Buffer
	if err := r.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"WARN during-failed: 1\n  fault every#2: \"./kill-leader.sh\": killed: the run was interrupted\n",
		"WARN not-caught-up: 1\n",
		"run: 3 window verdict(s) of 1m0s\n",
		"run: INTERRUPTED: the verdict covers what was acked and consumed until the run was stopped\n",
		"fault every#1: \"./kill-leader.sh\" from 00:00:10.000 to 00:00:14.000 (4.0s), exit status 0; R8: 10 acks within 30s after it\n",
		"fault every#2: \"./kill-leader.sh\" from 00:00:16.000 to 00:00:20.000 (4.0s), exit status 137 (killed: the run was interrupted); R8: 10 acks within 30s after it\n",
		"anomaly duplicate first seen at 00:00:25.002 5.0s after fault every#2 ended\n",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}
	info.Interrupted = false
	if r := NewRunReport([]*Log{logOf(t, "producer", prod...)}, []*Log{logOf(t, "consumer", cons...)}, Options{}, info); r.Valid {
		t.Errorf("a run that is not interrupted and not caught up is valid: %s", dump(r.Report))
	}
}

// TestRunUntilStopped: a run with Messages < 0 produces until
// StopProducers; Verdict judges it in flight (records in flight are lag,
// not anomalies) and at the end.
func TestRunUntilStopped(t *testing.T) {
	seeds, start := kfakeTopic(t)
	r, err := StartRun(RunConfig{
		Topic: "t", Messages: -1, Producers: 2, Consumers: 1, Throughput: 2000, StartOffsets: start, Check: Options{Idempotent: true},
		NewProducer: func(_ int, onLoss func(string, int32)) (*kgo.Client, error) {
			return kgo.NewClient(seeds, kgo.ProducerOnDataLossDetected(onLoss))
		},
		NewConsumer: func(_ int, extra []kgo.Opt) (*kgo.Client, error) {
			return kgo.NewClient(append([]kgo.Opt{seeds, kgo.ConsumerGroup("g"), kgo.DisableAutoCommit(),
				kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100 * time.Millisecond)}, extra...)...)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	for r.Progress().Acked < 500 {
		time.Sleep(10 * time.Millisecond)
	}
	v := r.Verdict()
	if !v.Valid || v.Acked < 500 || len(v.Anomalies) != 0 || v.Consumed > v.Acked+2000 {
		t.Fatalf("in flight: %+v", v)
	}
	select {
	case <-r.ProducersDone():
		t.Fatal("producers without a message count stopped by themselves")
	default:
	}
	r.StopProducers()
	waitCaughtUp(t, r)
	if v := r.Verdict(); !v.Valid || v.Lag != 0 || v.Consumed != r.Progress().Acked {
		t.Fatalf("caught up: %+v", v)
	}
	rep := NewRunReportFrom(r.Finish(10*time.Second), RunInfo{CaughtUp: true})
	p := r.Progress()
	if !rep.Valid || int64(rep.Stats.Acked) != p.Acked || int64(rep.Stats.UniqueConsumed) != p.Acked || p.Acked < v.Acked {
		t.Fatalf("final: %+v, progress %+v", rep.Report, p)
	}
}

// Each anomaly type is paired with the latest fault that started before
// its first sighting: during it, after it, or before any fault.
func TestAttributeAnomalies(t *testing.T) {
	faults := []FaultInfo{
		{Name: "every#1", StartMs: 10_000, EndMs: 14_000},
		{Name: "every#2", StartMs: 20_000, EndMs: 24_000},
		{Name: "at-25s", StartMs: 25_000}, // still running
	}
	got := AttributeAnomalies(map[string]int64{
		AnLost: 12_000, AnDuplicate: 16_500, AnPollSkip: 5_000, AnNonmonotonicPoll: 26_000, AnNotCaughtUp: 0,
	}, faults)
	want := []string{
		"poll-skip 5000 <nil> ",
		"lost 12000 every#1 during",
		"duplicate 16500 every#1 after 2500",
		"nonmonotonic-poll 26000 at-25s during",
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i, af := range got {
		s := fmt.Sprintf("%s %d %v %s", af.Type, af.FirstSeenMs, "<nil>", af.Relation)
		if af.Fault != nil {
			s = fmt.Sprintf("%s %d %s %s", af.Type, af.FirstSeenMs, *af.Fault, af.Relation)
		}
		if af.SinceFaultEndMs != 0 {
			s += fmt.Sprintf(" %d", af.SinceFaultEndMs)
		}
		if s != want[i] {
			t.Errorf("%d: %q, want %q", i, s, want[i])
		}
	}
	text := attributionText(got)
	for _, w := range []string{
		"anomaly poll-skip first seen at 00:00:05.000 before any fault\n",
		"anomaly lost first seen at 00:00:12.000 during fault every#1\n",
		"anomaly duplicate first seen at 00:00:16.500 2.5s after fault every#1 ended\n",
	} {
		if !strings.Contains(text, w) {
			t.Errorf("text lacks %q:\n%s", w, text)
		}
	}
}

// TestSoFarAgreesWithFinish: on generated logs, clean and doctored, the
// anomalies a window verdict sees (SoFar, before and after
// ProducersDone) have the severities of the final report and no larger
// counts; so a window is never invalid when the final verdict is valid
// by the rules judged so far.
func TestSoFarAgreesWithFinish(t *testing.T) {
	names := []string{"clean"}
	for n := range doctors {
		names = append(names, n)
	}
	sort.Strings(names)
	seen := map[string]bool{}
	for _, name := range names {
		for seed := int64(1); seed <= 6; seed++ {
			rng := rand.New(rand.NewSource(seed))
			g, _ := genLogs(rng, 1+rng.Intn(3), 1+rng.Intn(3), 1+rng.Intn(5), 50+rng.Intn(400))
			if d := doctors[name]; d != nil {
				d(rng, &g)
			}
			ps, cs := g.logs()
			for _, o := range []Options{{}, {Idempotent: true}, {AllowRedelivery: true}} {
				c := NewChecker(o)
				for _, l := range ps {
					s := c.Producer(l.Name)
					for _, e := range l.Events {
						s.Add(e)
					}
				}
				// Consumer events as a run feeds them: by time.
				type te struct {
					s *LogSink
					e Event
				}
				var all []te
				for _, l := range cs {
					s := c.Consumer(l.Name)
					for _, e := range l.Events {
						all = append(all, te{s, e})
					}
				}
				sort.SliceStable(all, func(i, j int) bool { return all[i].e.Timestamp < all[j].e.Timestamp })
				for _, x := range all {
					x.s.Add(x.e)
				}
				before := c.SoFar()
				c.ProducersDone()
				after := c.SoFar()
				r := c.Finish()
				for _, sofar := range [][]AnomalyCount{before, after} {
					for _, a := range sofar {
						seen[a.Type+"/"+string(a.Severity)] = true
						fin := r.anomalyByType[a.Type]
						if fin == nil || fin.Severity != a.Severity || fin.Count < a.Count {
							t.Errorf("%s seed %d %+v: so far %+v, final %+v\n%s", name, seed, o, a, fin, dump(r))
						}
					}
				}
			}
		}
	}
	// The doctored logs show the streaming rules in both severities.
	for _, k := range []string{"duplicate/warn", "duplicate/fail", "duplicate-offset/fail", "duplicate-offset/warn", "nonmonotonic-poll/fail"} {
		if !seen[k] {
			t.Errorf("no window saw %s (saw %v)", k, seen)
		}
	}
}
