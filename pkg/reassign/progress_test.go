package reassign

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/internal/golden"
)

func snap(at time.Time, sizes map[Replica]int64, live ...int32) *Snapshot {
	s := &Snapshot{At: at, Sizes: sizes, Live: map[int32]bool{}, Throttle: map[int32]string{3: "1000"},
		Leaders: map[TP]int32{{"t", 0}: 1, {"t", 1}: 2},
		Ongoing: map[TP]Ongoing{
			{"t", 0}: {Replicas: []int32{3, 2, 1}, Adding: []int32{3}, Removing: []int32{1}},
			{"t", 1}: {Replicas: []int32{4, 1, 2}, Adding: []int32{4}, Removing: []int32{2}},
		}}
	for _, id := range live {
		s.Live[id] = true
	}
	return s
}

func TestBuildProgress(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	prev := snap(t0, map[Replica]int64{{"t", 0, 1}: 10000, {"t", 0, 3}: 2000, {"t", 1, 2}: 5000}, 1, 2, 3)
	cur := snap(t0.Add(2*time.Second), map[Replica]int64{{"t", 0, 1}: 10000, {"t", 0, 3}: 4000, {"t", 1, 2}: 5000}, 1, 2, 3)
	p := BuildProgress(prev, cur)
	a, b := p.Partitions[0], p.Partitions[1]
	if a.TargetBytes != 10000 || a.CopiedBytes != 4000 || a.BytesPerSec != 1000 || a.EtaSec == nil || *a.EtaSec != 6 || a.Percent != 40 {
		t.Errorf("t-0: %+v", a)
	}
	if b.CopiedBytes != 0 || b.EtaSec != nil || b.Stuck != "adding broker 4 is not registered" {
		t.Errorf("t-1: %+v", b)
	}
	if p.TargetBytes != 15000 || p.CopiedBytes != 4000 || p.EtaSec == nil || *p.EtaSec != 11 {
		t.Errorf("total: %+v", p)
	}
	golden.JSON(t, "status.json.golden", p)
	rows := p.Rows()
	if got := strings.Join(rows[len(rows)-1], "|"); got != "TOTAL|||3.9 KiB|14.6 KiB|26.7|1000 B|11s|" {
		t.Errorf("total row %q", got)
	}
	// No progress with a throttle on the adding broker: a pause between
	// two bursts for a while (the quota averages over 11 s), then stuck,
	// and why.
	cur.Sizes[Replica{"t", 0, 3}] = 2000
	if p := BuildProgress(prev, cur); p.Partitions[0].Stuck != "" {
		t.Errorf("stuck after 2 s between bursts: %q", p.Partitions[0].Stuck)
	}
	later := *cur
	later.At = t0.Add(20 * time.Second)
	if p := BuildProgress(prev, &later); p.Partitions[0].Stuck != "no bytes copied in 20 s (follower throttle 1000 B/s on broker 3)" {
		t.Errorf("stuck: %q", p.Partitions[0].Stuck)
	}
	// One look only: no rate, no ETA.
	if p := BuildProgress(nil, cur); p.SampleSec != 0 || p.EtaSec != nil || p.Partitions[0].Stuck != "" {
		t.Errorf("single snapshot: %+v", p)
	}
	// A burst above the throttle (the quota's first window): the rate shows
	// what was observed, the ETA what the throttle lets through.
	cur.Sizes[Replica{"t", 0, 3}] = 8000
	p = BuildProgress(prev, cur)
	if a := p.Partitions[0]; a.BytesPerSec != 3000 || a.EtaSec == nil || *a.EtaSec != 2 {
		t.Errorf("burst above the throttle: %+v", a)
	}
	if p.BytesPerSec != 3000 || p.EtaSec == nil || *p.EtaSec != 7 {
		t.Errorf("total with a burst above the throttle: %+v", p)
	}
}

// The throttle is the broker's: two replicas it adds share it.
func TestBuildProgressSharedThrottle(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	mk := func(at time.Time, s0, s1 int64) *Snapshot {
		return &Snapshot{At: at, Live: map[int32]bool{1: true, 2: true, 3: true}, Throttle: map[int32]string{3: "1000"},
			Leaders: map[TP]int32{{"t", 0}: 1, {"t", 1}: 2},
			Ongoing: map[TP]Ongoing{
				{"t", 0}: {Replicas: []int32{3, 1}, Adding: []int32{3}, Removing: []int32{1}},
				{"t", 1}: {Replicas: []int32{3, 2}, Adding: []int32{3}, Removing: []int32{2}},
			},
			Sizes: map[Replica]int64{{"t", 0, 1}: 100000, {"t", 1, 2}: 100000, {"t", 0, 3}: s0, {"t", 1, 3}: s1}}
	}
	// 3000 + 1000 B/s observed on broker 3, throttled at 1000: 750 + 250.
	p := BuildProgress(mk(t0, 0, 0), mk(t0.Add(time.Second), 3000, 1000))
	a, b := p.Partitions[0], p.Partitions[1]
	if a.BytesPerSec != 3000 || *a.EtaSec != math.Ceil(97000/750.) || b.BytesPerSec != 1000 || *b.EtaSec != math.Ceil(99000/250.) {
		t.Errorf("partitions: %+v %+v", a, b)
	}
	if p.BytesPerSec != 4000 || *p.EtaSec != 196 {
		t.Errorf("total: %+v", p)
	}
	// Under the throttle: the observed rates.
	p = BuildProgress(mk(t0, 0, 0), mk(t0.Add(10*time.Second), 3000, 1000))
	if *p.Partitions[0].EtaSec != math.Ceil(97000/300.) || *p.EtaSec != math.Ceil(196000/400.) {
		t.Errorf("under the throttle: %+v", p)
	}
}
