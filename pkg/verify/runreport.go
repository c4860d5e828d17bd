package verify

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// msTime prints Unix ms as a UTC time of day with milliseconds.
func msTime(ms int64) string { return time.UnixMilli(ms).UTC().Format("15:04:05.000") }

// Run-level anomaly types added to the checker's verdict by `verify run`.
const (
	AnNotCaughtUp  = "not-caught-up" // R8: consumers did not reach the last acked offsets in time
	AnDuringFailed = "during-failed" // the --during command exited non-zero
)

// DuringInfo is the outcome of the command run during the verification.
type DuringInfo struct {
	Command    string `json:"command"`
	ExitCode   int    `json:"exit_code"`
	DurationMs int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	// StartMs and EndMs (Unix ms) are the fault window of R8.
	StartMs int64 `json:"start_ms"`
	EndMs   int64 `json:"end_ms"`
}

// RunInfo describes a finished run.
type RunInfo struct {
	Topic         string   `json:"topic"`
	Group         string   `json:"group"`
	Created       bool     `json:"topic_created"`
	Messages      int64    `json:"messages"`
	Producers     int      `json:"producers"`
	Consumers     int      `json:"consumers"`
	Idempotent    bool     `json:"idempotent"`
	Transactional bool     `json:"transactional,omitempty"`
	Acks          string   `json:"acks"`
	Sent          int64    `json:"sent"`
	Acked         int64    `json:"acked"`
	SendErrors    int64    `json:"send_errors"`
	Consumed      int64    `json:"consumed"`
	CaughtUp      bool     `json:"caught_up"`
	ProduceMs     int64    `json:"produce_ms"`
	DurationMs    int64    `json:"duration_ms"`
	AckedPerSec   float64  `json:"acked_per_sec"`
	ProducerLogs  []string `json:"producer_logs,omitempty"`
	ConsumerLogs  []string `json:"consumer_logs,omitempty"`
	// During is the single --during command's outcome (also in Faults).
	During *DuringInfo `json:"during,omitempty"`
	// DurationLimitMs is --duration (a run that produces until then).
	DurationLimitMs int64 `json:"duration_limit_ms,omitempty"`
	// WindowMs is --window; Windows the window verdicts printed.
	WindowMs int64 `json:"window_ms,omitempty"`
	Windows  int   `json:"windows,omitempty"`
	// Interrupted: SIGINT or SIGTERM stopped the run early; the verdict
	// covers what was seen until then.
	Interrupted bool `json:"interrupted,omitempty"`
	// Faults are the faults injected (--during, --during-at,
	// --during-script), in start order.
	Faults []FaultInfo `json:"faults,omitempty"`
}

// RunReport is the checker's verdict on a run plus the run's facts.
type RunReport struct {
	*Report
	Run RunInfo `json:"run"`
	// AnomalyFaults names, with faults, the fault before each anomaly
	// type's first sighting (types with an event time only).
	AnomalyFaults []AnomalyFault `json:"anomaly_faults,omitempty"`
}

// NewRunReport checks the run's logs and adds the run-level anomalies
// (see NewRunReportFrom).
func NewRunReport(producers, consumers []*Log, o Options, info RunInfo) *RunReport {
	return NewRunReportFrom(Check(producers, consumers, o), info)
}

// NewRunReportFrom adds the run-level anomalies to the checker's report
// r: not caught up (failure) and a failed --during command (warning).
func NewRunReportFrom(r *Report, info RunInfo) *RunReport {
	extra := false
	if a := r.anomalyByType[AnNotCaughtUp]; a != nil && info.Interrupted && a.Severity == Fail {
		// R8's per-partition catch-up after an interrupted run's short
		// drain: unseen, not a failure (as below).
		a.Severity = Warn
		extra = true
	}
	if _, already := r.anomalyByType[AnNotCaughtUp]; !already && !info.CaughtUp {
		if info.Interrupted {
			// Stopped by the operator: what the consumers did not reach
			// in the short drain is unseen, not a failure.
			r.add(AnNotCaughtUp, Warn, "consumers did not reach the last acked offsets before the interrupted run stopped")
		} else {
			r.add(AnNotCaughtUp, Fail, "consumers did not reach the last acked offsets before the timeout")
		}
		extra = true
	}
	failed := func(name, command string, code int, errMsg string) {
		msg := fmt.Sprintf("%q exited with status %d", command, code)
		if errMsg != "" {
			msg = fmt.Sprintf("%q: %s", command, errMsg)
		}
		if name != "" {
			msg = "fault " + name + ": " + msg
		}
		r.add(AnDuringFailed, Warn, "%s", msg)
		extra = true
	}
	if d := info.During; d != nil && (d.ExitCode != 0 || d.Error != "") {
		failed("", d.Command, d.ExitCode, d.Error)
	}
	if info.During == nil {
		for _, fi := range info.Faults {
			if fi.ExitCode != 0 || fi.Error != "" {
				failed(fi.Name, fi.Command, fi.ExitCode, fi.Error)
			}
		}
	}
	if extra {
		r.Anomalies = nil
		r.finish()
	}
	rr := &RunReport{Report: r, Run: info}
	if len(info.Faults) > 0 {
		first := map[string]int64{}
		for _, a := range r.Anomalies {
			if a.Severity != Info {
				first[a.Type] = a.FirstSeenMs
			}
		}
		rr.AnomalyFaults = AttributeAnomalies(first, info.Faults)
	}
	return rr
}

// WriteText prints the verdict followed by the run summary.
func (rr *RunReport) WriteText(w io.Writer) error {
	if err := rr.Report.WriteText(w); err != nil {
		return err
	}
	i := rr.Run
	var b strings.Builder
	fmt.Fprintf(&b, "run: topic %s, group %s, %d producer(s), %d consumer(s), acks %s, idempotent %t, transactional %t\n", i.Topic, i.Group, i.Producers, i.Consumers, i.Acks, i.Idempotent, i.Transactional)
	fmt.Fprintf(&b, "run: sent %d, acked %d, send errors %d, consumed %d, caught up %t, produced in %.1fs (%.0f acked/s), total %.1fs\n",
		i.Sent, i.Acked, i.SendErrors, i.Consumed, i.CaughtUp, float64(i.ProduceMs)/1000, i.AckedPerSec, float64(i.DurationMs)/1000)
	if i.Windows > 0 {
		fmt.Fprintf(&b, "run: %d window verdict(s) of %s\n", i.Windows, time.Duration(i.WindowMs)*time.Millisecond)
	}
	if i.Interrupted {
		b.WriteString("run: INTERRUPTED: the verdict covers what was acked and consumed until the run was stopped\n")
	}
	// R8 per fault: Report.Faults has one per fault window (Liveness
	// alone for a single one).
	lvs := map[FaultWindow]Liveness{}
	for _, lv := range rr.Report.Faults {
		lvs[FaultWindow{StartMs: lv.FaultStartMs, EndMs: lv.FaultEndMs}] = lv
	}
	if lv := rr.Liveness; lv != nil {
		lvs[FaultWindow{StartMs: lv.FaultStartMs, EndMs: lv.FaultEndMs}] = *lv
	}
	for _, fi := range i.Faults {
		if i.During != nil {
			break // printed below as before
		}
		fmt.Fprintf(&b, "fault %s: %q from %s to %s (%.1fs), exit status %d",
			fi.Name, fi.Command, msTime(fi.StartMs), msTime(fi.EndMs), float64(fi.DurationMs)/1000, fi.ExitCode)
		if fi.Error != "" {
			b.WriteString(" (" + fi.Error + ")")
		}
		if lv, ok := lvs[fi.Window()]; ok {
			if lv.Judged {
				fmt.Fprintf(&b, "; R8: %d acks within %.0fs after it", lv.AcksAfterFault, float64(lv.WindowMs)/1000)
			} else {
				b.WriteString("; R8: nothing sent after it (not judged)")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString(attributionText(rr.AnomalyFaults))
	if d := i.During; d != nil {
		fmt.Fprintf(&b, "during: %q exit status %d after %.1fs", d.Command, d.ExitCode, float64(d.DurationMs)/1000)
		if d.Error != "" {
			b.WriteString(" (" + d.Error + ")")
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
