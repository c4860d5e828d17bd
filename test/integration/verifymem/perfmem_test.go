//go:build integration

package verifymem_test

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// The design bounds Go's memory by buffer.memory (32 MiB by default) +
// cmdutil.MemoryHeadroom (32 MiB, a soft limit); the RSS adds the binary's
// pages and the soft limit's overshoot (~14 MiB measured: 74-77 MiB at load
// 60-90), so the tests allow 10 MiB of margin above that: buffer.memory +
// 56 MiB. Issue 31's target is + 32 MiB, which this does not meet.
const perfMemBound = 32<<20 + 32<<20 + 14<<20 + 10<<20

// TestProducerPerfMemory: kafka-producer-perf-test, 1,000,000 unthrottled
// records of 1 KiB with the client's defaults, one run (10-20 s idle, a
// few minutes at most on a loaded machine), peaks at no more than
// buffer.memory + 56 MiB of RSS. The median of 3 runs of 2M records, which
// fails when the bound is removed, is TestProducerPerfMemory2M (make
// bench-mem).
func TestProducerPerfMemory(t *testing.T) {
	producerPerfMemory(t, "perf-mem", "1000000", 1)
}

// TestProducerPerfMemory2M: as TestProducerPerfMemory, 2,000,000 records,
// the median of 3 runs, as the machine is shared. The heap without the
// bound only shows at length: with SoftMemoryLimit a no-op the peak was
// 81-95 MiB at 2M (this failed) but 72-75 MiB at 300k.
func TestProducerPerfMemory2M(t *testing.T) {
	long(t)
	producerPerfMemory(t, "perf-mem-2m", "2000000", 3)
}

// producerPerfMemory runs kafka-producer-perf-test runs times with n
// records on a new topic and checks the median peak RSS.
func producerPerfMemory(t *testing.T, topic, n string, runs int) {
	if r := measure(t, time.Minute, nil, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--create", "--topic", topic,
		"--partitions", "3", "--replication-factor", "1"); r.code != 0 {
		t.Fatalf("create topic: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	var peaks []int64
	for i := range runs {
		r := measure(t, 5*time.Minute, nil, "kafka-producer-perf-test", "--topic", topic, "--bootstrap-server", cluster.Bootstrap,
			"--num-records", n, "--record-size", "1024", "--throughput", "-1")
		t.Logf("run %d: peak RSS %d KiB, CPU %s, wall %s", i+1, r.maxRSSKiB, r.cpu, r.wall)
		if r.code != 0 || !strings.Contains(r.stdout, n+" records sent") {
			t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
		}
		peaks = append(peaks, r.maxRSSKiB)
	}
	slices.Sort(peaks)
	if limit := int64(perfMemBound) >> 10; peaks[len(peaks)/2] > limit {
		t.Errorf("median peak RSS %d KiB > buffer.memory + 56 MiB (%d KiB); runs %v", peaks[len(peaks)/2], limit, peaks)
	}
}
