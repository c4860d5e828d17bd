package groups

import (
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
)

// report builds a one-group lag report: per partition of topic t, the
// committed and log-end offsets.
func lagReportOf(at time.Time, committed, end []int64) *LagReport {
	g := LagGroup{Group: "g", State: "Stable", Type: "classic", Partitions: []LagPartition{}}
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
	first := s.Add(lagReportOf(lagBase, []int64{0, 0}, []int64{100, 100}))
	g := first.Groups[0]
	if first.IntervalSec != nil || g.ProduceRecordsPerSec != nil || g.Status != StatusUnknown || g.EtaSec != nil {
		t.Fatalf("first sample has no rates: %+v", g)
	}
	// 2 s later: produced 100 per partition (100/s), consumed 150 each (150/s).
	second := s.Add(lagReportOf(lagBase.Add(2*time.Second), []int64{150, 150}, []int64{200, 200}))
	g = second.Groups[0]
	if *second.IntervalSec != 2 || *g.ProduceRecordsPerSec != 100 || *g.ConsumeRecordsPerSec != 150 {
		t.Fatalf("rates: interval %v produce %v consume %v", *second.IntervalSec, *g.ProduceRecordsPerSec, *g.ConsumeRecordsPerSec)
	}
	// lag 100, closing at 50/s: 2 s.
	if g.Status != StatusCatchingUp || g.Trend != TrendShrinking || *g.LagChange != -100 || g.EtaSec == nil || *g.EtaSec != 2 {
		t.Fatalf("catching up: %+v eta %v", g.RateLag, g.EtaSec)
	}
	if g.ETA() != "2.0s" {
		t.Errorf("ETA %q", g.ETA())
	}
	golden.JSON(t, "watch.json.golden", second)

	// Falling behind: the consumer stopped.
	third := s.Add(lagReportOf(lagBase.Add(4*time.Second), []int64{150, 150}, []int64{300, 300}))
	g = third.Groups[0]
	if g.Status != StatusFallingBehind || g.Trend != TrendGrowing || g.EtaSec != nil || g.ETA() != "falling behind" {
		t.Fatalf("falling behind: %+v", g.RateLag)
	}
	// A reset backwards counts no consumption; both idle with lag: stalled.
	fourth := s.Add(lagReportOf(lagBase.Add(5*time.Second), []int64{100, 100}, []int64{300, 300}))
	g = fourth.Groups[0]
	if *g.ConsumeRecordsPerSec != 0 || g.Status != StatusStalled || g.ETA() != "stalled" {
		t.Fatalf("reset backwards: %+v", g.RateLag)
	}
	// Consuming 1 % slower than producing, with a small lag: keeping up.
	keep := s.Add(lagReportOf(lagBase.Add(6*time.Second), []int64{595, 595}, []int64{800, 800}))
	g = keep.Groups[0]
	if g.Status != StatusKeepingUp || g.ETA() != "keeping up" || g.EtaSec != nil {
		t.Fatalf("keeping up: %+v produce %v consume %v", g.RateLag, *g.ProduceRecordsPerSec, *g.ConsumeRecordsPerSec)
	}
	// Caught up.
	fifth := s.Add(lagReportOf(lagBase.Add(7*time.Second), []int64{800, 800}, []int64{800, 800}))
	g = fifth.Groups[0]
	if g.Status != StatusCaughtUp || g.ETA() != "caught up" || len(g.Topics) != 1 || g.Topics[0].Status != StatusCaughtUp {
		t.Fatalf("caught up: %+v", g)
	}
	if rows := fifth.Rows(); len(rows) != 1 || rows[0][1] != "t" || rows[0][3] != "caught up" {
		t.Errorf("rows %v", rows)
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
// is not lag growth: the change counts the partitions in both samples.
func TestSamplerNewPartitionIsNotGrowth(t *testing.T) {
	var s Sampler
	s.Add(lagReportOf(lagBase, []int64{100}, []int64{200}))
	// p0: lag 100 -> 90; p1 appears with lag 5000.
	g := s.Add(lagReportOf(lagBase.Add(time.Second), []int64{210, 0}, []int64{300, 5000})).Groups[0]
	if g.Lag != 5090 || *g.LagChange != -10 || g.Trend != TrendShrinking || *g.ConsumeRecordsPerSec != 110 || *g.Topics[0].LagChange != -10 {
		t.Fatalf("new partition: lag %d change %d trend %s consume %v", g.Lag, *g.LagChange, g.Trend, *g.ConsumeRecordsPerSec)
	}
	// Both partitions known now: p1's lag grows by 100.
	g = s.Add(lagReportOf(lagBase.Add(2*time.Second), []int64{300, 0}, []int64{390, 5100})).Groups[0]
	if *g.LagChange != 100 || g.Trend != TrendGrowing {
		t.Fatalf("then: change %d trend %s", *g.LagChange, g.Trend)
	}
}
