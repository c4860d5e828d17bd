package throttle

import (
	"context"
	"testing"
	"time"
)

func TestShouldThrottleLikeJava(t *testing.T) {
	th := NewApache(100)
	th.startMs = 1000
	if th.ShouldThrottle(50, 1000) {
		t.Fatal("elapsed 0 never throttles")
	}
	if !th.ShouldThrottle(101, 2000) || th.ShouldThrottle(100, 2000) {
		t.Fatal("101 in 1 s is above 100/s; 100 is not")
	}
	if NewApache(-1).ShouldThrottle(1e9, 1<<40) {
		t.Fatal("-1 never throttles")
	}
}

func TestShouldThrottleElapsed(t *testing.T) {
	th := NewApache(1000)
	// 5 records after 100 µs is 50,000/s: a first-millisecond burst is caught.
	if !th.ShouldThrottleElapsed(5, 100*time.Microsecond) {
		t.Fatal("burst in the first millisecond must throttle")
	}
	if th.ShouldThrottleElapsed(0, 0) || th.ShouldThrottleElapsed(4, 5*time.Millisecond) {
		t.Fatal("elapsed 0 or 800/s must not throttle")
	}
	if NewApache(-1).ShouldThrottleElapsed(1e9, time.Nanosecond) {
		t.Fatal("-1 never throttles")
	}
}

func TestThrottleSleepsInChunks(t *testing.T) {
	th := NewApache(1000) // 1 ms per message
	var slept time.Duration
	th.Sleep = func(_ context.Context, d time.Duration) { slept += d }
	th.Throttle(context.Background())
	if slept != 0 {
		t.Fatalf("slept %v before a 2 ms deficit", slept)
	}
	th.Throttle(context.Background())
	if slept != 2*time.Millisecond {
		t.Fatalf("slept %v, want 2ms", slept)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	start := time.Now()
	NewApache(0).Throttle(ctx) // blocks until ctx ends
	if time.Since(start) < 15*time.Millisecond {
		t.Fatal("target 0 must block until the context ends")
	}
}

func TestAchievedRate(t *testing.T) {
	// 300 sends at 2,000/s through the real clock take about 150 ms; the
	// first-millisecond burst of the Java clock would finish in ~0 ms.
	th := NewApache(2000)
	start := time.Now()
	for i := int64(0); i < 300; i++ {
		if th.ShouldThrottleNow(i) {
			th.Throttle(context.Background())
		}
	}
	if el := time.Since(start); el < 120*time.Millisecond {
		t.Fatalf("300 sends at 2000/s took %v", el)
	}
}
