package kafka

import (
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/config"
)

const pushClass = "org.apache.kafka.tools.PushHttpMetricsReporter"

func TestPushHttpMetricsReporterProperties(t *testing.T) {
	s, err := Parse(props(t, "metric.reporters="+pushClass+"\nmetrics.url=http://127.0.0.1:9/m\nmetrics.period=2\nmetrics.host=h1\n"), Producer)
	if err != nil {
		t.Fatal(err)
	}
	if s.PushMetrics == nil || s.PushMetrics.URL != "http://127.0.0.1:9/m" || s.PushMetrics.Period != 2*time.Second || s.PushMetrics.Host != "h1" {
		t.Fatalf("push config = %+v", s.PushMetrics)
	}
	for _, ig := range s.Ignored {
		if strings.HasPrefix(ig.Name, "metric") {
			t.Errorf("%s reported as ignored: %s", ig.Name, ig)
		}
	}

	for text, want := range map[string]string{
		"metric.reporters=" + pushClass + "\nmetrics.period=1\n":                         `property metrics.url: Missing required configuration "metrics.url" which has no default value.`,
		"metric.reporters=" + pushClass + "\nmetrics.url=http://h/m\n":                   `property metrics.period: Missing required configuration "metrics.period" which has no default value.`,
		"metric.reporters=" + pushClass + "\nmetrics.url=nope\nmetrics.period=1\n":       "property metrics.url: Malformed metrics.url",
		"metric.reporters=" + pushClass + "\nmetrics.url=http://h/m\nmetrics.period=x\n": "property metrics.period: Invalid value x for configuration metrics.period: Not a number of type INT",
		"metric.reporters=" + pushClass + "\nmetrics.url=http://h/m\nmetrics.period=0\n": "property metrics.period: invalid value 0: must be a positive number of seconds",
	} {
		if _, err := Parse(props(t, text), Consumer); err == nil || err.Error() != want {
			t.Errorf("%q: error %v, want %s", text, err, want)
		}
	}
}

// Any other reporter keeps today's handling: ignored with a warning, and
// the push settings are unknown properties without the push reporter.
func TestOtherMetricReportersAreIgnored(t *testing.T) {
	s, err := Parse(props(t, "metric.reporters=com.example.Reporter\nmetrics.url=http://h/m\nmetrics.period=1\n"), Producer)
	if err != nil {
		t.Fatal(err)
	}
	if s.PushMetrics != nil {
		t.Errorf("push configured without the push reporter: %+v", s.PushMetrics)
	}
	got := map[string]string{}
	for _, ig := range s.Ignored {
		got[ig.Name] = ig.Reason
	}
	if got["metric.reporters"] != reporterReason || got["metrics.url"] != "unknown property" || got["metrics.period"] != "unknown property" {
		t.Errorf("ignored: %v", s.Ignored)
	}

	s, err = Parse(props(t, "metric.reporters=com.example.A,"+pushClass+"\nmetrics.url=http://h/m\nmetrics.period=1\n"), Producer)
	if err != nil || s.PushMetrics == nil {
		t.Fatalf("mixed reporters: %v %+v", err, s)
	}
	if len(s.Ignored) != 1 || !strings.Contains(s.Ignored[0].Reason, "com.example.A") {
		t.Errorf("ignored: %v", s.Ignored)
	}

	s, err = Parse(props(t, "metric.reporters="+pushClass+"\nmetrics.url=http://h/m\nmetrics.period=1\n"), Admin)
	if err != nil || s.PushMetrics != nil {
		t.Fatalf("admin: %v %+v", err, s.PushMetrics)
	}
}

// NewClient records metrics when asked, and not otherwise.
func TestClientMetricsRecorder(t *testing.T) {
	conn := &config.Connection{Bootstrap: []string{"127.0.0.1:1"}, Props: props(t, "client.id=me\n")}
	cl, err := NewClient(conn, Producer, Options{Metrics: true})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	if cl.Metrics == nil || cl.Metrics.ClientID() != "me" {
		t.Fatalf("recorder = %+v", cl.Metrics)
	}
	plain, err := NewClient(conn, Producer, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if plain.Metrics != nil {
		t.Error("recorder without Options.Metrics or a push reporter")
	}
}

// Closing the franz-go client (as the perf producer does before its final
// line) ends the push schedule, as closing a Java client closes its
// reporters.
func TestClosingTheClientStopsThePush(t *testing.T) {
	conn := &config.Connection{Bootstrap: []string{"127.0.0.1:1"},
		Props: props(t, "metric.reporters="+pushClass+"\nmetrics.url=http://127.0.0.1:1/m\nmetrics.period=60\n")}
	cl, err := NewClient(conn, Consumer, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Metrics == nil || cl.pusher == nil {
		t.Fatal("no recorder or pusher with PushHttpMetricsReporter configured")
	}
	cl.Client.Close()
	select {
	case <-cl.pusher.Stopped():
	case <-time.After(10 * time.Second):
		t.Fatal("push schedule still runs after the franz-go client closed")
	}
	cl.Close() // and again, harmlessly
}

func TestMetricWindows(t *testing.T) {
	s, err := Parse(props(t, "metrics.sample.window.ms=1000\nmetrics.num.samples=3\n"), Producer)
	if err != nil || s.MetricsWindow != time.Second || s.MetricsSamples != 3 || len(s.Ignored) != 0 {
		t.Fatalf("windows: %v %v %v ignored %v", err, s.MetricsWindow, s.MetricsSamples, s.Ignored)
	}
	d, _ := Parse(nil, Consumer)
	if d.MetricsWindow != 30*time.Second || d.MetricsSamples != 2 {
		t.Errorf("Java's defaults: %v x %d", d.MetricsWindow, d.MetricsSamples)
	}
	for text, want := range map[string]string{
		"metrics.sample.window.ms=0\n": "property metrics.sample.window.ms: invalid value 0: must be at least 1",
		"metrics.num.samples=0\n":      "property metrics.num.samples: invalid value \"0\": must be between 1 and 2147483647",
	} {
		if _, err := Parse(props(t, text), Producer); err == nil || err.Error() != want {
			t.Errorf("%q: %v, want %s", text, err, want)
		}
	}
}
