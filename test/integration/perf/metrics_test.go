//go:build integration

package perf_test

import (
	"bytes"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// ---------------------------------------------------------------- --print-metrics

// metricsTable is a parsed ToolsUtils.printMetrics table.
type metricsTable struct {
	width int               // the name column
	rows  map[string]string // normalised name → printed value
	order []string          // printed names, as printed
}

var metricNameRE = regexp.MustCompile(`^[a-z-]+:[a-z0-9-]+:\{[^{}]*\}$`)

// parseMetricsTable checks the layout rules of the table that follows the
// summary lines (an empty line, "Metric Name" padded to the longest name,
// three spaces, "Value"; rows "name : value" padded the same way, sorted)
// and returns its rows. norm rewrites a name for comparison (the topic).
func parseMetricsTable(t *testing.T, who, out string, norm func(string) string) metricsTable {
	t.Helper()
	ls := lines(out)
	h := -1
	for i, l := range ls {
		if strings.HasPrefix(l, "Metric Name ") {
			h = i
			break
		}
	}
	if h < 1 || ls[h-1] != "" {
		t.Fatalf("%s: no empty line and Metric Name header:\n%s", who, out)
	}
	head := ls[h]
	if !strings.HasSuffix(head, "   Value") {
		t.Fatalf("%s: header %q does not end in three spaces and Value", who, head)
	}
	width := utf8.RuneCountInString(head) - len("   Value")
	tab := metricsTable{width: width, rows: map[string]string{}}
	longest := 0
	for _, l := range ls[h+1:] {
		if utf8.RuneCountInString(l) < width+3 || l[width:width+3] != " : " {
			t.Errorf("%s: row %q has no \" : \" at column %d", who, l, width)
			continue
		}
		name := strings.TrimRight(l[:width], " ")
		val := l[width+3:]
		if !metricNameRE.MatchString(name) {
			t.Errorf("%s: %q is not group:name:{tags}", who, name)
		}
		longest = max(longest, utf8.RuneCountInString(name))
		tab.order = append(tab.order, name)
		tab.rows[norm(name)] = val
	}
	if longest != width {
		t.Errorf("%s: header padded to %d, longest name is %d", who, width, longest)
	}
	if !sort.StringsAreSorted(tab.order) {
		t.Errorf("%s: rows are not sorted by name:\n%s", who, strings.Join(tab.order, "\n"))
	}
	if len(tab.rows) == 0 {
		t.Errorf("%s: no metric rows", who)
	}
	return tab
}

// checkTableFollows checks that the table comes right after the last line
// that is, and is the end of the output.
func checkTableFollows(t *testing.T, who, out string, last func(string) bool) {
	t.Helper()
	ls := lines(out)
	i := len(ls) - 1
	for i >= 0 && !last(ls[i]) {
		i--
	}
	if i < 0 || i+2 >= len(ls) || ls[i+1] != "" || !strings.HasPrefix(ls[i+2], "Metric Name ") {
		t.Errorf("%s: the table does not follow the summary line:\n%s", who, out)
	}
}

var doubleRE = regexp.MustCompile(`^(?:-?\d+\.\d{3}|NaN|-?Infinity)$`)

func topicNorm(topic string) func(string) string {
	return func(s string) string { return strings.ReplaceAll(s, "topic="+topic, "topic=T") }
}

func metricValue(t *testing.T, tab metricsTable, name string) float64 {
	t.Helper()
	v, ok := tab.rows[name]
	if !ok {
		t.Fatalf("no row %s", name)
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		t.Fatalf("%s = %q: %v", name, v, err)
	}
	return f
}

// compareTables checks that every kbox row is a metric the Apache tool
// prints (same group, name and tags; topics normalised), with a double
// value printed as Apache prints a double, except the names in extra.
func compareTables(t *testing.T, a, k metricsTable, extra func(string) bool) {
	t.Helper()
	for name, v := range k.rows {
		if !doubleRE.MatchString(v) {
			t.Errorf("kbox %s = %q, not Java's %%.3f", name, v)
		}
		av, ok := a.rows[name]
		switch {
		case !ok && !extra(name):
			t.Errorf("kbox prints %s, which Apache does not", name)
		case ok && !doubleRE.MatchString(av):
			t.Errorf("Apache prints %s = %q, kbox a double %q", name, av, v)
		}
	}
}

func TestPrintMetricsIntegration(t *testing.T) {
	bs := cluster.Bootstrap
	createTopic(t, "pm-apache", 2)
	createTopic(t, "pm-kbox", 2)
	const n = 2000
	prod := func(topic string) []string {
		return []string{"--topic", topic, "--num-records", strconv.Itoa(n), "--record-size", "100", "--throughput", "-1", "--bootstrap-server", bs, "--print-metrics"}
	}
	a := apache(t, "kafka-producer-perf-test", prod("pm-apache")...)
	k := applet(t, "kafka-producer-perf-test", prod("pm-kbox")...)
	if a.Code != 0 || k.Code != 0 {
		t.Fatalf("apache: %s\nkbox: %s", a, k)
	}
	if k.Stderr != "" {
		t.Errorf("kbox wrote to stderr: %q", k.Stderr)
	}
	t.Run("producer", func(t *testing.T) {
		// The final line, then the table.
		for who, out := range map[string]string{"apache": a.Stdout, "kbox": k.Stdout} {
			checkTableFollows(t, who, out, func(l string) bool { return producerKind(l) == "final" })
		}
		at := parseMetricsTable(t, "apache", a.Stdout, topicNorm("pm-apache"))
		kt := parseMetricsTable(t, "kbox", k.Stdout, topicNorm("pm-kbox"))
		compareTables(t, at, kt, func(string) bool { return false })
		// The rows that carry the same meaning in both.
		for _, name := range []string{
			"producer-metrics:record-send-total:{client-id=perf-producer-client}",
			"producer-topic-metrics:record-send-total:{client-id=perf-producer-client, topic=T}",
		} {
			if av, kv := metricValue(t, at, name), metricValue(t, kt, name); av != n || kv != n {
				t.Errorf("%s: apache %v, kbox %v, want %d", name, av, kv, n)
			}
		}
		for _, name := range []string{
			"producer-metrics:outgoing-byte-total:{client-id=perf-producer-client}",
			"producer-topic-metrics:byte-total:{client-id=perf-producer-client, topic=T}",
		} {
			// Same records: about the same bytes.
			av, kv := metricValue(t, at, name), metricValue(t, kt, name)
			if !(kv > av/1.5 && kv < av*1.5) {
				t.Errorf("%s: kbox %v, apache %v: not within a factor of 1.5", name, kv, av)
			}
		}
		// Rates follow Java's windows in both: the total over the time since
		// the client started, counted as at least one full 30 s window
		// (the runs are shorter than a window).
		for _, base := range []string{"producer-metrics:record-send", "producer-metrics:outgoing-byte", "producer-topic-metrics:record-send"} {
			for who, x := range map[string]struct {
				tab  metricsTable
				took time.Duration
			}{"apache": {at, a.Took}, "kbox": {kt, k.Took}} {
				tags := ":{client-id=perf-producer-client}"
				if strings.HasPrefix(base, "producer-topic") {
					tags = ":{client-id=perf-producer-client, topic=T}"
				}
				rate, total := metricValue(t, x.tab, base+"-rate"+tags), metricValue(t, x.tab, base+"-total"+tags)
				if w := total / rate; w < 29.9 || w > 30+x.took.Seconds()+1 {
					t.Errorf("%s %s: total/rate = %.2f s, want 30..%.0f s (run %s)", who, base, w, 30+x.took.Seconds()+1, x.took)
				}
			}
		}
		if kv := metricValue(t, kt, "producer-metrics:record-error-total:{client-id=perf-producer-client}"); kv != 0 {
			t.Errorf("record-error-total = %v", kv)
		}
		t.Logf("kbox prints %d of Apache's %d rows", len(kt.rows), len(at.rows))
	})

	t.Run("consumer", func(t *testing.T) {
		cons := func(topic string) []string {
			return []string{"--topic", topic, "--num-records", strconv.Itoa(n), "--bootstrap-server", bs, "--print-metrics", "--timeout", "30000"}
		}
		a := apache(t, "kafka-consumer-perf-test", cons("pm-apache")...)
		k := applet(t, "kafka-consumer-perf-test", cons("pm-kbox")...)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		for who, out := range map[string]string{"apache": a.Stdout, "kbox": k.Stdout} {
			checkTableFollows(t, who, out, func(l string) bool { return consumerKind(l) == "summary" })
		}
		at := parseMetricsTable(t, "apache", a.Stdout, topicNorm("pm-apache"))
		kt := parseMetricsTable(t, "kbox", k.Stdout, topicNorm("pm-kbox"))
		// Java has per-topic consumed bytes and records too, but removes
		// them when the consumer closes, before the Apache tool prints.
		perTopic := regexp.MustCompile(`^consumer-fetch-manager-metrics:(bytes|records)-consumed-(rate|total):\{client-id=perf-consumer-client, topic=T\}$`)
		// A partition's lag rows appear once a poll returns records from
		// it. Both producers pick partitions at random (Java's sticky
		// partitioner may stay on one for the whole run), so a partition
		// empty in Apache's topic has no rows there.
		perPartition := regexp.MustCompile(`^consumer-fetch-manager-metrics:records-lag(-avg|-max)?:\{client-id=perf-consumer-client, topic=T, partition=(\d+)\}$`)
		apacheEnds := partitionEnds(t, "pm-apache")
		t.Logf("records per partition: apache %v, kbox %v", apacheEnds, partitionEnds(t, "pm-kbox"))
		compareTables(t, at, kt, func(name string) bool {
			if perTopic.MatchString(name) {
				return true
			}
			m := perPartition.FindStringSubmatch(name)
			if m == nil {
				return false
			}
			p, _ := strconv.Atoi(m[2])
			return apacheEnds[int32(p)] == 0
		})
		if v := metricValue(t, kt, "consumer-fetch-manager-metrics:records-consumed-total:{client-id=perf-consumer-client}"); v != n {
			t.Errorf("records-consumed-total = %v, want %d", v, n)
		}
		if v := metricValue(t, kt, "consumer-fetch-manager-metrics:bytes-consumed-total:{client-id=perf-consumer-client}"); v < n*100 || v > n*130 {
			t.Errorf("bytes-consumed-total = %v for %d records of 100 bytes", v, n)
		}
		// Both report the largest partition lag the same way; it cannot
		// exceed the records in the topic.
		if v := metricValue(t, kt, "consumer-fetch-manager-metrics:records-lag-max:{client-id=perf-consumer-client}"); math.IsNaN(v) || v < 0 || v >= n {
			t.Errorf("records-lag-max = %v", v)
		}
		t.Logf("kbox prints %d of Apache's %d rows", len(kt.rows), len(at.rows))
	})
}

// ---------------------------------------------------------------- PushHttpMetricsReporter

type push struct {
	at   time.Time
	body []byte
}

// pushSink is the HTTP listener of Kafka's system tests (HttpMetricsCollector):
// it keeps every POST by path and answers 204.
type pushSink struct {
	srv *httptest.Server
	mu  sync.Mutex
	got map[string][]push
}

func newPushSink(t *testing.T) *pushSink {
	s := &pushSink{got: map[string][]push{}}
	s.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.Method != http.MethodPost || r.Header.Get("Content-Type") != "application/json" {
			t.Errorf("%s %s with Content-Type %q", r.Method, r.URL.Path, r.Header.Get("Content-Type"))
		}
		s.mu.Lock()
		s.got[r.URL.Path] = append(s.got[r.URL.Path], push{time.Now(), b})
		s.mu.Unlock()
		w.WriteHeader(http.StatusNoContent)
	}))
	t.Cleanup(s.srv.Close)
	return s
}

func (s *pushSink) pushes(path string) []push {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]push(nil), s.got[path]...)
}

// walkJSON appends the path of every object key of the next value, in the
// order of the body (encoding/json maps lose it).
func walkJSON(t *testing.T, d *json.Decoder, path string, out *[]string) {
	t.Helper()
	tok, err := d.Token()
	if err != nil {
		t.Fatalf("JSON: %v", err)
	}
	switch tok {
	case json.Delim('{'):
		for d.More() {
			k, err := d.Token()
			if err != nil {
				t.Fatalf("JSON: %v", err)
			}
			p := path + "." + k.(string)
			*out = append(*out, p)
			walkJSON(t, d, p, out)
		}
		_, _ = d.Token()
	case json.Delim('['):
		for d.More() {
			walkJSON(t, d, path+"[]", out)
		}
		_, _ = d.Token()
	}
}

type pushedMetric struct {
	Name  string            `json:"name"`
	Group string            `json:"group"`
	Tags  map[string]string `json:"tags"`
	Value any               `json:"value"`
}

type pushedReport struct {
	Client struct {
		Host     string `json:"host"`
		ClientID string `json:"client_id"`
		Time     int64  `json:"time"`
	} `json:"client"`
	Metrics []pushedMetric `json:"metrics"`
}

func decodePush(t *testing.T, p push) pushedReport {
	t.Helper()
	var r pushedReport
	if err := json.Unmarshal(p.body, &r); err != nil {
		t.Fatalf("push %s: %v", p.body, err)
	}
	return r
}

func (r pushedReport) value(group, name, clientID string) (float64, bool) {
	for _, m := range r.Metrics {
		if m.Group == group && m.Name == name && len(m.Tags) == 1 && m.Tags["client-id"] == clientID {
			f, ok := m.Value.(float64)
			return f, ok
		}
	}
	return 0, false
}

// keyOrder is the order in which the body's keys first appear, tag names
// left out (they depend on the metric).
func keyOrder(t *testing.T, b []byte) string {
	t.Helper()
	var ks []string
	walkJSON(t, json.NewDecoder(bytes.NewReader(b)), "", &ks)
	var out []string
	seen := map[string]bool{}
	for _, k := range ks {
		if !seen[k] && !strings.Contains(k, ".tags.") {
			seen[k] = true
			out = append(out, k)
		}
	}
	return strings.Join(out, " ")
}

func TestPushHttpMetricsReporterIntegration(t *testing.T) {
	bs := cluster.Bootstrap
	createTopic(t, "push", 2)
	sink := newPushSink(t)
	// 2000 records of 1000 bytes at 500 records/s: about 4 s of sending,
	// a push every second (the system tests' period).
	args := func(who string) []string {
		return []string{"--topic", "push", "--num-records", "2000", "--record-size", "1000", "--throughput", "500",
			"--producer-props", "bootstrap.servers=" + bs, "client.id=push-" + who,
			"metric.reporters=org.apache.kafka.tools.PushHttpMetricsReporter",
			"metrics.url=" + sink.srv.URL + "/" + who, "metrics.period=1"}
	}
	a := apache(t, "kafka-producer-perf-test", args("apache")...)
	k := applet(t, "kafka-producer-perf-test", args("kbox")...)
	if a.Code != 0 || k.Code != 0 {
		t.Fatalf("apache: %s\nkbox: %s", a, k)
	}
	if strings.Contains(k.Stderr, "metric") {
		t.Errorf("kbox warned about the reporter properties: %q", k.Stderr)
	}
	ap, kp := sink.pushes("/apache"), sink.pushes("/kbox")
	if len(ap) < 2 || len(kp) < 2 {
		t.Fatalf("pushes: apache %d, kbox %d; want at least 2 each for a 4 s run", len(ap), len(kp))
	}
	t.Logf("pushes: apache %d (run %s), kbox %d (run %s)", len(ap), a.Took.Round(time.Millisecond), len(kp), k.Took.Round(time.Millisecond))

	// The same body structure: keys and their order.
	if ak, kk := keyOrder(t, ap[len(ap)-1].body), keyOrder(t, kp[len(kp)-1].body); ak != kk {
		t.Errorf("JSON keys differ:\napache: %s\nkbox:   %s", ak, kk)
	}
	ar, kr := decodePush(t, ap[len(ap)-1]), decodePush(t, kp[len(kp)-1])
	if kr.Client.ClientID != "push-kbox" || ar.Client.ClientID != "push-apache" {
		t.Errorf("client ids: apache %q, kbox %q", ar.Client.ClientID, kr.Client.ClientID)
	}
	if kr.Client.Host != ar.Client.Host {
		t.Errorf("host: kbox %q, apache %q (the same machine's canonical name)", kr.Client.Host, ar.Client.Host)
	}
	// Every metric kbox pushes is one Java pushes (same group, name and
	// tag keys), with a number or "NaN" as Jackson writes a Double.
	javaNames := map[string]bool{}
	for _, m := range ar.Metrics {
		javaNames[m.Group+":"+m.Name+":"+tagKeys(m.Tags)] = true
	}
	for _, m := range kr.Metrics {
		if !javaNames[m.Group+":"+m.Name+":"+tagKeys(m.Tags)] {
			t.Errorf("kbox pushes %s:%s %v, which Java does not", m.Group, m.Name, m.Tags)
		}
		if _, num := m.Value.(float64); !num && m.Value != "NaN" {
			t.Errorf("kbox pushes %s:%s = %#v", m.Group, m.Name, m.Value)
		}
	}

	// The period: pushes one second apart (client.time), as Java's fixed
	// rate schedule.
	var gaps []float64
	for i := 1; i < len(kp); i++ {
		gaps = append(gaps, float64(decodePush(t, kp[i]).Client.Time-decodePush(t, kp[i-1]).Client.Time))
	}
	sort.Float64s(gaps)
	if med := gaps[len(gaps)/2]; med < 500 || med > 2000 {
		t.Errorf("median gap between kbox pushes %v ms, want about 1000 (metrics.period=1): %v", med, gaps)
	}

	// outgoing-byte-rate: present, sane against the bytes sent and Java's
	// 30 s windows, and close to what Java pushes for the same run.
	// (Java's first pushes may come before the producer has registered its
	// metrics; kbox registers them with the client.)
	maxRate := func(ps []push, id string, every bool) (rate, total float64) {
		seen := false
		for _, p := range ps {
			r := decodePush(t, p)
			v, ok := r.value("producer-metrics", "outgoing-byte-rate", id)
			if !ok && every {
				t.Fatalf("%s push without producer-metrics:outgoing-byte-rate: %s", id, p.body)
			}
			seen = seen || ok
			tot, _ := r.value("producer-metrics", "outgoing-byte-total", id)
			if v > rate {
				rate, total = v, tot
			}
		}
		if !seen {
			t.Fatalf("%s: no push with producer-metrics:outgoing-byte-rate", id)
		}
		return
	}
	kRate, kTotal := maxRate(kp, "push-kbox", true)
	aRate, aTotal := maxRate(ap, "push-apache", false)
	// Java's rate is the bytes over the time since the client started,
	// counted as at least one full 30 s window: total/rate is between 30 s
	// and 30 s plus the run, in both tools. (The two rates themselves
	// differ by how long each run took on a loaded machine.)
	for who, x := range map[string]struct {
		rate, total float64
		took        time.Duration
	}{"apache": {aRate, aTotal, a.Took}, "kbox": {kRate, kTotal, k.Took}} {
		if w := x.total / x.rate; x.rate <= 0 || w < 29.9 || w > 30+x.took.Seconds()+2 {
			t.Errorf("%s outgoing-byte-total/rate = %.0f/%.0f = %.1f s, want 30..%.0f s", who, x.total, x.rate, w, 30+x.took.Seconds()+2)
		}
	}
	if last, _ := kr.value("producer-metrics", "outgoing-byte-total", "push-kbox"); last < 1000*1000 {
		t.Errorf("last push counts %.0f bytes sent; 2000 records of 1000 bytes were sent over ~4 s", last)
	}
	t.Logf("max outgoing-byte-rate: apache %.0f B/s, kbox %.0f B/s", aRate, kRate)
}

func tagKeys(m map[string]string) string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return strings.Join(ks, ",")
}

// The consumer perf test pushes too (--consumer.config), with the
// consumer's metrics; a bad reporter configuration is one line, exit 1.
func TestPushHttpMetricsReporterConsumerIntegration(t *testing.T) {
	bs := cluster.Bootstrap
	createTopic(t, "push-cons", 1)
	if p := applet(t, "kafka-producer-perf-test", "--topic", "push-cons", "--num-records", "500", "--record-size", "100", "--throughput", "-1", "--bootstrap-server", bs); p.Code != 0 {
		t.Fatal(p)
	}
	sink := newPushSink(t)
	dir := t.TempDir()
	cfg := filepath.Join(dir, "consumer.properties")
	if err := os.WriteFile(cfg, []byte("metric.reporters=org.apache.kafka.tools.PushHttpMetricsReporter\nmetrics.url="+sink.srv.URL+"/c\nmetrics.period=1\nclient.id=push-cons\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// 1000 records asked, 500 there: the tool waits out --timeout (3 s).
	k := applet(t, "kafka-consumer-perf-test", "--topic", "push-cons", "--num-records", "1000", "--timeout", "3000", "--bootstrap-server", bs, "--command-config", cfg)
	if k.Code != 0 {
		t.Fatal(k)
	}
	ps := sink.pushes("/c")
	if len(ps) < 1 {
		t.Fatalf("no push in a %s run", k.Took)
	}
	r := decodePush(t, ps[len(ps)-1])
	if v, ok := r.value("consumer-fetch-manager-metrics", "records-consumed-total", "push-cons"); !ok || v != 500 {
		t.Errorf("records-consumed-total = %v (%v), want 500: %s", v, ok, ps[len(ps)-1].body)
	}
	if _, ok := r.value("consumer-metrics", "incoming-byte-rate", "push-cons"); !ok {
		t.Errorf("no consumer-metrics:incoming-byte-rate")
	}

	bad := filepath.Join(dir, "bad.properties")
	if err := os.WriteFile(bad, []byte("metric.reporters=org.apache.kafka.tools.PushHttpMetricsReporter\nmetrics.period=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	b := applet(t, "kafka-consumer-perf-test", "--topic", "push-cons", "--num-records", "1", "--bootstrap-server", bs, "--command-config", bad)
	if b.Code != 1 || !strings.Contains(b.Stderr, `Missing required configuration "metrics.url"`) || strings.Count(strings.TrimSpace(b.Stderr), "\n") != 0 {
		t.Errorf("missing metrics.url: %s", b)
	}
}
