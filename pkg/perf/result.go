package perf

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"
)

// FormatVersion is the version of the JSON result schema.
const FormatVersion = 1

// Result is the outcome of a native produce or consume run. Its JSON form
// carries the encoded HDR histogram so several runs merge exactly.
type Result struct {
	FormatVersion int       `json:"format_version"`
	Kind          string    `json:"kind"` // produce or consume
	Topic         string    `json:"topic"`
	Clients       int       `json:"clients"`
	MeasureStart  time.Time `json:"measure_start"`
	MeasureEnd    time.Time `json:"measure_end"`
	ElapsedSec    float64   `json:"elapsed_sec"`
	Records       int64     `json:"records"`
	Bytes         int64     `json:"bytes"`
	WarmupRecords int64     `json:"warmup_records"`
	Failed        int64     `json:"failed"`
	RecordsPerSec float64   `json:"records_per_sec"`
	MBPerSec      float64   `json:"mb_per_sec"`
	TargetRate    float64   `json:"target_records_per_sec,omitempty"`
	// LatencyBasis says what the latency is measured from.
	LatencyBasis string         `json:"latency_basis"`
	Latency      LatencySummary `json:"latency"`
	Histogram    string         `json:"histogram"`
	Settings     []string       `json:"settings"`
	Intervals    []Interval     `json:"intervals,omitempty"`
	MergedFrom   int            `json:"merged_from,omitempty"`
}

// Interval is one point of the per-interval series.
type Interval struct {
	ElapsedSec    float64 `json:"elapsed_sec"`
	Records       int64   `json:"records"`
	RecordsPerSec float64 `json:"records_per_sec"`
	MBPerSec      float64 `json:"mb_per_sec"`
	P50Ms         float64 `json:"p50_ms"`
	P99Ms         float64 `json:"p99_ms"`
	MaxMs         float64 `json:"max_ms"`
}

// Latency bases.
const (
	BasisIntended = "intended send time (throttled run: coordinated-omission corrected)"
	BasisSend     = "send call (unthrottled run)"
	BasisE2E      = "record timestamp (end-to-end; producer and consumer clocks must agree)"
)

// Complete fills r's derived fields from h, as at the end of a run: the
// format version, the rates over the measured span, the latency summary
// and the encoded histogram. The engine's runs call it; a result built
// from counters elsewhere (a Trogdor worker's last status) does too.
func (r *Result) Complete(h *Latency) error { return r.finish(h) }

func (r *Result) finish(h *Latency) error {
	r.FormatVersion = FormatVersion
	if r.Settings == nil {
		r.Settings = []string{} // an empty list, never null (docs/json.md)
	}
	r.ElapsedSec = r.MeasureEnd.Sub(r.MeasureStart).Seconds()
	if r.ElapsedSec > 0 {
		r.RecordsPerSec = float64(r.Records) / r.ElapsedSec
		r.MBPerSec = float64(r.Bytes) / (1 << 20) / r.ElapsedSec
	}
	r.Latency = h.Summary()
	enc, err := h.Encode()
	if err != nil {
		return err
	}
	r.Histogram = enc
	return nil
}

// Merge combines results of the same kind from several processes into one:
// counts add up, the time span is the union, and percentiles come from the
// merged histograms, so they are exact aggregates (within the histogram's
// 3 significant digits).
func Merge(rs []*Result) (*Result, error) {
	if len(rs) == 0 {
		return nil, errors.New("nothing to merge")
	}
	out := &Result{Kind: rs[0].Kind, Topic: rs[0].Topic, LatencyBasis: rs[0].LatencyBasis}
	h := NewLatency()
	seen := map[string]bool{}
	for i, r := range rs {
		if r.FormatVersion != FormatVersion {
			return nil, fmt.Errorf("result %d: unsupported format_version %d (want %d)", i+1, r.FormatVersion, FormatVersion)
		}
		if r.Kind != out.Kind {
			return nil, fmt.Errorf("result %d: cannot merge a %s result with a %s result", i+1, r.Kind, out.Kind)
		}
		if r.Topic != out.Topic {
			out.Topic = "(several)"
		}
		rh, err := DecodeLatency(r.Histogram)
		if err != nil {
			return nil, fmt.Errorf("result %d: %v", i+1, err)
		}
		h.Merge(rh)
		out.Clients += r.Clients
		out.Records += r.Records
		out.Bytes += r.Bytes
		out.WarmupRecords += r.WarmupRecords
		out.Failed += r.Failed
		out.TargetRate += r.TargetRate
		if out.MeasureStart.IsZero() || r.MeasureStart.Before(out.MeasureStart) {
			out.MeasureStart = r.MeasureStart
		}
		if r.MeasureEnd.After(out.MeasureEnd) {
			out.MeasureEnd = r.MeasureEnd
		}
		for _, s := range r.Settings {
			if !seen[s] {
				seen[s] = true
				out.Settings = append(out.Settings, s)
			}
		}
		out.MergedFrom += max(r.MergedFrom, 1)
	}
	sort.Strings(out.Settings)
	if err := out.finish(h); err != nil {
		return nil, err
	}
	return out, nil
}

// UnmarshalJSON also reads target_rate, the name before
// target_records_per_sec.
func (r *Result) UnmarshalJSON(b []byte) error {
	type plain Result
	var v struct {
		plain
		OldTargetRate *float64 `json:"target_rate"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*r = Result(v.plain)
	if v.OldTargetRate != nil && r.TargetRate == 0 {
		r.TargetRate = *v.OldTargetRate
	}
	return nil
}

// ReadResult decodes a JSON result.
func ReadResult(rd io.Reader) (*Result, error) {
	var r Result
	dec := json.NewDecoder(rd)
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("not a kbox perf JSON result: %v", err)
	}
	if r.Kind == "" || r.Histogram == "" {
		return nil, errors.New("not a kbox perf JSON result: kind or histogram missing")
	}
	return &r, nil
}

// Header and Rows implement output.Tabular: one row per metric.
func (r *Result) Header() []string { return []string{"METRIC", "VALUE"} }

// Rows lists the result as metric/value pairs.
func (r *Result) Rows() [][]string {
	f := func(v float64, p int) string { return strconv.FormatFloat(v, 'f', p, 64) }
	rows := [][]string{
		{"kind", r.Kind},
		{"topic", r.Topic},
		{"clients", strconv.Itoa(r.Clients)},
		{"records", strconv.FormatInt(r.Records, 10)},
		{"warmup records (excluded)", strconv.FormatInt(r.WarmupRecords, 10)},
		{"failed", strconv.FormatInt(r.Failed, 10)},
		{"elapsed s", f(r.ElapsedSec, 3)},
		{"records/s", f(r.RecordsPerSec, 1)},
		{"MB/s", f(r.MBPerSec, 2)},
	}
	if r.TargetRate > 0 {
		rows = append(rows, []string{"target records/s", f(r.TargetRate, 1)})
	}
	l := r.Latency
	rows = append(rows,
		[]string{"latency from", r.LatencyBasis},
		[]string{"latency p50 ms", f(l.P50Ms, 3)},
		[]string{"latency p90 ms", f(l.P90Ms, 3)},
		[]string{"latency p95 ms", f(l.P95Ms, 3)},
		[]string{"latency p99 ms", f(l.P99Ms, 3)},
		[]string{"latency p99.9 ms", f(l.P999Ms, 3)},
		[]string{"latency p99.99 ms", f(l.P9999Ms, 3)},
		[]string{"latency max ms", f(l.MaxMs, 3)},
		[]string{"latency mean ms", f(l.MeanMs, 3)},
	)
	if r.MergedFrom > 0 {
		rows = append(rows, []string{"merged runs", strconv.Itoa(r.MergedFrom)})
	}
	rows = append(rows, []string{"settings", strings.Join(r.Settings, " ")})
	return rows
}

// CSVHeader and CSVRows give the final result as one CSV row (no histogram).
func (r *Result) CSVHeader() []string {
	return []string{"kind", "topic", "clients", "records", "bytes", "failed", "elapsed_sec", "records_per_sec", "mb_per_sec",
		"p50_ms", "p90_ms", "p95_ms", "p99_ms", "p99_9_ms", "p99_99_ms", "max_ms", "mean_ms", "latency_basis", "settings"}
}

// CSVRow is the result's CSV row.
func (r *Result) CSVRow() []string {
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	l := r.Latency
	return []string{r.Kind, r.Topic, strconv.Itoa(r.Clients), strconv.FormatInt(r.Records, 10), strconv.FormatInt(r.Bytes, 10),
		strconv.FormatInt(r.Failed, 10), f(r.ElapsedSec), f(r.RecordsPerSec), f(r.MBPerSec),
		f(l.P50Ms), f(l.P90Ms), f(l.P95Ms), f(l.P99Ms), f(l.P999Ms), f(l.P9999Ms), f(l.MaxMs), f(l.MeanMs), r.LatencyBasis, strings.Join(r.Settings, " ")}
}
