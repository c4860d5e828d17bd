//go:build integration

package verifymem_test

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProducerPerfMemory: kafka-producer-perf-test, 300,000 unthrottled
// records of 1 KiB with the client's defaults (buffer.memory 32 MiB),
// peaks at no more than buffer.memory + 32 MiB of RSS (issue 31's
// target), the median of 3 runs as the machine is shared. Without the
// soft memory limit (cmdutil.SoftMemoryLimit a no-op) the heap grows past
// it within these runs (72-99 MiB measured at 300k), so the test fails
// when the bound is removed; the 2M-record runs are in `make bench-mem`.
// Bounded in time: each run has 40 s.
func TestProducerPerfMemory(t *testing.T) {
	const (
		bufferMemory = 32 << 20
		n            = "300000"
		bound        = bufferMemory + 32<<20
	)
	if r := measure(t, time.Minute, nil, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--create", "--topic", "perf-mem",
		"--partitions", "3", "--replication-factor", "1"); r.code != 0 {
		t.Fatalf("create topic: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	var peaks []int64
	for i := range 3 {
		r := measure(t, 40*time.Second, nil, "kafka-producer-perf-test", "--topic", "perf-mem", "--bootstrap-server", cluster.Bootstrap,
			"--num-records", n, "--record-size", "1024", "--throughput", "-1")
		t.Logf("run %d: peak RSS %d KiB, CPU %s, wall %s", i+1, r.maxRSSKiB, r.cpu, r.wall)
		if r.code != 0 || !strings.Contains(r.stdout, n+" records sent") {
			t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
		}
		peaks = append(peaks, r.maxRSSKiB)
	}
	slices.Sort(peaks)
	if limit := int64(bound) >> 10; peaks[1] > limit {
		t.Errorf("median peak RSS %d KiB > buffer.memory + 32 MiB (%d KiB); runs %v", peaks[1], limit, peaks)
	}
}
