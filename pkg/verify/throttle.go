package verify

import (
	"context"
	"time"
)

// Throttler is Apache's org.apache.kafka.server.util.ThroughputThrottler.
type Throttler struct {
	target      float64
	startMs     int64
	sleepTimeNs int64
	deficitNs   int64
	// Sleep is replaceable for tests; it returns early when ctx is done.
	Sleep func(ctx context.Context, d time.Duration)
}

// minSleepNs is the smallest deficit worth sleeping for (2 ms).
const minSleepNs = 2_000_000

// NewThrottler returns a throttler for target messages per second started
// at startMs; a negative target never throttles, 0 blocks forever.
func NewThrottler(target float64, startMs int64) *Throttler {
	t := &Throttler{target: target, startMs: startMs, Sleep: sleepCtx}
	if target > 0 {
		t.sleepTimeNs = int64(1e9 / target)
	}
	return t
}

func sleepCtx(ctx context.Context, d time.Duration) {
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-ctx.Done():
	case <-tm.C:
	}
}

// ShouldThrottle reports whether amountSoFar messages sent by sendStartMs
// exceed the target rate (elapsed time is computed in float seconds).
func (t *Throttler) ShouldThrottle(amountSoFar, sendStartMs int64) bool {
	if t.target < 0 {
		return false
	}
	elapsedSec := float32(sendStartMs-t.startMs) / 1000
	return elapsedSec > 0 && float64(float32(amountSoFar)/elapsedSec) > t.target
}

// Throttle accumulates one message's worth of sleep and sleeps once the
// deficit reaches 2 ms; with target 0 it blocks until ctx is done.
func (t *Throttler) Throttle(ctx context.Context) {
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
