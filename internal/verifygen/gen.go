// Package verifygen writes large verifiable producer and consumer logs
// for the memory test and the benchmark of `kbox verify check`.
package verifygen

import (
	"bufio"
	"io"
	"strconv"

	"github.com/kboxdev/kbox/pkg/verify"
)

// Spec describes the logs: one producer acking Records values "0.i" on
// Partitions partitions of Topic in batches of Batch, and one consumer
// (--verbose) reading them in polls of Poll records per partition,
// committing after each poll. Lost values (indexes) are acked but not
// consumed.
type Spec struct {
	Topic      string
	Records    int
	Partitions int
	Batch      int
	Poll       int
	Lost       map[int]bool
}

func (s *Spec) defaults() {
	if s.Topic == "" {
		s.Topic = "t"
	}
	if s.Partitions <= 0 {
		s.Partitions = 3
	}
	if s.Batch <= 0 {
		s.Batch = 200
	}
	if s.Poll <= 0 {
		s.Poll = 500
	}
}

// Producer writes the producer log to w.
func Producer(w io.Writer, s Spec) error {
	s.defaults()
	bw := bufio.NewWriterSize(w, 256<<10)
	ts := int64(1_700_000_000_000)
	next := make([]int64, s.Partitions)
	_, _ = bw.Write(verify.StartupComplete(ts))
	for i := 0; i < s.Records; {
		p := (i / s.Batch) % s.Partitions
		for j := 0; j < s.Batch && i < s.Records; j++ {
			_, _ = bw.Write(verify.SendSuccess(ts+int64(i/1000), nil, "0."+strconv.Itoa(i), s.Topic, int32(p), next[p]))
			next[p]++
			i++
		}
	}
	end := ts + int64(s.Records/1000) + 1
	_, _ = bw.Write(verify.ShutdownComplete(end))
	_, _ = bw.Write(verify.ToolData(end, int64(s.Records), int64(s.Records), -1, 1000))
	return bw.Flush()
}

// Consumer writes the consumer log to w.
func Consumer(w io.Writer, s Spec) error {
	s.defaults()
	bw := bufio.NewWriterSize(w, 256<<10)
	ts := int64(1_700_000_000_000)
	// where each value landed (the producer's layout), per partition,
	// walked in polls round robin over the partitions
	pos := make([]int, s.Partitions) // next value index per partition
	perPart := func(p, k int) (int, bool) {
		// the k-th value of partition p
		batchNo := k / s.Batch
		i := (batchNo*s.Partitions+p)*s.Batch + k%s.Batch
		return i, i < s.Records
	}
	tps := make([]verify.TP, s.Partitions)
	for p := range tps {
		tps[p] = verify.TP{Topic: s.Topic, Partition: int32(p)}
	}
	_, _ = bw.Write(verify.StartupComplete(ts))
	_, _ = bw.Write(verify.PartitionsAssigned(ts, tps))
	for done := 0; done < s.Partitions; {
		done = 0
		for p := 0; p < s.Partitions; p++ {
			lo := pos[p]
			n := 0
			for ; n < s.Poll; n++ {
				i, ok := perPart(p, lo+n)
				if !ok {
					break
				}
				if !s.Lost[i] {
					v := "0." + strconv.Itoa(i)
					_, _ = bw.Write(verify.RecordData(ts+int64(i/1000), nil, &v, s.Topic, int32(p), int64(lo+n)))
				}
			}
			if n == 0 {
				done++
				continue
			}
			pos[p] = lo + n
			i, _ := perPart(p, lo+n-1)
			t := ts + int64(i/1000)
			_, _ = bw.Write(verify.RecordsConsumed(t, int64(n), []verify.PartitionData{{Topic: s.Topic, Partition: int32(p), Count: int64(n), MinOffset: int64(lo), MaxOffset: int64(lo + n - 1)}}))
			_, _ = bw.Write(verify.OffsetsCommitted(t, []verify.CommitData{{Topic: s.Topic, Partition: int32(p), Offset: int64(lo + n)}}, nil))
		}
	}
	end := ts + int64(s.Records/1000) + 2
	_, _ = bw.Write(verify.PartitionsRevoked(end, tps))
	_, _ = bw.Write(verify.ShutdownComplete(end))
	return bw.Flush()
}
