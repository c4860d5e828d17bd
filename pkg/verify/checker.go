package verify

import (
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
	AnCorrupt            = "corrupt-batch"            // a batch no consumer can read (CRC mismatch), not loss
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
	// value in the topic, and the batches it could not read.
	Present func(missing []Missing) (RereadResult, error)
	// DataLoss are franz-go data-loss signals seen by in-process clients.
	DataLoss []string
	// Transactional applies R7 even when no producer log has a
	// transaction_end event (which turns it on by itself).
	Transactional bool
	// Fault, when set, applies R8 (liveness) around it.
	Fault *FaultWindow
	// Faults are more fault windows (after Fault), each judged on its
	// own by R8; Checker.AddFault adds windows while checking.
	Faults []FaultWindow
	// MinAcks is R8's minimum number of acks (with Fault only; 0: none).
	MinAcks int
	// LivenessWindow is how long after the fault's end more than 5 acks
	// must arrive (default 30 s).
	LivenessWindow time.Duration
}

// RereadResult is what the R1b re-read found.
type RereadResult struct {
	// Present says which missing records still hold their value.
	Present map[Missing]bool
	// Corrupt are the batches it could not read: missing records there
	// are neither present nor absent, but corrupt.
	Corrupt []Corrupt
}

// Corrupt is a record batch a consumer cannot read: its bytes no longer
// match its CRC (or cannot be parsed). Its acked records are reported as
// corrupt-batch, not as lost.
type Corrupt struct {
	Topic     string
	Partition int32
	// First and Last are the batch's offsets.
	First, Last int64
	// Desc names the batch and the stored and computed CRC.
	Desc string
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
	// FirstSeenMs is the timestamp of the event that first showed the
	// anomaly (0: not known, e.g. a run-wide rule); not in the JSON form.
	FirstSeenMs int64 `json:"-"`
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
	Valid         bool            `json:"valid"`
	ErrorTypes    []string        `json:"error_types"`
	BadErrorTypes []string        `json:"bad_error_types"`
	Anomalies     []AnomalyReport `json:"anomalies"`
	Stats         Stats           `json:"stats"`
	LostDiagnosis string          `json:"lost_diagnosis,omitempty"`
	Liveness      *Liveness       `json:"liveness,omitempty"`
	// Faults is R8 per fault window when there were several (Liveness
	// is the first).
	Faults         []Liveness `json:"faults,omitempty"`
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

// Check applies rules R1-R9 to producer and consumer logs held in
// memory: it feeds them to a streaming Checker, every producer log
// first, consumer events in timestamp order across the logs (each log
// in its own order).
func Check(producers, consumers []*Log, o Options) *Report {
	c := NewChecker(o)
	for _, l := range producers {
		s := c.Producer(l.Name)
		for i := range l.Events {
			s.Add(l.Events[i])
		}
	}
	c.ProducersDone()
	sinks := make([]*LogSink, len(consumers))
	for i, l := range consumers {
		sinks[i] = c.Consumer(l.Name)
	}
	c.mu.Lock()
	for i, l := range consumers {
		for j := range l.Events {
			c.consumerEvent(sinks[i].cons, &l.Events[j])
		}
	}
	// The group rule sees the group's events in timestamp order.
	type stamped struct {
		cons *consState
		e    *Event
	}
	var merged []stamped
	for i, l := range consumers {
		for j := range l.Events {
			merged = append(merged, stamped{sinks[i].cons, &l.Events[j]})
		}
	}
	sort.SliceStable(merged, func(i, j int) bool { return merged[i].e.Timestamp < merged[j].e.Timestamp })
	for _, m := range merged {
		c.groupEvent(m.cons, m.e)
	}
	c.mu.Unlock()
	return c.Finish()
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
