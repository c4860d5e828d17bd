package perf

import (
	"context"
	"github.com/kboxdev/kbox/pkg/throttle"
	"time"
)

// Pacer schedules sends at a constant rate: record i is due at
// start + i/rate. Latency measured from Due(i) instead of the actual send
// time does not hide stalls (coordinated omission): a record that could not
// be sent on time is charged for the wait.
type Pacer struct {
	start    time.Time
	interval float64 // ns per record; 0 = unthrottled
}

// NewPacer returns a pacer for rate records/s (<= 0: unthrottled).
func NewPacer(start time.Time, rate float64) *Pacer {
	p := &Pacer{start: start}
	if rate > 0 {
		p.interval = 1e9 / rate
	}
	return p
}

// Throttled reports whether the pacer limits the rate.
func (p *Pacer) Throttled() bool { return p.interval > 0 }

// Due is the intended send time of record i (start when unthrottled).
func (p *Pacer) Due(i int64) time.Time {
	if p.interval == 0 {
		return p.start
	}
	return p.start.Add(time.Duration(float64(i) * p.interval))
}

// Wait blocks until record i is due; it returns the intended time.
func (p *Pacer) Wait(ctx context.Context, i int64) time.Time {
	due := p.Due(i)
	if p.interval == 0 {
		return due
	}
	if d := time.Until(due); d > 200*time.Microsecond {
		throttle.Sleep(ctx, d)
	}
	return due
}
