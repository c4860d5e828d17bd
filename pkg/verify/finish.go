package verify

import (
	"fmt"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/RoaringBitmap/roaring/v2/roaring64"
)

// merge adds a collector's anomalies to the report, after those already
// there (as the batch checker's r.add calls would have).
func (r *Report) merge(col *collector) {
	typs := make([]string, 0, len(col.m))
	for t := range col.m {
		typs = append(typs, t)
	}
	sort.Strings(typs)
	for _, t := range typs {
		a := col.m[t]
		r.addBulk(t, a.sev, a.count, a.ex, a.first)
	}
}

// addBulk adds count anomalies of typ whose first examples are ex.
func (r *Report) addBulk(typ string, sev Severity, count int, ex []string, first int64) {
	if count == 0 {
		return
	}
	ar, ok := r.anomalyByType[typ]
	if !ok {
		ar = &AnomalyReport{Type: typ, Severity: sev, Examples: []string{}, FirstSeenMs: first}
		r.anomalyByType[typ] = ar
	}
	if first != 0 && (ar.FirstSeenMs == 0 || first < ar.FirstSeenMs) {
		ar.FirstSeenMs = first
	}
	ar.Count += count
	for _, e := range ex {
		if len(ar.Examples) >= r.examplesPerTyp {
			break
		}
		ar.Examples = append(ar.Examples, e)
	}
}

func (c *Checker) perPrefix(f func(ps *prefixSets) *roaring.Bitmap) []*roaring.Bitmap {
	out := make([]*roaring.Bitmap, len(c.vs.prefixes))
	for i, ps := range c.vs.prefixes {
		out[i] = f(ps)
	}
	return out
}

// lastCounting is the highest offset of s holding an acked value that
// consumers must read.
func (c *Checker) lastCounting(s *tpState) (int64, bool) {
	if len(s.runs) == 0 {
		return 0, false
	}
	if !c.txnMode {
		return s.runs[len(s.runs)-1].end() - 1, true
	}
	for j := len(s.runs) - 1; j >= 0; j-- {
		r := &s.runs[j]
		if len(s.over) > 0 {
			for off := r.end() - 1; off >= r.off; off-- {
				k := valKey{r.p, r.i + uint32(off-r.off)}
				if ov, ok := s.over[off]; ok {
					k = ov
				}
				if c.counts(k) {
					return off, true
				}
			}
			continue
		}
		if set := c.vs.prefixes[r.p].txnRes[TxnCommitted]; set != nil {
			if pv := set.PreviousValue(r.i + r.n - 1); pv >= int64(r.i) {
				return r.off + (pv - int64(r.i)), true
			}
		}
	}
	return 0, false
}

// Finish ends the check and returns the report (the same report on
// later calls; events after it are ignored).
func (c *Checker) Finish() *Report {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done != nil {
		return c.done
	}
	c.producersDone()
	o := c.o
	r := &Report{anomalyByType: map[string]*AnomalyReport{}, examplesPerTyp: o.Examples}
	r.Stats.ProducerLogs, r.Stats.ConsumerLogs = len(c.prods), len(c.cons)
	r.Stats.Transactional = c.txnMode
	r.Stats.SendErrors = int(c.sendErrs)
	r.Stats.Acked = int(c.acks)
	r.Stats.Consumed = c.consumed
	for _, p := range c.prods {
		r.merge(p.col)
	}
	if c.txnMode {
		c.txnStats(r)
	}
	tps := c.sortedTPs()
	lastAcked := map[TP]int64{}
	for _, s := range tps {
		if off, ok := c.lastCounting(s); ok {
			lastAcked[s.tp] = off
		}
	}
	r.Stats.Partitions = len(lastAcked)
	if len(c.prods) > 0 && c.acks == 0 {
		r.add(AnNoAcks, Fail, "no producer_send_success event in %d producer log(s)", len(c.prods))
	}

	// ---- consumer side
	valuesChecked := true
	for _, cs := range c.cons {
		if cs.hasRecords && !cs.hasData {
			valuesChecked = false
		}
	}
	r.Stats.ValuesChecked = valuesChecked
	for _, cs := range c.cons {
		if cs.clean && cs.committedOnce {
			var ptps []TP
			for tp := range cs.position {
				ptps = append(ptps, tp)
			}
			sort.Slice(ptps, func(i, j int) bool { return lessTPO(tpo{ptps[i], 0}, tpo{ptps[j], 0}) })
			for _, tp := range ptps {
				pos := cs.position[tp]
				if cm, ok := cs.lastCommit[tp]; !ok || cm < pos {
					cs.col.add(c.lastTs, AnUncommittedAtClose, Warn, "%s stopped at %s-%d position %d with last commit %d", cs.name, tp.Topic, tp.Partition, pos, cm)
				}
			}
		}
		r.merge(cs.col)
	}
	c.behindCommit(r, tps)
	for _, ps := range c.vs.prefixes {
		r.Stats.UniqueConsumed += int(ps.seen.GetCardinality())
	}

	c.duplicateOffsets(r, tps, valuesChecked)
	// R2 duplicate values
	if valuesChecked {
		keys, n := c.vs.firstSorted(c.perPrefix(func(ps *prefixSets) *roaring.Bitmap { return ps.dup }), o.Examples)
		sev := Warn
		if o.Idempotent || c.txnMode {
			sev = Fail
		}
		var ex []string
		for _, k := range keys {
			ex = append(ex, fmt.Sprintf("value %q consumed %d times", c.vs.str(k), 2+c.valMore[k]))
		}
		r.addBulk(AnDuplicate, sev, n, ex, c.dupTs)
	}
	if valuesChecked {
		c.failedSendsSeen(r)
	}
	if c.txnMode && valuesChecked {
		c.txnRules(r, tps)
	}
	// R1 lost / R9 unseen
	if len(c.cons) > 0 {
		c.lost(r, tps, valuesChecked)
	}
	for _, d := range append(append([]string(nil), o.DataLoss...), c.dataLoss...) {
		r.add(AnClientDataLoss, Fail, "%s", d)
	}
	for _, b := range c.corrupt {
		r.add(AnCorrupt, Fail, "%s: %d acked record(s) in it not read", b.Desc, b.unread)
	}
	if len(c.faults) > 0 {
		c.liveness(r, tps, lastAcked)
	}
	r.finish()
	c.done = r
	return r
}

// txnStats counts the acked records of committed and aborted transactions.
func (c *Checker) txnStats(r *Report) {
	abortedOf := func(ps *prefixSets) *roaring.Bitmap { return roaring.Or(ps.txnSet(TxnAborted), ps.txnSet(TxnFailed)) }
	for _, ps := range c.vs.prefixes {
		r.Stats.TxnCommitted += int(ps.acked.AndCardinality(ps.txnSet(TxnCommitted)))
		r.Stats.TxnAborted += int(ps.acked.AndCardinality(abortedOf(ps)))
	}
	for k, n := range c.ackMore {
		ps := c.vs.set(k)
		switch {
		case ps.txnIs(TxnCommitted, k.i):
			r.Stats.TxnCommitted += n
		case ps.txnIs(TxnAborted, k.i) || ps.txnIs(TxnFailed, k.i):
			r.Stats.TxnAborted += n
		}
	}
	r.Stats.TxnUnknown = r.Stats.Acked - r.Stats.TxnCommitted - r.Stats.TxnAborted
}

// behindCommit is the group rule: no committed offset behind a delivered one.
func (c *Checker) behindCommit(r *Report, tps []*tpState) {
	// group rule
	var beh []behindEx
	behCount := 0
	for _, s := range tps {
		if s.failedCommit {
			continue
		}
		beh = append(beh, s.behind...)
		behCount += s.behindCount
	}
	if behCount > 0 {
		sort.Slice(beh, func(i, j int) bool { return beh[i].seq < beh[j].seq })
		ex := make([]string, len(beh))
		for i, b := range beh {
			ex[i] = b.text
		}
		r.addBulk(AnBehindCommit, Fail, behCount, ex, beh[0].ts)
	}
}

// duplicateOffsets is R2b: an offset delivered more than once.
func (c *Checker) duplicateOffsets(r *Report, tps []*tpState, valuesChecked bool) {
	o := c.o
	// R2b duplicate offsets
	for _, s := range tps {
		dups := s.dataDup
		if !valuesChecked {
			dups = roaring64.Or(s.dataDup, s.rangeDup)
			dups.Or(roaring64.And(s.dataSeen, s.rangeSeen))
		}
		n := int(dups.GetCardinality())
		if n == 0 {
			continue
		}
		sev := Fail
		if o.AllowRedelivery || s.failedCommit {
			sev = Warn
		}
		var ex []string
		it := dups.Iterator()
		for len(ex) < o.Examples && it.HasNext() {
			off := int64(it.Next())
			times := deliveries(s.dataSeen, s.dataDup, s.dataMore, off)
			if !valuesChecked {
				times += deliveries(s.rangeSeen, s.rangeDup, s.rangeMore, off)
			}
			ex = append(ex, fmt.Sprintf("%s-%d offset %d delivered %d times", s.tp.Topic, s.tp.Partition, off, times))
		}
		r.addBulk(AnDuplicateOffset, sev, n, ex, s.firstDupTs)
	}
}

// failedSendsSeen is R5: failed sends that were consumed.
func (c *Checker) failedSendsSeen(r *Report) {
	o := c.o
	definite := make([]*roaring.Bitmap, len(c.vs.prefixes))
	indet := make([]*roaring.Bitmap, len(c.vs.prefixes))
	for i, ps := range c.vs.prefixes {
		cand := roaring.And(ps.failed, ps.seen)
		cand.AndNot(ps.acked)
		if c.txnMode {
			cand.AndNot(ps.txnAll)
		}
		definite[i], indet[i] = roaring.New(), roaring.New()
		for exc, b := range ps.exc {
			if IsDefiniteSendError(exc) {
				definite[i].Or(roaring.And(cand, b))
			} else {
				indet[i].Or(roaring.And(cand, b))
			}
		}
	}
	excOf := func(k valKey) string {
		for exc, b := range c.vs.set(k).exc {
			if b.Contains(k.i) {
				return exc
			}
		}
		return ""
	}
	keys, n := c.vs.firstSorted(definite, o.Examples)
	var ex []string
	for _, k := range keys {
		ex = append(ex, fmt.Sprintf("value %q failed with %s but was consumed", c.vs.str(k), excOf(k)))
	}
	r.addBulk(AnAbortedRead, Fail, n, ex, 0)
	keys, n = c.vs.firstSorted(indet, o.Examples)
	ex = nil
	for _, k := range keys {
		ex = append(ex, fmt.Sprintf("value %q failed with %s and was consumed", c.vs.str(k), excOf(k)))
	}
	r.addBulk(AnIndeterminateSeen, Info, n, ex, 0)
}

// txnRules is R7: no aborted read, output within input, order.
func (c *Checker) txnRules(r *Report, tps []*tpState) {
	o := c.o
	keys, n := c.vs.firstSorted(c.perPrefix(func(ps *prefixSets) *roaring.Bitmap {
		return roaring.And(ps.seen, roaring.Or(ps.txnSet(TxnAborted), ps.txnSet(TxnFailed)))
	}), o.Examples)
	var ex []string
	for _, k := range keys {
		how := "was aborted"
		if c.vs.set(k).txnIs(TxnFailed, k.i) {
			how = "failed and was aborted"
		}
		ex = append(ex, fmt.Sprintf("value %q of a transaction that %s was consumed (read_committed)", c.vs.str(k), how))
	}
	r.addBulk(AnAbortedRead, Fail, n, ex, 0)
	keys, n = c.vs.firstSorted(c.perPrefix(func(ps *prefixSets) *roaring.Bitmap { return roaring.And(ps.seen, ps.txnSet(TxnUnknown)) }), o.Examples)
	ex = nil
	for _, k := range keys {
		ex = append(ex, fmt.Sprintf("value %q of a transaction with an unconfirmed commit was consumed", c.vs.str(k)))
	}
	r.addBulk(AnIndeterminateSeen, Info, n, ex, 0)
	keys, n = c.vs.firstSorted(c.perPrefix(func(ps *prefixSets) *roaring.Bitmap {
		b := ps.seen.Clone()
		b.AndNot(ps.txnAll)
		b.AndNot(ps.acked)
		b.AndNot(ps.failed)
		return b
	}), o.Examples)
	ex = nil
	for _, k := range keys {
		ex = append(ex, fmt.Sprintf("value %q was consumed but no producer sent it", c.vs.str(k)))
	}
	r.addBulk(AnNotProduced, Fail, n, ex, 0)
	// order: only when every committed value is on one partition
	var one *tpState
	several := false
	for _, s := range tps {
		if c.hasCommitted(s) {
			if one != nil {
				several = true
				break
			}
			one = s
		}
	}
	if one != nil && !several {
		for _, cs := range c.cons {
			if col := cs.reorders[one.tp]; col != nil {
				r.merge(col)
			}
		}
	}
}

func (c *Checker) hasCommitted(s *tpState) bool {
	for _, k := range s.over {
		if c.vs.set(k).txnIs(TxnCommitted, k.i) {
			return true
		}
	}
	for i := range s.runs {
		run := &s.runs[i]
		set := c.vs.prefixes[run.p].txnRes[TxnCommitted]
		if set != nil && set.IntersectsWithInterval(uint64(run.i), uint64(run.i)+uint64(run.n)) {
			return true
		}
	}
	return false
}

// lost is R1 (lost, with the R1b re-read) and R9 (unseen).
func (c *Checker) lost(r *Report, tps []*tpState, valuesChecked bool) {
	var missing []Missing
	var caughtUp []bool
	first := int64(0)
	for _, s := range tps {
		var offSeen *roaring64.Bitmap
		if !valuesChecked {
			offSeen = roaring64.Or(s.dataSeen, s.rangeSeen)
		}
		seen := func(off int64, k valKey) bool {
			if valuesChecked {
				return c.vs.set(k).seen.Contains(k.i)
			}
			return off >= 0 && offSeen.Contains(uint64(off))
		}
		note := func(off int64, k valKey, ts int64) {
			if !c.counts(k) || seen(off, k) {
				return
			}
			missing = append(missing, Missing{s.tp.Topic, s.tp.Partition, off, c.vs.str(k)})
			caughtUp = append(caughtUp, s.consumed && s.maxConsumed >= off)
			if first == 0 || ts < first {
				first = ts
			}
		}
		for i := range s.runs {
			run := &s.runs[i]
			if len(s.over) == 0 && !c.txnMode {
				// fast path: every value (or offset) of the run seen
				var n uint64
				if valuesChecked {
					set := c.vs.prefixes[run.p].seen
					n = set.Rank(run.i+run.n-1) - rankBefore(set, run.i)
				} else if run.off >= 0 {
					n = offSeen.Rank(uint64(run.end()-1)) - rankBefore64(offSeen, uint64(run.off))
				}
				if n == uint64(run.n) {
					continue
				}
			}
			for off := run.off; off < run.end(); off++ {
				k := valKey{run.p, run.i + uint32(off-run.off)}
				if ov, ok := s.over[off]; ok {
					k = ov
				}
				note(off, k, run.ts)
			}
		}
	}
	if len(missing) == 0 {
		return
	}
	idx := make([]int, len(missing))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ma, mb := missing[idx[a]], missing[idx[b]]
		return lessTPO(tpo{TP{ma.Topic, ma.Partition}, ma.Offset}, tpo{TP{mb.Topic, mb.Partition}, mb.Offset})
	})
	sorted := make([]Missing, len(missing))
	cu := make([]bool, len(missing))
	for i, j := range idx {
		sorted[i], cu[i] = missing[j], caughtUp[j]
	}
	missing, caughtUp = sorted, cu
	var present map[Missing]bool
	if c.o.Present != nil {
		p, err := c.o.Present(missing)
		if err != nil {
			r.LostDiagnosis = "re-read failed: " + err.Error()
		} else {
			present = p.Present
			for _, b := range p.Corrupt {
				c.addCorrupt(b)
			}
		}
	}
	col := newCollector(c.o.Examples)
	for i, m := range missing {
		if ci := c.corruptAt(TP{m.Topic, m.Partition}, m.Offset); ci >= 0 {
			c.corrupt[ci].unread++
			continue
		}
		desc := fmt.Sprintf("value %q acked at %s-%d offset %d", m.Value, m.Topic, m.Partition, m.Offset)
		switch {
		case present != nil && !present[m]:
			col.add(first, AnLost, Fail, "%s (not in the log)", desc)
			col.add(first, AnLostInLog, Info, "%s", desc)
		case present != nil && caughtUp[i]:
			col.add(first, AnLost, Fail, "%s (still in the log: consumer or commit bug)", desc)
			col.add(first, AnLostInConsumption, Info, "%s", desc)
		case caughtUp[i]:
			col.add(first, AnLost, Fail, "%s", desc)
		default:
			col.add(first, AnUnseen, Warn, "%s (consumers did not reach it)", desc)
		}
	}
	r.merge(col)
	if present != nil {
		r.LostDiagnosis = fmt.Sprintf("re-read %d missing record(s) from the topic", len(missing))
	}
}

func rankBefore(b *roaring.Bitmap, x uint32) uint64 {
	if x == 0 {
		return 0
	}
	return b.Rank(x - 1)
}

func rankBefore64(b *roaring64.Bitmap, x uint64) uint64 {
	if x == 0 {
		return 0
	}
	return b.Rank(x - 1)
}

// liveness is R8, each fault window judged on its own; the minimum of
// acks and the consumers' catching up are judged once.
func (c *Checker) liveness(r *Report, tps []*tpState, lastAcked map[TP]int64) {
	win := c.o.LivenessWindow
	var lvs []Liveness
	for _, f := range c.faults {
		lv := Liveness{FaultStartMs: f.w.StartMs, FaultEndMs: f.w.EndMs, WindowMs: win.Milliseconds(), MinAcks: c.o.MinAcks}
		if c.txnMode {
			for p, b := range f.vals {
				lv.AcksAfterFault += int(b.AndCardinality(c.vs.prefixes[p].txnSet(TxnCommitted)))
			}
		} else {
			lv.AcksAfterFault = f.acks
		}
		lv.Judged = f.outcomes > 5
		switch {
		case lv.Judged && lv.AcksAfterFault <= 5:
			r.add(AnNoProgress, Fail, "%d acks within %s after the fault ended (at %d), %d sends completed after it; want more than 5",
				lv.AcksAfterFault, win, f.w.EndMs, f.outcomes)
			r.anomalyByType[AnNoProgress].FirstSeenMs = f.w.EndMs
		case !lv.Judged:
			r.add(AnLivenessUnjudged, Info, "only %d sends completed after the fault ended: progress after the fault not judged", f.outcomes)
		}
		lvs = append(lvs, lv)
	}
	acked := r.Stats.Acked
	if r.Stats.Transactional {
		acked = r.Stats.TxnCommitted
	}
	if acked < c.o.MinAcks {
		r.add(AnTooFewAcks, Fail, "%d acks (committed, with transactions), want at least %d before stopping", acked, c.o.MinAcks)
	}
	for _, s := range tps {
		last, ok := lastAcked[s.tp]
		if !ok {
			continue
		}
		if !s.consumed || s.maxConsumed < last {
			got := "nothing"
			if s.consumed {
				got = fmt.Sprintf("offset %d", s.maxConsumed)
			}
			r.add(AnNotCaughtUp, Fail, "%s-%d: last acked offset %d, consumers reached %s", s.tp.Topic, s.tp.Partition, last, got)
		}
	}
	r.Liveness = &lvs[0]
	if len(lvs) > 1 {
		r.Faults = lvs
	}
}
