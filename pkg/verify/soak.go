package verify

import "time"

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
// counted over the whole run up to the window's end, not per window;
// records not consumed yet are lag, not lost.
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
	Progress
	Valid         bool
	BadErrorTypes []string
	Anomalies     []AnomalyCount
}

// Verdict judges the events recorded so far with o (without the re-read
// of missing records and without liveness: those belong to the end of
// the run). Records the consumers have not reached yet are lag, not
// anomalies.
func (r *Run) Verdict(o Options) Verdict {
	v := Verdict{Progress: r.Progress()}
	// Producers first: a record consumed after the producers' snapshot
	// but acked before it is never judged lost.
	var prods, cons []*Log
	for _, rec := range r.prodRecs {
		prods = append(prods, rec.Log())
	}
	for _, rec := range r.consRecs {
		cons = append(cons, rec.Log())
	}
	o.Present, o.Fault = nil, nil
	r.mu.Lock()
	o.DataLoss = append([]string(nil), r.dataLoss...)
	r.mu.Unlock()
	rep := Check(prods, cons, o)
	v.Valid, v.BadErrorTypes = rep.Valid, rep.BadErrorTypes
	v.Anomalies = []AnomalyCount{}
	for _, a := range rep.Anomalies {
		if a.Type == AnUnseen {
			continue // in flight: that is the lag
		}
		v.Anomalies = append(v.Anomalies, AnomalyCount{Type: a.Type, Severity: a.Severity, Count: a.Count})
	}
	return v
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
