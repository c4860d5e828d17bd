package verify

import (
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// Checker is the streaming delivery checker: rules R1-R9 applied to
// events as they come, one Sink per producer and per consumer log, with
// memory that grows with partitions, producers, consumers and anomalies,
// not with records. Acked and consumed values are roaring bitmaps per
// value prefix; acked offsets are runs (offset, value) per partition, one
// per producer batch; consumed offsets are bitmaps per partition.
//
// Producer and consumer sinks may be fed from any goroutine. A rule that
// needs every ack (a consumer skipping acked offsets, a value consumed
// before its ack arrived) waits until ProducersDone; Finish implies it.
// Fed every producer log before the consumer logs (as Check and
// `verify check` do), the report is identical to the batch checker's.
type Checker struct {
	mu       sync.Mutex
	o        Options
	vs       valueSpace
	tps      map[TP]*tpState
	prods    []*prodState
	cons     []*consState
	txnMode  bool
	prodDone bool
	acks     int64
	sendErrs int64
	consumed int64
	ackMore  map[valKey]int // acks of a value beyond the first
	valMore  map[valKey]int // deliveries of a value beyond two
	dupTs    int64          // first duplicate value
	dataLoss []string
	corrupt  []corruptState
	faults   []*faultState
	ring     []outcome // the last producer outcomes, for AddFault
	ringN    int
	behSeq   int64
	lastTs   int64
	done     *Report
}

type prodState struct {
	name string
	col  *collector
	last map[TP]int64
}

type skipCheck struct {
	tp      TP
	pos, lo int64
	ts      int64
}

type txnPos struct {
	last  int64
	lastV string
}

type consState struct {
	idx           int
	name          string
	col           *collector
	assigned      map[TP]bool
	position      map[TP]int64
	lastCommit    map[TP]int64
	committedOnce bool
	clean         bool
	hasRecords    bool
	hasData       bool
	deferred      []skipCheck
	txnOrder      map[TP]*txnPos
	reorders      map[TP]*collector
}

// outcome is a producer_send_success or _error, kept briefly so a fault
// registered just after its end still counts the outcomes since.
type outcome struct {
	ts       int64
	success  bool
	hasValue bool
	k        valKey
}

const ringSize = 16384

type faultState struct {
	w        FaultWindow
	until    int64
	outcomes int
	acks     int
	vals     map[uint32]*roaring.Bitmap // values acked in the window
}

// NewChecker starts a streaming check with o (o.Fault and o.Faults are
// the fault windows known in advance; AddFault adds more).
func NewChecker(o Options) *Checker {
	if o.Examples <= 0 {
		o.Examples = 10
	}
	if o.LivenessWindow <= 0 {
		o.LivenessWindow = 30 * time.Second
	}
	c := &Checker{o: o, vs: newValueSpace(), tps: map[TP]*tpState{}, ackMore: map[valKey]int{}, valMore: map[valKey]int{},
		txnMode: o.Transactional, ring: make([]outcome, ringSize)}
	var ws []FaultWindow
	if o.Fault != nil {
		ws = append(ws, *o.Fault)
	}
	ws = append(ws, o.Faults...)
	for _, w := range ws {
		c.faults = append(c.faults, c.newFault(w))
	}
	return c
}

// LogSink feeds one tool's events to a Checker. It is a Sink.
type LogSink struct {
	c    *Checker
	prod *prodState
	cons *consState
}

// AddLine takes e (line is ignored: the checker keeps no lines).
func (s *LogSink) AddLine(e Event, _ []byte) { s.Add(e) }

// Add takes e.
func (s *LogSink) Add(e Event) {
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	if s.c.done != nil {
		return
	}
	s.c.lastTs = max(s.c.lastTs, e.Timestamp)
	if s.prod != nil {
		s.c.producerEvent(s.prod, &e)
		return
	}
	s.c.consumerEvent(s.cons, &e)
	s.c.groupEvent(s.cons, &e)
}

// Producer returns the sink of a new producer log named name (the name
// appears in anomaly examples).
func (c *Checker) Producer(name string) *LogSink {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := &prodState{name: name, col: newCollector(c.o.Examples), last: map[TP]int64{}}
	c.prods = append(c.prods, p)
	return &LogSink{c: c, prod: p}
}

// Consumer returns the sink of a new consumer log named name. Consumer
// logs are members of one group consuming the producers' topic.
func (c *Checker) Consumer(name string) *LogSink {
	c.mu.Lock()
	defer c.mu.Unlock()
	cs := &consState{idx: len(c.cons), name: name, col: newCollector(c.o.Examples), assigned: map[TP]bool{}, position: map[TP]int64{},
		lastCommit: map[TP]int64{}, txnOrder: map[TP]*txnPos{}, reorders: map[TP]*collector{}}
	c.cons = append(c.cons, cs)
	return &LogSink{c: c, cons: cs}
}

// ProducersDone says no producer event follows: rules waiting for every
// ack are judged now, and from now on as events come.
func (c *Checker) ProducersDone() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.producersDone()
}

// AddFault adds a fault window for R8 (liveness), judged on its own. Add
// it by the fault's end: outcomes since then are counted from a short
// history (the last 16384 producer outcomes).
func (c *Checker) AddFault(w FaultWindow) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f := c.newFault(w)
	n := min(c.ringN, ringSize)
	for j := c.ringN - n; j < c.ringN; j++ {
		oc := c.ring[j%ringSize]
		c.countFault(f, oc.ts, oc.success, oc.hasValue, oc.k)
	}
	c.faults = append(c.faults, f)
}

type corruptState struct {
	Corrupt
	unread int // acked records in it no consumer returned
}

// AddCorrupt adds a batch a consumer could not read (reported as
// corrupt-batch; the acked records in it are not lost, and a consumer
// that skipped it did not skip acked offsets).
func (c *Checker) AddCorrupt(b Corrupt) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.addCorrupt(b)
}

func (c *Checker) addCorrupt(b Corrupt) {
	for _, cs := range c.corrupt {
		if cs.Topic == b.Topic && cs.Partition == b.Partition && cs.First == b.First {
			return
		}
	}
	c.corrupt = append(c.corrupt, corruptState{Corrupt: b})
}

// corruptAt is the index of the corrupt batch holding an offset, or -1.
func (c *Checker) corruptAt(tp TP, off int64) int {
	for i, cs := range c.corrupt {
		if cs.Topic == tp.Topic && cs.Partition == tp.Partition && off >= cs.First && off <= cs.Last {
			return i
		}
	}
	return -1
}

// AddDataLoss adds a franz-go data-loss signal (reported as
// client-data-loss, like Options.DataLoss).
func (c *Checker) AddDataLoss(msg string) {
	c.mu.Lock()
	c.dataLoss = append(c.dataLoss, msg)
	c.mu.Unlock()
}

func (c *Checker) newFault(w FaultWindow) *faultState {
	return &faultState{w: w, until: w.EndMs + c.o.LivenessWindow.Milliseconds(), vals: map[uint32]*roaring.Bitmap{}}
}

func (c *Checker) countFault(f *faultState, ts int64, success, hasValue bool, k valKey) {
	if ts <= f.w.EndMs {
		return
	}
	f.outcomes++
	if success && hasValue && ts <= f.until {
		f.acks++
		b := f.vals[k.p]
		if b == nil {
			b = roaring.New()
			f.vals[k.p] = b
		}
		b.Add(k.i)
	}
}

func (c *Checker) noteOutcome(ts int64, success bool, value *string) {
	oc := outcome{ts: ts, success: success, hasValue: value != nil}
	if value != nil {
		oc.k = c.vs.key(*value)
	}
	c.ring[c.ringN%ringSize] = oc
	c.ringN++
	for _, f := range c.faults {
		c.countFault(f, ts, success, oc.hasValue, oc.k)
	}
}

func (c *Checker) tp(tp TP) *tpState {
	s, ok := c.tps[tp]
	if !ok {
		s = newTPState(tp)
		c.tps[tp] = s
	}
	return s
}

// counts reports whether an acked value belongs to the input consumers
// must read: with transactions, only committed ones.
func (c *Checker) counts(k valKey) bool {
	return !c.txnMode || c.vs.set(k).txnIs(TxnCommitted, k.i)
}

// countsNow is counts while producers may still report the outcome of
// a transaction: a value without one yet counts.
func (c *Checker) countsNow(k valKey) bool {
	if !c.txnMode {
		return true
	}
	ps := c.vs.set(k)
	if ps.txnIs(TxnCommitted, k.i) {
		return true
	}
	return !c.prodDone && !ps.txnAll.Contains(k.i)
}

func (c *Checker) producerEvent(p *prodState, e *Event) {
	switch e.Name {
	case EvSendSuccess:
		c.noteOutcome(e.Timestamp, true, e.Value)
		if e.Value == nil {
			return
		}
		c.acks++
		tp := TP{e.Topic, e.Partition}
		if prev, ok := p.last[tp]; ok && e.Offset <= prev {
			p.col.add(e.Timestamp, AnNonmonotonicSend, Fail, "%s: %s-%d offset %d acked after offset %d", p.name, tp.Topic, tp.Partition, e.Offset, prev)
		}
		p.last[tp] = e.Offset
		k := c.vs.key(*e.Value)
		ps := c.vs.set(k)
		again := !ps.acked.CheckedAdd(k.i)
		if again {
			c.ackMore[k]++
		}
		s := c.tp(tp)
		ps.noteAck(k.i, s, e.Offset, again)
		if prev, had := s.insertAck(e.Offset, k, e.Timestamp); had && prev != k {
			p.col.add(e.Timestamp, AnInconsistentOffset, Fail, "%s-%d offset %d acked with values %q and %q", tp.Topic, tp.Partition, e.Offset, c.vs.str(prev), *e.Value)
		}
		if pc, ok := s.pending[e.Offset]; ok {
			delete(s.pending, e.Offset)
			if pc.k != k {
				cs := c.cons[pc.cons]
				cs.col.add(pc.ts, AnInconsistentOffset, Fail, "%s-%d offset %d: acked %q, %s consumed %q", tp.Topic, tp.Partition, e.Offset, *e.Value, cs.name, c.vs.str(pc.k))
			}
		}
	case EvSendError:
		c.noteOutcome(e.Timestamp, false, nil)
		c.sendErrs++
		if e.Value == nil {
			return
		}
		k := c.vs.key(*e.Value)
		ps := c.vs.set(k)
		if !ps.failed.CheckedAdd(k.i) {
			for _, b := range ps.exc {
				b.Remove(k.i)
			}
		}
		b := ps.exc[e.Exception]
		if b == nil {
			b = roaring.New()
			ps.exc[e.Exception] = b
		}
		b.Add(k.i)
	case EvTxnEnd:
		c.txnMode = true
		for _, v := range e.Values {
			k := c.vs.key(v)
			ps := c.vs.set(k)
			if !ps.txnAll.CheckedAdd(k.i) {
				for _, b := range ps.txnRes {
					b.Remove(k.i)
				}
			}
			b := ps.txnRes[e.Result]
			if b == nil {
				b = roaring.New()
				ps.txnRes[e.Result] = b
			}
			b.Add(k.i)
		}
	}
}

func (c *Checker) consumerEvent(cs *consState, e *Event) {
	switch e.Name {
	case EvAssigned:
		for _, p := range e.Parts {
			cs.assigned[TP{p.Topic, p.Partition}] = true
		}
	case EvRevoked:
		for _, p := range e.Parts {
			tp := TP{p.Topic, p.Partition}
			delete(cs.assigned, tp)
			delete(cs.position, tp)
		}
	case EvRecordData:
		cs.hasData = true
		tp := TP{e.Topic, e.Partition}
		s := c.tp(tp)
		again := addOffset(s.dataSeen, s.dataDup, s.dataMore, e.Offset)
		if again && s.firstDupTs == 0 {
			s.firstDupTs = e.Timestamp
		}
		if e.Value == nil {
			return
		}
		k := c.vs.key(*e.Value)
		ps := c.vs.set(k)
		// After a failed commit, a consumer that resumes from the older
		// commit redelivers offsets it had read: their values are R2b's to
		// judge (a warning), not duplicates in the log (R2, one value at
		// two offsets, a failure when the producers are idempotent).
		redelivered := again && s.failedCommit
		if !ps.seen.CheckedAdd(k.i) && !redelivered {
			if ps.dup.CheckedAdd(k.i) {
				if c.dupTs == 0 {
					c.dupTs = e.Timestamp
				}
			} else {
				c.valMore[k]++
			}
		}
		a, acked := s.lookup(e.Offset)
		switch {
		case acked && a != k:
			cs.col.add(e.Timestamp, AnInconsistentOffset, Fail, "%s-%d offset %d: acked %q, %s consumed %q", tp.Topic, tp.Partition, e.Offset, c.vs.str(a), cs.name, *e.Value)
		case !acked && !c.prodDone && len(s.pending) < 100_000:
			if s.pending == nil {
				s.pending = map[int64]pendingCons{}
			}
			s.pending[e.Offset] = pendingCons{k: k, cons: cs.idx, ts: e.Timestamp}
		}
		// R7 order (judged at the end when one partition holds every
		// committed value)
		if !c.txnMode {
			return
		}
		if at, p, ok := ps.ackedAt(k.i); ok && at == s && c.countsNow(k) {
			tpos := cs.txnOrder[tp]
			if tpos == nil {
				tpos = &txnPos{last: -1}
				cs.txnOrder[tp] = tpos
			}
			if p <= tpos.last {
				col := cs.reorders[tp]
				if col == nil {
					col = newCollector(c.o.Examples)
					cs.reorders[tp] = col
				}
				col.add(e.Timestamp, AnTxnReordered, Fail, "%s read %q (written at offset %d) after %q (offset %d)", cs.name, *e.Value, p, tpos.lastV, tpos.last)
			}
			tpos.last, tpos.lastV = p, *e.Value
		}
	case EvRecordsConsumed:
		if e.Count > 0 {
			cs.hasRecords = true
		}
		for _, p := range e.Parts {
			c.consumed += p.Count
		}
		for _, p := range e.Parts {
			tp := TP{p.Topic, p.Partition}
			s := c.tp(tp)
			if !cs.assigned[tp] {
				cs.col.add(e.Timestamp, AnUnassignedConsume, Fail, "%s consumed %s-%d offsets %d-%d while not assigned", cs.name, tp.Topic, tp.Partition, p.MinOffset, p.MaxOffset)
			}
			if pos, ok := cs.position[tp]; ok {
				switch {
				case p.MinOffset < pos:
					cs.col.add(e.Timestamp, AnNonmonotonicPoll, Fail, "%s %s-%d: batch starts at %d, position was %d", cs.name, tp.Topic, tp.Partition, p.MinOffset, pos)
				case p.MinOffset > pos:
					sk := skipCheck{tp: tp, pos: pos, lo: p.MinOffset, ts: e.Timestamp}
					if c.prodDone && len(cs.deferred) == 0 {
						c.judgeSkip(cs, sk)
					} else {
						cs.deferred = append(cs.deferred, sk)
					}
				}
			}
			cs.position[tp] = p.MaxOffset + 1
			if !s.consumed || p.MaxOffset > s.maxConsumed {
				s.maxConsumed, s.consumed = p.MaxOffset, true
			}
			if addRange(s.rangeSeen, s.rangeDup, s.rangeMore, p.MinOffset, p.MaxOffset) && s.firstDupTs == 0 {
				s.firstDupTs = e.Timestamp
			}
		}
	case EvOffsetsCommitted:
		cs.committedOnce = true
		ok := e.Success != nil && *e.Success
		for _, cd := range e.Offsets {
			tp := TP{cd.Topic, cd.Partition}
			if !ok {
				c.tp(tp).failedCommit = true
				msg := ""
				if e.Error != nil {
					msg = *e.Error
				}
				cs.col.add(e.Timestamp, AnCommitFailed, Info, "%s %s-%d offset %d: %s", cs.name, tp.Topic, tp.Partition, cd.Offset, msg)
				continue
			}
			if !cs.assigned[tp] {
				cs.col.add(e.Timestamp, AnUnassignedCommit, Fail, "%s committed %s-%d offset %d while not assigned", cs.name, tp.Topic, tp.Partition, cd.Offset)
			}
			if pos, ok := cs.position[tp]; ok && cd.Offset > pos {
				cs.col.add(e.Timestamp, AnCommitAhead, Fail, "%s committed %s-%d offset %d ahead of its position %d", cs.name, tp.Topic, tp.Partition, cd.Offset, pos)
			}
			cs.lastCommit[tp] = cd.Offset
		}
	case EvShutdownComplete:
		cs.clean = true
	}
}

// groupEvent is the group rule: a batch never starts below the group's
// last commit (events taken in timestamp order across the group).
func (c *Checker) groupEvent(cs *consState, e *Event) {
	switch e.Name {
	case EvOffsetsCommitted:
		if e.Success == nil || !*e.Success {
			return
		}
		for _, cd := range e.Offsets {
			s := c.tp(TP{cd.Topic, cd.Partition})
			if !s.gc || cd.Offset > s.gcOff {
				s.gcOff, s.gcTs, s.gc = cd.Offset, e.Timestamp, true
			}
		}
	case EvRecordsConsumed:
		if c.o.AllowRedelivery {
			return
		}
		for _, p := range e.Parts {
			tp := TP{p.Topic, p.Partition}
			s := c.tp(tp)
			if s.gc && p.MinOffset < s.gcOff && e.Timestamp > s.gcTs {
				s.behindCount++
				c.behSeq++
				if len(s.behind) < c.o.Examples {
					s.behind = append(s.behind, behindEx{seq: c.behSeq, ts: e.Timestamp,
						text: fmt.Sprintf("%s consumed %s-%d from %d, behind the group's commit %d", cs.name, tp.Topic, tp.Partition, p.MinOffset, s.gcOff)})
				}
			}
		}
	}
}

func (c *Checker) judgeSkip(cs *consState, sk skipCheck) {
	if i := c.corruptAt(sk.tp, sk.pos); i >= 0 && sk.lo <= c.corrupt[i].Last+1 {
		return // the consumer sought past a corrupt batch
	}
	if c.ackedCountingIn(c.tp(sk.tp), sk.pos, sk.lo) {
		cs.col.add(sk.ts, AnPollSkip, Fail, "%s %s-%d: skipped acked offsets %d-%d (batch starts at %d)", cs.name, sk.tp.Topic, sk.tp.Partition, sk.pos, sk.lo-1, sk.lo)
	}
}

// ackedCountingIn reports whether an offset in [lo, hi) holds an acked
// value that consumers must read.
func (c *Checker) ackedCountingIn(s *tpState, lo, hi int64) bool {
	for off, k := range s.over {
		if off >= lo && off < hi && c.counts(k) {
			return true
		}
	}
	i := sort.Search(len(s.runs), func(i int) bool { return s.runs[i].end() > lo })
	for ; i < len(s.runs) && s.runs[i].off < hi; i++ {
		r := &s.runs[i]
		a, b := max(lo, r.off), min(hi, r.end())
		if len(s.over) == 0 {
			if !c.txnMode {
				return true
			}
			set := c.vs.prefixes[r.p].txnRes[TxnCommitted]
			if set != nil && set.IntersectsWithInterval(uint64(r.i)+uint64(a-r.off), uint64(r.i)+uint64(b-r.off)) {
				return true
			}
			continue
		}
		for off := a; off < b; off++ {
			if _, ov := s.over[off]; !ov && c.counts(valKey{r.p, r.i + uint32(off-r.off)}) {
				return true
			}
		}
	}
	return false
}

func (c *Checker) producersDone() {
	if c.prodDone {
		return
	}
	c.prodDone = true
	for _, cs := range c.cons {
		for _, sk := range cs.deferred {
			c.judgeSkip(cs, sk)
		}
		cs.deferred = nil
	}
	tps := c.sortedTPs()
	for _, s := range tps {
		offs := make([]int64, 0, len(s.pending))
		for off := range s.pending {
			offs = append(offs, off)
		}
		sort.Slice(offs, func(i, j int) bool { return offs[i] < offs[j] })
		for _, off := range offs {
			pc := s.pending[off]
			if a, ok := s.lookup(off); ok && a != pc.k {
				cs := c.cons[pc.cons]
				cs.col.add(pc.ts, AnInconsistentOffset, Fail, "%s-%d offset %d: acked %q, %s consumed %q", s.tp.Topic, s.tp.Partition, off, c.vs.str(a), cs.name, c.vs.str(pc.k))
			}
		}
		s.pending = nil
	}
}

func (c *Checker) sortedTPs() []*tpState {
	out := make([]*tpState, 0, len(c.tps))
	for _, s := range c.tps {
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return lessTPO(tpo{out[i].tp, 0}, tpo{out[j].tp, 0}) })
	return out
}

// Snapshot is a run's state so far (Checker.Snapshot).
type Snapshot struct {
	// LastEventMs is the latest event timestamp seen.
	LastEventMs    int64 `json:"last_event_ms"`
	Acked          int64 `json:"acked"`
	SendErrors     int64 `json:"send_errors"`
	Consumed       int64 `json:"consumed"`
	UniqueConsumed int64 `json:"unique_consumed"`
	// Pending are acked values no consumer has returned yet.
	Pending int64 `json:"pending"`
	// Anomalies are the counts so far of the anomalies found while
	// streaming (lost, unseen, R5 and R7 value rules are judged by Finish;
	// duplicates are counted as found).
	Anomalies map[string]int `json:"anomalies"`
	// FirstSeenMs is each anomaly's first event timestamp.
	FirstSeenMs map[string]int64 `json:"first_seen_ms"`
}

// Snapshot returns the counts so far without ending the check.
func (c *Checker) Snapshot() Snapshot {
	c.mu.Lock()
	defer c.mu.Unlock()
	sn := Snapshot{LastEventMs: c.lastTs, Acked: c.acks, SendErrors: c.sendErrs, Consumed: c.consumed,
		Anomalies: map[string]int{}, FirstSeenMs: map[string]int64{}}
	note := func(typ string, n int, ts int64) {
		if n == 0 {
			return
		}
		sn.Anomalies[typ] += n
		if f, ok := sn.FirstSeenMs[typ]; !ok || (ts != 0 && ts < f) {
			sn.FirstSeenMs[typ] = ts
		}
	}
	cols := []*collector{}
	for _, p := range c.prods {
		cols = append(cols, p.col)
	}
	for _, cs := range c.cons {
		cols = append(cols, cs.col)
	}
	for _, col := range cols {
		for typ, a := range col.m {
			note(typ, a.count, a.first)
		}
	}
	values := false
	for _, ps := range c.vs.prefixes {
		sn.UniqueConsumed += int64(ps.seen.GetCardinality())
		sn.Pending += int64(ps.acked.GetCardinality() - ps.acked.AndCardinality(ps.seen))
		note(AnDuplicate, int(ps.dup.GetCardinality()), c.dupTs)
		values = values || !ps.seen.IsEmpty()
	}
	for _, s := range c.tps {
		note(AnDuplicateOffset, int(s.dataDup.GetCardinality()), s.firstDupTs)
		if s.behindCount > 0 {
			note(AnBehindCommit, s.behindCount, s.behind[0].ts)
		}
	}
	if !values { // offset-only logs: pending by offset
		sn.Pending = 0
		for _, s := range c.tps {
			for _, r := range s.runs {
				if r.off < 0 {
					continue
				}
				rb := roaring64.New()
				rb.AddRange(uint64(r.off), uint64(r.end()))
				sn.Pending += int64(r.n) - int64(rb.AndCardinality(s.rangeSeen))
			}
		}
	}
	return sn
}
