// Package metrics measures a Kafka client's activity the way the Java
// client's metrics registry does (org.apache.kafka.common.metrics): the same
// metric names, groups and tags where kbox measures the same thing, and the
// same windowed statistics (rates over sampled windows, averages and maxima
// over the same windows, cumulative totals). It also formats the registry
// as ToolsUtils.printMetrics does and pushes it as the system tests'
// PushHttpMetricsReporter does.
package metrics

import "math"

// Config is Java's MetricConfig: the statistics are kept in Samples windows
// of WindowMs each (metrics.num.samples, metrics.sample.window.ms).
type Config struct {
	WindowMs int64
	Samples  int
}

// DefaultConfig is the Java client's default: two windows of 30 s.
var DefaultConfig = Config{WindowMs: 30000, Samples: 2}

// stat is one measurable statistic fed by a sensor.
type stat interface {
	record(cfg Config, v float64, now int64)
	measure(cfg Config, now int64) float64
}

type sample struct {
	value      float64
	count      int64
	start      int64
	lastEvent  int64
	initialVal float64
}

func (s *sample) reset(now int64) {
	s.value, s.count, s.start, s.lastEvent = s.initialVal, 0, now, now
}

// sampled is SampledStat: a ring of Samples+1 windows (one extra for the
// window that overlaps the monitored span), a window ending after WindowMs.
type sampled struct {
	initial float64
	update  func(s *sample, v float64)
	combine func(samples []sample) float64
	current int
	samples []sample
}

func (st *sampled) cur(now int64) *sample {
	if len(st.samples) == 0 {
		st.samples = append(st.samples, sample{value: st.initial, start: now, lastEvent: now, initialVal: st.initial})
	}
	return &st.samples[st.current]
}

func (st *sampled) record(cfg Config, v float64, now int64) {
	s := st.cur(now)
	if now-s.start >= cfg.WindowMs {
		st.current = (st.current + 1) % (cfg.Samples + 1)
		if st.current >= len(st.samples) {
			st.samples = append(st.samples, sample{value: st.initial, start: now, lastEvent: now, initialVal: st.initial})
		} else {
			st.samples[st.current].reset(now)
		}
		s = &st.samples[st.current]
	}
	st.update(s, v)
	s.count++
	s.lastEvent = now
}

// purge resets the samples with no event within the monitored span.
func (st *sampled) purge(cfg Config, now int64) {
	expire := int64(cfg.Samples) * cfg.WindowMs
	for i := range st.samples {
		if now-st.samples[i].lastEvent >= expire {
			st.samples[i].reset(now)
		}
	}
}

func (st *sampled) measure(cfg Config, now int64) float64 {
	st.purge(cfg, now)
	return st.combine(st.samples)
}

func (st *sampled) oldestStart(now int64) int64 {
	if len(st.samples) == 0 {
		st.cur(now)
	}
	o := st.samples[0].start
	for _, s := range st.samples[1:] {
		if s.start < o {
			o = s.start
		}
	}
	return o
}

func newWindowedSum() *sampled {
	return &sampled{
		update: func(s *sample, v float64) { s.value += v },
		combine: func(ss []sample) float64 {
			t := 0.0
			for _, s := range ss {
				t += s.value
			}
			return t
		},
	}
}

func newWindowedCount() *sampled {
	st := newWindowedSum()
	st.update = func(s *sample, _ float64) { s.value++ }
	return st
}

func newAvg() *sampled {
	return &sampled{
		update: func(s *sample, v float64) { s.value += v },
		combine: func(ss []sample) float64 {
			t, n := 0.0, int64(0)
			for _, s := range ss {
				t += s.value
				n += s.count
			}
			if n == 0 {
				return math.NaN()
			}
			return t / float64(n)
		},
	}
}

func newMax() *sampled {
	return &sampled{
		initial: math.Inf(-1),
		update:  func(s *sample, v float64) { s.value = math.Max(s.value, v) },
		combine: func(ss []sample) float64 {
			m, n := math.Inf(-1), int64(0)
			for _, s := range ss {
				m = math.Max(m, s.value)
				n += s.count
			}
			if n == 0 {
				return math.NaN()
			}
			return m
		},
	}
}

// rate is Rate (per second) over a windowed sum or count: the windowed
// total divided by the time since the oldest window started, counted as at
// least Samples-1 full windows.
type rate struct{ st *sampled }

func (r rate) record(cfg Config, v float64, now int64) { r.st.record(cfg, v, now) }

func (r rate) measure(cfg Config, now int64) float64 {
	v := r.st.measure(cfg, now)
	return v / (float64(r.windowMs(cfg, now)) / 1000)
}

func (r rate) windowMs(cfg Config, now int64) int64 {
	r.st.purge(cfg, now)
	elapsed := now - r.st.oldestStart(now)
	full := elapsed / cfg.WindowMs
	if min := int64(cfg.Samples - 1); full < min {
		elapsed += (min - full) * cfg.WindowMs
	}
	return max(elapsed, 1)
}

// total is CumulativeSum (or CumulativeCount when count is set).
type total struct {
	v     float64
	count bool
}

func (t *total) record(_ Config, v float64, _ int64) {
	if t.count {
		t.v++
	} else {
		t.v += v
	}
}

func (t *total) measure(Config, int64) float64 { return t.v }

// gauge is a value set by the recorder (connection-count, records-lag).
type gauge struct{ v float64 }

func (g *gauge) record(_ Config, v float64, _ int64) { g.v = v }
func (g *gauge) measure(Config, int64) float64       { return g.v }
