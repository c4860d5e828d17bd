// Package throttle is Apache Kafka's ThroughputThrottler
// (org.apache.kafka.server.util.ThroughputThrottler), shared by the
// verifiable producer, verify run and the producer perf test.
package throttle

import (
	"context"
	"time"
)

// Apache sleeps only when the average rate since the start is above the
// target, in chunks of at least 2 ms of accumulated deficit. A negative
// target never throttles; a target of 0 blocks until the context ends
// (Java blocks forever).
type Apache struct {
	start       time.Time
	startMs     int64
	target      float64
	sleepTimeNs int64
	deficitNs   int64
	// Sleep waits for d or until ctx ends; replaceable in tests.
	Sleep func(ctx context.Context, d time.Duration)
}

const minSleepNs = 2_000_000

// NewApache is `new ThroughputThrottler(target, now)`.
func NewApache(target float64) *Apache {
	now := time.Now()
	t := &Apache{start: now, startMs: now.UnixMilli(), target: target, Sleep: Sleep}
	if target > 0 {
		t.sleepTimeNs = int64(1e9 / target)
	}
	return t
}

// ShouldThrottle is Java's shouldThrottle(amountSoFar, sendStartMs): the
// elapsed time is whole milliseconds and the division is in float, as Java
// computes it.
func (t *Apache) ShouldThrottle(amountSoFar, sendStartMs int64) bool {
	if t.target < 0 {
		return false
	}
	elapsedSec := float32(sendStartMs-t.startMs) / 1000
	return elapsedSec > 0 && float64(float32(amountSoFar)/elapsedSec) > t.target
}

// ShouldThrottleElapsed is ShouldThrottle with the elapsed time at
// nanosecond resolution. The Java tools' first send blocks on metadata, so
// their millisecond clock has advanced before the second send; franz-go's
// sends do not block, and with a millisecond clock every record sent in the
// first millisecond (hundreds) escapes the throttle, which put short runs
// far above the target.
func (t *Apache) ShouldThrottleElapsed(amountSoFar int64, elapsed time.Duration) bool {
	if t.target < 0 {
		return false
	}
	return elapsed > 0 && float64(amountSoFar)/elapsed.Seconds() > t.target
}

// ShouldThrottleNow is ShouldThrottleElapsed with the time since NewApache.
func (t *Apache) ShouldThrottleNow(amountSoFar int64) bool {
	return t.ShouldThrottleElapsed(amountSoFar, time.Since(t.start))
}

// Throttle adds one message's worth of sleep to the deficit and sleeps once
// it reaches 2 ms.
func (t *Apache) Throttle(ctx context.Context) {
	if t.target == 0 {
		<-ctx.Done()
		return
	}
	t.deficitNs += t.sleepTimeNs
	if t.deficitNs >= minSleepNs {
		t.Sleep(ctx, time.Duration(t.deficitNs))
		t.deficitNs = 0
	}
}

// Sleep waits for d or until ctx is done.
func Sleep(ctx context.Context, d time.Duration) {
	if d <= 0 {
		return
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}
