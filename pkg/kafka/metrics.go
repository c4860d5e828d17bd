package kafka

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
	"github.com/kboxdev/kbox/pkg/metrics"
)

const reporterReason = "Java metric reporters do not apply to a Go client"

// metricsRows are the metric reporter properties: metric.reporters, and the
// settings of the one reporter kbox implements (PushHttpMetricsReporter,
// which Kafka's system tests use to read a perf producer's metrics).
func metricsRows() map[string]property {
	raw := func(name string) func(*Settings, string) error {
		return func(s *Settings, v string) error {
			if s.reporterProps == nil {
				s.reporterProps = map[string]string{}
			}
			s.reporterProps[name] = v
			return nil
		}
	}
	return map[string]property{
		"metric.reporters": {roles: Common, apply: func(s *Settings, v string) error { s.metricReporters = config.SplitList(v); return nil }},
		"metrics.url":      {roles: Common, apply: raw("metrics.url")},
		"metrics.period":   {roles: Common, apply: raw("metrics.period")},
		"metrics.host":     {roles: Common, apply: raw("metrics.host")},
		// The windows of the metrics kbox measures (--print-metrics, the
		// push reporter), as Java's MetricConfig.
		"metrics.num.samples":      {roles: Common, apply: intv(1, math.MaxInt32, func(s *Settings) *int { return &s.MetricsSamples })},
		"metrics.sample.window.ms": {roles: Common, apply: durMs(func(s *Settings) *time.Duration { return &s.MetricsWindow })},
	}
}

// finishMetrics decides the metric reporters: PushHttpMetricsReporter is
// configured as Java configures it (metrics.url and metrics.period
// required); any other reporter class is ignored with a warning, as before.
func (s *Settings) finishMetrics() error {
	if s.MetricsWindow < time.Millisecond {
		return &PropertyError{"metrics.sample.window.ms", "invalid value 0: must be at least 1"}
	}
	var others []string
	push := false
	for _, c := range s.metricReporters {
		if c == metrics.ReporterClass {
			push = true
		} else {
			others = append(others, c)
		}
	}
	if len(others) > 0 {
		reason := reporterReason
		if push {
			reason = fmt.Sprintf("%s: %s", strings.Join(others, ","), reporterReason)
		}
		s.Ignored = append(s.Ignored, Ignored{Name: "metric.reporters", Reason: reason})
	}
	if !push || s.Role == Admin {
		if push {
			s.Ignored = append(s.Ignored, Ignored{Name: "metric.reporters", Reason: "kbox pushes the metrics of producers and consumers only"})
		}
		for _, k := range []string{"metrics.url", "metrics.period", "metrics.host"} {
			if _, ok := s.reporterProps[k]; ok {
				s.Ignored = append(s.Ignored, Ignored{Name: k, Reason: "unknown property"})
			}
		}
		return nil
	}
	missing := func(k string) error {
		return &PropertyError{k, fmt.Sprintf("Missing required configuration \"%s\" which has no default value.", k)}
	}
	raw, ok := s.reporterProps["metrics.url"]
	if !ok {
		return missing("metrics.url")
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme == "" || u.Host == "" {
		return &PropertyError{"metrics.url", "Malformed metrics.url"}
	}
	if u.Scheme != "http" && u.Scheme != "https" {
		return &PropertyError{"metrics.url", fmt.Sprintf("unsupported scheme %q (http or https)", u.Scheme)}
	}
	p, ok := s.reporterProps["metrics.period"]
	if !ok {
		return missing("metrics.period")
	}
	sec, err := strconv.ParseInt(strings.TrimSpace(p), 10, 32)
	if err != nil {
		return &PropertyError{"metrics.period", fmt.Sprintf("Invalid value %s for configuration metrics.period: Not a number of type INT", p)}
	}
	if sec <= 0 {
		return &PropertyError{"metrics.period", fmt.Sprintf("invalid value %d: must be a positive number of seconds", sec)}
	}
	s.PushMetrics = &metrics.PushConfig{URL: u.String(), Period: time.Duration(sec) * time.Second, Host: strings.TrimSpace(s.reporterProps["metrics.host"])}
	return nil
}
