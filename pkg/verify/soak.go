package verify

import (
	"fmt"
	"sort"
	"strings"
	"time"
)

// Soak mode of `kbox verify run`: a verdict per window while the run is
// in flight, and the faults injected by a schedule.

// FaultInfo is one injected fault: a command of the --during schedule,
// or a window a --during-script marked. Its time window is the
// command's start and exit (or the script's fault-start and fault-end
// lines), in Unix ms like the events' timestamps.
type FaultInfo struct {
	Name    string `json:"name"`
	Command string `json:"command"`
	StartMs int64  `json:"start_ms"`
	EndMs   int64  `json:"end_ms"`
	// DurationMs is EndMs - StartMs.
	DurationMs int64 `json:"duration_ms"`
	// ExitCode is the command's exit status (a marked window: the
	// script's); 128+N after signal N, -1 when it could not run.
	ExitCode int    `json:"exit_code"`
	Error    string `json:"error,omitempty"`
}

// Window returns the fault's window for the checker.
func (fi FaultInfo) Window() FaultWindow { return FaultWindow{StartMs: fi.StartMs, EndMs: fi.EndMs} }

// AnomalyCount is an anomaly type's count so far.
type AnomalyCount struct {
	Type     string   `json:"type"`
	Severity Severity `json:"severity"`
	Count    int      `json:"count"`
}

// WindowVerdict is the verdict at the end of one window of a run: the
// totals so far and whether what was seen so far is valid. Anomalies are
// counted over the whole run up to the window's end, not per window, by
// the rules the streaming checker judges as events arrive (Checker.SoFar:
// duplicates, order, commits, inconsistent offsets); records not consumed
// yet are lag: lost records are judged by the final verdict only.
type WindowVerdict struct {
	Window        int      `json:"window"`
	StartMs       int64    `json:"start_ms"`
	EndMs         int64    `json:"end_ms"`
	ElapsedMs     int64    `json:"elapsed_ms"`
	Valid         bool     `json:"valid"`
	BadErrorTypes []string `json:"bad_error_types"`
	Acked         int64    `json:"acked"`
	AckedInWindow int64    `json:"acked_in_window"`
	SendErrors    int64    `json:"send_errors"`
	Consumed      int64    `json:"consumed"`
	// ConsumedInWindow counts records consumed within the window.
	ConsumedInWindow int64 `json:"consumed_in_window"`
	// Lag is the acked offsets the consumers have not reached yet.
	Lag       int64          `json:"lag"`
	Anomalies []AnomalyCount `json:"anomalies"`
	// Faults are the names of the faults that overlapped the window, in
	// start order.
	Faults []string `json:"faults"`
}

// Verdict is a verdict on what a run has seen so far.
type Verdict struct {
	Acked, SendErrors, Consumed int64
	// Lag is the acked values no consumer has returned yet.
	Lag           int64
	Valid         bool
	BadErrorTypes []string
	Anomalies     []AnomalyCount
}

// Verdict judges what the run's checker has seen so far (Checker.SoFar).
func (r *Run) Verdict() Verdict {
	sn := r.checker.Snapshot()
	v := Verdict{Acked: sn.Acked, SendErrors: sn.SendErrors, Consumed: sn.Consumed, Lag: sn.Pending}
	v.Anomalies = r.checker.SoFar()
	v.Valid, v.BadErrorTypes = true, []string{}
	for _, a := range v.Anomalies {
		if a.Severity == Fail {
			v.Valid = false
			v.BadErrorTypes = append(v.BadErrorTypes, a.Type)
		}
	}
	return v
}

// SoFar returns the anomalies found so far with the severities Finish
// would give them (the anomaly types judged only by Finish, such as lost
// and unseen, are not among them), sorted as in a report: by severity,
// then type. It does not end the check.
func (c *Checker) SoFar() []AnomalyCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	byType := map[string]*AnomalyCount{}
	// As Report.addBulk: an anomaly type keeps the severity it was first
	// added with, in Finish's order.
	add := func(typ string, sev Severity, n int) {
		if n == 0 {
			return
		}
		a, ok := byType[typ]
		if !ok {
			a = &AnomalyCount{Type: typ, Severity: sev}
			byType[typ] = a
		}
		a.Count += n
	}
	for _, p := range c.prods {
		for typ, a := range p.col.m {
			add(typ, a.sev, a.count)
		}
	}
	for _, cs := range c.cons {
		for typ, a := range cs.col.m {
			add(typ, a.sev, a.count)
		}
	}
	tps := c.sortedTPs()
	for _, s := range tps {
		if !s.failedCommit {
			add(AnBehindCommit, Fail, s.behindCount)
		}
	}
	for _, s := range tps {
		sev := Fail
		if c.o.AllowRedelivery || s.failedCommit {
			sev = Warn
		}
		add(AnDuplicateOffset, sev, int(s.dataDup.GetCardinality()))
	}
	dupSev := Warn
	if c.o.Idempotent || c.txnMode {
		dupSev = Fail
	}
	for _, ps := range c.vs.prefixes {
		add(AnDuplicate, dupSev, int(ps.dup.GetCardinality()))
	}
	add(AnClientDataLoss, Fail, len(c.o.DataLoss)+len(c.dataLoss))
	add(AnCorrupt, Fail, len(c.corrupt))
	out := []AnomalyCount{}
	for _, a := range byType {
		out = append(out, *a)
	}
	rank := map[Severity]int{Fail: 0, Warn: 1, Info: 2}
	sort.Slice(out, func(i, j int) bool {
		if rank[out[i].Severity] != rank[out[j].Severity] {
			return rank[out[i].Severity] < rank[out[j].Severity]
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// NewWindowVerdict is window n (from 1) ending at end, given the verdict
// then and the previous window's (nil for the first).
func NewWindowVerdict(n int, start, end, runStart time.Time, v Verdict, prev *WindowVerdict, faults []FaultInfo) WindowVerdict {
	w := WindowVerdict{Window: n, StartMs: start.UnixMilli(), EndMs: end.UnixMilli(), ElapsedMs: end.Sub(runStart).Milliseconds(),
		Valid: v.Valid, BadErrorTypes: v.BadErrorTypes, Acked: v.Acked, SendErrors: v.SendErrors, Consumed: v.Consumed,
		Lag: v.Lag, Anomalies: v.Anomalies, Faults: []string{}}
	w.AckedInWindow, w.ConsumedInWindow = w.Acked, w.Consumed
	if prev != nil {
		w.AckedInWindow -= prev.Acked
		w.ConsumedInWindow -= prev.Consumed
	}
	if w.BadErrorTypes == nil {
		w.BadErrorTypes = []string{}
	}
	if w.Anomalies == nil {
		w.Anomalies = []AnomalyCount{}
	}
	for _, f := range faults {
		// A fault still running has EndMs 0.
		if f.StartMs < w.EndMs && (f.EndMs == 0 || f.EndMs >= w.StartMs) {
			w.Faults = append(w.Faults, f.Name)
		}
	}
	return w
}

// AnomalyFault names, for an anomaly type, the fault that preceded the
// first event showing it: the latest fault that started before it, the
// anomaly seen during that fault or after its end.
type AnomalyFault struct {
	Type        string `json:"type"`
	FirstSeenMs int64  `json:"first_seen_ms"`
	// Fault is the fault's name; null when no fault started before.
	Fault *string `json:"fault"`
	// Relation is "during" or "after" the fault (omitted without one).
	Relation string `json:"relation,omitempty"`
	// SinceFaultEndMs is how long after the fault's end the anomaly was
	// first seen (after only).
	SinceFaultEndMs int64 `json:"since_fault_end_ms,omitempty"`
}

// Relations of AnomalyFault.
const (
	DuringFault = "during"
	AfterFault  = "after"
)

// AttributeAnomalies pairs each anomaly type first seen at firstSeen[type]
// (Unix ms; 0: unknown, left out) with the fault before it, ordered by
// first sighting then type.
func AttributeAnomalies(firstSeen map[string]int64, faults []FaultInfo) []AnomalyFault {
	var out []AnomalyFault
	for typ, ts := range firstSeen {
		if ts <= 0 {
			continue
		}
		af := AnomalyFault{Type: typ, FirstSeenMs: ts}
		var before *FaultInfo
		for i := range faults {
			f := &faults[i]
			if f.StartMs <= ts && (before == nil || f.StartMs >= before.StartMs) {
				before = f
			}
		}
		if before != nil {
			name := before.Name
			af.Fault = &name
			if before.EndMs == 0 || ts <= before.EndMs {
				af.Relation = DuringFault
			} else {
				af.Relation, af.SinceFaultEndMs = AfterFault, ts-before.EndMs
			}
		}
		out = append(out, af)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].FirstSeenMs != out[j].FirstSeenMs {
			return out[i].FirstSeenMs < out[j].FirstSeenMs
		}
		return out[i].Type < out[j].Type
	})
	return out
}

// attributionText is one line per attributed anomaly type.
func attributionText(afs []AnomalyFault) string {
	var b strings.Builder
	for _, af := range afs {
		fmt.Fprintf(&b, "anomaly %s first seen at %s ", af.Type, msTime(af.FirstSeenMs))
		switch {
		case af.Fault == nil:
			b.WriteString("before any fault\n")
		case af.Relation == DuringFault:
			fmt.Fprintf(&b, "during fault %s\n", *af.Fault)
		default:
			fmt.Fprintf(&b, "%.1fs after fault %s ended\n", float64(af.SinceFaultEndMs)/1000, *af.Fault)
		}
	}
	return b.String()
}
