//go:build integration

// Package exporter_test runs `kbox exporter` on a real 3-broker cluster
// with a real Prometheus (Debian's prometheus package, installed by
// test/integration/deps.sh) scraping it every second with a bearer token,
// and checks through Prometheus's HTTP API: up == 1, the lag in seconds of
// records with known timestamps within bounds taken before and after, the
// records/s of a paced producer within 10 %, a paused consumer going STALL,
// the probe's histograms, and a killed broker down in the first refresh
// after the kill. promtool checks the exporter's output and the rules file
// (and runs the rules' unit tests).
package exporter_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	kboxBin string
	repo    string // the repository's root
)

func TestMain(m *testing.M) {
	_, file, _, _ := runtime.Caller(0)
	repo = filepath.Join(filepath.Dir(file), "..", "..", "..")
	os.Exit(testbed.Main(m, testbed.Options{Name: "exporter", Brokers: 3, Ready: func(e testbed.Env) error {
		kboxBin, cluster = e.Kbox, e.Cluster
		return nil
	}}))
}

const token = "exporter-test-token-0123456789"

// background runs a command until the test ends (SIGTERM, then SIGKILL)
// and returns the first stdout line satisfying ready.
func background(t *testing.T, cmd *exec.Cmd, ready func(string) bool) string {
	t.Helper()
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	lines := make(chan string, 1)
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		sent := false
		for sc.Scan() {
			if !sent && ready(sc.Text()) {
				lines <- sc.Text()
				sent = true
			}
		}
		_ = cmd.Wait()
	}()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	if ready == nil {
		return ""
	}
	select {
	case l := <-lines:
		return l
	case <-done:
		t.Fatalf("%v exited before it was ready: %s", cmd.Args, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("%v not ready after 60s: %s", cmd.Args, stderr.String())
	}
	return ""
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// prom is a Prometheus server's HTTP API.
type prom struct {
	t    *testing.T
	base string
}

type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

func (s sample) float() float64 {
	v, _ := strconv.ParseFloat(s.Value[1].(string), 64)
	return v
}

func (p prom) query(q string) []sample {
	p.t.Helper()
	resp, err := http.Get(p.base + "/api/v1/query?query=" + url.QueryEscape(q))
	if err != nil {
		p.t.Fatal(err)
	}
	defer resp.Body.Close()
	var r struct {
		Status string `json:"status"`
		Error  string `json:"error"`
		Data   struct {
			Result []sample `json:"result"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&r); err != nil || r.Status != "success" {
		p.t.Fatalf("query %s: %v %s %s", q, err, r.Status, r.Error)
	}
	return r.Data.Result
}

// waitOne polls q until it has exactly one sample satisfying ok.
func (p prom) waitOne(q string, d time.Duration, ok func(float64) bool) sample {
	p.t.Helper()
	deadline := time.Now().Add(d)
	var last []sample
	for {
		last = p.query(q)
		if len(last) == 1 && ok(last[0].float()) {
			return last[0]
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("%s: %+v after %s", q, last, d)
		}
		time.Sleep(250 * time.Millisecond)
	}
}

func anyValue(float64) bool { return true }

// groupConsumer consumes topic in group as fast as it can and commits
// every 300 ms until paused (it stays in the group, heartbeating, but no
// longer polls or commits).
type groupConsumer struct {
	paused    atomic.Bool
	committed atomic.Int64 // commits done
	cancel    context.CancelFunc
	done      chan struct{}
}

func startConsumer(t *testing.T, bs, group, topic string) *groupConsumer {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	gc := &groupConsumer{cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(gc.done)
		defer cl.Close()
		last := time.Now()
		for ctx.Err() == nil {
			if gc.paused.Load() {
				select {
				case <-ctx.Done():
				case <-time.After(50 * time.Millisecond):
				}
				continue
			}
			pctx, pcancel := context.WithTimeout(ctx, 100*time.Millisecond)
			cl.PollRecords(pctx, 10000)
			pcancel()
			if time.Since(last) >= 300*time.Millisecond && !gc.paused.Load() {
				last = time.Now()
				if err := cl.CommitUncommittedOffsets(ctx); err == nil {
					gc.committed.Add(1)
				}
			}
		}
	}()
	t.Cleanup(func() { cancel(); <-gc.done })
	return gc
}

// metricsText fetches the exporter's /metrics with the token.
func metricsText(t *testing.T, u string) string {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s: %d %s", u, resp.StatusCode, b)
	}
	return string(b)
}

// seriesValue is the value of the one series in text whose line starts
// with prefix (name{labels} as the exporter writes them).
func seriesValue(text, prefix string) (float64, bool) {
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, prefix) {
			v, err := strconv.ParseFloat(strings.TrimSpace(l[len(prefix):]), 64)
			return v, err == nil
		}
	}
	return 0, false
}

func TestExporterWithPrometheus(t *testing.T) {
	promBin, err := exec.LookPath("prometheus")
	if err != nil {
		t.Skip("prometheus not installed (test/integration/deps.sh installs Debian's prometheus package)")
	}
	promtool, err := exec.LookPath("promtool")
	if err != nil {
		t.Skip("promtool not installed")
	}
	bs := cluster.Bootstrap
	dir := t.TempDir()
	cfg := filepath.Join(dir, "none.yaml")
	ctx := context.Background()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	adm := kadm.NewClient(cl)
	for topic, parts := range map[string]int32{"rate": 3, "lagged": 1} {
		if _, err := adm.CreateTopic(ctx, parts, 1, nil, topic); err != nil {
			t.Fatal(err)
		}
	}

	// Two records written with a known timestamp 10 minutes ago; group
	// timed committed at 0: its next unconsumed record has that timestamp.
	written := time.Now().Add(-10 * time.Minute).Truncate(time.Millisecond)
	if err := cl.ProduceSync(ctx, &kgo.Record{Topic: "lagged", Value: []byte("a"), Timestamp: written},
		&kgo.Record{Topic: "lagged", Value: []byte("b"), Timestamp: written.Add(time.Second)}).FirstErr(); err != nil {
		t.Fatal(err)
	}
	beforeCommit := time.Now()
	var offs kadm.Offsets
	offs.AddOffset("lagged", 0, 0, -1)
	for _, g := range []string{"timed", "kbox-hidden"} {
		if err := adm.CommitAllOffsets(ctx, g, offs); err != nil {
			t.Fatal(err)
		}
	}

	// The paced producer and a consumer group that keeps up.
	perf := exec.Command(kboxBin, "perf", "produce", "--bootstrap-server", bs, "--topic", "rate",
		"--throughput", "1000", "--records", "90000", "--record-size", "100")
	perf.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=")
	background(t, perf, nil)
	consumer := startConsumer(t, bs, "paced", "rate")

	tokenFile := filepath.Join(dir, "token")
	if err := os.WriteFile(tokenFile, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	exp := exec.Command(kboxBin, "exporter", "--bootstrap-server", bs, "--listen", "127.0.0.1:0", "--interval", "1s",
		"--token-file", tokenFile, "--probe-topic", "kbox-probe", "--probe-interval", "200ms", "--group-deny", "kbox-.*")
	exp.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=", "KBOX_EXPORTER_TOKEN=")
	metricsURL := background(t, exp, func(l string) bool { return strings.HasPrefix(l, "http://") })
	target := strings.TrimSuffix(strings.TrimPrefix(metricsURL, "http://"), "/metrics")

	promAddr := freePort(t)
	promCfg := filepath.Join(dir, "prometheus.yml")
	if err := os.WriteFile(promCfg, []byte(fmt.Sprintf(`global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: kbox
    authorization:
      credentials_file: %s
    static_configs:
      - targets: [%q]
`, tokenFile, target)), 0o644); err != nil {
		t.Fatal(err)
	}
	pcmd := exec.Command(promBin, "--config.file="+promCfg, "--storage.tsdb.path="+filepath.Join(dir, "tsdb"),
		"--web.listen-address="+promAddr, "--log.level=warn")
	background(t, pcmd, nil)
	p := prom{t: t, base: "http://" + promAddr}
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get(p.base + "/-/ready")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus not ready after 60s: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}

	// up == 1: Prometheus scrapes with the token.
	p.waitOne(`up{job="kbox"}`, 60*time.Second, func(v float64) bool { return v == 1 })

	// The lag in seconds of group timed: the record written 10 minutes
	// ago, measured at a refresh after the commit and before this query.
	s := p.waitOne(`kbox_group_lag_seconds{group="timed",topic="lagged"}`, 60*time.Second, anyValue)
	after := time.Now()
	lo, hi := beforeCommit.Sub(written).Seconds(), after.Sub(written).Seconds()
	if v := s.float(); v < lo || v > hi {
		t.Fatalf("lag in seconds %.3f, want within [%.3f, %.3f]", v, lo, hi)
	}
	t.Logf("lag in seconds %.3f within [%.3f, %.3f]", s.float(), lo, hi)
	p.waitOne(`kbox_group_lag{group="timed",topic="lagged"}`, 10*time.Second, func(v float64) bool { return v == 2 })

	// Records in per second: the median of the last 10 s within 10 % of
	// the producer's 1,000/s, once it has produced for 12 s.
	p.waitOne(`kbox_topic_log_end_offset{topic="rate"}`, 60*time.Second, func(v float64) bool { return v >= 12000 })
	rate := p.waitOne(`quantile_over_time(0.5, kbox_topic_records_in_per_second{topic="rate"}[10s])`, 30*time.Second, anyValue).float()
	t.Logf("records in per second, median over 10 s: %.1f", rate)
	if math.Abs(rate-1000) > 100 {
		t.Fatalf("records/s %.1f, want 1000 within 10%%", rate)
	}

	// The paused consumer goes STALL: first a window of commits (10
	// refreshes that saw one), then the pause.
	p.waitOne(`kbox_group_lag{group="paced",topic="rate"}`, 30*time.Second, anyValue)
	for start := time.Now(); time.Since(start) < 12*time.Second; {
		time.Sleep(500 * time.Millisecond)
	}
	if consumer.committed.Load() < 20 {
		t.Fatalf("the consumer committed %d times in 12 s", consumer.committed.Load())
	}
	consumer.paused.Store(true)
	paused := time.Now()
	p.waitOne(`kbox_group_verdict{group="paced",topic="rate",verdict="STALL"} == 1`, 30*time.Second, anyValue)
	t.Logf("STALL %.1f s after the pause", time.Since(paused).Seconds())

	// The probe: records acknowledged and consumed back, within seconds.
	p99 := p.waitOne(`histogram_quantile(0.99, sum by (le) (kbox_probe_end_to_end_latency_seconds_bucket))`, 30*time.Second,
		func(v float64) bool { return v > 0 && !math.IsNaN(v) }).float()
	if p99 > 10 {
		t.Errorf("probe end-to-end p99 %.3f s", p99)
	}
	p.waitOne(`kbox_probe_produce_latency_seconds_count`, 10*time.Second, func(v float64) bool { return v > 0 })

	// promtool: the exporter's output, the rules file and its tests.
	text := metricsText(t, metricsURL)
	check := exec.Command(promtool, "check", "metrics")
	check.Stdin = strings.NewReader(text)
	if out, err := check.CombinedOutput(); err != nil {
		t.Errorf("promtool check metrics: %v\n%s", err, out)
	}
	if out, err := exec.Command(promtool, "check", "rules", filepath.Join(repo, "configs", "prometheus", "kbox-rules.yml")).CombinedOutput(); err != nil {
		t.Errorf("promtool check rules: %v\n%s", err, out)
	}
	rt := exec.Command(promtool, "test", "rules", "kbox-rules_test.yml")
	rt.Dir = filepath.Join(repo, "test", "integration", "exporter", "testdata")
	if out, err := rt.CombinedOutput(); err != nil {
		t.Errorf("promtool test rules: %v\n%s", err, out)
	}
	if _, ok := seriesValue(text, `kbox_group_lag{cluster="`+bs+`",group="kbox-hidden"`); ok {
		t.Error("--group-deny kbox-.* served group kbox-hidden")
	}
	if _, ok := seriesValue(text, `kbox_group_lag{cluster="`+bs+`",group="timed",topic="lagged"} `); !ok {
		t.Error("group timed missing from the exporter's text")
	}

	// A killed broker is down in the first refresh that starts after the
	// kill (one interval at most, when refreshes keep up).
	killed := time.Now()
	if err := cluster.StopBroker(3, true); err != nil {
		t.Fatal(err)
	}
	seenAt := time.Time{}
	var refreshStart float64
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		text := metricsText(t, metricsURL)
		end, ok1 := seriesValue(text, `kbox_exporter_last_refresh_timestamp_seconds{cluster="`+bs+`"} `)
		took, ok2 := seriesValue(text, `kbox_exporter_refresh_duration_seconds{cluster="`+bs+`"} `)
		if !ok1 || !ok2 || end-took <= float64(killed.UnixNano())/1e9 {
			continue
		}
		refreshStart = end - took
		up, ok := seriesValue(text, `kbox_broker_up{broker="3",cluster="`+bs+`"} `)
		if !ok || up != 0 {
			t.Fatalf("the first refresh started after the kill (%.3f s after) shows broker 3 up=%v (present %v)", refreshStart-float64(killed.UnixNano())/1e9, up, ok)
		}
		seenAt = time.Now()
		break
	}
	if seenAt.IsZero() {
		t.Fatal("no refresh started within 30 s of the kill")
	}
	t.Logf("broker 3 down in the refresh started %.2f s after the kill, served %.2f s after it",
		refreshStart-float64(killed.UnixNano())/1e9, seenAt.Sub(killed).Seconds())
	p.waitOne(`kbox_brokers_up{job="kbox"}`, 20*time.Second, func(v float64) bool { return v == 2 })
	p.waitOne(`kbox_broker_up{broker="3"}`, 10*time.Second, func(v float64) bool { return v == 0 })
}
