//go:build integration

// Package perf_test checks kafka-producer-perf-test, kafka-consumer-perf-test
// and `kbox perf` against a real 1-broker Apache Kafka test bed, next to the
// Apache 4.4.0 tools run on the same cluster in the same test.
package perf_test

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kboxdev/kbox/test/integration/testbed"
)

var (
	kboxBin string
	binDir  string // symlinks named like the Apache scripts
	cluster *testbed.Cluster
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{
		Name:    "perf",
		Applets: []string{"kafka-producer-perf-test", "kafka-consumer-perf-test"},
		Brokers: 1,
		Ready: func(e testbed.Env) error {
			kboxBin, binDir, cluster = e.Kbox, e.BinDir, e.Cluster
			return nil
		},
	}))
}

// ---------------------------------------------------------------- helpers

type result = testbed.Result

// runner runs with a fresh config, no profile and no output default.
var runner = testbed.Runner{Timeout: 2 * time.Minute, Env: []string{"KBOX_PROFILE=", "KBOX_OUTPUT="}}

// run executes path with args, a fresh config and no profile.
func run(t *testing.T, path string, args ...string) result {
	t.Helper()
	return runner.Exec(t, path, args...)
}

// applet runs kbox through the argv[0] symlink named tool.
func applet(t *testing.T, tool string, args ...string) result {
	t.Helper()
	return run(t, filepath.Join(binDir, tool), args...)
}

func kbox(t *testing.T, args ...string) result {
	t.Helper()
	return run(t, kboxBin, args...)
}

// apache runs the Apache 4.4.0 tool on the same cluster.
func apache(t *testing.T, tool string, args ...string) result {
	t.Helper()
	start := time.Now()
	stdout, stderr, code, err := cluster.Apache(nil, tool, args...)
	if err != nil {
		t.Fatalf("apache %s: %v\n%s", tool, err, stderr)
	}
	return result{Stdout: stdout, Stderr: stderr, Code: code, Took: time.Since(start)}
}

func admin(t *testing.T) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(cluster.Bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func createTopic(t *testing.T, topic string, partitions int32) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := admin(t).CreateTopics(ctx, partitions, 1, nil, topic)
	if err == nil {
		err = resp.Error()
	}
	if err != nil {
		t.Fatalf("create topic %s: %v", topic, err)
	}
}

// endOffsets is the number of records in topic, read from the broker.
func endOffsets(t *testing.T, topic string) int64 {
	t.Helper()
	var n int64
	for _, o := range partitionEnds(t, topic) {
		n += o
	}
	return n
}

// partitionEnds is each partition's end offset in topic, read from the
// broker.
func partitionEnds(t *testing.T, topic string) map[int32]int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	lo, err := admin(t).ListEndOffsets(ctx, topic)
	if err == nil {
		err = lo.Error()
	}
	if err != nil {
		t.Fatalf("list end offsets of %s: %v", topic, err)
	}
	ends := map[int32]int64{}
	lo.Each(func(o kadm.ListedOffset) { ends[o.Partition] = o.Offset })
	return ends
}

func lines(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

var numberRE = regexp.MustCompile(`\d+(?:\.\d+)?|NaN|-?Infinity`)

// shapeRE derives a regular expression from one line of Apache's output:
// the text stays literal, every number becomes a number pattern with the
// same count of decimals (Java prints NaN and Infinity for any %f).
func shapeRE(line string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, m := range numberRE.FindAllStringIndex(line, -1) {
		b.WriteString(regexp.QuoteMeta(line[last:m[0]]))
		num := line[m[0]:m[1]]
		switch {
		case num == "NaN" || strings.HasSuffix(num, "Infinity"):
			b.WriteString(`(?:\d+(?:\.\d+)?|NaN|-?Infinity)`)
		case strings.Contains(num, "."):
			d := len(num) - strings.IndexByte(num, '.') - 1
			fmt.Fprintf(&b, `(?:\d+\.\d{%d}|NaN|-?Infinity)`, d)
		default:
			b.WriteString(`\d+`)
		}
		last = m[1]
	}
	b.WriteString(regexp.QuoteMeta(line[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// classify names the kind of a perf-test output line.
type classifier func(line string) string

func producerKind(l string) string {
	switch {
	case strings.Contains(l, " steady state records sent, ") && strings.HasSuffix(l, " ms 99.9th."):
		return "steady-final"
	case strings.Contains(l, " records sent, ") && strings.HasSuffix(l, " ms 99.9th."):
		return "final"
	case strings.Contains(l, " records sent, ") && strings.HasSuffix(l, " ms max latency."):
		return "window"
	}
	return "literal:" + l
}

// compareShapes checks that every kbox line has the shape of an Apache line
// of the same kind (and the same comma-separated field count), and that
// every kind in need appears in both outputs.
func compareShapes(t *testing.T, kind classifier, apacheOut, kboxOut string, need ...string) {
	t.Helper()
	shapes := map[string][]*regexp.Regexp{}
	fields := map[string]int{}
	for _, l := range lines(apacheOut) {
		k := kind(l)
		shapes[k] = append(shapes[k], shapeRE(l))
		fields[k] = len(strings.Split(l, ", "))
	}
	seen := map[string]int{}
	for _, l := range lines(kboxOut) {
		k := kind(l)
		seen[k]++
		res, ok := shapes[k]
		if !ok {
			t.Errorf("kbox line of kind %q has no counterpart in Apache's output: %q\napache:\n%s", k, l, apacheOut)
			continue
		}
		if n := len(strings.Split(l, ", ")); n != fields[k] {
			t.Errorf("kbox %s line has %d fields, Apache's %d: %q", k, n, fields[k], l)
		}
		match := false
		for _, re := range res {
			if re.MatchString(l) {
				match = true
				break
			}
		}
		if !match {
			t.Errorf("kbox %s line %q does not match Apache's shape %s", k, l, res[0])
		}
	}
	for _, k := range need {
		if len(shapes[k]) == 0 {
			t.Errorf("Apache printed no %s line:\n%s", k, apacheOut)
		}
		if seen[k] == 0 {
			t.Errorf("kbox printed no %s line:\n%s", k, kboxOut)
		}
	}
}

// findLine returns the first line of kind k.
func findLine(t *testing.T, kind classifier, out, k string) string {
	t.Helper()
	for _, l := range lines(out) {
		if kind(l) == k {
			return l
		}
	}
	t.Fatalf("no %s line in:\n%s", k, out)
	return ""
}

var producerFinalRE = regexp.MustCompile(`^(\d+) (?:steady state )?records sent, ([\d.]+) records/sec \(([\d.]+) MB/sec\), ([\d.]+|NaN) ms avg latency, ([\d.]+) ms max latency, (\d+) ms 50th, (\d+) ms 95th, (\d+) ms 99th, (\d+) ms 99\.9th\.$`)

func parseFinal(t *testing.T, l string) (records int64, rate float64, p50, p95, p99, p999, maxLat float64) {
	t.Helper()
	m := producerFinalRE.FindStringSubmatch(l)
	if m == nil {
		t.Fatalf("not a final producer line: %q", l)
	}
	records, _ = strconv.ParseInt(m[1], 10, 64)
	rate, _ = strconv.ParseFloat(m[2], 64)
	p50, _ = strconv.ParseFloat(m[6], 64)
	p95, _ = strconv.ParseFloat(m[7], 64)
	p99, _ = strconv.ParseFloat(m[8], 64)
	p999, _ = strconv.ParseFloat(m[9], 64)
	maxLat, _ = strconv.ParseFloat(m[5], 64)
	return
}

// ---------------------------------------------------------------- producer

func TestProducerPerfTestIntegration(t *testing.T) {
	createTopic(t, "prod-kbox", 3)
	createTopic(t, "prod-apache", 3)
	bs := cluster.Bootstrap

	t.Run("unthrottled-count-and-final-line", func(t *testing.T) {
		const n = 5000
		a := apache(t, "kafka-producer-perf-test", "--topic", "prod-apache", "--num-records", strconv.Itoa(n), "--record-size", "100", "--throughput", "-1", "--bootstrap-server", bs)
		k := applet(t, "kafka-producer-perf-test", "--topic", "prod-kbox", "--num-records", strconv.Itoa(n), "--record-size", "100", "--throughput", "-1", "--bootstrap-server", bs)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		if k.Stderr != "" {
			t.Errorf("kbox wrote to stderr: %q", k.Stderr)
		}
		compareShapes(t, producerKind, a.Stdout, k.Stdout, "final")
		if got := endOffsets(t, "prod-kbox"); got != n {
			t.Errorf("broker has %d records in prod-kbox, want %d", got, n)
		}
		if got := endOffsets(t, "prod-apache"); got != n {
			t.Errorf("broker has %d records in prod-apache, want %d (Apache)", got, n)
		}
		recs, _, p50, p95, p99, p999, maxLat := parseFinal(t, findLine(t, producerKind, k.Stdout, "final"))
		if recs != n || !(p50 <= p95 && p95 <= p99 && p99 <= p999 && p999 <= maxLat) {
			t.Errorf("final line: records %d, percentiles %v %v %v %v max %v", recs, p50, p95, p99, p999, maxLat)
		}
		t.Logf("apache (%s): %s", a.Took.Round(time.Millisecond), strings.TrimSpace(a.Stdout))
		t.Logf("kbox   (%s): %s", k.Took.Round(time.Millisecond), strings.TrimSpace(k.Stdout))
	})

	t.Run("throttled-warmup-windows", func(t *testing.T) {
		// 2000 records at 1000/s with 500 warm-up records and a 300 ms
		// window: the warm-up notice, window lines, "In steady state.",
		// the final line and the steady-state line.
		args := func(topic string) []string {
			return []string{"--topic", topic, "--num-records", "2000", "--warmup-records", "500", "--record-size", "100",
				"--throughput", "1000", "--reporting-interval", "300", "--bootstrap-server", bs}
		}
		before := endOffsets(t, "prod-kbox")
		a := apache(t, "kafka-producer-perf-test", args("prod-apache")...)
		k := applet(t, "kafka-producer-perf-test", args("prod-kbox")...)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		compareShapes(t, producerKind, a.Stdout, k.Stdout, "final", "steady-final", "window",
			"literal:Warmup first 500 records. Steady state results will print after the complete test summary.")
		if got := endOffsets(t, "prod-kbox") - before; got != 2000 {
			t.Errorf("broker got %d records, want 2000", got)
		}
		final := findLine(t, producerKind, k.Stdout, "final")
		steady := findLine(t, producerKind, k.Stdout, "steady-final")
		if r, _, _, _, _, _, _ := parseFinal(t, final); r != 2000 {
			t.Errorf("final line counts %d records: %q", r, final)
		}
		if r, _, _, _, _, _, _ := parseFinal(t, steady); r != 1500 {
			t.Errorf("steady-state line counts %d records: %q", r, steady)
		}
		// Apache prints the steady-state line last.
		if kl := lines(k.Stdout); kl[len(kl)-1] != steady {
			t.Errorf("steady-state line is not last:\n%s", k.Stdout)
		}
		t.Logf("apache:\n%s\nkbox:\n%s", a.Stdout, k.Stdout)
	})

	t.Run("payload-monotonic", func(t *testing.T) {
		// The payload is the record index (read back from the broker).
		createTopic(t, "prod-mono", 1)
		k := applet(t, "kafka-producer-perf-test", "--topic", "prod-mono", "--num-records", "300", "--payload-monotonic", "--throughput", "-1", "--bootstrap-server", bs)
		if k.Code != 0 {
			t.Fatal(k)
		}
		cl, err := kgo.NewClient(kgo.SeedBrokers(bs), kgo.ConsumeTopics("prod-mono"), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var got []string
		for len(got) < 300 && ctx.Err() == nil {
			cl.PollFetches(ctx).EachRecord(func(r *kgo.Record) { got = append(got, string(r.Value)) })
		}
		if len(got) != 300 {
			t.Fatalf("read %d records, want 300", len(got))
		}
		for i, v := range got {
			if v != strconv.Itoa(i) {
				t.Fatalf("record %d has payload %q, want %q", i, v, strconv.Itoa(i))
			}
		}
	})
}

// TestThrottledRateIntegration: a throttled run achieves its target rate.
// The target is 1 %; the shared 2-core CI machine gets 2 %.
func TestThrottledRateIntegration(t *testing.T) {
	createTopic(t, "rate", 3)
	const tol = 0.02
	t.Run("applet-fractional", func(t *testing.T) {
		const target = 600.5
		k := applet(t, "kafka-producer-perf-test", "--topic", "rate", "--num-records", "1800", "--record-size", "200",
			"--throughput", strconv.FormatFloat(target, 'f', -1, 64), "--bootstrap-server", cluster.Bootstrap)
		if k.Code != 0 {
			t.Fatal(k)
		}
		_, rate, _, _, _, _, _ := parseFinal(t, findLine(t, producerKind, k.Stdout, "final"))
		if math.Abs(rate-target)/target > tol {
			t.Errorf("achieved %.3f records/s, target %.1f (tolerance %.0f%%)\n%s", rate, target, tol*100, k.Stdout)
		}
		t.Logf("target %.1f/s, achieved %.3f/s (%+.2f%%) in %s", target, rate, 100*(rate-target)/target, k.Took.Round(time.Millisecond))
	})
	t.Run("native", func(t *testing.T) {
		const target = 1000.0
		k := kbox(t, "perf", "produce", "--topic", "rate", "--records", "3000", "--record-size", "200", "--throughput", "1000",
			"--bootstrap-server", cluster.Bootstrap, "-o", "json")
		if k.Code != 0 {
			t.Fatal(k)
		}
		r := decodeResult(t, k.Stdout)
		if r.Records != 3000 || r.Failed != 0 || r.TargetRate != target {
			t.Errorf("records %d failed %d target %v", r.Records, r.Failed, r.TargetRate)
		}
		if !strings.Contains(r.LatencyBasis, "intended send time") {
			t.Errorf("throttled latency basis %q does not say it is measured from the intended send time", r.LatencyBasis)
		}
		if math.Abs(r.RecordsPerSec-target)/target > tol {
			t.Errorf("achieved %.3f records/s, target %.0f (tolerance %.0f%%)", r.RecordsPerSec, target, tol*100)
		}
		t.Logf("target %.0f/s, achieved %.3f/s (%+.2f%%)", target, r.RecordsPerSec, 100*(r.RecordsPerSec-target)/target)
	})
}

// ---------------------------------------------------------------- consumer

const consumerHeader = "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"
const detailedHeader = "time, threadId, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec"

var dateRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}:\d{3}, `)

func consumerKind(l string) string {
	switch {
	case l == consumerHeader || l == detailedHeader || strings.HasPrefix(l, "Warning: "):
		return "literal:" + l
	case dateRE.MatchString(l) && dateRE.MatchString(l[len("2006-01-02 15:04:05:000, "):]):
		return "summary"
	case dateRE.MatchString(l):
		return "detailed"
	}
	return "other:" + l
}

// unsignFetch drops the minus sign of the fetch columns (fetch.time.ms,
// fetch.MB.sec, fetch.nMsg.sec) of consumer lines. Apache's
// ConsumerPerformance can print them negative: it measures the join time
// from the start of the test, not of the interval, and subtracts it from
// the interval's time, so on a loaded machine an interval that contains the
// join gets fetch.time.ms = -2 and negative rates. The shapes compared are
// what the oracle can print, signs included.
func unsignFetch(out string) string {
	ls := strings.Split(out, "\n")
	for i, l := range ls {
		f := strings.Split(l, ", ")
		if len(f) != 10 {
			continue
		}
		for j := 7; j < 10; j++ {
			f[j] = strings.TrimPrefix(f[j], "-")
		}
		ls[i] = strings.Join(f, ", ")
	}
	return strings.Join(ls, "\n")
}

// checkSummary checks the definitions behind a summary line: MB and count
// as expected, and rebalance.time.ms + fetch.time.ms = end − start.
func checkSummary(t *testing.T, who, l string, minMsgs, maxMsgs int64, recordSize int) {
	t.Helper()
	f := strings.Split(l, ", ")
	if len(f) != 10 {
		t.Fatalf("%s summary has %d fields: %q", who, len(f), l)
	}
	const layout = "2006-01-02 15:04:05.000"
	start, err1 := time.ParseInLocation(layout, f[0][:19]+"."+f[0][20:], time.Local)
	end, err2 := time.ParseInLocation(layout, f[1][:19]+"."+f[1][20:], time.Local)
	msgs, err3 := strconv.ParseInt(f[4], 10, 64)
	mb, err4 := strconv.ParseFloat(f[2], 64)
	join, err5 := strconv.ParseInt(f[6], 10, 64)
	fetch, err6 := strconv.ParseInt(f[7], 10, 64)
	for _, err := range []error{err1, err2, err3, err4, err5, err6} {
		if err != nil {
			t.Fatalf("%s summary %q: %v", who, l, err)
		}
	}
	if msgs < minMsgs || msgs > maxMsgs {
		t.Errorf("%s consumed %d records, want %d..%d: %q", who, msgs, minMsgs, maxMsgs, l)
	}
	if want := float64(msgs) * float64(recordSize) / (1 << 20); math.Abs(mb-want) > 0.00005 {
		t.Errorf("%s: %.4f MB for %d records of %d bytes, want %.4f", who, mb, msgs, recordSize, want)
	}
	if el := end.Sub(start).Milliseconds(); join+fetch != el || join < 0 || fetch < 0 {
		t.Errorf("%s: rebalance %d + fetch %d != end - start %d: %q", who, join, fetch, el, l)
	}
}

func TestConsumerPerfTestIntegration(t *testing.T) {
	const topic, n, size = "cons", 3000, 100
	createTopic(t, topic, 3)
	bs := cluster.Bootstrap
	if p := applet(t, "kafka-producer-perf-test", "--topic", topic, "--num-records", strconv.Itoa(n), "--record-size", strconv.Itoa(size), "--throughput", "-1", "--bootstrap-server", bs); p.Code != 0 {
		t.Fatal(p)
	}
	if got := endOffsets(t, topic); got != n {
		t.Fatalf("topic has %d records, want %d", got, n)
	}

	t.Run("summary-with-header-messages", func(t *testing.T) {
		args := []string{"--topic", topic, "--messages", strconv.Itoa(n), "--bootstrap-server", bs}
		a := apache(t, "kafka-consumer-perf-test", args...)
		k := applet(t, "kafka-consumer-perf-test", args...)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		compareShapes(t, consumerKind, unsignFetch(a.Stdout), unsignFetch(k.Stdout), "summary", "literal:"+consumerHeader,
			"literal:Warning: --messages is deprecated. Use --num-records instead.")
		if kl, al := lines(k.Stdout), lines(a.Stdout); len(kl) != len(al) || kl[0] != al[0] || kl[1] != al[1] {
			t.Errorf("line structure differs:\napache:\n%s\nkbox:\n%s", a.Stdout, k.Stdout)
		}
		checkSummary(t, "apache", findLine(t, consumerKind, a.Stdout, "summary"), n, n, size)
		checkSummary(t, "kbox", findLine(t, consumerKind, k.Stdout, "summary"), n, n, size)
		t.Logf("apache (%s):\n%s\nkbox (%s):\n%s", a.Took.Round(time.Millisecond), a.Stdout, k.Took.Round(time.Millisecond), k.Stdout)
	})

	t.Run("hide-header-partial", func(t *testing.T) {
		// Fewer records than the topic holds: both tools stop after the
		// poll that reaches the count (at most max.poll.records = 500 more).
		args := []string{"--topic", topic, "--num-records", "1000", "--hide-header", "--bootstrap-server", bs}
		a := apache(t, "kafka-consumer-perf-test", args...)
		k := applet(t, "kafka-consumer-perf-test", args...)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		compareShapes(t, consumerKind, unsignFetch(a.Stdout), unsignFetch(k.Stdout), "summary")
		if kl := lines(k.Stdout); len(kl) != 1 || len(lines(a.Stdout)) != 1 {
			t.Errorf("--hide-header: want exactly the summary line\napache:\n%s\nkbox:\n%s", a.Stdout, k.Stdout)
		}
		checkSummary(t, "apache", findLine(t, consumerKind, a.Stdout, "summary"), 1000, 1499, size)
		checkSummary(t, "kbox", findLine(t, consumerKind, k.Stdout, "summary"), 1000, 1499, size)
	})

	t.Run("show-detailed-stats", func(t *testing.T) {
		// A 2 ms interval so that even a fast run prints detailed lines.
		args := []string{"--topic", topic, "--num-records", strconv.Itoa(n), "--show-detailed-stats", "--reporting-interval", "2", "--bootstrap-server", bs}
		a := apache(t, "kafka-consumer-perf-test", args...)
		k := applet(t, "kafka-consumer-perf-test", args...)
		if a.Code != 0 || k.Code != 0 {
			t.Fatalf("apache: %s\nkbox: %s", a, k)
		}
		compareShapes(t, consumerKind, unsignFetch(a.Stdout), unsignFetch(k.Stdout), "detailed", "literal:"+detailedHeader)
		for _, out := range []string{a.Stdout, k.Stdout} {
			if l := lines(out); l[0] != detailedHeader {
				t.Errorf("first line is not the detailed header: %q", l[0])
			}
			var last int64
			for _, l := range lines(out)[1:] {
				if consumerKind(l) != "detailed" {
					t.Errorf("non-detailed line with --show-detailed-stats: %q", l)
					continue
				}
				f := strings.Split(l, ", ")
				if f[1] != "0" {
					t.Errorf("threadId %q, want 0: %q", f[1], l)
				}
				msgs, _ := strconv.ParseInt(f[4], 10, 64)
				if msgs < last || msgs > n {
					t.Errorf("cumulative count %d after %d (of %d): %q", msgs, last, n, l)
				}
				last = msgs
			}
		}
	})
}

// ---------------------------------------------------------------- native + merge

type nativeResult struct {
	Kind          string  `json:"kind"`
	Records       int64   `json:"records"`
	Failed        int64   `json:"failed"`
	RecordsPerSec float64 `json:"records_per_sec"`
	TargetRate    float64 `json:"target_records_per_sec"`
	LatencyBasis  string  `json:"latency_basis"`
	MergedFrom    int     `json:"merged_from"`
	Latency       struct {
		Count   int64   `json:"count"`
		MinMs   float64 `json:"min_ms"`
		P50Ms   float64 `json:"p50_ms"`
		P90Ms   float64 `json:"p90_ms"`
		P95Ms   float64 `json:"p95_ms"`
		P99Ms   float64 `json:"p99_ms"`
		P999Ms  float64 `json:"p99_9_ms"`
		P9999Ms float64 `json:"p99_99_ms"`
		MaxMs   float64 `json:"max_ms"`
	} `json:"latency"`
	Histogram string   `json:"histogram"`
	Settings  []string `json:"settings"`
}

func decodeResult(t *testing.T, s string) nativeResult {
	t.Helper()
	var r nativeResult
	if err := json.Unmarshal([]byte(s), &r); err != nil {
		t.Fatalf("json: %v\n%s", err, s)
	}
	return r
}

func decodeHist(t *testing.T, r nativeResult) *hdr.Histogram {
	t.Helper()
	h, err := hdr.Decode([]byte(r.Histogram))
	if err != nil {
		t.Fatalf("decode histogram: %v", err)
	}
	return h
}

func TestNativeMergeIntegration(t *testing.T) {
	createTopic(t, "native", 3)
	bs := cluster.Bootstrap
	dir := t.TempDir()
	// Two runs with different latency distributions: one unthrottled, one
	// throttled (latency from the intended send time).
	runs := [][]string{
		{"--records", "4000", "--record-size", "512"},
		{"--records", "2000", "--record-size", "512", "--throughput", "2000", "--acks", "1", "--compression", "lz4"},
	}
	var files []string
	var results []nativeResult
	for i, extra := range runs {
		args := append([]string{"perf", "produce", "--topic", "native", "--bootstrap-server", bs, "-o", "json"}, extra...)
		k := kbox(t, args...)
		if k.Code != 0 {
			t.Fatal(k)
		}
		r := decodeResult(t, k.Stdout)
		want, _ := strconv.ParseInt(extra[1], 10, 64)
		// No sampling: every acknowledged record is in the histogram.
		if r.Kind != "produce" || r.Records != want || r.Failed != 0 || r.Latency.Count != want || decodeHist(t, r).TotalCount() != want {
			t.Fatalf("run %d: kind %q records %d failed %d latency count %d, want %d", i, r.Kind, r.Records, r.Failed, r.Latency.Count, want)
		}
		if len(r.Settings) == 0 {
			t.Errorf("run %d: no effective settings in the result", i)
		}
		f := filepath.Join(dir, fmt.Sprintf("run%d.json", i))
		if err := os.WriteFile(f, []byte(k.Stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		files, results = append(files, f), append(results, r)
	}
	if got := endOffsets(t, "native"); got != 6000 {
		t.Errorf("broker has %d records, want 6000", got)
	}
	for _, want := range []string{"acks=1", "compression.type=lz4"} {
		found := false
		for _, s := range results[1].Settings {
			found = found || strings.Contains(s, want)
		}
		if !found {
			t.Errorf("settings of the second run do not state %s: %v", want, results[1].Settings)
		}
	}

	m := kbox(t, append([]string{"perf", "merge", "-o", "json"}, files...)...)
	if m.Code != 0 {
		t.Fatal(m)
	}
	merged := decodeResult(t, m.Stdout)
	if merged.Records != 6000 || merged.Latency.Count != 6000 || merged.MergedFrom != 2 {
		t.Errorf("merged: records %d, latency count %d, merged_from %d", merged.Records, merged.Latency.Count, merged.MergedFrom)
	}

	// The reference: one histogram over the union of the two runs.
	union := decodeHist(t, results[0])
	union.Merge(decodeHist(t, results[1]))
	got := decodeHist(t, merged)
	if got.TotalCount() != union.TotalCount() {
		t.Fatalf("merged count %d, union %d", got.TotalCount(), union.TotalCount())
	}
	same := func(what string, a, b int64) {
		if !union.ValuesAreEquivalent(a, b) {
			t.Errorf("%s: merged %d µs, union %d µs", what, a, b)
		}
	}
	same("min", got.Min(), union.Min())
	same("max", got.Max(), union.Max())
	for _, q := range []float64{1, 10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 100} {
		same(fmt.Sprintf("p%v", q), got.ValueAtQuantile(q), union.ValueAtQuantile(q))
	}
	// The summary in the JSON is the merged histogram's.
	ms := func(us int64) float64 { return float64(us) / 1000 }
	for _, c := range []struct {
		name string
		json float64
		q    float64
	}{{"p50", merged.Latency.P50Ms, 50}, {"p90", merged.Latency.P90Ms, 90}, {"p99", merged.Latency.P99Ms, 99}, {"p99.9", merged.Latency.P999Ms, 99.9}} {
		if want := ms(union.ValueAtQuantile(c.q)); math.Abs(c.json-want) > 0.0005 {
			t.Errorf("merged JSON %s = %.3f ms, union %.3f ms", c.name, c.json, want)
		}
	}
	if math.Abs(merged.Latency.MaxMs-ms(union.Max())) > 0.0005 || math.Abs(merged.Latency.MinMs-ms(union.Min())) > 0.0005 {
		t.Errorf("merged JSON min/max %.3f/%.3f ms, union %.3f/%.3f ms", merged.Latency.MinMs, merged.Latency.MaxMs, ms(union.Min()), ms(union.Max()))
	}
	t.Logf("run0 p50/p99/max %.3f/%.3f/%.3f ms; run1 %.3f/%.3f/%.3f ms; merged %.3f/%.3f/%.3f ms",
		results[0].Latency.P50Ms, results[0].Latency.P99Ms, results[0].Latency.MaxMs,
		results[1].Latency.P50Ms, results[1].Latency.P99Ms, results[1].Latency.MaxMs,
		merged.Latency.P50Ms, merged.Latency.P99Ms, merged.Latency.MaxMs)

	t.Run("merge-rejects-garbage", func(t *testing.T) {
		bad := filepath.Join(dir, "bad.json")
		if err := os.WriteFile(bad, []byte(`{"kind":"produce"}`), 0o644); err != nil {
			t.Fatal(err)
		}
		r := kbox(t, "perf", "merge", files[0], bad)
		if r.Code == 0 || strings.Count(strings.TrimSpace(r.Stderr), "\n") != 0 || !strings.Contains(r.Stderr, "bad.json") || r.Stdout != "" {
			t.Errorf("merge with a bad file: %s", r)
		}
	})
	t.Run("native-consume", func(t *testing.T) {
		k := kbox(t, "perf", "consume", "--topic", "native", "--records", "6000", "--bootstrap-server", bs, "-o", "json")
		if k.Code != 0 {
			t.Fatal(k)
		}
		r := decodeResult(t, k.Stdout)
		if r.Kind != "consume" || r.Records != 6000 || r.Latency.Count != 6000 {
			t.Errorf("consume: kind %q records %d latency count %d", r.Kind, r.Records, r.Latency.Count)
		}
	})
}

// ---------------------------------------------------------------- errors

var randomGroupRE = regexp.MustCompile(`perf-consumer-\d+\) *`)

// TestBadInvocationsIntegration: Apache's exact stdout, stderr and exit
// code. Where Java prints a stack trace, kbox prints only its first line.
func TestBadInvocationsIntegration(t *testing.T) {
	bs := cluster.Bootstrap
	cases := []struct {
		name       string
		tool       string
		args       []string
		firstLine  bool // compare only the first stderr line (Java stack trace)
		normGroups bool // the help shows a random default group
	}{
		{"producer-missing-topic", "kafka-producer-perf-test", []string{"--num-records", "10", "--record-size", "10", "--throughput", "-1", "--bootstrap-server", bs}, false, false},
		{"producer-bad-throughput", "kafka-producer-perf-test", []string{"--topic", "x", "--num-records", "10", "--record-size", "10", "--throughput", "abc", "--bootstrap-server", bs}, false, false},
		{"producer-zero-records", "kafka-producer-perf-test", []string{"--topic", "x", "--num-records", "0", "--record-size", "10", "--throughput", "-1", "--bootstrap-server", bs}, false, false},
		{"producer-no-bootstrap", "kafka-producer-perf-test", []string{"--topic", "x", "--num-records", "10", "--record-size", "10", "--throughput", "-1"}, false, false},
		{"producer-two-payloads", "kafka-producer-perf-test", []string{"--topic", "x", "--num-records", "10", "--record-size", "10", "--payload-monotonic", "--throughput", "-1", "--bootstrap-server", bs}, false, false},
		{"consumer-missing-topic", "kafka-consumer-perf-test", []string{"--num-records", "10", "--bootstrap-server", bs}, false, true},
		{"consumer-unknown-option", "kafka-consumer-perf-test", []string{"--topic", "x", "--num-records", "10", "--bootstrap-server", bs, "--bogus"}, false, true},
		{"consumer-zero-interval", "kafka-consumer-perf-test", []string{"--topic", "x", "--num-records", "10", "--bootstrap-server", bs, "--reporting-interval", "0"}, true, false},
	}
	// One JVM per tool for every Apache case (a JVM start costs seconds).
	byTool := map[string][][]string{}
	for _, c := range cases {
		byTool[c.tool] = append(byTool[c.tool], c.args)
	}
	apacheRes := map[string][]result{}
	for tool, cmds := range byTool {
		rs, err := cluster.ApacheBatch(tool, cmds)
		if err != nil {
			t.Fatalf("apache %s: %v", tool, err)
		}
		apacheRes[tool] = rs
	}
	seen := map[string]int{}
	for _, c := range cases {
		a := apacheRes[c.tool][seen[c.tool]]
		seen[c.tool]++
		t.Run(c.name, func(t *testing.T) {
			k := applet(t, c.tool, c.args...)
			if a.Code == 0 {
				t.Fatalf("Apache accepted the invocation: %s", a)
			}
			if k.Code != a.Code {
				t.Errorf("exit %d, Apache %d", k.Code, a.Code)
			}
			if k.Stdout != a.Stdout {
				t.Errorf("stdout differs\napache: %q\nkbox:   %q", a.Stdout, k.Stdout)
			}
			ae, ke := a.Stderr, k.Stderr
			if c.normGroups {
				ae, ke = randomGroupRE.ReplaceAllString(ae, "perf-consumer-N)"), randomGroupRE.ReplaceAllString(ke, "perf-consumer-N)")
			}
			if c.firstLine {
				ae, _, _ = strings.Cut(ae, "\n")
				if strings.Count(strings.TrimRight(ke, "\n"), "\n") != 0 {
					t.Errorf("kbox stderr is more than one line: %q", ke)
				}
				ke = strings.TrimRight(ke, "\n")
				if strings.HasPrefix(ae, "java.lang.") { // "java.lang.IllegalArgumentException: msg"
					_, ae, _ = strings.Cut(ae, ": ")
				}
			}
			if ke != ae {
				t.Errorf("stderr differs\napache: %q\nkbox:   %q", ae, ke)
			}
			if strings.Contains(k.Stderr, "panic") || strings.Contains(k.Stderr, "goroutine ") {
				t.Errorf("kbox crashed: %s", k.Stderr)
			}
		})
	}
}

// TestShapeComparatorIntegration shows that the shape comparison used above
// rejects lines that differ from Apache's format (it must be able to fail).
func TestShapeComparatorIntegration(t *testing.T) {
	apacheFinal := "2000 records sent, 1304.631442 records/sec (0.12 MB/sec), 113.75 ms avg latency, 1347.00 ms max latency, 112 ms 50th, 157 ms 95th, 158 ms 99th, 258 ms 99.9th."
	re := shapeRE(apacheFinal)
	for _, l := range []string{
		"5000 records sent, 166666.666667 records/sec (15.89 MB/sec), 25.16 ms avg latency, 29.00 ms max latency, 25 ms 50th, 29 ms 95th, 29 ms 99th, 29 ms 99.9th.",
		"0 records sent, 0.000000 records/sec (0.00 MB/sec), NaN ms avg latency, 0.00 ms max latency, 0 ms 50th, 0 ms 95th, 0 ms 99th, 0 ms 99.9th.",
	} {
		if !re.MatchString(l) {
			t.Errorf("%s does not match %q", re, l)
		}
	}
	for _, l := range []string{
		"2000 records sent, 1304.6 records/sec (0.12 MB/sec), 113.75 ms avg latency, 1347.00 ms max latency, 112 ms 50th, 157 ms 95th, 158 ms 99th, 258 ms 99.9th.",
		"2000 records sent, 1304.631442 records/sec (0.12 MB/sec), 113.75 ms avg latency, 1347.00 ms max latency, 112 ms 50th, 157 ms 95th, 158 ms 99th, 258.0 ms 99.9th.",
		"2000 records sent, 1304.631442 records/sec (0.12 MB/sec), 113.75 ms avg latency, 1347.00 ms max latency, 112 ms 50th, 157 ms 95th, 158 ms 99th, 258 ms 99.9th",
		"2000 records sent, 1304.631442 records/sec (0.12 MB/s), 113.75 ms avg latency, 1347.00 ms max latency, 112 ms 50th, 157 ms 95th, 158 ms 99th, 258 ms 99.9th.",
	} {
		if re.MatchString(l) {
			t.Errorf("%s matches the wrong line %q", re, l)
		}
	}
	csv := shapeRE("2026-11-30 19:38:47:502, 2026-11-30 19:38:49:188, 0.3815, 0.2263, 4000, 2372.4792, 1331, 355, 1.0746, 11267.6056")
	if !csv.MatchString("2026-12-01 09:00:00:000, 2026-12-01 09:00:01:000, 12.3815, 0.2263, 4, 2372.4792, 0, 1000, Infinity, NaN") ||
		csv.MatchString("2026-12-01 09:00:00.000, 2026-12-01 09:00:01:000, 12.3815, 0.2263, 4, 2372.4792, 0, 1000, 1.0746, 11267.6056") ||
		csv.MatchString("2026-12-01 09:00:00:000, 2026-12-01 09:00:01:000, 12.381, 0.2263, 4, 2372.4792, 0, 1000, 1.0746, 11267.6056") {
		t.Errorf("consumer summary shape %s accepts or rejects the wrong lines", csv)
	}
}
