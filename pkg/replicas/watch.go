package replicas

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/kboxdev/kbox/pkg/integrity"
	"github.com/kboxdev/kbox/pkg/javafmt"
	"github.com/twmb/franz-go/pkg/kgo"
)

// Watch is ReplicaVerificationTool's loop: every round fetches every
// partition from every replica at once, from the offset verified so far,
// then walks the replicas' batches side by side below each replica's high
// watermark comparing their last offsets and stored checksums (the CRC
// in each batch's header, as stored: a batch whose bytes no longer match
// it goes unnoticed, as in Apache's tool), and reports the largest lag
// between a partition's high watermark and its verified offset.
type Watch struct {
	byBroker map[int32][]Partition
	brokers  []int32
	order    []TP             // the tool's HashMap<TopicPartition, ...> order
	replicas map[TP][]int32   // each partition's HashMap<Integer, ...> order
	offsets  map[TP]int64     // verified so far (fetchOffsetMap)
	opts     FetchOptions     //
	interval int64            // --report-interval-ms
	last     time.Time        // lastReportTime
	now      func() time.Time // the clock (a field for tests)
	fetch    fetchFunc        // FetchFrom (a field for tests)
	cache    map[TP]map[int32]Fetched
}

type fetchFunc func(ctx context.Context, broker int32, parts []Partition, offsets map[TP]int64) (map[TP]Fetched, error)

// NewWatch starts the loop's state over l's partitions from the initial
// offsets, reporting every intervalMs; the clock starts now.
func NewWatch(cl *kgo.Client, l *Layout, initial map[TP]int64, o FetchOptions, intervalMs int64) *Watch {
	w := &Watch{
		byBroker: map[int32][]Partition{}, replicas: map[TP][]int32{}, offsets: map[TP]int64{},
		opts: o, interval: intervalMs, now: time.Now, cache: map[TP]map[int32]Fetched{},
	}
	w.fetch = func(ctx context.Context, broker int32, parts []Partition, offsets map[TP]int64) (map[TP]Fetched, error) {
		return FetchFrom(ctx, cl, broker, parts, offsets, w.opts)
	}
	var tps []TP
	for _, p := range l.Partitions {
		tps = append(tps, p.TP)
		w.replicas[p.TP] = javafmt.IntSetOrder(p.Replicas, -1)
		for _, r := range p.Replicas {
			if len(w.byBroker[r]) == 0 {
				w.brokers = append(w.brokers, r)
			}
			w.byBroker[r] = append(w.byBroker[r], p)
		}
	}
	w.order = TPHashOrder(tps)
	for tp, off := range initial {
		w.offsets[tp] = off
	}
	w.last = w.now()
	return w
}

// TPHashOrder is the iteration order of a java.util.HashMap<TopicPartition,
// ?> filled with tps in order.
func TPHashOrder(tps []TP) []TP {
	hashes := make([]int32, len(tps))
	for i, tp := range tps {
		hashes[i] = tpHash(tp)
	}
	out := make([]TP, len(tps))
	for i, j := range javafmt.HashOrder(hashes, javafmt.HashMapCapacityOf(hashes, -1)) {
		out[i] = tps[j]
	}
	return out
}

// tpHash is TopicPartition.hashCode.
func tpHash(tp TP) int32 {
	return 31*(31+tp.Partition) + javafmt.StringHash(tp.Topic)
}

// DateFormat is the tool's SimpleDateFormat "yyyy-MM-dd HH:mm:ss,SSS".
const DateFormat = "2006-01-02 15:04:05,000"

// Round is one fetch-and-verify round: the lines the tool prints on
// stdout, and stop when it exits 1 after them (replicas disagree on a
// batch's offsets). A broker that cannot be fetched from counts as one
// with no data (that partition's verification waits).
func (w *Watch) Round(ctx context.Context) (lines []string, stop bool) {
	var mu sync.Mutex
	var wg sync.WaitGroup
	for _, b := range w.brokers {
		wg.Add(1)
		go func(b int32) {
			defer wg.Done()
			got, err := w.fetch(ctx, b, w.byBroker[b], w.offsets)
			mu.Lock()
			defer mu.Unlock()
			for _, p := range w.byBroker[b] {
				f, ok := got[p.TP]
				if err != nil || !ok {
					f = Fetched{HighWatermark: -1, LogStartOffset: -1}
				}
				if w.cache[p.TP] == nil {
					w.cache[p.TP] = map[int32]Fetched{}
				}
				w.cache[p.TP][b] = f
			}
		}(b)
	}
	wg.Wait()
	return w.verify()
}

// maxLag is the report's state (maxLag, offsetWithMaxLag,
// maxLagTopicAndPartition).
type maxLag struct {
	lag, offset int64
	tp          *TP
}

func (w *Watch) verify() (lines []string, stop bool) {
	m := maxLag{lag: -1, offset: -1}
	for _, tp := range w.order {
		l, stop := w.verifyPartition(tp)
		lines = append(lines, l...)
		if stop {
			return lines, true
		}
		maxHW := int64(-1)
		for _, f := range w.cache[tp] {
			maxHW = max(maxHW, f.HighWatermark)
		}
		if off := w.offsets[tp]; maxHW-off > m.lag {
			tp := tp
			m = maxLag{lag: maxHW - off, offset: off, tp: &tp}
		}
		clear(w.cache[tp])
	}
	now := w.now()
	if now.Sub(w.last).Milliseconds() > w.interval {
		name := "null"
		if m.tp != nil {
			name = m.tp.String()
		}
		lines = append(lines, fmt.Sprintf("%s: max lag is %d for partition %s at offset %d among %d partitions",
			now.Format(DateFormat), m.lag, name, m.offset, len(w.order)))
		w.last = now
	}
	return lines, false
}

type messageInfo struct {
	replica      int32
	offset, next int64
	checksum     uint32
}

// verifyPartition walks one partition's replicas' batches side by side.
func (w *Watch) verifyPartition(tp TP) (lines []string, stop bool) {
	data := w.cache[tp]
	var ids []int32
	iters := map[int32][]integrity.Batch{}
	for _, r := range w.replicas[tp] {
		if f, ok := data[r]; ok {
			ids = append(ids, r)
			iters[r] = integrity.Batches(f.Records)
		}
	}
	for all := true; all; {
		var first *messageInfo
		for _, r := range ids {
			if len(iters[r]) == 0 {
				all = false
				continue
			}
			b := iters[r][0]
			iters[r] = iters[r][1:]
			switch {
			case b.Last >= data[r].HighWatermark:
				all = false
			case first == nil:
				first = &messageInfo{replica: r, offset: b.Last, next: b.Last + 1, checksum: b.StoredCRC}
			case first.offset != b.Last:
				return append(lines, fmt.Sprintf("%s: partition %s: replica %d's offset %d doesn't match replica %d's offset %d",
					w.now().Format(DateFormat), tp, first.replica, first.offset, r, b.Last)), true
			case first.checksum != b.StoredCRC:
				lines = append(lines, fmt.Sprintf("%s: partition %s has unmatched checksum at offset %d; replica %d's checksum %d; replica %d's checksum %d",
					w.now().Format(DateFormat), tp, b.Last, first.replica, first.checksum, r, b.StoredCRC))
			}
		}
		if all {
			next := int64(-1)
			if first != nil {
				next = first.next
			}
			w.offsets[tp] = next
		}
	}
	return lines, false
}

// Now is the loop's clock.
func (w *Watch) Now() time.Time { return w.now() }
