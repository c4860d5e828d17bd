package perf

import (
	"fmt"
	"io"
	"sort"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/javafmt"
)

// ApacheStats is ProducerPerformance.Stats (Kafka 4.4): window lines every
// reporting interval, sampled latencies (at most ~500k samples), and the
// final line.
type ApacheStats struct {
	mu          sync.Mutex
	out         io.Writer
	now         func() int64 // milliseconds
	start       int64
	latencies   []int32
	sampling    int64
	interval    int64
	iteration   int64
	index       int
	count       int64
	bytes       int64
	maxLatency  int32
	totalLat    int64
	winCount    int64
	winMax      int32
	winTotalLat int64
	winBytes    int64
	winStart    int64
	steady      bool
	suppress    bool
}

// NowMs is System.currentTimeMillis.
func NowMs() int64 { return time.Now().UnixMilli() }

// NewApacheStats is `new Stats(numRecords, reportingInterval, isSteadyState)`.
func NewApacheStats(out io.Writer, numRecords, reportingIntervalMs int64, steady bool, now func() int64) *ApacheStats {
	if now == nil {
		now = NowMs
	}
	t := now()
	sampling := numRecords / min(numRecords, 500000)
	return &ApacheStats{
		out: out, now: now, start: t, winStart: t,
		sampling:  sampling,
		latencies: make([]int32, numRecords/sampling+1),
		interval:  reportingIntervalMs,
		steady:    steady,
	}
}

// Record is Stats.record(latency, bytes, time).
func (s *ApacheStats) Record(latencyMs int32, bytes int, nowMs int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.count++
	s.bytes += int64(bytes)
	s.totalLat += int64(latencyMs)
	s.maxLatency = max(s.maxLatency, latencyMs)
	s.winCount++
	s.winBytes += int64(bytes)
	s.winTotalLat += int64(latencyMs)
	s.winMax = max(s.winMax, latencyMs)
	if s.iteration%s.sampling == 0 {
		s.latencies[s.index] = latencyMs
		s.index++
	}
	if nowMs-s.winStart >= s.interval {
		if s.steady && s.count == s.winCount {
			fmt.Fprintln(s.out, "In steady state.")
		}
		if !s.suppress {
			s.printWindow()
		}
		s.newWindow()
	}
	s.iteration++
}

// SuppressPrinting stops window lines (the warm-up stats once steady state
// begins).
func (s *ApacheStats) SuppressPrinting() {
	s.mu.Lock()
	s.suppress = true
	s.mu.Unlock()
}

// Count is the number of recorded (successful) sends.
func (s *ApacheStats) Count() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

func (s *ApacheStats) printWindow() {
	elapsed := s.now() - s.winStart
	recsPerSec := 1000.0 * float64(s.winCount) / float64(elapsed)
	mbPerSec := 1000.0 * float64(s.winBytes) / float64(elapsed) / (1024 * 1024)
	fmt.Fprintf(s.out, "%d records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency.\n",
		s.winCount, javafmt.Fixed(recsPerSec, 1), javafmt.Fixed(mbPerSec, 2),
		javafmt.Fixed(float64(s.winTotalLat)/float64(s.winCount), 1), javafmt.Fixed(float64(s.winMax), 1))
}

func (s *ApacheStats) newWindow() {
	s.winStart = s.now()
	s.winCount, s.winMax, s.winTotalLat, s.winBytes = 0, 0, 0, 0
}

// PrintTotal prints the final summary line.
func (s *ApacheStats) PrintTotal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	elapsed := s.now() - s.start
	recsPerSec := 1000.0 * float64(s.count) / float64(elapsed)
	mbPerSec := 1000.0 * float64(s.bytes) / float64(elapsed) / (1024 * 1024)
	p := ApachePercentiles(s.latencies, s.index, 0.5, 0.95, 0.99, 0.999)
	label := ""
	if s.steady {
		label = " steady state"
	}
	fmt.Fprintf(s.out, "%d%s records sent, %s records/sec (%s MB/sec), %s ms avg latency, %s ms max latency, %d ms 50th, %d ms 95th, %d ms 99th, %d ms 99.9th.\n",
		s.count, label, javafmt.Fixed(recsPerSec, 6), javafmt.Fixed(mbPerSec, 2),
		javafmt.Fixed(float64(s.totalLat)/float64(s.count), 2), javafmt.Fixed(float64(s.maxLatency), 2),
		p[0], p[1], p[2], p[3])
}

// ApachePercentiles is Stats.percentiles: sort the first min(count, len)
// samples and pick samples[(int)(p*size)].
func ApachePercentiles(latencies []int32, count int, ps ...float64) []int32 {
	size := min(count, len(latencies))
	sorted := append([]int32(nil), latencies[:size]...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i] < sorted[j] })
	out := make([]int32, len(ps))
	for i, p := range ps {
		idx := int(p * float64(size))
		if idx < len(sorted) {
			out[i] = sorted[idx]
		}
	}
	return out
}
