package perf

import (
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// Latency is an HDR histogram of latencies in microseconds (1 µs to 1 h,
// 3 significant digits). It is safe for concurrent use.
type Latency struct {
	mu sync.Mutex
	h  *hdr.Histogram
}

const (
	latMin    = 1
	latMax    = int64(time.Hour / time.Microsecond)
	latDigits = 3
)

// NewLatency returns an empty histogram.
func NewLatency() *Latency { return &Latency{h: hdr.New(latMin, latMax, latDigits)} }

// Record adds one latency. Values are clamped to the histogram's range.
func (l *Latency) Record(d time.Duration) {
	us := int64(d / time.Microsecond)
	if us < latMin {
		us = latMin
	} else if us > latMax {
		us = latMax
	}
	l.mu.Lock()
	_ = l.h.RecordValue(us)
	l.mu.Unlock()
}

// Merge adds every value of o.
func (l *Latency) Merge(o *Latency) {
	if o == nil || o == l {
		return
	}
	o.mu.Lock()
	c := o.h.Clone()
	o.mu.Unlock()
	l.mu.Lock()
	l.h.Merge(c)
	l.mu.Unlock()
}

// TakeAndReset returns a copy of the histogram and empties it (interval
// series).
func (l *Latency) TakeAndReset() *Latency {
	l.mu.Lock()
	defer l.mu.Unlock()
	c := &Latency{h: l.h.Clone()}
	l.h.Reset()
	return c
}

// Snapshot returns a copy of the histogram as it is now.
func (l *Latency) Snapshot() *Latency {
	l.mu.Lock()
	defer l.mu.Unlock()
	return &Latency{h: l.h.Clone()}
}

// Count is the number of recorded values.
func (l *Latency) Count() int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.h.TotalCount()
}

// Summary returns the percentiles in milliseconds.
func (l *Latency) Summary() LatencySummary {
	l.mu.Lock()
	defer l.mu.Unlock()
	ms := func(us int64) float64 { return float64(us) / 1000 }
	if l.h.TotalCount() == 0 {
		return LatencySummary{}
	}
	return LatencySummary{
		Count:   l.h.TotalCount(),
		MinMs:   ms(l.h.Min()),
		MeanMs:  l.h.Mean() / 1000,
		P50Ms:   ms(l.h.ValueAtQuantile(50)),
		P90Ms:   ms(l.h.ValueAtQuantile(90)),
		P95Ms:   ms(l.h.ValueAtQuantile(95)),
		P99Ms:   ms(l.h.ValueAtQuantile(99)),
		P999Ms:  ms(l.h.ValueAtQuantile(99.9)),
		P9999Ms: ms(l.h.ValueAtQuantile(99.99)),
		MaxMs:   ms(l.h.Max()),
	}
}

// Encode returns the standard HdrHistogram V2 compressed base64 form,
// readable by every HdrHistogram implementation.
func (l *Latency) Encode() (string, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	b, err := l.h.Encode(hdr.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

// DecodeLatency parses Encode's output.
func DecodeLatency(s string) (*Latency, error) {
	if s == "" {
		return nil, errors.New("empty histogram")
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("bad histogram: %v", err)
	}
	return &Latency{h: h}, nil
}

// WriteApacheE2E prints kafka-e2e-latency's two final lines for the
// recorded latencies (a merged distributed e2e run's): the mean given
// (Apache's is over the exact values) and the percentiles as Apache picks
// them from its sorted array.
func (l *Latency) WriteApacheE2E(w io.Writer, meanMs float64) error {
	return writeApacheE2ELines(w, meanMs, l.apacheIndexMs)
}

// apacheIndexMs is the value, in whole milliseconds, at 0-based index
// (int)(n*p) of the sorted recorded values, as Apache's tools pick a
// percentile from a sorted array (within the histogram's precision: each
// value is the lowest of its bucket).
func (l *Latency) apacheIndexMs(p float64) int64 {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := l.h.TotalCount()
	if n == 0 {
		return 0
	}
	idx := int64(float64(n) * p)
	var cum int64
	for _, b := range l.h.Distribution() {
		cum += b.Count
		if cum > idx {
			return b.From / 1000
		}
	}
	return l.h.Max() / 1000
}

// LatencySummary is the latency distribution in milliseconds.
type LatencySummary struct {
	Count   int64   `json:"count"`
	MinMs   float64 `json:"min_ms"`
	MeanMs  float64 `json:"mean_ms"`
	P50Ms   float64 `json:"p50_ms"`
	P90Ms   float64 `json:"p90_ms"`
	P95Ms   float64 `json:"p95_ms"`
	P99Ms   float64 `json:"p99_ms"`
	P999Ms  float64 `json:"p99_9_ms"`
	P9999Ms float64 `json:"p99_99_ms"`
	MaxMs   float64 `json:"max_ms"`
}
