package exporter

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"
	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// testCluster is a kfake cluster with topics orders (3 partitions, 30
// records) and logs (1), and groups billing (committed 5 on each orders
// partition, lagging) and done (caught up on logs). requests counts the
// requests a refresh makes that no client makes on its own.
type testCluster struct {
	c        *kfake.Cluster
	requests atomic.Int64
}

func newTestCluster(t *testing.T) *testCluster {
	t.Helper()
	tc := &testCluster{}
	c, err := kfake.NewCluster(kfake.NumBrokers(3), kfake.ClusterID("exp-test"), kfake.SeedTopics(3, "orders"), kfake.SeedTopics(1, "logs"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	tc.c = c
	cl := tc.client(t)
	ctx := context.Background()
	var recs []*kgo.Record
	for i := 0; i < 30; i++ {
		recs = append(recs, &kgo.Record{Topic: "orders", Partition: int32(i % 3), Value: []byte("0123456789")})
	}
	recs = append(recs, &kgo.Record{Topic: "logs", Value: []byte("x")})
	if err := cl.ProduceSync(ctx, recs...).FirstErr(); err != nil {
		t.Fatal(err)
	}
	adm := kadm.NewClient(cl)
	var offs kadm.Offsets
	for p := int32(0); p < 3; p++ {
		offs.AddOffset("orders", p, 5, -1)
	}
	if err := adm.CommitAllOffsets(ctx, "billing", offs); err != nil {
		t.Fatal(err)
	}
	var done kadm.Offsets
	done.AddOffset("logs", 0, 1, -1)
	if err := adm.CommitAllOffsets(ctx, "done", done); err != nil {
		t.Fatal(err)
	}
	// (Not Metadata: a kgo client refreshes it in the background.)
	for _, k := range []int16{kmsg.ListOffsets.Int16(), kmsg.OffsetFetch.Int16(), kmsg.DescribeLogDirs.Int16(), kmsg.ListGroups.Int16(), kmsg.DescribeConfigs.Int16()} {
		c.ControlKey(k, func(kmsg.Request) (kmsg.Response, error, bool) {
			tc.requests.Add(1)
			c.KeepControl()
			return nil, nil, false
		})
	}
	return tc
}

func (tc *testCluster) client(t *testing.T, opts ...kgo.Opt) *kgo.Client {
	t.Helper()
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(tc.c.ListenAddrs()...), kgo.RecordPartitioner(kgo.ManualPartitioner())}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return cl
}

func (tc *testCluster) cluster(t *testing.T, name string) Cluster {
	return Cluster{Name: name, Connect: func(context.Context) (*kgo.Client, error) {
		return kgo.NewClient(kgo.SeedBrokers(tc.c.ListenAddrs()...))
	}}
}

// start runs an exporter until the test ends and waits until it is ready.
func start(t *testing.T, o Options) *Exporter {
	t.Helper()
	e, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-done })
	waitFor(t, 20*time.Second, "ready", func() bool { ok, _ := e.Ready(); return ok })
	return e
}

func waitFor(t *testing.T, d time.Duration, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("not %s within %s", what, d)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func get(t *testing.T, h http.Handler, path string, header ...string) *httptest.ResponseRecorder {
	t.Helper()
	r := httptest.NewRequest("GET", "http://127.0.0.1:9809"+path, nil)
	for i := 0; i+1 < len(header); i += 2 {
		r.Header.Set(header[i], header[i+1])
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	return w
}

// scrape parses /metrics.
func scrape(t *testing.T, h http.Handler) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	w := get(t, h, "/metrics")
	if w.Code != 200 {
		t.Fatalf("/metrics: %d %s", w.Code, w.Body)
	}
	text := w.Body.String()
	mfs, err := textParser().TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("not the text format: %v\n%s", err, text)
	}
	return mfs, text
}

// value is the value of the series of family name whose labels include
// the pairs given; ok false when there is none.
func value(mfs map[string]*dto.MetricFamily, name string, labels ...string) (float64, bool) {
	mf := mfs[name]
	if mf == nil {
		return 0, false
	}
next:
	for _, m := range mf.Metric {
		have := map[string]string{}
		for _, lp := range m.Label {
			have[lp.GetName()] = lp.GetValue()
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if have[labels[i]] != labels[i+1] {
				continue next
			}
		}
		switch {
		case m.Gauge != nil:
			return m.Gauge.GetValue(), true
		case m.Counter != nil:
			return m.Counter.GetValue(), true
		case m.Histogram != nil:
			return float64(m.Histogram.GetSampleCount()), true
		}
	}
	return 0, false
}

func mustValue(t *testing.T, mfs map[string]*dto.MetricFamily, want float64, name string, labels ...string) {
	t.Helper()
	v, ok := value(mfs, name, labels...)
	if !ok || v != want {
		t.Errorf("%s%v = %v (present %v), want %v", name, labels, v, ok, want)
	}
}

// Against kfake: the cluster's shape, per-topic and per-group series with
// Burrow's verdicts as a state set, per-partition group series, and a
// text that passes promlint (what promtool check metrics runs) with every
// family documented in Families.
func TestExporterServesCluster(t *testing.T) {
	tc := newTestCluster(t)
	e := start(t, Options{Clusters: []Cluster{tc.cluster(t, "pg")}, Interval: 200 * time.Millisecond, GroupPartitions: true, Version: "test"})
	h := e.Handler(HandlerOptions{})
	// The rates come from the second refresh on.
	waitFor(t, 20*time.Second, "rates", func() bool {
		mfs, _ := scrape(t, h)
		_, ok := value(mfs, "kbox_topic_records_in_per_second", "topic", "orders")
		return ok
	})
	mfs, text := scrape(t, h)
	mustValue(t, mfs, 1, "kbox_cluster_reachable", "cluster", "pg")
	mustValue(t, mfs, 1, "kbox_cluster_info", "cluster", "pg", "cluster_id", "exp-test")
	mustValue(t, mfs, 3, "kbox_brokers_up", "cluster", "pg")
	mustValue(t, mfs, 3, "kbox_brokers_expected")
	mustValue(t, mfs, 4, "kbox_partitions")
	mustValue(t, mfs, 0, "kbox_offline_partitions")
	mustValue(t, mfs, 3, "kbox_topic_partitions", "topic", "orders")
	mustValue(t, mfs, 30, "kbox_topic_log_end_offset", "topic", "orders")
	mustValue(t, mfs, 0, "kbox_topic_records_in_per_second", "topic", "orders")
	mustValue(t, mfs, 15, "kbox_group_lag", "group", "billing", "topic", "orders")
	mustValue(t, mfs, 0, "kbox_group_lag", "group", "done", "topic", "logs")
	mustValue(t, mfs, 5, "kbox_group_partition_committed_offset", "group", "billing", "topic", "orders", "partition", "1")
	mustValue(t, mfs, 5, "kbox_group_partition_lag", "group", "billing", "topic", "orders", "partition", "1")
	// billing has no members and lags: STOP; done is caught up: OK. One
	// series per verdict, 1 for the verdict.
	for _, v := range Verdicts {
		want := 0.0
		if v == "STOP" {
			want = 1
		}
		mustValue(t, mfs, want, "kbox_group_verdict", "group", "billing", "topic", "orders", "verdict", string(v))
		mustValue(t, mfs, want, "kbox_group_partition_verdict", "group", "billing", "topic", "orders", "partition", "2", "verdict", string(v))
	}
	mustValue(t, mfs, 1, "kbox_group_verdict", "group", "done", "verdict", "OK")
	mustValue(t, mfs, 0, "kbox_group_lag_seconds", "group", "done", "topic", "logs")
	if _, ok := value(mfs, "kbox_group_lag_seconds", "group", "billing"); ok {
		t.Error("billing's lag in seconds is served without a reader")
	}
	for _, b := range []string{"0", "1", "2"} {
		mustValue(t, mfs, 1, "kbox_broker_up", "broker", b)
	}
	if v, ok := value(mfs, "kbox_topic_leader_size_bytes", "topic", "orders"); !ok || v < 300 {
		t.Errorf("orders' leader bytes %v %v", v, ok)
	}
	if _, ok := value(mfs, "kbox_log_dir_size_bytes", "broker", "0"); !ok {
		t.Error("no log dir series")
	}
	mustValue(t, mfs, 1, "kbox_exporter_build_info", "version", "test")

	problems, err := promlint.New(strings.NewReader(text)).Lint()
	if err != nil || len(problems) > 0 {
		t.Errorf("promlint: %v %+v", err, problems)
	}
	known := map[string]Family{}
	for _, f := range Families() {
		known[f.Name] = f
	}
	for name, mf := range mfs {
		if strings.HasPrefix(name, "go_") || strings.HasPrefix(name, "process_") {
			continue
		}
		f, ok := known[name]
		if !ok {
			t.Errorf("family %s is not in Families()", name)
			continue
		}
		if !strings.EqualFold(mf.GetType().String(), f.Type) || mf.GetHelp() != f.Help {
			t.Errorf("family %s: type %s help %q, Families() says %s %q", name, mf.GetType(), mf.GetHelp(), f.Type, f.Help)
		}
		for _, m := range mf.Metric {
			if len(m.Label) != len(f.Labels) {
				t.Errorf("family %s: labels %v, Families() says %v", name, m.Label, f.Labels)
				break
			}
		}
	}
}

// A scrape reads the rendered snapshot: however many scrapes, the
// cluster answers no request between two refreshes.
func TestScrapesNeverReachTheCluster(t *testing.T) {
	tc := newTestCluster(t)
	e := start(t, Options{Clusters: []Cluster{tc.cluster(t, "pg")}, Interval: time.Hour})
	h := e.Handler(HandlerOptions{})
	before := tc.requests.Load()
	if before == 0 {
		t.Fatal("the refresh made no request the test counts")
	}
	for i := 0; i < 50; i++ {
		mfs, _ := scrape(t, h)
		mustValue(t, mfs, 1, "kbox_cluster_reachable")
	}
	if after := tc.requests.Load(); after != before {
		t.Fatalf("50 scrapes made %d requests to the cluster", after-before)
	}
	mfs, _ := scrape(t, h)
	mustValue(t, mfs, 51, "kbox_exporter_scrapes_total")
	mustValue(t, mfs, 1, "kbox_exporter_refreshes_total", "cluster", "pg")
}

// The caps keep the first label sets by name and count the others; the
// filters select topics and groups; a profile that did not resolve is
// served as unreachable, with nothing else.
func TestCapsFiltersAndBrokenCluster(t *testing.T) {
	tc := newTestCluster(t)
	topics := Filter{Deny: regexp.MustCompile(`^__.*$`)}
	e := start(t, Options{Clusters: []Cluster{tc.cluster(t, "pg"), {Name: "broken", Err: errors.New("password-env PW is not set")}},
		Interval: time.Hour, Topics: topics, GroupPartitions: true, MaxTopics: 1, MaxGroups: 1, MaxGroupPartitions: 2})
	mfs, text := scrape(t, e.Handler(HandlerOptions{}))
	if _, ok := value(mfs, "kbox_topic_partitions", "topic", "logs"); !ok {
		t.Error("logs (first by name) missing")
	}
	if _, ok := value(mfs, "kbox_topic_partitions", "topic", "orders"); ok {
		t.Error("orders past --max-topics 1 served")
	}
	mustValue(t, mfs, 1, "kbox_exporter_cardinality_dropped_total", "cluster", "pg", "kind", "topic")
	mustValue(t, mfs, 1, "kbox_exporter_cardinality_dropped_total", "cluster", "pg", "kind", "group")
	mustValue(t, mfs, 1, "kbox_exporter_cardinality_dropped_total", "cluster", "pg", "kind", "group_partition")
	if n := len(mfs["kbox_group_partition_lag"].GetMetric()); n != 2 {
		t.Errorf("%d group partition series, want 2", n)
	}
	if _, ok := value(mfs, "kbox_group_lag", "group", "done"); ok {
		t.Error("done past --max-groups 1 served")
	}
	mustValue(t, mfs, 4, "kbox_partitions", "cluster", "pg") // every topic, caps aside
	mustValue(t, mfs, 0, "kbox_cluster_reachable", "cluster", "broken")
	if strings.Contains(text, `cluster="broken",`) || strings.Contains(text, "password") {
		t.Errorf("the broken cluster serves more than reachable=0:\n%s", text)
	}
	mustValue(t, mfs, 1, "kbox_exporter_refresh_errors_total", "cluster", "broken")

	// Groups filtered by deny: done is gone, billing stays.
	e = start(t, Options{Clusters: []Cluster{tc.cluster(t, "pg")}, Interval: time.Hour, Groups: Filter{Deny: regexp.MustCompile(`^d.*$`)}})
	mfs, _ = scrape(t, e.Handler(HandlerOptions{}))
	if _, ok := value(mfs, "kbox_group_lag", "group", "done"); ok {
		t.Error("group done denied but served")
	}
	mustValue(t, mfs, 15, "kbox_group_lag", "group", "billing")
}

// The token guards /metrics (Bearer), not the health endpoints; a Host
// that is not loopback is refused unless the server is remote; gzip is
// served to who asks, as one stream.
func TestHandlerTokenHostGzip(t *testing.T) {
	tc := newTestCluster(t)
	e := start(t, Options{Clusters: []Cluster{tc.cluster(t, "pg")}, Interval: time.Hour})
	tok := "0123456789abcdef0123"
	h := e.Handler(HandlerOptions{Token: tok})
	if w := get(t, h, "/metrics"); w.Code != 401 || w.Header().Get("WWW-Authenticate") == "" {
		t.Fatalf("no token: %d", w.Code)
	}
	if w := get(t, h, "/metrics", "Authorization", "Bearer wrong"); w.Code != 401 {
		t.Fatalf("bad token: %d", w.Code)
	}
	plain := get(t, h, "/metrics", "Authorization", "Bearer "+tok)
	if plain.Code != 200 || !strings.HasPrefix(plain.Header().Get("Content-Type"), "text/plain; version=0.0.4") {
		t.Fatalf("token: %d %q", plain.Code, plain.Header().Get("Content-Type"))
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		if w := get(t, h, p); w.Code != 200 || !strings.HasPrefix(w.Body.String(), "ok") {
			t.Errorf("%s: %d %s", p, w.Code, w.Body)
		}
	}
	r := httptest.NewRequest("GET", "http://evil.example:9809/healthz", nil)
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	if w.Code != 403 {
		t.Errorf("Host evil.example on loopback: %d", w.Code)
	}
	w = httptest.NewRecorder()
	e.Handler(HandlerOptions{Token: tok, Remote: true}).ServeHTTP(w, r)
	if w.Code != 200 {
		t.Errorf("Host evil.example, remote: %d", w.Code)
	}

	zw := get(t, h, "/metrics", "Authorization", "Bearer "+tok, "Accept-Encoding", "gzip")
	if zw.Header().Get("Content-Encoding") != "gzip" {
		t.Fatal("gzip asked, not served")
	}
	zr, err := gzip.NewReader(bytes.NewReader(zw.Body.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	mfs, err := textParser().TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	mustValue(t, mfs, 1, "kbox_cluster_reachable")
	if _, ok := mfs["go_goroutines"]; !ok {
		t.Error("the live part (second gzip member) is missing")
	}
}

// /readyz answers 503 until every cluster finished a refresh.
func TestNotReadyBeforeRefresh(t *testing.T) {
	block := make(chan struct{})
	e, err := New(Options{Clusters: []Cluster{{Name: "slow", Connect: func(ctx context.Context) (*kgo.Client, error) {
		select {
		case <-block:
		case <-ctx.Done():
		}
		return nil, errors.New("no")
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); e.Run(ctx) }()
	h := e.Handler(HandlerOptions{})
	if w := get(t, h, "/readyz"); w.Code != 503 {
		t.Errorf("/readyz before the first refresh: %d", w.Code)
	}
	close(block)
	waitFor(t, 10*time.Second, "ready", func() bool { return get(t, h, "/readyz").Code == 200 })
	mfs, _ := scrape(t, h)
	mustValue(t, mfs, 0, "kbox_cluster_reachable", "cluster", "slow")
	cancel()
	<-done
}

// The end-to-end probe against kfake: it creates its topic, and records
// come back acknowledged and consumed.
func TestProbe(t *testing.T) {
	tc := newTestCluster(t)
	c := tc.cluster(t, "pg")
	c.ProbeClients = func(_ context.Context, prodOpts, consOpts []kgo.Opt) (*kgo.Client, *kgo.Client, func(), error) {
		prod, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(tc.c.ListenAddrs()...)}, prodOpts...)...)
		if err != nil {
			return nil, nil, nil, err
		}
		cons, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(tc.c.ListenAddrs()...)}, consOpts...)...)
		if err != nil {
			prod.Close()
			return nil, nil, nil, err
		}
		return prod, cons, func() { prod.Close(); cons.Close() }, nil
	}
	e := start(t, Options{Clusters: []Cluster{c}, Interval: time.Hour, Probe: ProbeOptions{Topic: "kbox-probe", Interval: 50 * time.Millisecond}})
	h := e.Handler(HandlerOptions{})
	waitFor(t, 20*time.Second, "probe records back", func() bool {
		mfs, _ := scrape(t, h)
		v, _ := value(mfs, "kbox_probe_end_to_end_latency_seconds", "cluster", "pg")
		return v >= 9
	})
	mfs, _ := scrape(t, h)
	for _, n := range []string{"kbox_probe_produce_latency_seconds", "kbox_probe_records_sent_total", "kbox_probe_records_received_total"} {
		if v, ok := value(mfs, n, "cluster", "pg"); !ok || v < 9 {
			t.Errorf("%s = %v", n, v)
		}
	}
	if v, _ := value(mfs, "kbox_probe_produce_errors_total", "cluster", "pg"); v != 0 {
		t.Errorf("produce errors %v", v)
	}
	td, err := kadm.NewClient(tc.client(t)).ListTopics(context.Background(), "kbox-probe")
	if err != nil || len(td["kbox-probe"].Partitions) != 3 {
		t.Fatalf("probe topic: %v %+v", err, td)
	}
}

func textParser() *expfmt.TextParser {
	p := expfmt.NewTextParser(model.LegacyValidation)
	return &p
}
