package verify

import (
	"fmt"
	"sort"

	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Per-partition state of the streaming checker.

// ackRun is a run of acked offsets off..off+n-1 holding the values
// prefix p, i..i+n-1 (a producer's batch lands this way).
type ackRun struct {
	off int64
	ts  int64 // the first ack's timestamp
	i   uint32
	n   uint32
	p   uint32
}

func (r *ackRun) end() int64 { return r.off + int64(r.n) }

// anomaly collects one anomaly type: count, first examples, first seen.
type anomaly struct {
	sev   Severity
	count int
	ex    []string
	first int64
}

// collector gathers anomalies in the order a rule finds them; the
// report merges collectors in the batch checker's order.
type collector struct {
	max int
	m   map[string]*anomaly
}

func newCollector(max int) *collector { return &collector{max: max, m: map[string]*anomaly{}} }

func (c *collector) add(ts int64, typ string, sev Severity, format string, a ...any) {
	an := c.get(typ, sev, ts)
	an.count++
	if len(an.ex) < c.max {
		an.ex = append(an.ex, fmt.Sprintf(format, a...))
	}
}

func (c *collector) get(typ string, sev Severity, ts int64) *anomaly {
	an, ok := c.m[typ]
	if !ok {
		an = &anomaly{sev: sev, first: ts}
		c.m[typ] = an
	}
	return an
}

type pendingCons struct {
	k    valKey
	cons int
	ts   int64
}

type behindEx struct {
	seq  int64
	ts   int64
	text string
}

type tpState struct {
	tp   TP
	runs []ackRun
	over map[int64]valKey // offsets acked again with another value

	dataSeen, dataDup   *roaring64.Bitmap // record_data offsets
	rangeSeen, rangeDup *roaring64.Bitmap // records_consumed ranges
	dataMore, rangeMore map[int64]int     // deliveries beyond two
	firstDupTs          int64

	maxConsumed  int64
	consumed     bool
	failedCommit bool
	gcOff, gcTs  int64
	gc           bool
	behind       []behindEx
	behindCount  int
	// consumed before the producers acked (online only)
	pending map[int64]pendingCons
	cursor  int // the run of the last lookup
}

func newTPState(tp TP) *tpState {
	return &tpState{tp: tp, dataSeen: roaring64.New(), dataDup: roaring64.New(), rangeSeen: roaring64.New(), rangeDup: roaring64.New(),
		dataMore: map[int64]int{}, rangeMore: map[int64]int{}}
}

// lookup returns the acked value at off.
func (s *tpState) lookup(off int64) (valKey, bool) {
	if k, ok := s.over[off]; ok {
		return k, true
	}
	// consumers read in offset order: try the last hit and the next run
	for i := s.cursor; i < len(s.runs) && i <= s.cursor+1; i++ {
		if r := &s.runs[i]; r.off <= off && off < r.end() {
			s.cursor = i
			return valKey{r.p, r.i + uint32(off-r.off)}, true
		}
	}
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].end() > off })
	s.cursor = min(i, max(len(s.runs)-1, 0))
	if i < len(s.runs) && s.runs[i].off <= off {
		r := &s.runs[i]
		return valKey{r.p, r.i + uint32(off-r.off)}, true
	}
	return valKey{}, false
}

// insertAck records k acked at off; it returns the value acked there
// before, if any (a different one is then the current one).
func (s *tpState) insertAck(off int64, k valKey, ts int64) (valKey, bool) {
	if prev, ok := s.lookup(off); ok {
		if prev != k {
			if s.over == nil {
				s.over = map[int64]valKey{}
			}
			s.over[off] = k
		}
		return prev, true
	}
	n := len(s.runs)
	if n > 0 {
		last := &s.runs[n-1]
		if off == last.end() && k.p == last.p && k.i == last.i+last.n && last.n < 1<<31 {
			last.n++
			return valKey{}, false
		}
		if off < last.off {
			i := sort.Search(n, func(i int) bool { return s.runs[i].off > off })
			s.runs = append(s.runs, ackRun{})
			copy(s.runs[i+1:], s.runs[i:])
			s.runs[i] = ackRun{off: off, ts: ts, i: k.i, n: 1, p: k.p}
			return valKey{}, false
		}
	}
	s.runs = append(s.runs, ackRun{off: off, ts: ts, i: k.i, n: 1, p: k.p})
	return valKey{}, false
}

// addOffset counts one delivery of off in seen/dup/more.
func addOffset(seen, dup *roaring64.Bitmap, more map[int64]int, off int64) bool {
	if off < 0 {
		return false
	}
	u := uint64(off)
	if seen.CheckedAdd(u) {
		return false
	}
	if !dup.CheckedAdd(u) {
		more[off]++
	}
	return true
}

// addRange counts one delivery of every offset in lo..hi.
func addRange(seen, dup *roaring64.Bitmap, more map[int64]int, lo, hi int64) bool {
	if lo < 0 || hi < lo {
		return false
	}
	dupd := false
	if !seen.IsEmpty() && seen.Maximum() >= uint64(lo) {
		r := roaring64.New()
		r.AddRange(uint64(lo), uint64(hi)+1)
		again := roaring64.And(seen, r)
		if !again.IsEmpty() {
			dupd = true
			thrice := roaring64.And(dup, again)
			it := thrice.Iterator()
			for it.HasNext() {
				more[int64(it.Next())]++
			}
			dup.Or(again)
		}
	}
	seen.AddRange(uint64(lo), uint64(hi)+1)
	return dupd
}

// deliveries is how many times off was delivered per seen/dup/more.
func deliveries(seen, dup *roaring64.Bitmap, more map[int64]int, off int64) int {
	switch {
	case dup.Contains(uint64(off)):
		return 2 + more[off]
	case seen.Contains(uint64(off)):
		return 1
	}
	return 0
}
