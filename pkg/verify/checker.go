package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"time"
)

// Log is one tool's event stream.
type Log struct {
	Name   string
	Events []Event
}

// ReadLog decodes an event stream; lines that are not JSON objects with a
// "name" (log lines, deprecation notices) are ignored, as the ducktape
// services do.
func ReadLog(name string, r io.Reader) (*Log, error) {
	l := &Log{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 || line[0] != '{' {
			continue
		}
		var e Event
		if err := json.Unmarshal(line, &e); err != nil || e.Name == "" {
			continue
		}
		l.Events = append(l.Events, e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return l, nil
}

// Severity of an anomaly type.
type Severity string

// Severities.
const (
	Fail Severity = "fail"
	Warn Severity = "warn"
	Info Severity = "info"
)

// Anomaly types reported by the checker (rule in parentheses).
const (
	AnLost               = "lost"                     // R1
	AnLostInLog          = "lost-in-log"              // R1b
	AnLostInConsumption  = "lost-in-consumption"      // R1b
	AnDuplicate          = "duplicate"                // R2
	AnDuplicateOffset    = "duplicate-offset"         // R2b
	AnNonmonotonicSend   = "nonmonotonic-send"        // R3 producer
	AnPollSkip           = "poll-skip"                // R3 consumer gap over acked offsets
	AnNonmonotonicPoll   = "nonmonotonic-poll"        // R3 consumer goes backwards
	AnBehindCommit       = "consumed-behind-commit"   // R3 group
	AnCommitAhead        = "commit-ahead-of-position" // R4
	AnUnassignedCommit   = "commit-unassigned"        // R4
	AnUnassignedConsume  = "consume-unassigned"       // R4
	AnUncommittedAtClose = "uncommitted-at-close"     // R4
	AnAbortedRead        = "aborted-read"             // R5 (G1a)
	AnIndeterminateSeen  = "indeterminate-send-seen"  // R5 info
	AnInconsistentOffset = "inconsistent-offsets"     // R6
	AnUnseen             = "unseen"                   // R9
	AnClientDataLoss     = "client-data-loss"         // franz-go data-loss signals
	AnNoAcks             = "no-acks"                  // R8 (a run that acked nothing)
	AnCommitFailed       = "commit-failed"            // info
	AnNotProduced        = "not-produced"             // R7 output value no producer sent
	AnTxnReordered       = "txn-reordered"            // R7 one partition: output order != input order
	AnNoProgress         = "no-progress-after-fault"  // R8 <= 5 acks within 30 s of the fault's end
	AnTooFewAcks         = "too-few-acks"             // R8 fewer acks than the minimum
	AnLivenessUnjudged   = "liveness-unjudged"        // R8 info: nothing was sent after the fault
)

// FaultWindow is when a fault was injected, in Unix milliseconds (the
// events' timestamps).
type FaultWindow struct {
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
}

// Liveness is what the R8 rules measured.
type Liveness struct {
	FaultStartMs int64 `json:"fault_start_ms"`
	FaultEndMs   int64 `json:"fault_end_ms"`
	// AcksAfterFault are the acks within the window after the fault's end.
	AcksAfterFault int   `json:"acks_after_fault"`
	WindowMs       int64 `json:"window_ms"`
	// Judged is false when nothing was sent after the fault ended.
	Judged  bool `json:"judged"`
	MinAcks int  `json:"min_acks"`
}

// Options tune the checker.
type Options struct {
	// Idempotent makes duplicate values a failure (R2): set it when the
	// producers ran with idempotence or transactions.
	Idempotent bool
	// AllowRedelivery downgrades duplicate offsets (R2b) to a warning,
	// e.g. after hard consumer kills.
	AllowRedelivery bool
	// Examples is how many examples to keep per anomaly type (default 10).
	Examples int
	// Present, when set, re-reads the log (R1b): it returns which of the
	// given missing (topic, partition, offset) records still hold their
	// value in the topic.
	Present func(missing []Missing) (map[Missing]bool, error)
	// DataLoss are franz-go data-loss signals seen by in-process clients.
	DataLoss []string
	// Transactional applies R7 even when no producer log has a
	// transaction_end event (which turns it on by itself).
	Transactional bool
	// Fault, when set, applies R8 (liveness) around it.
	Fault *FaultWindow
	// MinAcks is R8's minimum number of acks (with Fault only; 0: none).
	MinAcks int
	// LivenessWindow is how long after the fault's end more than 5 acks
	// must arrive (default 30 s).
	LivenessWindow time.Duration
}

// Missing identifies an acked record that no consumer returned.
type Missing struct {
	Topic     string `json:"topic"`
	Partition int32  `json:"partition"`
	Offset    int64  `json:"offset"`
	Value     string `json:"value"`
}

// AnomalyReport is one anomaly type's count and first examples.
type AnomalyReport struct {
	Type     string   `json:"type"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`
	Examples []string `json:"examples"`
}

// Stats are the totals behind the verdict.
type Stats struct {
	Acked          int   `json:"acked"`
	SendErrors     int   `json:"send_errors"`
	Consumed       int64 `json:"consumed"`
	UniqueConsumed int   `json:"unique_consumed"`
	Partitions     int   `json:"partitions"`
	ProducerLogs   int   `json:"producer_logs"`
	ConsumerLogs   int   `json:"consumer_logs"`
	ValuesChecked  bool  `json:"values_checked"`
	// Transactional runs (R7): acked values by transaction result.
	Transactional bool `json:"transactional,omitempty"`
	TxnCommitted  int  `json:"txn_committed,omitempty"`
	TxnAborted    int  `json:"txn_aborted,omitempty"`
	TxnUnknown    int  `json:"txn_unknown,omitempty"`
}

// Report is the verdict, Jepsen style.
type Report struct {
	Valid          bool            `json:"valid"`
	ErrorTypes     []string        `json:"error_types"`
	BadErrorTypes  []string        `json:"bad_error_types"`
	Anomalies      []AnomalyReport `json:"anomalies"`
	Stats          Stats           `json:"stats"`
	LostDiagnosis  string          `json:"lost_diagnosis,omitempty"`
	Liveness       *Liveness       `json:"liveness,omitempty"`
	anomalyByType  map[string]*AnomalyReport
	examplesPerTyp int
}

func (r *Report) add(typ string, sev Severity, format string, a ...any) {
	ar, ok := r.anomalyByType[typ]
	if !ok {
		ar = &AnomalyReport{Type: typ, Severity: sev, Examples: []string{}}
		r.anomalyByType[typ] = ar
	}
	ar.Count++
	if len(ar.Examples) < r.examplesPerTyp {
		ar.Examples = append(ar.Examples, fmt.Sprintf(format, a...))
	}
}

// Count returns the count of an anomaly type (0 when absent).
func (r *Report) Count(typ string) int {
	for _, a := range r.Anomalies {
		if a.Type == typ {
			return a.Count
		}
	}
	return 0
}

type tpo struct {
	tp  TP
	off int64
}

type ackRec struct {
	tp    TP
	off   int64
	value string
}

// definiteErrors are Java exception classes of sends rejected before any
// append: their values must never be consumed (R5, Jepsen G1a).
var definiteErrors = []string{
	"RecordTooLargeException", "InvalidRecordException", "NotEnoughReplicasException",
	"RecordBatchTooLargeException", "CorruptRecordException", "InvalidTopicException",
	"TopicAuthorizationException", "SerializationException", "UnknownTopicOrPartitionException",
	"InvalidRequiredAcksException", "ClusterAuthorizationException",
}

// IsDefiniteSendError reports whether a producer_send_error exception
// ("class org.apache...XxxException") means the record was never appended.
func IsDefiniteSendError(exception string) bool {
	cls := exception[strings.LastIndexAny(exception, ". ")+1:]
	for _, d := range definiteErrors {
		if cls == d {
			return true
		}
	}
	return false
}

// Check applies rules R1-R9 to producer and consumer logs. Consumer logs
// are taken to be members of one group consuming the producers' topic.
func Check(producers, consumers []*Log, o Options) *Report {
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
					consumedValues[*e.Value]++
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
	if len(missing) > 0 && len(consumers) > 0 {
		var present map[Missing]bool
		if o.Present != nil {
			p, err := o.Present(missing)
			if err != nil {
				r.LostDiagnosis = "re-read failed: " + err.Error()
			} else {
				present = p
			}
		}
		for _, m := range missing {
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

func (r *Report) finish() {
	r.Valid = true
	r.ErrorTypes, r.BadErrorTypes = []string{}, []string{}
	for _, a := range r.anomalyByType {
		r.Anomalies = append(r.Anomalies, *a)
	}
	sevRank := map[Severity]int{Fail: 0, Warn: 1, Info: 2}
	sort.Slice(r.Anomalies, func(i, j int) bool {
		a, b := r.Anomalies[i], r.Anomalies[j]
		if sevRank[a.Severity] != sevRank[b.Severity] {
			return sevRank[a.Severity] < sevRank[b.Severity]
		}
		return a.Type < b.Type
	})
	for _, a := range r.Anomalies {
		if a.Severity == Info {
			continue
		}
		r.ErrorTypes = append(r.ErrorTypes, a.Type)
		if a.Severity == Fail {
			r.BadErrorTypes = append(r.BadErrorTypes, a.Type)
			r.Valid = false
		}
	}
	if r.Anomalies == nil {
		r.Anomalies = []AnomalyReport{}
	}
}

func lessTPO(a, b tpo) bool {
	if a.tp.Topic != b.tp.Topic {
		return a.tp.Topic < b.tp.Topic
	}
	if a.tp.Partition != b.tp.Partition {
		return a.tp.Partition < b.tp.Partition
	}
	return a.off < b.off
}

// valueLess orders "P.i" / "i" values numerically where possible.
func valueLess(a, b string) bool {
	if len(a) != len(b) {
		return len(a) < len(b)
	}
	return a < b
}

// WriteText prints the human report.
func (r *Report) WriteText(w io.Writer) error {
	var b strings.Builder
	if r.Valid {
		b.WriteString("VALID: no acknowledged record was lost")
	} else {
		b.WriteString("INVALID: " + strings.Join(r.BadErrorTypes, ", "))
	}
	b.WriteString("\n")
	s := r.Stats
	fmt.Fprintf(&b, "acked %d, send errors %d, consumed %d (%d distinct values), partitions %d, producer logs %d, consumer logs %d\n",
		s.Acked, s.SendErrors, s.Consumed, s.UniqueConsumed, s.Partitions, s.ProducerLogs, s.ConsumerLogs)
	if !s.ValuesChecked {
		b.WriteString("note: a consumer log has no record_data (run it with --verbose): values compared by offset only\n")
	}
	if s.Transactional {
		fmt.Fprintf(&b, "transactions: acked values committed %d, aborted %d, unknown outcome %d\n", s.TxnCommitted, s.TxnAborted, s.TxnUnknown)
	}
	if lv := r.Liveness; lv != nil {
		if lv.Judged {
			fmt.Fprintf(&b, "liveness: %d acks within %.0fs after the fault ended, minimum acks %d\n", lv.AcksAfterFault, float64(lv.WindowMs)/1000, lv.MinAcks)
		} else {
			fmt.Fprintf(&b, "liveness: nothing sent after the fault ended (progress not judged), minimum acks %d\n", lv.MinAcks)
		}
	}
	if r.LostDiagnosis != "" {
		b.WriteString("diagnosis: " + r.LostDiagnosis + "\n")
	}
	for _, a := range r.Anomalies {
		fmt.Fprintf(&b, "%s %s: %d\n", strings.ToUpper(string(a.Severity)), a.Type, a.Count)
		for _, ex := range a.Examples {
			b.WriteString("  " + ex + "\n")
		}
		if a.Count > len(a.Examples) {
			fmt.Fprintf(&b, "  ... and %d more\n", a.Count-len(a.Examples))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
