//go:build integration

// Package sweep_test runs `kbox perf sweep` against a real 1-broker Apache
// Kafka test bed: a small produce grid (table, results JSON, HTML and PNG
// report, checked in headless Chromium), a consume grid (JSON), resume from
// a results file, and the up-front refusals (bad --vary, --max-records).
package sweep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
	"github.com/kboxdev/kbox/test/integration/testbed"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
)

var (
	cluster *testbed.Cluster
	bin     string
	outDir  string // test/integration/out/sweep (git-ignored)
)

func TestMain(m *testing.M) {
	os.Exit(testbed.Main(m, testbed.Options{Name: "sweep", Brokers: 1, Ready: func(e testbed.Env) error {
		bin, cluster = e.Kbox, e.Cluster
		_, file, _, _ := runtime.Caller(0)
		outDir = filepath.Join(filepath.Dir(file), "..", "out", "sweep")
		return os.MkdirAll(outDir, 0o755)
	}}))
}

func kbox(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	r := testbed.Runner{Timeout: 3 * time.Minute, InTempDir: true}.Exec(t, bin, args...)
	return r.Stdout, r.Stderr, r.Code
}

func topics(t *testing.T, prefix string) []string {
	t.Helper()
	return topicsAt(t, cluster.Bootstrap, prefix)
}

func topicsAt(t *testing.T, bootstrap, prefix string) []string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(strings.Split(bootstrap, ",")...))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	td, err := kadm.NewClient(cl).ListTopics(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, n := range td.Names() {
		if strings.HasPrefix(n, prefix) {
			out = append(out, n)
		}
	}
	return out
}

func readSweep(t *testing.T, path string) *sweep.Result {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	r, err := sweep.Read(fh)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestProduceSweepTableJSONReport is the 2x2 grid batch.size x partitions
// (partitions needs a fresh topic per cell) with 3000 records per cell.
func TestProduceSweepTableJSONReport(t *testing.T) {
	results := filepath.Join(outDir, "produce-sweep.json")
	html := filepath.Join(outDir, "produce-report.html")
	png := filepath.Join(outDir, "produce-summary.png")
	for _, p := range []string{results, html, png} {
		_ = os.Remove(p)
	}
	stdout, stderr, code := kbox(t, "perf", "sweep", "produce", "--bootstrap-server", cluster.Bootstrap, "--topic-prefix", "itp",
		"--records", "3000", "--warmup-records", "300", "--record-size", "512", "--vary", "batch.size=16k,64k", "--vary", "partitions=1,2",
		"--interval", "50ms", "--repeat", "1", "--cluster-warmup", "0", "--warmup-duration", "0", "--results", results, "--report", html, "--report", png)
	if code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	if !strings.Contains(stderr, "sweep produce: 4 cells (grid of batch.size (2) x partitions (2)) x 1 repeat(s) x 3,300 records (3,000 + 300 warm-up) = 13,200 records") {
		t.Errorf("no up-front statement:\n%s", stderr)
	}
	// A cell that looks stalled on a busy machine (a cold first cell) is
	// run again once every cell has run: one more progress line each.
	reruns := strings.Count(stderr, "again (attempt ")
	if n := strings.Count(stderr, "[run "); n != 4+reruns {
		t.Errorf("want %d plain progress lines when piped (4 cells, %d re-run), got %d:\n%s", 4+reruns, reruns, n, stderr)
	}
	if strings.Contains(stderr, "\r") || strings.Contains(stderr, "\033[") {
		t.Errorf("terminal control codes when piped:\n%q", stderr)
	}
	// Table: header, 4 rows, one best, differing settings marked.
	lines := strings.Split(stdout, "\n")
	if !regexp.MustCompile(`^RANK\s+CELL\s+BATCH.SIZE\s+PARTITIONS\s+RECORDS/S\s+MB/S\s+SPREAD%\s+P50 MS\s+P99 MS\s+P99.9 MS\s+MAX MS\s+CPU%\s+ERRORS\s+FLAGS$`).MatchString(lines[0]) {
		t.Fatalf("header %q", lines[0])
	}
	rowRe := regexp.MustCompile(`^(\d)( best)?\s+(\d)\s+(16k|64k\*)\s+(1|2\*)\s+([\d.]+)\s+([\d.]+)\s+-\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+([\d.]+)\s+\d+\s+0\s+(-|[a-z-]+(,[a-z-]+)*)$`)
	best, cellsSeen := 0, map[string]bool{}
	var prevRate float64 = 1e18
	for _, l := range lines[1:5] {
		m := rowRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("row %q", l)
		}
		if m[2] != "" {
			best++
			if m[1] != "1" {
				t.Errorf("best is not rank 1: %q", l)
			}
		}
		cellsSeen[m[3]] = true
		var rate float64
		fmt.Sscan(m[6], &rate)
		if rate <= 0 || rate > prevRate {
			t.Errorf("rows not sorted by records/s: %q", l)
		}
		prevRate = rate
	}
	if best != 1 || len(cellsSeen) != 4 {
		t.Errorf("best rows %d, cells %v", best, cellsSeen)
	}
	if !strings.Contains(stdout, "records/s by cell #1..#4") {
		t.Errorf("no terminal chart:\n%s", stdout)
	}
	// Fresh topics per cell were deleted.
	if left := topics(t, "itp"); len(left) != 0 {
		t.Errorf("topics left behind: %v", left)
	}
	// JSON results: every cell with its histogram and run.
	r := readSweep(t, results)
	if !r.Complete || len(r.Cells) != 4 {
		t.Fatalf("results: complete %v cells %d", r.Complete, len(r.Cells))
	}
	for i, c := range r.Cells {
		if c.Index != i+1 || c.Records != 3000 || len(c.Runs) != 1 || c.Runs[0].Result.WarmupRecords != 300 {
			t.Errorf("cell %d: index %d records %d runs %d", i+1, c.Index, c.Records, len(c.Runs))
		}
		h, err := perf.DecodeLatency(c.Histogram)
		if err != nil || h.Count() != 3000 {
			t.Errorf("cell %d histogram: %v", i+1, err)
		}
		want := fmt.Sprintf("itp-c%d", i+1)
		if c.Attempts > 1 { // a re-run cell's fresh topic
			want = fmt.Sprintf("itp-c%d-r%d", i+1, c.Attempts)
		}
		if c.Topic != want {
			t.Errorf("cell %d topic %s, want %s", i+1, c.Topic, want)
		}
		if len(c.Runs[0].Result.Intervals) == 0 {
			t.Errorf("cell %d has no interval series", i+1)
		}
		settings := strings.Join(c.Runs[0].Result.Settings, " ")
		if wantBS := "batch.size=" + c.Settings[0].Value; !strings.Contains(settings, wantBS) {
			t.Errorf("cell %d effective settings lack %s: %s", i+1, wantBS, settings)
		}
	}
	checkHTML(t, html, []string{"throughput-vs-batch.size", "mbps-vs-batch.size", "throughput-vs-partitions", "mbps-vs-partitions", "latency-per-cell", "throughput-vs-p99", "series-rate", "series-p99"})
	b, err := os.ReadFile(png)
	if err != nil || !bytes.HasPrefix(b, []byte("\x89PNG")) {
		t.Errorf("png report: %v", err)
	}

	// -o json on the same plan resumes everything from the results file
	// (no run) and prints the cells with their histograms.
	stdout, stderr, code = kbox(t, "perf", "sweep", "produce", "--bootstrap-server", cluster.Bootstrap, "--topic-prefix", "itp",
		"--records", "3000", "--warmup-records", "300", "--record-size", "512", "--vary", "batch.size=16k,64k", "--vary", "partitions=1,2",
		"--interval", "50ms", "--repeat", "1", "--cluster-warmup", "0", "--warmup-duration", "0", "--results", results, "-o", "json")
	if code != 0 || !strings.Contains(stderr, "4 of 4 cells already done") || strings.Contains(stderr, "[run ") {
		t.Fatalf("resume of a finished sweep: exit %d\n%s", code, stderr)
	}
	var j sweep.Result
	if err := json.Unmarshal([]byte(stdout), &j); err != nil || len(j.Cells) != 4 || j.Cells[0].Runs[0].Result.Histogram == "" {
		t.Fatalf("json output: %v", err)
	}

	// Merging the file with itself (as two machines that ran the same
	// sweep at the same time): counts and histograms double, exactly.
	stdout, stderr, code = kbox(t, "perf", "sweep", "merge", results, results, "-o", "json")
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s", code, stderr)
	}
	var m sweep.Result
	if err := json.Unmarshal([]byte(stdout), &m); err != nil || len(m.Cells) != 4 {
		t.Fatalf("merge json: %v", err)
	}
	for i, c := range m.Cells {
		if c.Records != 6000 || c.Latency.Count != 6000 || c.Latency.P99Ms != r.Cells[i].Latency.P99Ms {
			t.Errorf("merged cell %d: records %d count %d p99 %v (single %v)", i+1, c.Records, c.Latency.Count, c.Latency.P99Ms, r.Cells[i].Latency.P99Ms)
		}
	}
}

// checkHTML opens the report in headless Chromium: every chart is an
// inline SVG in the rendered DOM, nothing was fetched, and a screenshot is
// saved next to it.
func checkHTML(t *testing.T, path string, charts []string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	src := string(b)
	for _, bad := range []string{"<script", "<link", "src=", "url(", "@import"} {
		if strings.Contains(src, bad) {
			t.Errorf("report not self-contained: %q", bad)
		}
	}
	chromium := browser(t)
	abs, _ := filepath.Abs(path)
	args := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
		"--disable-sync", "--no-first-run", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, chromium, append(args, "--dump-dom", "file://"+abs)...)
	var dom, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, tail(errb.String()))
	}
	if regexp.MustCompile(`CONSOLE\(\d+\)|Uncaught`).MatchString(errb.String()) {
		t.Errorf("console messages while rendering:\n%s", tail(errb.String()))
	}
	d := dom.String()
	if got := strings.Count(d, "<svg"); got != len(charts) {
		t.Errorf("rendered DOM has %d <svg> elements, want %d", got, len(charts))
	}
	for _, id := range charts {
		re := regexp.MustCompile(`(?s)<figure id="` + regexp.QuoteMeta(id) + `" class="chart"><svg.*?</svg>`)
		m := re.FindString(d)
		if m == "" {
			t.Errorf("chart %s not rendered as svg", id)
			continue
		}
		if !strings.Contains(m, "<path") || !strings.Contains(m, "<text") {
			t.Errorf("chart %s has no drawing", id)
		}
	}
	if !regexp.MustCompile(`<tr class="best( flagged)?">`).MatchString(d) {
		t.Error("best cell not marked in the HTML table")
	}
	shot := strings.TrimSuffix(path, filepath.Ext(path)) + "-screenshot.png"
	_ = os.Remove(shot)
	cmd = exec.CommandContext(ctx, chromium, append(args, "--hide-scrollbars", "--window-size=1300,2600", "--screenshot="+shot, "file://"+abs)...)
	errb.Reset()
	cmd.Stderr = &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --screenshot: %v\n%s", err, tail(errb.String()))
	}
	if st, err := os.Stat(shot); err != nil || st.Size() < 20000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
}

func tail(s string) string {
	if len(s) > 3000 {
		return s[len(s)-3000:]
	}
	return s
}

// browser finds Chromium, installing Debian's package when missing.
func browser(t *testing.T) string {
	t.Helper()
	for _, n := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	if os.Getenv("KBOX_NO_APT") != "" {
		t.Skip("chromium missing and KBOX_NO_APT set")
	}
	for _, args := range [][]string{{"update", "-qq"}, {"install", "-y", "-qq", "chromium"}} {
		cmd := exec.Command("apt-get", args...)
		cmd.Env = append(os.Environ(), "DEBIAN_FRONTEND=noninteractive")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("apt-get %v: %v\n%s", args, err, tail(string(out)))
		}
	}
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not found after apt-get install")
	}
	return p
}

// TestConsumeSweep fills one topic once and reads it per cell.
func TestConsumeSweep(t *testing.T) {
	stdout, stderr, code := kbox(t, "perf", "sweep", "consume", "--bootstrap-server", cluster.Bootstrap, "--topic-prefix", "itc",
		"--records", "2000", "--record-size", "256", "--partitions", "2", "--vary", "max.poll.records=50,1000", "--vary", "consumers=1,2",
		"--timeout", "20s", "--repeat", "1", "--cluster-warmup", "0", "-o", "json")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	if strings.Count(stderr, "filling itc with 2000 records") != 1 {
		t.Errorf("topic must be filled exactly once:\n%s", stderr)
	}
	var r sweep.Result
	if err := json.Unmarshal([]byte(stdout), &r); err != nil {
		t.Fatal(err)
	}
	if len(r.Cells) != 4 {
		t.Fatalf("%d cells", len(r.Cells))
	}
	for _, c := range r.Cells {
		if c.Records != 2000 || c.Errors != 0 || c.Runs[0].Result.Kind != "consume" || c.Runs[0].Result.Clients != atoi(c.Settings[1].Value) {
			t.Errorf("cell %d (%s): records %d errors %d clients %d", c.Index, c.Label(), c.Records, c.Errors, c.Runs[0].Result.Clients)
		}
		if !strings.Contains(strings.Join(c.Runs[0].Result.Settings, " "), "max.poll.records="+c.Settings[0].Value) {
			t.Errorf("cell %d: max.poll.records not applied: %v", c.Index, c.Runs[0].Result.Settings)
		}
	}
	if left := topics(t, "itc"); len(left) != 0 {
		t.Errorf("topics left behind: %v", left)
	}
}

func atoi(s string) int {
	var n int
	fmt.Sscan(s, &n)
	return n
}

// TestResumeAfterInterruption: a results file missing a cell (as after an
// interruption) makes the same command run only that cell.
func TestResumeAfterInterruption(t *testing.T) {
	results := filepath.Join(t.TempDir(), "r.json")
	args := []string{"perf", "sweep", "produce", "--bootstrap-server", cluster.Bootstrap, "--topic-prefix", "itr", "--records", "2000",
		"--vary", "linger.ms=0,5", "--one-at-a-time", "--repeat", "1", "--cluster-warmup", "0", "--warmup-duration", "0", "--warmup-duration", "0", "--results", results, "-o", "csv"}
	if _, stderr, code := kbox(t, args...); code != 0 {
		t.Fatalf("first run: exit %d\n%s", code, stderr)
	}
	r := readSweep(t, results)
	first := r.Cells[0].Histogram
	r.Cells, r.Complete = r.Cells[:1], false
	if err := sweep.Save(results, r); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code := kbox(t, args...)
	if code != 0 {
		t.Fatalf("resume: exit %d\n%s", code, stderr)
	}
	if !strings.Contains(stderr, "1 of 2 cells already done") || strings.Count(stderr, "[run ") != 1 || !strings.Contains(stderr, "cell #2/2 linger.ms=5") {
		t.Errorf("resume should run only cell 2:\n%s", stderr)
	}
	if n := strings.Count(strings.TrimSpace(stdout), "\n"); n != 2 {
		t.Errorf("csv should have a header and 2 rows:\n%s", stdout)
	}
	r = readSweep(t, results)
	if !r.Complete || len(r.Cells) != 2 || r.Cells[0].Histogram != first {
		t.Errorf("resumed file: complete %v cells %d, cell 1 kept %v", r.Complete, len(r.Cells), r.Cells[0].Histogram == first)
	}
	// A different plan refuses the file.
	_, stderr, code = kbox(t, append(args[:len(args)-2:len(args)-2], "--records", "100")...)
	if code == 0 || !strings.Contains(stderr, "written by a different sweep (differs in records)") {
		t.Errorf("different plan: exit %d %s", code, stderr)
	}
}

// TestRefusals: bad input is one line before anything runs.
func TestRefusals(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--vary", "batch.sise=1k,2k"}, "kbox: error: --vary batch.sise: unknown client property"},
		{[]string{"--vary", "linger.ms=0,fast"}, "kbox: error: --vary linger.ms: invalid value \"fast\""},
		{[]string{"--vary", "batch.size=16k", "--records", "30000000", "--repeat", "2"}, "more than --max-records 50,000,000"},
		{[]string{"--vary", "consumers=1,2"}, "--vary consumers: not a dimension of a produce sweep"},
		{[]string{"--vary", "linger.ms=0", "--objective", "fastest"}, "--objective \"fastest\""},
	}
	for _, c := range cases {
		args := append([]string{"perf", "sweep", "produce", "--bootstrap-server", cluster.Bootstrap, "--topic-prefix", "itx", "--records", "100"}, c.args...)
		_, stderr, code := kbox(t, args...)
		errLines := 0
		for _, l := range strings.Split(stderr, "\n") {
			if strings.HasPrefix(l, "kbox: ") {
				errLines++
			}
		}
		if code == 0 || !strings.Contains(stderr, c.want) || errLines != 1 || strings.Contains(stderr, "[run ") {
			t.Errorf("%v: exit %d, stderr:\n%s", c.args, code, stderr)
		}
	}
	if left := topics(t, "itx"); len(left) != 0 {
		t.Errorf("a refused sweep created topics: %v", left)
	}
}
