package reassign

import (
	"math"
	"testing"
	"time"
)

// bursty is a follower copying t-0 from broker 1 to broker 3 the way a
// throttled follower does: the quota lets the first bytes through at once
// (first, at 0.3 s), then one fetch of step bytes every period, until it
// holds the leader's total.
type bursty struct {
	first, step, total int64
	period             time.Duration
	throttle           string
}

func (m bursty) copied(at time.Duration) int64 {
	if at < 300*time.Millisecond {
		return 0
	}
	n := int64((at - 300*time.Millisecond) / m.period)
	return min(m.first+n*m.step, m.total)
}

// done is when the last burst lands.
func (m bursty) done() time.Duration {
	n := (m.total - m.first + m.step - 1) / m.step
	return 300*time.Millisecond + time.Duration(n)*m.period
}

func (m bursty) snap(t0 time.Time, at time.Duration) *Snapshot {
	tp := TP{"t", 0}
	s := &Snapshot{At: t0.Add(at), Live: map[int32]bool{1: true, 2: true, 3: true},
		Leaders: map[TP]int32{tp: 1}, Throttle: map[int32]string{3: m.throttle}, Ongoing: map[TP]Ongoing{},
		Sizes: map[Replica]int64{{"t", 0, 1}: m.total, {"t", 0, 3}: m.copied(at)}}
	if m.copied(at) < m.total {
		s.Ongoing[tp] = Ongoing{Replicas: []int32{3, 1}, Adding: []int32{3}, Removing: []int32{1}}
	}
	return s
}

// A watch with --interval 2s over a bursty throttled move: RATE/S is the
// rate over the last interval (0 between bursts: it was an average since
// the watch started, 317.6, 158.8, 105.2 KiB/s while nothing was copied),
// no partition is called stuck between bursts, and once the window spans
// two bursts after the first, the ETA is within 15% of (or one interval
// and the rounding to whole seconds from) the time the move really takes.
//   - 150 kB/s: 3 MiB at once, then 0.8 MiB every 9 s (the ETA capped at
//     the throttle said 23 s for about 30 s);
//   - 10 kB/s: 3 MiB at once, then a 1 MiB fetch every 11 s, about 95 kB/s
//     (the test bed copied 0.95 MiB every 11 s at 10 kB/s): the ETA at the
//     throttle's rate was 9 times too long.
func TestTrackerBurstyMove(t *testing.T) {
	const mib = 1 << 20
	for _, m := range []bursty{
		{first: 3 * mib, step: mib * 8 / 10, total: 3*mib + 7*(mib*8/10), period: 9 * time.Second, throttle: "150000"},
		{first: 3 * mib, step: mib, total: 8 * mib, period: 11 * time.Second, throttle: "10000"},
	} {
		t.Run(m.throttle, func(t *testing.T) {
			t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
			const interval = 2 * time.Second
			done := m.done()
			tr := &Tracker{Window: EtaWindow(interval)}
			tr.Add(m.snap(t0, 0))
			checked := 0
			for at := interval; at < done; at += interval {
				p := tr.Add(m.snap(t0, at))
				if len(p.Partitions) != 1 {
					t.Fatalf("at %v: %d partitions", at, len(p.Partitions))
				}
				pp := p.Partitions[0]
				want := float64(m.copied(at)-m.copied(at-interval)) / interval.Seconds()
				if pp.BytesPerSec != want || p.BytesPerSec != want || p.SampleSec != 2 {
					t.Errorf("at %v: rate %.0f B/s (total %.0f), want the last interval's %.0f", at, pp.BytesPerSec, p.BytesPerSec, want)
				}
				if pp.Stuck != "" {
					t.Errorf("at %v: stuck between bursts: %q", at, pp.Stuck)
				}
				if at < 2*m.period+2*interval {
					continue
				}
				if p.EtaWindowSec < 45 && at >= 45*time.Second {
					t.Errorf("at %v: ETA window %.0f s, want at least 45", at, p.EtaWindowSec)
				}
				rest := (done - at).Seconds()
				if pp.EtaSec == nil || math.Abs(*pp.EtaSec-rest) > max(0.15*rest, interval.Seconds()+1) ||
					p.EtaSec == nil || *p.EtaSec != *pp.EtaSec {
					t.Errorf("at %v: ETA %s (total %s), the move takes %.1f s more", at, eta(pp.EtaSec), eta(p.EtaSec), rest)
					continue
				}
				t.Logf("at %v: ETA %.0f s, the move takes %.1f s more", at, *pp.EtaSec, rest)
				checked++
			}
			if checked < 10 {
				t.Fatalf("only %d samples checked", checked)
			}
			// Done: the partition leaves the progress.
			if p := tr.Add(m.snap(t0, done+interval)); len(p.Partitions) != 0 {
				t.Errorf("after the move: %+v", p.Partitions)
			}
		})
	}
}

func TestWindowRate(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pts := func(bytes ...int64) []point {
		out := make([]point, len(bytes))
		for i, b := range bytes {
			out[i] = point{t0.Add(time.Duration(i) * 2 * time.Second), b}
		}
		return out
	}
	for _, c := range []struct {
		name string
		pts  []point
		want float64
	}{
		{"one point", pts(5), 0},
		{"nothing copied", pts(5, 5, 5), 0},
		// one step: the average over the window
		{"one step", pts(0, 0, 900, 900), 150},
		// steady: from the first step to the last
		{"steady", pts(0, 100, 200, 300), 50},
		// steps every 3 samples (6 s) of 600 B: 100 B/s, whatever the phase
		{"bursts", pts(0, 3000, 3000, 3000, 3600, 3600, 3600, 4200, 4200), 100},
		{"bursts, other phase", pts(0, 0, 600, 600, 600, 1200, 1200, 1200, 1800), 100},
		// the copy stopped: no step for 5 gaps after the last
		{"slowed", pts(0, 600, 600, 1200, 1200, 1200, 1200, 1200, 1200, 1200), 600.0 / (18 - 2 - 4)},
	} {
		if got, _, _ := windowRate(c.pts); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}
