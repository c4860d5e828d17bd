//go:build integration

// Package status_test checks `kbox status` over two clusters at once (a
// real 3-broker cluster and a kbox playground), before and after a broker
// is stopped, and `kbox top` against a producer of known rate.
package status_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"sync"
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
	tmpDir  string
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "status", Brokers: 3, Ready: func(e testbed.Env) error {
		kboxBin, cluster, tmpDir = e.Kbox, e.Cluster, e.Dir
		return nil
	}}))
}

func kbox(t *testing.T, cfg string, timeout time.Duration, args ...string) testbed.Result {
	t.Helper()
	return testbed.Runner{Config: cfg, Timeout: timeout, Env: []string{"KBOX_PROFILE=", "KBOX_OUTPUT="}}.Exec(t, kboxBin, args...)
}

func mustKbox(t *testing.T, args ...string) string {
	t.Helper()
	r := kbox(t, filepath.Join(t.TempDir(), "none.yaml"), 2*time.Minute, args...)
	if r.Code != 0 {
		t.Fatalf("kbox %v: %s", args, r)
	}
	return r.Stdout
}

type frame struct {
	RecordsPerSec float64  `json:"records_per_sec"`
	BytesPerSec   *float64 `json:"bytes_per_sec"`
	IntervalMs    int64    `json:"interval_ms"`
	Topics        []struct {
		Topic         string  `json:"topic"`
		RecordsPerSec float64 `json:"records_per_sec"`
	} `json:"topics"`
	Groups []struct {
		Group         string   `json:"group"`
		RecordsPerSec *float64 `json:"records_per_sec"`
		Lag           int64    `json:"lag"`
		LagPerSec     *float64 `json:"lag_per_sec"`
		Trend         string   `json:"trend"`
		Topics        []struct {
			Topic string `json:"topic"`
		} `json:"topics"`
	} `json:"groups"`
	GroupsError string `json:"groups_error"`
}

func median(v []float64) float64 {
	s := append([]float64(nil), v...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// top -o json while kbox perf produce writes 2,000 records/s: the median of
// the steady intervals is 2,000 within 5 %, and bytes/s matches the record
// size. Runs first: it needs every broker up.
func TestTopAgreesWithThrottledProducer(t *testing.T) {
	bs := cluster.Bootstrap
	mustKbox(t, "topics", "--bootstrap-server", bs, "--create", "--topic", "rate", "--partitions", "3", "--replication-factor", "1")
	mustKbox(t, "topics", "--bootstrap-server", bs, "--create", "--topic", "other", "--partitions", "1", "--replication-factor", "1")

	cfg := filepath.Join(t.TempDir(), "none.yaml")
	perf := exec.Command(kboxBin, "perf", "produce", "--bootstrap-server", bs, "--topic", "rate",
		"--throughput", "2000", "--records", "24000", "--record-size", "100")
	perf.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=")
	var perfOut strings.Builder
	perf.Stdout, perf.Stderr = &perfOut, &perfOut
	if err := perf.Start(); err != nil {
		t.Fatal(err)
	}
	perfDone := make(chan error, 1)
	go func() { perfDone <- perf.Wait() }()
	defer func() {
		select {
		case <-perfDone:
		default:
			_ = perf.Process.Kill()
			<-perfDone
		}
	}()

	r := kbox(t, cfg, 90*time.Second, "top", "--bootstrap-server", bs, "-o", "json", "--interval", "1s", "--iterations", "10", "--topic-regex", "rate|other")
	if r.Code != 0 {
		t.Fatalf("top: %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 10 {
		t.Fatalf("top --iterations 10 printed %d lines:\n%s", len(lines), r.Stdout)
	}
	var recs, bytesPerRec []float64
	for i, l := range lines {
		var f frame
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("not one JSON object per line: %v\n%s", err, l)
		}
		// other, created just before, may miss the first samples; by the
		// end both topics are there. While records flow, rate (the
		// busiest) comes first.
		names := map[string]float64{}
		for _, tr := range f.Topics {
			names[tr.Topic] = tr.RecordsPerSec
		}
		if _, ok := names["rate"]; !ok || (f.RecordsPerSec > 0 && f.Topics[0].Topic != "rate") {
			t.Fatalf("topics %+v: rate missing or not first", f.Topics)
		}
		if v, ok := names["other"]; i == len(lines)-1 && (len(f.Topics) != 2 || !ok || v != 0) {
			t.Fatalf("last frame's topics %+v, want rate and other (0 records/s)", f.Topics)
		}
		if f.RecordsPerSec > 0 {
			recs = append(recs, f.RecordsPerSec)
			if f.BytesPerSec != nil {
				bytesPerRec = append(bytesPerRec, *f.BytesPerSec/f.RecordsPerSec)
			}
		}
	}
	// The first and last producing intervals may be partial (producer
	// starting or ending inside them).
	if len(recs) < 6 {
		t.Fatalf("only %d intervals with records: %v\nperf:\n%s", len(recs), recs, perfOut.String())
	}
	steady := recs[1 : len(recs)-1]
	m := median(steady)
	t.Logf("records/s per interval %v, median of steady %.1f; log bytes per record %v", recs, m, bytesPerRec)
	if m < 1900 || m > 2100 {
		t.Fatalf("median records/s %.1f, want 2000 within 5%% (intervals %v)", m, recs)
	}
	// 100-byte values: the log grows by the value plus record and batch
	// overhead per record.
	if len(bytesPerRec) < 4 {
		t.Fatalf("bytes/s known in %d intervals only", len(bytesPerRec))
	}
	if b := median(bytesPerRec); b < 100 || b > 200 {
		t.Fatalf("log bytes per record %.1f, want 100..200", b)
	}
}

// startPerf runs kbox perf produce at a fixed throughput in the
// background; the returned func stops it (if still running) and returns
// its output.
func startPerf(t *testing.T, cfg string, args ...string) func() string {
	t.Helper()
	perf := exec.Command(kboxBin, append([]string{"perf", "produce"}, args...)...)
	perf.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=")
	var out strings.Builder
	perf.Stdout, perf.Stderr = &out, &out
	if err := perf.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- perf.Wait() }()
	var once sync.Once
	return func() string {
		once.Do(func() {
			select {
			case <-done:
			default:
				_ = perf.Process.Kill()
				<-done
			}
		})
		return out.String()
	}
}

// pacedConsumer consumes topic in group at rate records/s (an absolute
// schedule from its first record: a late poll catches up) and commits
// what it consumed every commitEvery. committed is closed once it has
// committed on all partitions of topic. Stop it by cancelling ctx; wait
// on done.
func pacedConsumer(ctx context.Context, t *testing.T, bs, group, topic string, partitions int, rate float64, commitEvery time.Duration) (committed, done chan struct{}) {
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...), kgo.ConsumerGroup(group), kgo.ConsumeTopics(topic),
		kgo.DisableAutoCommit(), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()), kgo.FetchMaxWait(100*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	committed, done = make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		defer cl.Close()
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		var start, lastCommit time.Time
		var consumed int64
		first := true
		for ctx.Err() == nil {
			n := 1
			if !start.IsZero() {
				n = int(rate*time.Since(start).Seconds()) - int(consumed)
			}
			if n > 0 {
				fs := cl.PollRecords(ctx, n)
				got := fs.NumRecords()
				if got > 0 && start.IsZero() {
					start, lastCommit = time.Now(), time.Now()
				}
				consumed += int64(got)
			}
			if !start.IsZero() && time.Since(lastCommit) >= commitEvery {
				lastCommit = time.Now()
				if err := cl.CommitUncommittedOffsets(ctx); err == nil && first && len(cl.CommittedOffsets()[topic]) == partitions {
					first = false
					close(committed)
				}
			}
			select {
			case <-ctx.Done():
			case <-tick.C:
			}
		}
	}()
	return committed, done
}

// top -o json while kbox perf produce writes 2,000 records/s and a group
// consumes 1,000 records/s, committing every 100 ms: top reports the
// group's consume rate at 1,000/s within 5 % and its lag growing at
// 1,000/s within 10 % (medians of the steady intervals).
func TestTopGroupConsumeRateAndLagTrend(t *testing.T) {
	bs := cluster.Bootstrap
	mustKbox(t, "topics", "--bootstrap-server", bs, "--create", "--topic", "consumed", "--partitions", "2", "--replication-factor", "1")
	cfg := filepath.Join(t.TempDir(), "none.yaml")
	stopPerf := startPerf(t, cfg, "--bootstrap-server", bs, "--topic", "consumed",
		"--throughput", "2000", "--records", "50000", "--record-size", "100")
	defer stopPerf()
	ctx, cancel := context.WithCancel(context.Background())
	committed, consumerDone := pacedConsumer(ctx, t, bs, "paced", "consumed", 2, 1000, 100*time.Millisecond)
	defer func() { cancel(); <-consumerDone }()
	select {
	case <-committed:
	case <-time.After(60 * time.Second):
		t.Fatal("the paced consumer did not commit on both partitions within 60s")
	}

	r := kbox(t, cfg, 90*time.Second, "top", "--bootstrap-server", bs, "-o", "json", "--interval", "2s", "--iterations", "8",
		"--topic-regex", "consumed", "--group-regex", "paced|other")
	perfOut := stopPerf()
	if r.Code != 0 {
		t.Fatalf("top: %s", r)
	}
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	if len(lines) != 8 {
		t.Fatalf("top --iterations 8 printed %d lines:\n%s", len(lines), r.Stdout)
	}
	var rates, lagRates []float64
	growing := 0
	for i, l := range lines {
		var f frame
		if err := json.Unmarshal([]byte(l), &f); err != nil {
			t.Fatalf("not one JSON object per line: %v\n%s", err, l)
		}
		if f.GroupsError != "" || len(f.Groups) != 1 || f.Groups[0].Group != "paced" || len(f.Groups[0].Topics) != 1 || f.Groups[0].Topics[0].Topic != "consumed" {
			t.Fatalf("frame %d: groups %+v (error %q)", i, f.Groups, f.GroupsError)
		}
		g := f.Groups[0]
		// Steady: not the first interval (the consumer just started),
		// and the producer wrote through the whole interval.
		if i == 0 || f.RecordsPerSec < 1500 || g.RecordsPerSec == nil || g.LagPerSec == nil {
			continue
		}
		rates = append(rates, *g.RecordsPerSec)
		lagRates = append(lagRates, *g.LagPerSec)
		if g.Trend == "growing" {
			growing++
		}
	}
	t.Logf("group records/s %v, lag/s %v; growing in %d", rates, lagRates, growing)
	if len(rates) < 4 {
		t.Fatalf("only %d intervals with the producer at rate:\n%s\nperf:\n%s", len(rates), r.Stdout, perfOut)
	}
	if m := median(rates); m < 950 || m > 1050 {
		t.Fatalf("median consume records/s %.1f, want 1000 within 5%% (intervals %v)", m, rates)
	}
	if m := median(lagRates); m < 900 || m > 1100 {
		t.Fatalf("median lag/s %.1f, want +1000 within 10%% (intervals %v)", m, lagRates)
	}
	if growing != len(rates) {
		t.Fatalf("trend growing in %d of %d steady intervals", growing, len(rates))
	}
}

type clusterStatus struct {
	Name                         string         `json:"name"`
	Healthy                      bool           `json:"healthy"`
	Reachable                    bool           `json:"reachable"`
	Problems                     []string       `json:"problems"`
	Error                        *string        `json:"error"`
	Controller                   *int32         `json:"controller"`
	BrokersUp                    int            `json:"brokers_up"`
	BrokersExpected              int            `json:"brokers_expected"`
	UnderReplicatedPartitions    int            `json:"under_replicated_partitions"`
	UnderMinISRPartitions        int            `json:"under_min_isr_partitions"`
	OfflinePartitions            int            `json:"offline_partitions"`
	NonPreferredLeaderPartitions int            `json:"non_preferred_leader_partitions"`
	Partitions                   int            `json:"partitions"`
	Brokers                      []brokerStatus `json:"brokers"`
	CheckedMs                    int64          `json:"check_duration_ms"`
	MetadataVersion              *mvStatus      `json:"metadata_version"`
}

type mvStatus struct {
	Summary          string            `json:"summary"`
	Brokers          []json.RawMessage `json:"brokers"`
	BrokersDisagree  bool              `json:"brokers_disagree"`
	UpgradeAvailable bool              `json:"upgrade_available"`
}

type brokerStatus struct {
	ID              int32    `json:"id"`
	Up              bool     `json:"up"`
	Fenced          bool     `json:"fenced"`
	Reachable       *bool    `json:"reachable"`
	DownReason      *string  `json:"down_reason"`
	DiskUsedPercent *float64 `json:"disk_used_percent"`
}

type report struct {
	Healthy  bool            `json:"healthy"`
	Clusters []clusterStatus `json:"clusters"`
}

func status(t *testing.T, cfg string, args ...string) (report, testbed.Result) {
	t.Helper()
	r := kbox(t, cfg, 60*time.Second, append([]string{"status", "-o", "json", "--timeout", "20s"}, args...)...)
	var rep report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	return rep, r
}

// startBackground runs kbox ARGS with the config file until the test ends
// (SIGTERM) and returns the first line it prints to stdout that starts
// with ready, once printed.
func startBackground(t *testing.T, cfg, ready string, args ...string) string {
	t.Helper()
	cmd := exec.Command(kboxBin, args...)
	cmd.Env = append(os.Environ(), "KBOX_CONFIG="+cfg, "KBOX_PROFILE=", "KBOX_UI_TOKEN=")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
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
			if !sent && strings.HasPrefix(sc.Text(), ready) {
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
	select {
	case l := <-lines:
		return l
	case <-done:
		t.Fatalf("kbox %v exited before printing %q: %s", args, ready, stderr.String())
	case <-time.After(60 * time.Second):
		t.Fatalf("kbox %v: no %q after 60s: %s", args, ready, stderr.String())
	}
	return ""
}

func find(t *testing.T, rep report, name string) clusterStatus {
	t.Helper()
	for _, c := range rep.Clusters {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no cluster %q in %+v", name, rep)
	return clusterStatus{}
}

// Two clusters at once: the real cluster and a playground, named by their
// profiles; then broker 3 of the real cluster is stopped.
func TestStatusTwoClustersOneBrokerStopped(t *testing.T) {
	bs := cluster.Bootstrap
	// strict: every replica must be in sync; single: one replica, on
	// broker 3 (offline once it stops).
	mustKbox(t, "topics", "--bootstrap-server", bs, "--create", "--topic", "strict", "--partitions", "3", "--replication-factor", "3", "--config", "min.insync.replicas=3")
	mustKbox(t, "topics", "--bootstrap-server", bs, "--create", "--topic", "single", "--replica-assignment", "3")

	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  real:\n    bootstrap-servers: "+bs+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	startBackground(t, cfg, "Serving until", "playground", "--brokers", "1")

	// Healthy: both clusters, exit 0. (Leaders may still be moving right
	// after the topics were created, so wait for a healthy answer.)
	var rep report
	var r testbed.Result
	deadline := time.Now().Add(60 * time.Second)
	for {
		rep, r = status(t, cfg)
		if r.Code == 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if r.Code != 0 || !rep.Healthy || len(rep.Clusters) != 2 {
		t.Fatalf("healthy clusters: %s", r)
	}
	if rep.Clusters[0].Name != "playground" || rep.Clusters[1].Name != "real" {
		t.Fatalf("clusters not by profile name: %s", r.Stdout)
	}
	pg, real := find(t, rep, "playground"), find(t, rep, "real")
	if !pg.Reachable || pg.BrokersUp != 1 || pg.BrokersExpected != 1 {
		t.Fatalf("playground: %+v", pg)
	}
	if !real.Reachable || real.BrokersUp != 3 || real.BrokersExpected != 3 || real.Controller == nil || real.OfflinePartitions != 0 {
		t.Fatalf("real: %+v", real)
	}
	// The test bed formats at Apache 4.4's latest metadata version.
	if mv := real.MetadataVersion; mv == nil || mv.Summary != "4.4-IV2" || len(mv.Brokers) != 3 || mv.BrokersDisagree || mv.UpgradeAvailable {
		t.Fatalf("real: metadata version %+v", mv)
	}
	for _, b := range real.Brokers {
		if b.DiskUsedPercent == nil || *b.DiskUsedPercent <= 0 || *b.DiskUsedPercent > 100 {
			t.Fatalf("broker %d disk used %v", b.ID, b.DiskUsedPercent)
		}
	}
	// One profile through --profile.
	if one, r := status(t, cfg, "--profile", "real", "--sample", "0"); r.Code != 0 || len(one.Clusters) != 1 || one.Clusters[0].Name != "real" {
		t.Fatalf("--profile real: %s", r)
	}

	// What stopping broker 3 must show, from the assignment: a partition
	// with a replica on 3 loses it from its ISR, one whose only replica is
	// on 3 goes offline, and strict (min.insync.replicas=3) or an offline
	// partition (default min 1) is under min ISR.
	var wantURP, wantOffline, wantUnderMin int
	{
		cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bs, ",")...))
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		md, err := kadm.NewClient(cl).Metadata(ctx)
		cancel()
		cl.Close()
		if err != nil {
			t.Fatal(err)
		}
		for _, td := range md.Topics {
			for _, p := range td.Partitions {
				on3 := slices.Contains(p.Replicas, 3)
				if !on3 {
					continue
				}
				wantURP++
				left := len(p.Replicas) - 1
				if left == 0 {
					wantOffline++
				}
				minISR := 1
				if td.Topic == "strict" {
					minISR = 3
				}
				if left < minISR {
					wantUnderMin++
				}
			}
		}
	}
	t.Logf("after stopping broker 3 expect under-replicated %d, offline %d, under min ISR %d", wantURP, wantOffline, wantUnderMin)

	// The dashboard runs before the kill (its clients are connected).
	uiBase := startBackground(t, cfg, "http://127.0.0.1:", "ui", "--listen", "127.0.0.1:0")

	// SIGKILL: the controller fences broker 3 only after its session
	// timeout (6 s on the test bed), and until then the cluster still
	// lists it. The first check after the kill must already name it.
	if err := cluster.StopBroker(3, true); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	defer func() {
		if err := cluster.StartBroker(3); err != nil {
			t.Errorf("restart broker 3: %v", err)
		}
	}()
	firstChecksAfterKill(t, cfg, uiBase, killed)
	// Wait until the cluster shows broker 3 fenced and out of the ISRs.
	deadline = time.Now().Add(90 * time.Second)
	for {
		rep, r = status(t, cfg, "--sample", "0")
		real = find(t, rep, "real")
		if (real.BrokersUp == 2 && real.UnderReplicatedPartitions == wantURP && real.UnderMinISRPartitions == wantUnderMin && real.OfflinePartitions == wantOffline) || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if r.Code != 1 || rep.Healthy {
		t.Fatalf("a broker down: want exit 1 and healthy false: %s", r)
	}
	if !real.Reachable || real.Healthy || real.BrokersUp != 2 || real.BrokersExpected != 3 {
		t.Fatalf("real after stop: %+v", real)
	}
	if real.UnderMinISRPartitions != wantUnderMin || real.OfflinePartitions != wantOffline || real.UnderReplicatedPartitions != wantURP || wantUnderMin < 4 || wantOffline < 1 {
		t.Fatalf("real after stop: under-min-ISR %d offline %d under-replicated %d", real.UnderMinISRPartitions, real.OfflinePartitions, real.UnderReplicatedPartitions)
	}
	if b := real.Brokers[len(real.Brokers)-1]; b.ID != 3 || b.Up || !b.Fenced || b.DownReason == nil {
		t.Fatalf("broker 3 not reported down and fenced: %+v", real.Brokers)
	}
	// Fenced, it has left metadata; kbox still names it, still
	// unreachable.
	want := []string{"2 of 3 brokers up (down: 3)", "broker 3 unreachable (connection refused)", fmt.Sprintf("%d offline partition(s)", wantOffline),
		fmt.Sprintf("%d partition(s) under min.insync.replicas", wantUnderMin), fmt.Sprintf("%d under-replicated partition(s)", wantURP)}
	for _, w := range want {
		if !strings.Contains(strings.Join(real.Problems, "\n"), w) {
			t.Fatalf("problems %q lack %q", real.Problems, w)
		}
	}
	if pg := find(t, rep, "playground"); !pg.Healthy || len(pg.Problems) != 0 {
		t.Fatalf("playground after the real cluster's broker stopped: %+v", pg)
	}

	// The table: one row per profile, the reasons after it, exit 1.
	tr := kbox(t, cfg, 60*time.Second, "status", "--sample", "0")
	if tr.Code != 1 {
		t.Fatalf("table: want exit 1: %s", tr)
	}
	rows := map[string][]string{}
	for _, l := range strings.Split(tr.Stdout, "\n") {
		if f := strings.Fields(l); len(f) > 3 {
			rows[f[0]] = f
		}
	}
	if f := rows["real"]; f == nil || f[1] != "UNHEALTHY" || f[2] != "2/3" {
		t.Fatalf("table row of real: %v\n%s", f, tr.Stdout)
	}
	if f := rows["playground"]; f == nil || f[1] != "ok" || f[2] != "1/1" {
		t.Fatalf("table row of playground: %v\n%s", f, tr.Stdout)
	}
	if !strings.Contains(tr.Stdout, "real: 2 of 3 brokers up (down: 3)\n") || !strings.Contains(tr.Stdout, fmt.Sprintf("real: %d offline partition(s)\n", wantOffline)) {
		t.Fatalf("table: reasons missing:\n%s", tr.Stdout)
	}

	// A profile pointing nowhere is unreachable, with the reason.
	if err := os.WriteFile(cfg, []byte("profiles:\n  gone:\n    bootstrap-servers: 127.0.0.1:1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep, r = status(t, cfg, "--sample", "0")
	if g := find(t, rep, "gone"); r.Code != 1 || g.Reachable || g.Error == nil || !strings.Contains(*g.Error, "127.0.0.1:1") {
		t.Fatalf("unreachable profile: %s", r)
	}
}

// uiURL is path (with its query) on the dashboard whose URL kbox ui
// printed, keeping the printed ?token= for getJSON.
func uiURL(t *testing.T, printed, path string) string {
	t.Helper()
	u, err := url.Parse(printed)
	if err != nil || u.Query().Get("token") == "" {
		t.Fatalf("printed URL %q: no token (%v)", printed, err)
	}
	p, err := url.Parse(path)
	if err != nil {
		t.Fatal(err)
	}
	q := p.Query()
	q.Set("token", u.Query().Get("token"))
	u.Path, u.RawQuery = "/"+strings.TrimPrefix(p.Path, "/"), q.Encode()
	return u.String()
}

// getJSON GETs url; a ?token= in it (uiURL) goes in the Authorization
// header instead.
func getJSON(t *testing.T, url string, v any) {
	t.Helper()
	c := &http.Client{Timeout: 60 * time.Second}
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if q := req.URL.Query(); q.Get("token") != "" {
		req.Header.Set("Authorization", "Bearer "+q.Get("token"))
		q.Del("token")
		req.URL.RawQuery = q.Encode()
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Errorf("GET %s: %v", url, err)
		return
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Errorf("GET %s: %d %s", url, resp.StatusCode, b)
		return
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Errorf("GET %s: %v\n%s", url, err, b)
	}
}

const unreachable3 = "broker 3 unreachable (connection refused)"

// unreachable3Any reports whether problems name broker 3 unreachable for
// any reason: the dashboard's long-lived client may have had a connection
// to broker 3 open, which the kill resets ("connection reset by peer")
// rather than refuses.
func unreachable3Any(problems []string) bool {
	return slices.ContainsFunc(problems, func(p string) bool { return strings.HasPrefix(p, "broker 3 unreachable (") })
}

// firstChecksAfterKill runs, at once and right after broker 3 was
// SIGKILLed, kbox status, one kbox top frame and the dashboard's cluster
// and broker endpoints: each names broker 3 unreachable (kbox status:
// exit 1), before the controller fences it.
func firstChecksAfterKill(t *testing.T, cfg, uiBase string, killed time.Time) {
	t.Helper()
	var wg sync.WaitGroup
	run := func(f func()) {
		wg.Add(1)
		go func() { defer wg.Done(); f() }()
	}
	run(func() {
		r := kbox(t, cfg, 60*time.Second, "status", "-o", "json", "--timeout", "20s", "--sample", "0", "--profile", "real")
		took := time.Since(killed)
		var rep report
		if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil || len(rep.Clusters) != 1 {
			t.Errorf("status -o json after the kill: %v\n%s", err, r)
			return
		}
		real := rep.Clusters[0]
		b3 := real.Brokers[len(real.Brokers)-1]
		t.Logf("kbox status %s after the kill: broker 3 fenced=%v, problems %q", took.Round(time.Millisecond), b3.Fenced, real.Problems)
		if r.Code != 1 || rep.Healthy || real.Healthy || !slices.Contains(real.Problems, unreachable3) {
			t.Errorf("kbox status right after the kill: want exit 1 and %q: %s", unreachable3, r)
		}
		if b3.ID != 3 || b3.Up || b3.Reachable == nil || *b3.Reachable || b3.DownReason == nil || *b3.DownReason != "unreachable (connection refused)" {
			t.Errorf("broker 3 right after the kill: %+v", b3)
		}
		if real.BrokersUp != 2 || real.BrokersExpected != 3 {
			t.Errorf("brokers %d/%d right after the kill", real.BrokersUp, real.BrokersExpected)
		}
	})
	run(func() {
		r := kbox(t, cfg, 60*time.Second, "top", "--bootstrap-server", cluster.Bootstrap, "-o", "json", "--iterations", "1", "--interval", "200ms")
		var f struct {
			Problems []string `json:"problems"`
		}
		if err := json.Unmarshal([]byte(r.Stdout), &f); r.Code != 0 || err != nil {
			t.Errorf("top -o json after the kill: %v %s", err, r)
			return
		}
		t.Logf("kbox top frame %s after the kill: problems %q", time.Since(killed).Round(time.Millisecond), f.Problems)
		if !slices.Contains(f.Problems, unreachable3) {
			t.Errorf("top frame right after the kill: problems %q, want %q", f.Problems, unreachable3)
		}
	})
	run(func() {
		var rep report
		getJSON(t, uiURL(t, uiBase, "api/clusters?sample=0"), &rep)
		t.Logf("dashboard /api/clusters %s after the kill", time.Since(killed).Round(time.Millisecond))
		for _, c := range rep.Clusters {
			if c.Name == "real" && (c.Healthy || !unreachable3Any(c.Problems)) {
				t.Errorf("dashboard clusters right after the kill: %+v", c)
			}
		}
		var br struct {
			Status clusterStatus `json:"status"`
		}
		getJSON(t, uiURL(t, uiBase, "api/c/real/brokers"), &br)
		st := br.Status
		if n := len(st.Brokers); n != 3 || st.Brokers[2].Up || st.Brokers[2].DownReason == nil || !unreachable3Any(st.Problems) {
			t.Errorf("dashboard brokers right after the kill: %+v", st)
		}
	})
	wg.Wait()
}

// A hung cluster (a listener that accepts every connection and never
// answers) costs `kbox status` its own --timeout and no more: the real
// cluster beside it is checked as fast as alone, and the hung one is
// reported with the limit that ended its check.
func TestStatusHungClusterCostsOnlyItsTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { _, _ = io.Copy(io.Discard, c) }()
		}
	}()
	cfg := filepath.Join(t.TempDir(), "config.yaml")
	if err := os.WriteFile(cfg, []byte("profiles:\n  real:\n    bootstrap-servers: "+cluster.Bootstrap+"\n  hung:\n    bootstrap-servers: "+ln.Addr().String()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const timeout = 6 * time.Second
	r := kbox(t, cfg, time.Minute, "status", "-o", "json", "--sample", "0", "--timeout", timeout.String())
	var rep report
	if err := json.Unmarshal([]byte(r.Stdout), &rep); err != nil {
		t.Fatalf("status -o json: %v\n%s", err, r)
	}
	if r.Code != 1 || r.Took > timeout+3*time.Second {
		t.Fatalf("want exit 1 within the hung cluster's --timeout %s (and 3 s to start and print): %s", timeout, r)
	}
	hung, real := find(t, rep, "hung"), find(t, rep, "real")
	if hung.Reachable || hung.Error == nil || !regexp.MustCompile(`no (broker answered|complete answer) within 6s$`).MatchString(*hung.Error) {
		t.Fatalf("hung cluster: %+v", hung)
	}
	if !real.Reachable || real.BrokersUp != 3 || real.CheckedMs >= timeout.Milliseconds() {
		t.Fatalf("real cluster beside the hung one: %+v", real)
	}
}
