package verify

// checkBatch is the batch checker the streaming Checker replaced, kept
// as the test oracle: the streaming checker must give its report.

import (
	"fmt"
	"sort"
	"time"
)

type ackRec struct {
	tp    TP
	off   int64
	value string
}

// Check applies rules R1-R9 to producer and consumer logs. Consumer logs
// are taken to be members of one group consuming the producers' topic.
func checkBatch(producers, consumers []*Log, o Options) *Report {
	if o.Examples <= 0 {
		o.Examples = 10
	}
	r := &Report{anomalyByType: map[string]*AnomalyReport{}, examplesPerTyp: o.Examples}
	r.Stats.ProducerLogs, r.Stats.ConsumerLogs = len(producers), len(consumers)

	// ---- transactions (R7): each value's transaction result
	txnResult := map[string]string{}
	txnMode := o.Transactional
	for _, l := range producers {
		for _, e := range l.Events {
			if e.Name == EvTxnEnd {
				txnMode = true
				for _, v := range e.Values {
					txnResult[v] = e.Result
				}
			}
		}
	}
	// counts reports whether an acked value belongs to the input that
	// consumers must read: with transactions, only committed ones.
	counts := func(v string) bool { return !txnMode || txnResult[v] == TxnCommitted }
	r.Stats.Transactional = txnMode

	// ---- producer side
	var acks []ackRec
	committedAt := map[tpo]bool{}
	ackedByValue := map[string]ackRec{}
	ackedAt := map[tpo]string{}
	lastAcked := map[TP]int64{}
	failed := map[string]string{} // value -> exception
	for _, l := range producers {
		lastPerTP := map[TP]int64{}
		for _, e := range l.Events {
			switch e.Name {
			case EvSendSuccess:
				if e.Value == nil {
					continue
				}
				tp := TP{e.Topic, e.Partition}
				a := ackRec{tp, e.Offset, *e.Value}
				acks = append(acks, a)
				if prev, ok := lastPerTP[tp]; ok && e.Offset <= prev {
					r.add(AnNonmonotonicSend, Fail, "%s: %s-%d offset %d acked after offset %d", l.Name, tp.Topic, tp.Partition, e.Offset, prev)
				}
				lastPerTP[tp] = e.Offset
				if v, ok := ackedAt[tpo{tp, e.Offset}]; ok && v != a.value {
					r.add(AnInconsistentOffset, Fail, "%s-%d offset %d acked with values %q and %q", tp.Topic, tp.Partition, e.Offset, v, a.value)
				}
				ackedAt[tpo{tp, e.Offset}] = a.value
				ackedByValue[a.value] = a
				if txnMode {
					switch txnResult[a.value] {
					case TxnCommitted:
						r.Stats.TxnCommitted++
					case TxnAborted, TxnFailed:
						r.Stats.TxnAborted++
					default:
						r.Stats.TxnUnknown++
					}
				}
				if !counts(a.value) {
					continue
				}
				committedAt[tpo{tp, e.Offset}] = true
				if cur, ok := lastAcked[tp]; !ok || e.Offset > cur {
					lastAcked[tp] = e.Offset
				}
			case EvSendError:
				if e.Value != nil {
					failed[*e.Value] = e.Exception
				}
				r.Stats.SendErrors++
			}
		}
	}
	r.Stats.Acked = len(acks)
	r.Stats.Partitions = len(lastAcked)
	if len(producers) > 0 && len(acks) == 0 {
		r.add(AnNoAcks, Fail, "no producer_send_success event in %d producer log(s)", len(producers))
	}

	// ---- consumer side
	valuesChecked := true
	for _, l := range consumers {
		hasRecords, hasData := false, false
		for _, e := range l.Events {
			hasRecords = hasRecords || (e.Name == EvRecordsConsumed && e.Count > 0)
			hasData = hasData || e.Name == EvRecordData
		}
		if hasRecords && !hasData {
			valuesChecked = false
		}
	}
	r.Stats.ValuesChecked = valuesChecked
	consumedValues := map[string]int{}
	consumedOffsets := map[tpo]int{}
	maxConsumed := map[TP]int64{}
	failedCommitTP := map[TP]bool{}
	type stamped struct {
		ts    int64
		order int
		log   string
		e     *Event
	}
	var merged []stamped
	n := 0
	for _, l := range consumers {
		for i := range l.Events {
			merged = append(merged, stamped{l.Events[i].Timestamp, n, l.Name, &l.Events[i]})
			n++
		}
	}
	for _, l := range consumers {
		assigned := map[TP]bool{}
		position := map[TP]int64{}
		lastCommit := map[TP]int64{}
		committedOnce := false
		clean := false
		for _, e := range l.Events {
			switch e.Name {
			case EvAssigned:
				for _, p := range e.Parts {
					assigned[TP{p.Topic, p.Partition}] = true
				}
			case EvRevoked:
				for _, p := range e.Parts {
					tp := TP{p.Topic, p.Partition}
					delete(assigned, tp)
					delete(position, tp)
				}
			case EvRecordData:
				tp := TP{e.Topic, e.Partition}
				k := tpo{tp, e.Offset}
				consumedOffsets[k]++
				if e.Value != nil {
					// An offset read again after a failed commit on its
					// partition is a redelivery (R2b), not a duplicate value.
					if consumedOffsets[k] == 1 || !failedCommitTP[tp] {
						consumedValues[*e.Value]++
					} else if consumedValues[*e.Value] == 0 {
						consumedValues[*e.Value] = 1
					}
					if v, ok := ackedAt[k]; ok && v != *e.Value {
						r.add(AnInconsistentOffset, Fail, "%s-%d offset %d: acked %q, %s consumed %q", tp.Topic, tp.Partition, e.Offset, v, l.Name, *e.Value)
					}
				}
			case EvRecordsConsumed:
				r.Stats.Consumed += func() int64 {
					var c int64
					for _, p := range e.Parts {
						c += p.Count
					}
					return c
				}()
				for _, p := range e.Parts {
					tp := TP{p.Topic, p.Partition}
					if !assigned[tp] {
						r.add(AnUnassignedConsume, Fail, "%s consumed %s-%d offsets %d-%d while not assigned", l.Name, tp.Topic, tp.Partition, p.MinOffset, p.MaxOffset)
					}
					if pos, ok := position[tp]; ok {
						switch {
						case p.MinOffset < pos:
							r.add(AnNonmonotonicPoll, Fail, "%s %s-%d: batch starts at %d, position was %d", l.Name, tp.Topic, tp.Partition, p.MinOffset, pos)
						case p.MinOffset > pos:
							for off := pos; off < p.MinOffset; off++ {
								if committedAt[tpo{tp, off}] {
									r.add(AnPollSkip, Fail, "%s %s-%d: skipped acked offsets %d-%d (batch starts at %d)", l.Name, tp.Topic, tp.Partition, pos, p.MinOffset-1, p.MinOffset)
									break
								}
							}
						}
					}
					position[tp] = p.MaxOffset + 1
					if cur, ok := maxConsumed[tp]; !ok || p.MaxOffset > cur {
						maxConsumed[tp] = p.MaxOffset
					}
					if !valuesChecked {
						for off := p.MinOffset; off <= p.MaxOffset; off++ {
							consumedOffsets[tpo{tp, off}]++
						}
					}
				}
			case EvOffsetsCommitted:
				committedOnce = true
				ok := e.Success != nil && *e.Success
				for _, c := range e.Offsets {
					tp := TP{c.Topic, c.Partition}
					if !ok {
						failedCommitTP[tp] = true
						msg := ""
						if e.Error != nil {
							msg = *e.Error
						}
						r.add(AnCommitFailed, Info, "%s %s-%d offset %d: %s", l.Name, tp.Topic, tp.Partition, c.Offset, msg)
						continue
					}
					if !assigned[tp] {
						r.add(AnUnassignedCommit, Fail, "%s committed %s-%d offset %d while not assigned", l.Name, tp.Topic, tp.Partition, c.Offset)
					}
					if pos, ok := position[tp]; ok && c.Offset > pos {
						r.add(AnCommitAhead, Fail, "%s committed %s-%d offset %d ahead of its position %d", l.Name, tp.Topic, tp.Partition, c.Offset, pos)
					}
					lastCommit[tp] = c.Offset
				}
			case EvShutdownComplete:
				clean = true
			}
		}
		if clean && committedOnce {
			for tp, pos := range position {
				if c, ok := lastCommit[tp]; !ok || c < pos {
					r.add(AnUncommittedAtClose, Warn, "%s stopped at %s-%d position %d with last commit %d", l.Name, tp.Topic, tp.Partition, pos, c)
				}
			}
		}
	}
	// Group rule: a batch never starts below the group's last commit.
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].ts < merged[j].ts })
	groupCommit := map[TP]struct {
		off int64
		ts  int64
	}{}
	for _, s := range merged {
		switch s.e.Name {
		case EvOffsetsCommitted:
			if s.e.Success == nil || !*s.e.Success {
				continue
			}
			for _, c := range s.e.Offsets {
				tp := TP{c.Topic, c.Partition}
				if cur, ok := groupCommit[tp]; !ok || c.Offset > cur.off {
					groupCommit[tp] = struct{ off, ts int64 }{c.Offset, s.ts}
				}
			}
		case EvRecordsConsumed:
			for _, p := range s.e.Parts {
				tp := TP{p.Topic, p.Partition}
				if gc, ok := groupCommit[tp]; ok && p.MinOffset < gc.off && s.ts > gc.ts && !failedCommitTP[tp] && !o.AllowRedelivery {
					r.add(AnBehindCommit, Fail, "%s consumed %s-%d from %d, behind the group's commit %d", s.log, tp.Topic, tp.Partition, p.MinOffset, gc.off)
				}
			}
		}
	}
	r.Stats.UniqueConsumed = len(consumedValues)

	// R2b duplicate offsets
	var dupOffsets []tpo
	for k, c := range consumedOffsets {
		if c > 1 {
			dupOffsets = append(dupOffsets, k)
		}
	}
	sort.Slice(dupOffsets, func(i, j int) bool { return lessTPO(dupOffsets[i], dupOffsets[j]) })
	for _, k := range dupOffsets {
		sev := Fail
		if o.AllowRedelivery || failedCommitTP[k.tp] {
			sev = Warn
		}
		r.add(AnDuplicateOffset, sev, "%s-%d offset %d delivered %d times", k.tp.Topic, k.tp.Partition, k.off, consumedOffsets[k])
	}
	// R2 duplicate values
	if valuesChecked {
		var dups []string
		for v, c := range consumedValues {
			if c > 1 {
				dups = append(dups, v)
			}
		}
		sort.Slice(dups, func(i, j int) bool { return valueLess(dups[i], dups[j]) })
		sev := Warn
		if o.Idempotent || txnMode {
			sev = Fail
		}
		for _, v := range dups {
			r.add(AnDuplicate, sev, "value %q consumed %d times", v, consumedValues[v])
		}
	}
	// R5 failed sends that were consumed
	if valuesChecked {
		var fv []string
		for v := range failed {
			if _, inTxn := txnResult[v]; inTxn && txnMode {
				continue // judged by R7
			}
			if consumedValues[v] > 0 {
				if _, acked := ackedByValue[v]; !acked {
					fv = append(fv, v)
				}
			}
		}
		sort.Slice(fv, func(i, j int) bool { return valueLess(fv[i], fv[j]) })
		for _, v := range fv {
			if IsDefiniteSendError(failed[v]) {
				r.add(AnAbortedRead, Fail, "value %q failed with %s but was consumed", v, failed[v])
			} else {
				r.add(AnIndeterminateSeen, Info, "value %q failed with %s and was consumed", v, failed[v])
			}
		}
	}
	// R7 transactions: no aborted read, output within input, order
	if txnMode && valuesChecked {
		var vs []string
		for v := range consumedValues {
			vs = append(vs, v)
		}
		sort.Slice(vs, func(i, j int) bool { return valueLess(vs[i], vs[j]) })
		for _, v := range vs {
			res, inTxn := txnResult[v]
			_, acked := ackedByValue[v]
			_, sendFailed := failed[v]
			switch {
			case res == TxnAborted || res == TxnFailed:
				r.add(AnAbortedRead, Fail, "value %q of a transaction that %s was consumed (read_committed)", v, map[string]string{TxnAborted: "was aborted", TxnFailed: "failed and was aborted"}[res])
			case res == TxnUnknown:
				r.add(AnIndeterminateSeen, Info, "value %q of a transaction with an unconfirmed commit was consumed", v)
			case !inTxn && !acked && !sendFailed:
				r.add(AnNotProduced, Fail, "value %q was consumed but no producer sent it", v)
			}
		}
		checkTxnOrder(r, acks, consumers, txnResult)
	}
	// R1 lost / R9 unseen
	var missing []Missing
	caughtUp := map[Missing]bool{}
	for _, a := range acks {
		if !counts(a.value) {
			continue
		}
		seen := false
		if valuesChecked {
			seen = consumedValues[a.value] > 0
		} else {
			seen = consumedOffsets[tpo{a.tp, a.off}] > 0
		}
		if seen {
			continue
		}
		m := Missing{a.tp.Topic, a.tp.Partition, a.off, a.value}
		missing = append(missing, m)
		if mc, ok := maxConsumed[a.tp]; ok && mc >= a.off {
			caughtUp[m] = true
		}
	}
	sort.Slice(missing, func(i, j int) bool {
		return lessTPO(tpo{TP{missing[i].Topic, missing[i].Partition}, missing[i].Offset}, tpo{TP{missing[j].Topic, missing[j].Partition}, missing[j].Offset})
	})
	var corrupt []Corrupt
	unread := map[int]int{}
	if len(missing) > 0 && len(consumers) > 0 {
		var present map[Missing]bool
		if o.Present != nil {
			p, err := o.Present(missing)
			if err != nil {
				r.LostDiagnosis = "re-read failed: " + err.Error()
			} else {
				present, corrupt = p.Present, p.Corrupt
			}
		}
	next:
		for _, m := range missing {
			for i, b := range corrupt {
				if b.Topic == m.Topic && b.Partition == m.Partition && m.Offset >= b.First && m.Offset <= b.Last {
					unread[i]++
					continue next
				}
			}
			desc := fmt.Sprintf("value %q acked at %s-%d offset %d", m.Value, m.Topic, m.Partition, m.Offset)
			switch {
			case present != nil && !present[m]:
				r.add(AnLost, Fail, "%s (not in the log)", desc)
				r.add(AnLostInLog, Info, "%s", desc)
			case present != nil && caughtUp[m]:
				r.add(AnLost, Fail, "%s (still in the log: consumer or commit bug)", desc)
				r.add(AnLostInConsumption, Info, "%s", desc)
			case caughtUp[m]:
				r.add(AnLost, Fail, "%s", desc)
			default:
				r.add(AnUnseen, Warn, "%s (consumers did not reach it)", desc)
			}
		}
		if present != nil {
			r.LostDiagnosis = fmt.Sprintf("re-read %d missing record(s) from the topic", len(missing))
		}
	}
	for _, d := range o.DataLoss {
		r.add(AnClientDataLoss, Fail, "%s", d)
	}
	for i, b := range corrupt {
		r.add(AnCorrupt, Fail, "%s: %d acked record(s) in it not read", b.Desc, unread[i])
	}
	if o.Fault != nil {
		checkLiveness(r, producers, o, lastAcked, maxConsumed, counts)
	}
	r.finish()
	return r
}

// checkTxnOrder is R7's order rule (transactions_test check_order): when
// every committed value is on one partition, each consumer reads the
// committed values in the order they were written.
func checkTxnOrder(r *Report, acks []ackRec, consumers []*Log, txnResult map[string]string) {
	pos := map[string]int64{}
	var tp *TP
	for _, a := range acks {
		if txnResult[a.value] != TxnCommitted {
			continue
		}
		if tp != nil && *tp != a.tp {
			return // several partitions: no total order to compare
		}
		t := a.tp
		tp = &t
		pos[a.value] = a.off
	}
	if tp == nil {
		return
	}
	for _, l := range consumers {
		last, lastV := int64(-1), ""
		for _, e := range l.Events {
			if e.Name != EvRecordData || e.Value == nil || (TP{e.Topic, e.Partition}) != *tp {
				continue
			}
			p, ok := pos[*e.Value]
			if !ok {
				continue
			}
			if p <= last {
				r.add(AnTxnReordered, Fail, "%s read %q (written at offset %d) after %q (offset %d)", l.Name, *e.Value, p, lastV, last)
			}
			last, lastV = p, *e.Value
		}
	}
}

// checkLiveness applies R8 around the fault window: more than 5 acks
// within the window after the fault's end (when anything was still being
// sent), at least MinAcks acks, and consumers caught up with every
// partition's last acked offset.
func checkLiveness(r *Report, producers []*Log, o Options, lastAcked, maxConsumed map[TP]int64, counts func(string) bool) {
	win := o.LivenessWindow
	if win <= 0 {
		win = 30 * time.Second
	}
	lv := &Liveness{FaultStartMs: o.Fault.StartMs, FaultEndMs: o.Fault.EndMs, WindowMs: win.Milliseconds(), MinAcks: o.MinAcks}
	end, until := o.Fault.EndMs, o.Fault.EndMs+win.Milliseconds()
	outcomesAfter := 0
	for _, l := range producers {
		for _, e := range l.Events {
			if e.Timestamp <= end {
				continue
			}
			switch e.Name {
			case EvSendSuccess:
				outcomesAfter++
				if e.Timestamp <= until && e.Value != nil && counts(*e.Value) {
					lv.AcksAfterFault++
				}
			case EvSendError:
				outcomesAfter++
			}
		}
	}
	// Producers that had sent everything before the fault ended (or had
	// at most 5 sends left) cannot show progress: not judged.
	lv.Judged = outcomesAfter > 5
	switch {
	case lv.Judged && lv.AcksAfterFault <= 5:
		r.add(AnNoProgress, Fail, "%d acks within %s after the fault ended (at %d), %d sends completed after it; want more than 5",
			lv.AcksAfterFault, win, end, outcomesAfter)
	case !lv.Judged:
		r.add(AnLivenessUnjudged, Info, "only %d sends completed after the fault ended: progress after the fault not judged", outcomesAfter)
	}
	acked := r.Stats.Acked
	if r.Stats.Transactional {
		acked = r.Stats.TxnCommitted
	}
	if acked < o.MinAcks {
		r.add(AnTooFewAcks, Fail, "%d acks (committed, with transactions), want at least %d before stopping", acked, o.MinAcks)
	}
	var tps []TP
	for tp := range lastAcked {
		tps = append(tps, tp)
	}
	sort.Slice(tps, func(i, j int) bool { return lessTPO(tpo{tps[i], 0}, tpo{tps[j], 0}) })
	for _, tp := range tps {
		if mc, ok := maxConsumed[tp]; !ok || mc < lastAcked[tp] {
			got := "nothing"
			if ok {
				got = fmt.Sprintf("offset %d", mc)
			}
			r.add(AnNotCaughtUp, Fail, "%s-%d: last acked offset %d, consumers reached %s", tp.Topic, tp.Partition, lastAcked[tp], got)
		}
	}
	r.Liveness = lv
}
