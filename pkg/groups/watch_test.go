package groups

import (
	"encoding/json"
	"fmt"
	"math"
	"testing"
	"time"
	"unsafe"

	"github.com/kboxdev/kbox/internal/golden"
)

// lagReportOf builds a one-group lag report: per partition of topic t,
// the committed and log-end offsets.
func lagReportOf(at time.Time, committed, end []int64) *LagReport {
	return lagReportState(at, "Stable", committed, end)
}

func lagReportState(at time.Time, state string, committed, end []int64) *LagReport {
	g := LagGroup{Group: "g", State: state, Type: "classic", Partitions: []LagPartition{}}
	for i := range committed {
		e := end[i]
		p := LagPartition{Topic: "t", Partition: int32(i), CommittedOffset: committed[i], LogEndOffset: &e, Lag: e - committed[i]}
		p.CaughtUp = p.Lag == 0
		if p.CaughtUp {
			p.TimeLagMs = ptrTo(int64(0))
		} else {
			p.TimeLagMs = ptrTo(int64(1500))
		}
		g.Partitions = append(g.Partitions, p)
	}
	g.total()
	return &LagReport{Time: at, Groups: []LagGroup{g}}
}

func TestSampler(t *testing.T) {
	var s Sampler
	first := s.Add(lagReportOf(lagBase, []int64{0, 0}, []int64{1000, 1000}))
	g := first.Groups[0]
	if first.IntervalSec != nil || g.ProduceRecordsPerSec != nil || g.ConsumeRecordsPerSec != nil || g.Status != StatusUnknown ||
		g.Trend != TrendUnknown || g.EtaSec != nil || g.Verdict != VerdictUnknown {
		t.Fatalf("first sample has no rates, trend or verdict: %+v", g)
	}
	if len(g.Partitions) != 2 || g.Partitions[0].WindowCommits != 1 || g.Partitions[0].Verdict != VerdictUnknown {
		t.Fatalf("first sample partitions: %+v", g.Partitions)
	}
	// 2 s later: produced 100 per partition (50/s each), consumed 300
	// each (150/s each).
	second := s.Add(lagReportOf(lagBase.Add(2*time.Second), []int64{300, 300}, []int64{1100, 1100}))
	g = second.Groups[0]
	if *second.IntervalSec != 2 || *g.ProduceRecordsPerSec != 100 || *g.ConsumeRecordsPerSec != 300 {
		t.Fatalf("rates: interval %v produce %v consume %v", *second.IntervalSec, *g.ProduceRecordsPerSec, *g.ConsumeRecordsPerSec)
	}
	// lag 2000 -> 1600 over 2 s: -200/s; 1600 at -200/s: 8 s.
	if g.Status != StatusCatchingUp || g.Trend != TrendShrinking || *g.LagPerSec != -200 || g.EtaSec == nil || *g.EtaSec != 8 || g.Verdict != VerdictOK {
		t.Fatalf("catching up: %+v eta %v", g.RateLag, g.EtaSec)
	}
	if g.ETA() != "8.0s" {
		t.Errorf("ETA %q", g.ETA())
	}
	golden.JSON(t, "watch.json.golden", second)

	// The consumer stops committing: the window keeps its trend from the
	// commits until the silence is longer than twice the commit cadence.
	third := s.Add(lagReportOf(lagBase.Add(3*time.Second), []int64{300, 300}, []int64{1150, 1150}))
	g = third.Groups[0]
	if g.Trend != TrendShrinking || g.Verdict != VerdictOK || *g.ConsumeRecordsPerSec != 300 || *g.EtaSec != 7 {
		t.Fatalf("a sample without a commit changes nothing (the ETA runs on): %+v eta %v", g.RateLag, *g.EtaSec)
	}
	// 5 s without a commit against a 2 s cadence: the rates run to now,
	// the lag grows (falling behind), and the partitions stopped (longer
	// than the window spans, and than twice its gap).
	fourth := s.Add(lagReportOf(lagBase.Add(7*time.Second), []int64{300, 300}, []int64{1350, 1350}))
	g = fourth.Groups[0]
	if g.Status != StatusFallingBehind || g.Trend != TrendGrowing || g.EtaSec != nil || g.ETA() != "falling behind" || g.Verdict != VerdictStop {
		t.Fatalf("stopped: %+v", g.RateLag)
	}
	// Caught up.
	fifth := s.Add(lagReportOf(lagBase.Add(8*time.Second), []int64{1400, 1400}, []int64{1400, 1400}))
	g = fifth.Groups[0]
	if g.Status != StatusCaughtUp || g.ETA() != "caught up" || len(g.Topics) != 1 || g.Topics[0].Status != StatusCaughtUp || g.Verdict != VerdictOK {
		t.Fatalf("caught up: %+v", g)
	}
	if rows := fifth.Rows(); len(rows) != 1 || rows[0][1] != "t" || rows[0][3] != "caught up" || rows[0][8] != "OK" {
		t.Errorf("rows %v", rows)
	}
	if rows := fifth.WideRows(); len(rows) != 2 || rows[1][2] != "1" || rows[1][9] != "OK" || rows[1][10] != "3" {
		t.Errorf("wide rows %v", rows)
	}
}

// Consume rates are taken against the time the committed offsets were
// fetched, produce rates against the time the log ends were listed.
func TestSamplerClocks(t *testing.T) {
	var s Sampler
	a := lagReportOf(lagBase, []int64{0}, []int64{0})
	a.committedAt = lagBase.Add(-time.Second)
	s.Add(a)
	b := lagReportOf(lagBase.Add(2*time.Second), []int64{400}, []int64{400})
	b.committedAt = lagBase.Add(3 * time.Second) // 4 s after the first fetch
	g := s.Add(b).Groups[0]
	if *g.ProduceRecordsPerSec != 200 || *g.ConsumeRecordsPerSec != 100 {
		t.Errorf("produce %v consume %v, want 200 (over 2 s) and 100 (over 4 s)", *g.ProduceRecordsPerSec, *g.ConsumeRecordsPerSec)
	}
}

// A partition committed for the first time (a consumer just assigned it)
// has no trend yet: the group's trend waits for it rather than counting
// its lag as growth.
func TestSamplerNewPartition(t *testing.T) {
	var s Sampler
	s.Add(lagReportOf(lagBase, []int64{100}, []int64{2000}))
	// p0: lag 1900 -> 1890; p1 appears with lag 5000.
	g := s.Add(lagReportOf(lagBase.Add(time.Second), []int64{210, 0}, []int64{2100, 5000})).Groups[0]
	if g.Lag != 6890 || g.LagPerSec != nil || g.Trend != TrendUnknown || g.Status != StatusUnknown || *g.Topics[0].ConsumeRecordsPerSec != 110 {
		t.Fatalf("new partition: %+v", g.RateLag)
	}
	if p := g.Partitions[0]; p.Trend != TrendShrinking || *p.LagPerSec != -10 {
		t.Fatalf("p0: %+v", p)
	}
	// Both partitions committed again: p0's lag shrinks by 10/s, p1's
	// grows by 100.
	g = s.Add(lagReportOf(lagBase.Add(2*time.Second), []int64{310, 10}, []int64{2190, 5110})).Groups[0]
	if *g.LagPerSec != 90 || g.Trend != TrendGrowing {
		t.Fatalf("then: %+v", g.RateLag)
	}
}

// The case of issue 26: a consumer catching up at 1,530 records/s net
// commits every 5 s, and the watch samples every 5 s; the commits land
// just before or just after the samples, so every other sample sees no
// new commit. Judged over the window of commits, the trend, the status,
// the ETA and the verdict hold still from sample to sample, and the ETA
// tracks the true time to catch up (about 75 s at the start).
func TestSamplerCommitsEvery5sSampledEvery5s(t *testing.T) {
	const consume, produce, lag0 = 3000.0, 1470.0, 115_000.0
	commitAt := func(k int) float64 { // seconds; alternately 0.1 s before and after the sample
		if k%2 == 0 {
			return 5*float64(k) - 0.1
		}
		return 5*float64(k) + 0.1
	}
	var s Sampler
	prevEta := math.Inf(1)
	for j := 0; j <= 18; j++ {
		ts := 5 * float64(j)
		k := j
		for commitAt(k) > ts {
			k--
		}
		committed := int64(consume * commitAt(k))
		end := int64(lag0 + produce*ts)
		at := lagBase.Add(time.Duration(ts * float64(time.Second)))
		g := s.Add(lagReportOf(at, []int64{committed}, []int64{end})).Groups[0]
		trueEta := (lag0 - (consume-produce)*ts) / (consume - produce)
		switch {
		case j < 2: // no commit seen since the first sample
			if g.Trend != TrendUnknown || g.EtaSec != nil {
				t.Fatalf("sample %d: a trend before a second commit: %+v", j, g.RateLag)
			}
		case j >= 14:
			// At the last commit the lag is within what the producers
			// write between two commits seen (1,470/s for 10 s): the
			// consumer cannot get closer; keeping up, no ETA.
			if g.Status != StatusKeepingUp || g.EtaSec != nil || g.Verdict != VerdictOK {
				t.Fatalf("sample %d (ts %.0fs): %+v", j, ts, g.RateLag)
			}
		default:
			if g.Trend != TrendShrinking || g.Status != StatusCatchingUp || g.EtaSec == nil || g.Verdict != VerdictOK {
				t.Fatalf("sample %d (ts %.0fs): %+v", j, ts, g.RateLag)
			}
			if math.Abs(*g.EtaSec-trueEta) > 2 || *g.EtaSec >= prevEta {
				t.Fatalf("sample %d: ETA %.1fs, true %.1fs, previous %.1fs", j, *g.EtaSec, trueEta, prevEta)
			}
			if lps := *g.LagPerSec; math.Abs(lps+(consume-produce)) > 0.02*(consume-produce) {
				t.Fatalf("sample %d: lag/s %.1f, want about %.0f", j, lps, -(consume - produce))
			}
			prevEta = *g.EtaSec
		}
	}
}

// window builds a partition window from (seconds, offset, lag) triples,
// each a commit kbox saw (the first the baseline).
func windowOf(es ...[3]float64) []commit {
	var w []commit
	for i, e := range es {
		w = append(w, newCommit(sec(e[0]), sec(e[0]), int64(e[1]), int64(e[1]+e[2]), i > 0))
	}
	return w
}

func at(sec float64) time.Time { return lagBase.Add(time.Duration(sec * float64(time.Second))) }

// sec is a time on a window's clock (since lagBase).
func sec(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// Burrow's rules, one by one, on a window of commits a second apart.
func TestJudgeRules(t *testing.T) {
	steady := windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 40}, [3]float64{2, 300, 45}, [3]float64{3, 400, 30})
	cases := []struct {
		name  string
		w     []commit
		lag   int64
		now   float64
		state string
		want  Verdict
	}{
		{"OK: the lag went down", steady, 30, 3.5, "Stable", VerdictOK},
		{"OK: no lag now, however long the silence", steady, 0, 100, "Stable", VerdictOK},
		{"WARN: the lag never decreased", windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 60}, [3]float64{2, 300, 60}, [3]float64{3, 400, 80}), 80, 3.5, "Stable", VerdictWarn},
		{"not WARN with two commits", windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 60}), 60, 1.5, "Stable", VerdictOK},
		{"OK: lag zero in the window (Burrow's first rule)", windowOf([3]float64{0, 100, 0}, [3]float64{1, 200, 60}, [3]float64{2, 300, 80}), 80, 2.5, "Stable", VerdictOK},
		{"STALL: no commit for more than twice the longest gap", steady, 30, 5.5, "Stable", VerdictStall},
		{"STALL even after lag zero in the window", windowOf([3]float64{0, 100, 0}, [3]float64{1, 200, 60}, [3]float64{2, 300, 80}, [3]float64{3, 400, 80}), 90, 5.5, "Stable", VerdictStall},
		{"STOP: no commit for longer than the window spans", steady, 30, 6.5, "Stable", VerdictStop},
		{"STOP: a young window stops at twice its gap", windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 40}), 40, 3.5, "Stable", VerdictStop},
		{"REWIND: the committed offset went back", windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 40}, [3]float64{2, 20, 220}), 220, 2.5, "Stable", VerdictRewind},
		{"REWIND before STOP", windowOf([3]float64{0, 100, 50}, [3]float64{1, 200, 40}, [3]float64{2, 20, 220}), 220, 60, "Empty", VerdictRewind},
		{"REWIND after lag zero", windowOf([3]float64{0, 100, 0}, [3]float64{1, 0, 100}), 100, 1.5, "Empty", VerdictRewind},
		{"one sample, members: unknown", windowOf([3]float64{0, 100, 50}), 50, 60, "Stable", VerdictUnknown},
		{"one sample, no members: STOP", windowOf([3]float64{0, 100, 50}), 50, 0, "Empty", VerdictStop},
	}
	for _, c := range cases {
		if got := judge(c.w, c.lag, sec(c.now), c.state); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}

// A consumer paused mid-run goes STALL, then STOP; reset back, REWIND.
// Through the sampler: commits every second, samples every half second.
func TestSamplerStallStopRewind(t *testing.T) {
	var s Sampler
	verdict := func(sec float64, state string, committed, end int64) (Verdict, PartitionRate) {
		g := s.Add(lagReportState(at(sec), state, []int64{committed}, []int64{end})).Groups[0]
		return g.Verdict, g.Partitions[0]
	}
	var committed int64
	var sec float64
	for i := 0; i < 24; i++ { // 12 s: the window fills with 10 commits
		sec = float64(i) / 2
		if i%2 == 0 {
			committed = int64(sec * 100)
		}
		// The lag at the commits goes up and down (Burrow warns about
		// a lag that never decreases, even a constant one).
		v, p := verdict(sec, "Stable", committed, int64(sec*100)+50+int64(i%3)*10)
		if i > 2 && v != VerdictOK {
			t.Fatalf("running, %.1fs: %s %+v", sec, v, p)
		}
	}
	var seen []Verdict
	for sec < 40 {
		sec += 0.5
		v, _ := verdict(sec, "Stable", committed, int64(sec*100)+50)
		if len(seen) == 0 || seen[len(seen)-1] != v {
			seen = append(seen, v)
		}
	}
	if len(seen) != 3 || seen[0] != VerdictOK || seen[1] != VerdictStall || seen[2] != VerdictStop {
		t.Fatalf("paused: verdicts %v, want OK, STALL, STOP", seen)
	}
	// The consumer left; the group is reset to the log start.
	if v, p := verdict(sec+0.5, "Empty", 0, int64(sec*100)+50); v != VerdictRewind {
		t.Fatalf("reset back: %s %+v", v, p)
	}
}

// One report alone: OK when caught up, STOP when lagging without
// members, unknown otherwise.
func TestOneShotVerdicts(t *testing.T) {
	for _, c := range []struct {
		state string
		lag   int64
		want  Verdict
	}{{"Stable", 0, VerdictOK}, {"Empty", 0, VerdictOK}, {"Stable", 5, VerdictUnknown}, {"Empty", 5, VerdictStop}} {
		if got := oneShotVerdict(c.lag, c.state); got != c.want {
			t.Errorf("%s lag %d: %q, want %q", c.state, c.lag, got, c.want)
		}
	}
	if Worse(VerdictOK, VerdictUnknown) != VerdictUnknown || Worse(VerdictRewind, VerdictStop) != VerdictRewind || Worse(VerdictWarn, VerdictUnknown) != VerdictWarn {
		t.Error("ranks")
	}
}

// The lags at the commits of a real run on the test bed (a consumer at
// 3,000 records/s, committing every 5 s, against 1,390/s): the watch says
// catching up while it does, then keeping up from the first commit within
// one commit interval of the end, although the window still holds the
// catch-up; and a consumer keeping up with a scattered lag is steady,
// sample after sample.
func TestSamplerTrendFollowsTheConsumer(t *testing.T) {
	lags := []int64{109930, 100930, 93250, 85420, 77710, 70165, 61720, 54060, 46380, 37650, 28575, 20610, 12120, 3885, 3405, 3195, 3390, 3465, 3435, 2985, 3360}
	var s Sampler
	for i, lag := range lags {
		ts := 5 * float64(i)
		end := int64(115000 + 1390*ts)
		g := s.Add(lagReportOf(at(ts), []int64{end - lag}, []int64{end})).Groups[0]
		switch {
		case i >= 2 && i <= 12 && (g.Status != StatusCatchingUp || g.EtaSec == nil):
			t.Fatalf("commit %d (lag %d), catching up: %+v", i, lag, g.RateLag)
		case i >= 13 && g.Status != StatusKeepingUp:
			// within one commit interval of the end (1,390/s for 5 s)
			t.Fatalf("commit %d (lag %d), caught up: %+v lag/s %v", i, lag, g.RateLag, *g.LagPerSec)
		}
		if g.Verdict != VerdictOK && i > 0 {
			t.Fatalf("commit %d: verdict %s", i, g.Verdict)
		}
	}
	var k Sampler
	x, blips := uint32(1), 0
	for i := 0; i < 200; i++ {
		ts := 5 * float64(i)
		end := int64(1000 + 1400*ts)
		x = x*1664525 + 1013904223
		lag := int64(3400 + int(x>>16)%2000 - 1000) // scattered: 2,400 to 4,400
		g := k.Add(lagReportOf(at(ts), []int64{end - lag}, []int64{end})).Groups[0]
		if i >= 2 && (g.Trend != TrendSteady || g.Status != StatusKeepingUp) {
			t.Logf("commit %d (lag %d): %+v lag/s %v", i, lag, g.RateLag, *g.LagPerSec)
			blips++
		}
	}
	// A slope is a trend only when the scatter of the window (at 99 %)
	// cannot explain it: about 1 sample in 100 of pure scatter does.
	if blips > 4 {
		t.Fatalf("%d of 200 samples of a consumer keeping up show a trend", blips)
	}
}

// A full window keeps the last WindowCommits entries, oldest first, in
// its ring, whatever the ring's head.
func TestWindowAddKeepsTheLast(t *testing.T) {
	var w window
	var buf [WindowCommits]commit
	for i := 0; i < 3*WindowCommits+3; i++ {
		w.add(newCommit(0, 0, int64(i), 0, false))
		es := w.entries(&buf)
		if want := min(i+1, WindowCommits); len(es) != want {
			t.Fatalf("after %d adds: %d entries, want %d", i+1, len(es), want)
		}
		for j := range es {
			if want := int64(i + 1 - len(es) + j); es[j].offset != want {
				t.Fatalf("after %d adds: entry %d is %d, want %d (%+v)", i+1, j, es[j].offset, want, es)
			}
		}
	}
}

// An entry is 24 bytes without pointers, its times to the millisecond;
// a window holds its entries inline.
func TestWindowIsCompact(t *testing.T) {
	if n := unsafe.Sizeof(commit{}); n != 24 {
		t.Errorf("an entry takes %d bytes", n)
	}
	if n := unsafe.Sizeof(window{}); n > 24*WindowCommits+32 {
		t.Errorf("a window takes %d bytes", n)
	}
	for _, c := range []struct {
		at, endAt, wantAt, wantEndAt time.Duration
		moved                        bool
	}{
		{time.Second, time.Second + 1500*time.Millisecond, time.Second, time.Second + 1500*time.Millisecond, true},
		{-time.Hour, -time.Hour - 3*time.Millisecond, -time.Hour, -time.Hour - 3*time.Millisecond, false},
		{90 * 24 * time.Hour, 90*24*time.Hour - 2*time.Second, 90 * 24 * time.Hour, 90*24*time.Hour - 2*time.Second, true},
		{1234567 * time.Microsecond, 1234567 * time.Microsecond, 1234 * time.Millisecond, 1234 * time.Millisecond, false},
		// endAt is clamped to ±17 minutes of at
		{time.Minute, 2 * time.Hour, time.Minute, time.Minute + commitDtMax*time.Millisecond, true},
		{2 * time.Hour, 0, 2 * time.Hour, 2*time.Hour - commitDtMax*time.Millisecond, false},
	} {
		e := newCommit(c.at, c.endAt, 10, 7, c.moved)
		if e.at() != c.wantAt || e.endAt() != c.wantEndAt || e.moved() != c.moved || e.offset != 10 || e.end != 7 || e.lag() != 0 {
			t.Errorf("newCommit(%v, %v, moved %v): at %v endAt %v moved %v", c.at, c.endAt, c.moved, e.at(), e.endAt(), e.moved())
		}
	}
	if e := newCommit(0, 0, 5, 12, false); e.lag() != 7 {
		t.Errorf("lag %d", e.lag())
	}
}

// reportOf is a report of several one-topic groups, each given as a
// report of lagReportOf, renamed.
func reportOf(at time.Time, groups map[string]*LagReport) *LagReport {
	r := &LagReport{Time: at}
	for _, name := range []string{"a", "b", "c"} {
		if g, ok := groups[name]; ok {
			g.Groups[0].Group = name
			r.Groups = append(r.Groups, g.Groups[0])
		}
	}
	return r
}

// A group out of the reports keeps its windows for up to an hour (its
// verdict when it is back comes from them), then they are forgotten: its
// slots and names are reused, not grown.
func TestSamplerForgetsIdleWindows(t *testing.T) {
	var s Sampler
	add := func(sec float64, groups map[string]*LagReport) *WatchSample {
		return s.Add(reportOf(at(sec), groups))
	}
	b := func(sec float64) *LagReport { return lagReportOf(at(sec), []int64{10}, []int64{10}) }
	add(0, map[string]*LagReport{"a": lagReportOf(at(0), []int64{0, 0}, []int64{100, 100}), "b": b(0)})
	add(1, map[string]*LagReport{"a": lagReportOf(at(1), []int64{50, 50}, []int64{100, 100}), "b": b(1)})
	if len(s.parts) != 3 || len(s.names) != 2 || s.nWins != 3 {
		t.Fatalf("windows %d names %d slots %d", len(s.parts), len(s.names), s.nWins)
	}
	for sec := 600.0; sec < 3600; sec += 600 { // b only, for 50 minutes
		add(sec, map[string]*LagReport{"b": b(sec)})
	}
	ws := add(3540, map[string]*LagReport{"a": lagReportOf(at(3540), []int64{50, 50}, []int64{100, 100}), "b": b(3540)})
	p := ws.Groups[0].Partitions[0]
	if p.WindowCommits != 2 || p.SinceCommitMs != 3539_000 || p.Verdict != VerdictStop || *p.ConsumeRecordsPerSec != round3(50.0/3540) {
		t.Fatalf("a, back after 59 minutes: %+v", p)
	}
	for sec := 4200.0; sec <= 7200; sec += 600 { // b only, for 61 minutes
		add(sec, map[string]*LagReport{"b": b(sec)})
	}
	if len(s.parts) != 1 || len(s.names) != 1 || len(s.freeWin) != 2 {
		t.Fatalf("a forgotten: windows %d names %d free slots %d", len(s.parts), len(s.names), len(s.freeWin))
	}
	ws = add(7260, map[string]*LagReport{"a": lagReportOf(at(7260), []int64{60, 60}, []int64{100, 100}), "c": b(7260)})
	if p := ws.Groups[0].Partitions[1]; p.WindowCommits != 1 || p.Verdict != VerdictUnknown || p.ConsumeRecordsPerSec != nil {
		t.Fatalf("a, back after 62 minutes: a new window: %+v", p)
	}
	// b's window is kept (seen 60 s ago); a's two and c's take the two
	// free slots and one more.
	if s.nWins != 4 || len(s.freeWin) != 0 || len(s.parts) != 4 || len(s.names) != 3 {
		t.Fatalf("slots %d free %d windows %d names %d", s.nWins, len(s.freeWin), len(s.parts), len(s.names))
	}
}

// A report older than the last one (two requests crossed) is judged
// against the windows without changing them.
func TestSamplerOlderReport(t *testing.T) {
	var s Sampler
	s.Add(lagReportOf(at(0), []int64{0}, []int64{100}))
	s.Add(lagReportOf(at(10), []int64{50}, []int64{100}))
	old := s.Add(lagReportOf(at(5), []int64{20}, []int64{100})).Groups[0].Partitions[0]
	if old.WindowCommits != 2 || old.CommittedOffset != 20 {
		t.Fatalf("older report: %+v", old)
	}
	p := s.Add(lagReportOf(at(11), []int64{60}, []int64{100})).Groups[0].Partitions[0]
	if p.WindowCommits != 3 || *p.ConsumeRecordsPerSec != round3(60.0/11) {
		t.Fatalf("next report: %+v", p)
	}
}

// OmitPartitions leaves the per-partition rates out and changes nothing
// else: the same groups, topics and verdicts, sample after sample.
func TestSamplerOmitPartitions(t *testing.T) {
	var full, lean Sampler
	lean.OmitPartitions = true
	var committed [3]int64
	for i := 0; i < 3*WindowCommits; i++ {
		sec := 2 * float64(i)
		end := int64(100 * sec)
		if i%3 != 2 { // a commit two samples in three, then a pause
			for p := range committed {
				committed[p] = end - int64(50*(p+1)) - int64(i%4)*7
			}
		}
		if i > 2*WindowCommits {
			end += 5000 // a burst the consumer does not follow
		}
		mk := func() *LagReport {
			return reportOf(at(sec), map[string]*LagReport{
				"a": lagReportOf(at(sec), committed[:], []int64{end, end, end}),
				"b": lagReportOf(at(sec), []int64{end}, []int64{end}),
			})
		}
		rf, rl := mk(), mk()
		wf, wl := full.Add(rf), lean.Add(rl)
		for gi := range wf.Groups {
			gf, gl := wf.Groups[gi], wl.Groups[gi]
			if len(gl.Partitions) != 0 || len(gf.Partitions) == 0 {
				t.Fatalf("sample %d: partitions %d and %d", i, len(gf.Partitions), len(gl.Partitions))
			}
			gf.Partitions = nil
			gl.Partitions = nil
			if a, b := fmt.Sprintf("%+v", jsonOf(t, gf)), fmt.Sprintf("%+v", jsonOf(t, gl)); a != b {
				t.Fatalf("sample %d:\n%s\n%s", i, a, b)
			}
			for pi := range rf.Groups[gi].Partitions {
				if vf, vl := rf.Groups[gi].Partitions[pi].Verdict, rl.Groups[gi].Partitions[pi].Verdict; vf != vl {
					t.Fatalf("sample %d: verdicts %s and %s", i, vf, vl)
				}
			}
		}
	}
}

func jsonOf(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
