package logdirs

import (
	"fmt"
	"io"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/output"
)

// bigInput: 10,000 replicas (3,334 partitions × 3 brokers, RF 3 ≈ 10,000
// rows in the replica view).
func bigInput(rows int) Input {
	q := &Query{}
	leaders := map[string]map[int32]int32{}
	for b := int32(1); b <= 3; b++ {
		d := Dir{Path: fmt.Sprintf("/var/lib/kafka/data-%d", b), TotalBytes: 1 << 40, UsableBytes: 1 << 39}
		for i := 0; i < rows/3; i++ {
			topic := fmt.Sprintf("topic-%03d", i/50)
			p := int32(i % 50)
			d.Replicas = append(d.Replicas, Replica{Topic: topic, Partition: p, Size: int64(i) * 4096})
			if leaders[topic] == nil {
				leaders[topic] = map[int32]int32{}
			}
			leaders[topic][p] = 1 + int32(i%3)
		}
		q.Answered = append(q.Answered, BrokerDirs{Broker: b, Dirs: []Dir{d}})
	}
	return Input{Query: q, Leaders: leaders}
}

// BenchmarkTable10k is the target: build and render a table of
// 10,000 rows (one per replica) in under 200 ms of CPU.
func BenchmarkTable10k(b *testing.B) {
	in := bigInput(10000)
	ios, _, _, _ := output.Test()
	ios.Out = io.Discard
	b.ReportAllocs()
	start := cpuTime()
	for b.Loop() {
		r := BuildReport(in, ReportOptions{View: AggReplica, SortBySize: true})
		if len(*r.Replicas) < 9999 {
			b.Fatal("rows missing")
		}
		if err := output.Print(ios, output.Table, r); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cpuTime()-start).Microseconds())/1000/float64(b.N), "cpu-ms/op")
}

// cpuTime is the process's user+system CPU time (GC workers included).
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkApacheJSON10k renders the Apache JSON line for 10,000 replicas.
func BenchmarkApacheJSON10k(b *testing.B) {
	in := bigInput(10000)
	r := &ApacheResult{Queried: []int32{1, 2, 3}, Answers: in.Query.Answered}
	b.ReportAllocs()
	for b.Loop() {
		if err := r.WriteApache(io.Discard); err != nil {
			b.Fatal(err)
		}
	}
}
