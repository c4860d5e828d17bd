package verify

import (
	"fmt"
	"io"
	"strings"
)

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
	Topic         string      `json:"topic"`
	Group         string      `json:"group"`
	Created       bool        `json:"topic_created"`
	Messages      int64       `json:"messages"`
	Producers     int         `json:"producers"`
	Consumers     int         `json:"consumers"`
	Idempotent    bool        `json:"idempotent"`
	Transactional bool        `json:"transactional,omitempty"`
	Acks          string      `json:"acks"`
	Sent          int64       `json:"sent"`
	Acked         int64       `json:"acked"`
	SendErrors    int64       `json:"send_errors"`
	Consumed      int64       `json:"consumed"`
	CaughtUp      bool        `json:"caught_up"`
	ProduceMs     int64       `json:"produce_ms"`
	DurationMs    int64       `json:"duration_ms"`
	AckedPerSec   float64     `json:"acked_per_sec"`
	ProducerLogs  []string    `json:"producer_logs,omitempty"`
	ConsumerLogs  []string    `json:"consumer_logs,omitempty"`
	During        *DuringInfo `json:"during,omitempty"`
}

// RunReport is the checker's verdict on a run plus the run's facts.
type RunReport struct {
	*Report
	Run RunInfo `json:"run"`
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
	if _, already := r.anomalyByType[AnNotCaughtUp]; !already && !info.CaughtUp {
		r.add(AnNotCaughtUp, Fail, "consumers did not reach the last acked offsets before the timeout")
		extra = true
	}
	if d := info.During; d != nil && (d.ExitCode != 0 || d.Error != "") {
		msg := fmt.Sprintf("%q exited with status %d", d.Command, d.ExitCode)
		if d.Error != "" {
			msg = fmt.Sprintf("%q: %s", d.Command, d.Error)
		}
		r.add(AnDuringFailed, Warn, "%s", msg)
		extra = true
	}
	if extra {
		r.Anomalies = nil
		r.finish()
	}
	return &RunReport{Report: r, Run: info}
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
