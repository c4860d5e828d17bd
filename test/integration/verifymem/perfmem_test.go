//go:build integration

package verifymem_test

import (
	"slices"
	"strings"
	"testing"
	"time"
)

// TestProducerPerfMemory: kafka-producer-perf-test, 2,000,000 unthrottled
// records of 1 KiB with the client's defaults (buffer.memory 32 MiB),
// peaks at no more than buffer.memory + 56 MiB of RSS: the median of 3
// runs, as the machine is shared. The design bounds Go's memory by
// buffer.memory + cmdutil.MemoryHeadroom (32 MiB, a soft limit); the RSS
// adds the binary's pages and the soft limit's overshoot (~14 MiB measured:
// 75-78 MiB at load 6), and 10 MiB of margin. Issue 31's target is + 32 MiB,
// which this does not meet. The run is 2M records because the heap without
// the bound only shows at length: with SoftMemoryLimit a no-op the peak was
// 97 MiB at 2M but 72-75 MiB at 300k, under any useful bound.
func TestProducerPerfMemory(t *testing.T) {
	const (
		bufferMemory = 32 << 20
		n            = "2000000"
		bound        = bufferMemory + 32<<20 + 14<<20 + 10<<20
	)
	if r := measure(t, time.Minute, nil, "kafka-topics", "--bootstrap-server", cluster.Bootstrap, "--create", "--topic", "perf-mem",
		"--partitions", "3", "--replication-factor", "1"); r.code != 0 {
		t.Fatalf("create topic: exit %d, %s%s", r.code, r.stdout, r.stderr)
	}
	var peaks []int64
	for i := range 3 {
		r := measure(t, 4*time.Minute, nil, "kafka-producer-perf-test", "--topic", "perf-mem", "--bootstrap-server", cluster.Bootstrap,
			"--num-records", n, "--record-size", "1024", "--throughput", "-1")
		t.Logf("run %d: peak RSS %d KiB, CPU %s, wall %s", i+1, r.maxRSSKiB, r.cpu, r.wall)
		if r.code != 0 || !strings.Contains(r.stdout, n+" records sent") {
			t.Fatalf("exit %d, stdout %s, stderr %s", r.code, r.stdout, r.stderr)
		}
		peaks = append(peaks, r.maxRSSKiB)
	}
	slices.Sort(peaks)
	if limit := int64(bound) >> 10; peaks[1] > limit {
		t.Errorf("median peak RSS %d KiB > buffer.memory + 56 MiB (%d KiB); runs %v", peaks[1], limit, peaks)
	}
}
