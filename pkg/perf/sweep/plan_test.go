package sweep

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
)

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"16k": 16384, "1m": 1 << 20, "1M": 1 << 20, "64KiB": 65536, "2g": 2 << 30, "100": 100, "1.5k": 1536, "512b": 512} {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "k", "abc", "1.3b", "16x", "0.1k"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q): want error", bad)
		}
	}
}

func TestParseVary(t *testing.T) {
	d, err := ParseVary("batch.size=16k,64k, 1m", "produce")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(d.Values, []string{"16384", "65536", "1048576"}) || !reflect.DeepEqual(d.Labels, []string{"16k", "64k", "1m"}) || d.Workload {
		t.Fatalf("batch.size: %+v", d)
	}
	d, err = ParseVary("record-size=100,1k", "produce")
	if err != nil || !d.Workload || !reflect.DeepEqual(d.Values, []string{"100", "1024"}) {
		t.Fatalf("record-size: %+v %v", d, err)
	}
	d, err = ParseVary("compression.type=none,gzip,snappy,lz4,zstd", "produce")
	if err != nil || len(d.Values) != 5 {
		t.Fatalf("compression: %+v %v", d, err)
	}
	if _, err = ParseVary("max.poll.records=100,500", "consume"); err != nil {
		t.Fatal(err)
	}
	if _, err = ParseVary("fetch.max.bytes=1m,50m", "consume"); err != nil {
		t.Fatal(err)
	}
	bad := map[string]string{ // spec -> text the one-line error must contain
		"batch.size":              "want NAME=V1,V2",
		"=1,2":                    "want NAME=V1,V2",
		"batch.sise=1,2":          "--vary batch.sise: unknown client property",
		"batch.size=16k,,32k":     "--vary batch.size: empty value",
		"batch.size=16q":          "--vary batch.size:",
		"linger.ms=abc":           "--vary linger.ms:",
		"compression.type=brotli": "--vary compression.type:",
		"acks=2":                  "--vary acks:",
		"max.poll.records=100":    "", // wrong mode, checked below
		"producers=0,1":           "--vary producers: 0 is out of range",
		"partitions=two":          "--vary partitions:",
		"consumers=1,2":           "--vary consumers: not a dimension of a produce sweep",
		"linger.ms=0,0":           "--vary linger.ms: value 0 is given twice",
		"batch.size=16k,16384":    "--vary batch.size: value 16384 is given twice",
		"group.id=a,b":            "--vary group.id: cannot be varied",
		"sasl.jaas.config=a,b":    "--vary sasl.jaas.config: security settings cannot be varied",
		"send.buffer.bytes=1k":    "--vary send.buffer.bytes: socket buffers",
		"key.serializer=a":        "--vary key.serializer:",
		"replication-factor=1,-1": "--vary replication-factor:",
		"record-size=2g":          "--vary record-size: 2g is out of range",
		"max.in.flight.requests.per.connection=0": "--vary max.in.flight.requests.per.connection:",
	}
	for spec, want := range bad {
		_, err := ParseVary(spec, "produce")
		if err == nil {
			t.Errorf("%s: want error", spec)
			continue
		}
		if strings.Contains(err.Error(), "\n") || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: error %q, want one line containing %q", spec, err, want)
		}
	}
	if _, err := ParseVary("max.poll.records=100", "produce"); err == nil || !strings.Contains(err.Error(), "--vary max.poll.records: not used by producer clients") {
		t.Errorf("consumer property in a produce sweep: %v", err)
	}
	if _, err := ParseVary("batch.size=1k", "consume"); err == nil || !strings.Contains(err.Error(), "not used by consumer clients") {
		t.Errorf("producer property in a consume sweep: %v", err)
	}
}

func dims(t *testing.T, mode string, specs ...string) []Dimension {
	t.Helper()
	var out []Dimension
	for _, s := range specs {
		d, err := ParseVary(s, mode)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, d)
	}
	return out
}

func keys(cells []Cell) []string {
	var out []string
	for _, c := range cells {
		out = append(out, c.Key())
	}
	return out
}

func TestExpand(t *testing.T) {
	ds := dims(t, "produce", "batch.size=16k,64k", "linger.ms=0,5,20")
	grid, err := Expand(ds, StrategyGrid)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"batch.size=16384 linger.ms=0", "batch.size=16384 linger.ms=5", "batch.size=16384 linger.ms=20",
		"batch.size=65536 linger.ms=0", "batch.size=65536 linger.ms=5", "batch.size=65536 linger.ms=20",
	}
	if !reflect.DeepEqual(keys(grid), want) {
		t.Fatalf("grid:\n%q\nwant\n%q", keys(grid), want)
	}
	for i, c := range grid {
		if c.Index != i+1 {
			t.Fatalf("index %d at %d", c.Index, i)
		}
	}
	if grid[3].Label() != "batch.size=64k linger.ms=0" {
		t.Fatalf("label %q", grid[3].Label())
	}
	one, err := Expand(ds, StrategyOneAtATime)
	if err != nil {
		t.Fatal(err)
	}
	want = []string{"batch.size=16384 linger.ms=0", "batch.size=65536 linger.ms=0", "batch.size=16384 linger.ms=5", "batch.size=16384 linger.ms=20"}
	if !reflect.DeepEqual(keys(one), want) {
		t.Fatalf("one-at-a-time:\n%q\nwant\n%q", keys(one), want)
	}
	three, _ := Expand(dims(t, "produce", "acks=1,all", "linger.ms=0,5", "compression.type=none,lz4,zstd"), StrategyGrid)
	if len(three) != 12 {
		t.Fatalf("3-dim grid has %d cells", len(three))
	}
	if _, err := Expand(nil, StrategyGrid); err == nil {
		t.Fatal("no dimensions must fail")
	}
	if _, err := Expand(append(ds, ds[0]), StrategyGrid); err == nil || !strings.Contains(err.Error(), "given twice") {
		t.Fatalf("duplicate dimension: %v", err)
	}
}

func testPlan(t *testing.T, mode string, specs ...string) (*Plan, []Cell) {
	p := &Plan{Mode: mode, Strategy: StrategyGrid, Dimensions: dims(t, mode, specs...), TopicPrefix: "sw", Records: 1000,
		WarmupRecords: 100, Repeat: 2, RecordSize: 100, Producers: 1, Consumers: 1, Partitions: 3, ReplicationFactor: 1}
	if err := p.Validate(); err != nil {
		t.Fatal(err)
	}
	cells, err := Expand(p.Dimensions, p.Strategy)
	if err != nil {
		t.Fatal(err)
	}
	return p, cells
}

func TestWorkloadTopicsTotals(t *testing.T) {
	p, cells := testPlan(t, "produce", "partitions=1,6", "linger.ms=0,20")
	w := p.Workload(cells[3])
	if w.Partitions != 6 || w.Props["linger.ms"] != "20" || w.RecordSize != 100 || len(w.Props) != 1 {
		t.Fatalf("workload %+v", w)
	}
	name, shared := p.TopicFor(cells[2], cells)
	if name != "sw-c3" || shared {
		t.Fatalf("produce sweep varying partitions: topic %s shared %v", name, shared)
	}
	tot := p.Totals(cells)
	if tot.Cells != 4 || tot.Runs != 8 || tot.Records != 8*1100 || tot.FillRecords != 0 {
		t.Fatalf("totals %+v", tot)
	}
	p2, cells2 := testPlan(t, "produce", "linger.ms=0,20")
	if n, s := p2.TopicFor(cells2[1], cells2); n != "sw" || !s {
		t.Fatalf("shared topic %s %v", n, s)
	}
	// Consume: record-size changes the data, max.poll.records does not.
	p3, cells3 := testPlan(t, "consume", "record-size=100,1k", "max.poll.records=10,500")
	var topics []string
	for _, c := range cells3 {
		n, s := p3.TopicFor(c, cells3)
		if !s {
			t.Fatal("consume topics are shared")
		}
		topics = append(topics, n)
	}
	if !reflect.DeepEqual(topics, []string{"sw-f1", "sw-f1", "sw-f2", "sw-f2"}) {
		t.Fatalf("consume topics %v", topics)
	}
	tot = p3.Totals(cells3)
	if tot.FillTopics != 2 || tot.FillRecords != 2*1100 || tot.Total() != 8*1100+2*1100 {
		t.Fatalf("consume totals %+v", tot)
	}
}

// fakeRun builds a run with n latencies around lat and the given rate.
func fakeRun(t *testing.T, rate float64, lat time.Duration) Run {
	return Run{Result: perftest.Run(t, rate, lat), CPUPercent: 50}
}

func cellResults(t *testing.T, cells []Cell, spec [][2]float64) []CellResult {
	var out []CellResult
	for i, c := range cells {
		cr := CellResult{Cell: c, Key: c.Key()}
		if spec[i][0] > 0 {
			cr.Runs = []Run{fakeRun(t, spec[i][0], time.Duration(spec[i][1]*float64(time.Millisecond)))}
		} else {
			cr.Runs = []Run{{Error: "boom"}}
		}
		if err := cr.Summarize(); err != nil {
			t.Fatal(err)
		}
		out = append(out, cr)
	}
	return out
}

func TestObjectiveOrdering(t *testing.T) {
	_, cells := testPlan(t, "produce", "batch.size=16k,64k", "linger.ms=0,20")
	// rate, base latency ms (p99 ~ 1.98x)
	crs := cellResults(t, cells, [][2]float64{{1000, 5}, {3000, 40}, {0, 0}, {2000, 10}})
	rank := func(o string) []int {
		ob, err := ParseObjective(o)
		if err != nil {
			t.Fatal(err)
		}
		var out []int
		for _, i := range ob.Rank(crs) {
			out = append(out, crs[i].Index)
		}
		return out
	}
	if got := rank("throughput"); !reflect.DeepEqual(got, []int{2, 4, 1, 3}) {
		t.Errorf("throughput: %v", got)
	}
	if got := rank("p99"); !reflect.DeepEqual(got, []int{1, 4, 2, 3}) {
		t.Errorf("p99: %v", got)
	}
	// p99 of cell 4 is ~19.9 ms, of cell 2 ~79 ms.
	if got := rank("throughput-at-p99<=25ms"); !reflect.DeepEqual(got, []int{4, 1, 2, 3}) {
		t.Errorf("throughput-at-p99<=25ms: %v", got)
	}
	o, _ := ParseObjective("throughput-at-p99<=1ms")
	if o.Best(crs) != -1 {
		t.Error("no cell meets p99<=1ms")
	}
	if o, _ := ParseObjective("throughput-at-p99<=0.5s"); o.MaxP99Ms != 500 {
		t.Errorf("0.5s = %v ms", o.MaxP99Ms)
	}
	for _, bad := range []string{"fast", "throughput-at-p99<=", "throughput-at-p99<=-3", "p99<=5"} {
		if _, err := ParseObjective(bad); err == nil {
			t.Errorf("objective %q: want error", bad)
		}
	}
	if crs[2].Errors != 1 || crs[2].OK() {
		t.Errorf("failed cell: %+v", crs[2])
	}
}

func TestSummarizeRepeats(t *testing.T) {
	cr := CellResult{Runs: []Run{fakeRun(t, 1000, time.Millisecond), fakeRun(t, 1200, time.Millisecond), fakeRun(t, 900, 4*time.Millisecond)}}
	if err := cr.Summarize(); err != nil {
		t.Fatal(err)
	}
	if cr.RecordsPerSec != 1000 || cr.Records != 300 {
		t.Fatalf("median %v records %d", cr.RecordsPerSec, cr.Records)
	}
	if int(cr.SpreadPercent) != 30 {
		t.Fatalf("spread %v", cr.SpreadPercent)
	}
	if cr.Latency.Count != 300 || cr.Latency.MaxMs < 7.9 || cr.Histogram == "" {
		t.Fatalf("merged latency %+v", cr.Latency)
	}
}

func TestTableAndCSV(t *testing.T) {
	p, cells := testPlan(t, "produce", "batch.size=16k,64k", "linger.ms=0,20")
	r := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Cells: cellResults(t, cells, [][2]float64{{1000, 5}, {3000, 40}, {0, 0}, {2000, 10}})}
	o, _ := ParseObjective("throughput")
	tb := r.Table(o, func(s string) string { return s + "*" })
	if tb.Header[2] != "BATCH.SIZE" || tb.Header[3] != "LINGER.MS" {
		t.Fatalf("header %v", tb.Header)
	}
	if tb.Best != 0 || tb.Rows[0][0] != "1 best" || tb.Rows[0][1] != "2" {
		t.Fatalf("best row %v", tb.Rows[0])
	}
	// cell 2 = 16k/20: only linger.ms differs from the baseline.
	if tb.Rows[0][2] != "16k" || tb.Rows[0][3] != "20*" || !tb.Differs[0][3] || tb.Differs[0][2] {
		t.Fatalf("highlight %v %v", tb.Rows[0], tb.Differs[0])
	}
	if tb.Rows[3][0] != "-" {
		t.Fatalf("failed cell row %v", tb.Rows[3])
	}
	csv := r.CSV(o)
	if len(csv) != 5 || csv[0][4] != "batch.size" || csv[2][2] != "true" || csv[2][4] != "16384" {
		t.Fatalf("csv %v", csv)
	}
}

func TestResume(t *testing.T) {
	p, cells := testPlan(t, "produce", "batch.size=16k,64k", "linger.ms=0,20")
	path := filepath.Join(t.TempDir(), "sweep.json")
	if prev, err := LoadResume(path, p); prev != nil || err != nil {
		t.Fatalf("missing file: %v %v", prev, err)
	}
	done := cellResults(t, cells[:2], [][2]float64{{1000, 5}, {3000, 40}})
	if err := Save(path, &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Cells: done}); err != nil {
		t.Fatal(err)
	}
	prev, err := LoadResume(path, p)
	if err != nil {
		t.Fatal(err)
	}
	pend := Pending(cells, prev)
	if !reflect.DeepEqual(keys(pend), keys(cells[2:])) {
		t.Fatalf("pending %v", keys(pend))
	}
	if prev.Cells[0].Histogram == "" || prev.Cells[1].Runs[0].Result.Histogram == "" {
		t.Fatal("histograms must survive the results file")
	}
	p2 := *p
	p2.Records = 5000
	if _, err := LoadResume(path, &p2); err == nil || !strings.Contains(err.Error(), "differs in records") {
		t.Fatalf("different plan: %v", err)
	}
	if err := os.WriteFile(path, []byte(`{"kind":"produce"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadResume(path, p); err == nil || !strings.Contains(err.Error(), "not a kbox sweep results file") {
		t.Fatalf("foreign file: %v", err)
	}
}

func TestMergeSweeps(t *testing.T) {
	p, cells := testPlan(t, "produce", "batch.size=16k,64k")
	mk := func(rates ...float64) *Result {
		r := &Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Complete: true}
		for i, c := range cells {
			cr := CellResult{Cell: c, Key: c.Key(), Runs: []Run{fakeRun(t, rates[i], time.Duration(i+1)*time.Millisecond)}}
			if err := cr.Summarize(); err != nil {
				t.Fatal(err)
			}
			r.Cells = append(r.Cells, cr)
		}
		return r
	}
	m, err := Merge([]*Result{mk(100, 200), mk(100, 200)})
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Cells) != 2 || m.Cells[0].Records != 200 || m.Cells[0].Latency.Count != 200 || m.Cells[1].CPUPercent != 100 {
		t.Fatalf("merged %+v", m.Cells[0])
	}
	// Both fake runs span the same second: merged rate is the sum.
	if m.Cells[0].RecordsPerSec != 200 {
		t.Fatalf("merged rate %v", m.Cells[0].RecordsPerSec)
	}
	// Merged, a run keeps the busiest machine's load; re-rendered from one
	// file, a cell keeps its attempts and discarded runs, the sweep its CPUs.
	la := func(v float64) *float64 { return &v }
	a, b := mk(100, 200), mk(100, 200)
	a.CPUs, a.Cells[0].Runs[0].LoadAverage, b.Cells[0].Runs[0].LoadAverage = 2, la(40.5), la(190.25)
	a.Cells[1].Attempts, a.Cells[1].DiscardedRuns = 3, []Run{{Error: "earlier"}}
	if m, err = Merge([]*Result{a, b}); err != nil {
		t.Fatal(err)
	}
	if got := m.Cells[0].Runs[0].LoadAverage; got == nil || *got != 190.25 || m.Cells[1].Runs[0].LoadAverage != nil || m.CPUs != 2 {
		t.Errorf("merged load average %v, cpus %d", got, m.CPUs)
	}
	if m, err = Merge([]*Result{a}); err != nil {
		t.Fatal(err)
	}
	if c := m.Cells[1]; c.Attempts != 3 || len(c.DiscardedRuns) != 1 || m.CPUs != 2 || *m.Cells[0].Runs[0].LoadAverage != 40.5 {
		t.Errorf("one file re-rendered: attempts %d, discarded %d, cpus %d", c.Attempts, len(c.DiscardedRuns), m.CPUs)
	}
	if lo, hi, n := m.LoadRange(); lo != 40.5 || hi != 40.5 || n != 1 {
		t.Errorf("load range %v %v %d", lo, hi, n)
	}
	other := mk(1, 2)
	other.Plan.Records = 7
	if _, err := Merge([]*Result{mk(1, 2), other}); err == nil || !strings.Contains(err.Error(), "file 2: it was written by a different sweep") {
		t.Fatalf("different plans: %v", err)
	}
}

// Flags: short runs, repeats that disagree, and a stall next to the other
// cells (latency up and both rates down by the stall factor); a cell with
// few records/s but high MB/s (large records) is no stall.
func TestFlags(t *testing.T) {
	_, cells := testPlan(t, "produce", "linger.ms=0,1,2,3,4,5")
	res := &Result{Checks: Checks{MinRunSec: 0.5, MaxSpreadPercent: 25, StallFactor: 10}}
	res.Cells = cellResults(t, cells, [][2]float64{{600000, 50}, {500000, 60}, {550000, 40}, {20000, 2000}, {20000, 900}, {500000, 50}})
	spread := &res.Cells[5] // repeats 500k and 300k: 50 % spread
	spread.Runs = append(spread.Runs, fakeRun(t, 300000, 50*time.Millisecond))
	for i := range res.Cells {
		for _, r := range res.Cells[i].Runs {
			r.Result.MBPerSec = r.Result.RecordsPerSec * 100 / (1 << 20) // 100-byte records
		}
	}
	big := &res.Cells[4] // large records: few records/s, many MB/s
	big.Runs[0].Result.MBPerSec = 200
	short := &res.Cells[1]
	short.Runs[0].Result.MeasureEnd = short.Runs[0].Result.MeasureStart.Add(100 * time.Millisecond)
	short.Runs[0].Result.ElapsedSec = 0.1
	for i := range res.Cells {
		if err := res.Cells[i].Summarize(); err != nil {
			t.Fatal(err)
		}
	}
	res.Flag()
	want := [][]string{nil, {FlagShortRun}, nil, {FlagStall}, nil, {FlagOutlier}}
	for i, c := range res.Cells {
		if strings.Join(c.Flags, ",") != strings.Join(want[i], ",") {
			t.Errorf("cell %d: flags %v, want %v", i+1, c.Flags, want[i])
		}
	}
	notes := strings.Join(res.Footnotes(), "\n")
	for _, w := range []string{"short-run (#2): a run was measured for less than 0.5 s", "outlier (#6): the repeats' records/s spread exceeds 25 %", "stall (#4): p50 latency over 10x"} {
		if !strings.Contains(notes, w) {
			t.Errorf("footnotes lack %q:\n%s", w, notes)
		}
	}
	tb := res.Table(Objective{Kind: "throughput"}, nil)
	if h := tb.Header[len(tb.Header)-1]; h != "FLAGS" {
		t.Errorf("last column %s", h)
	}
	// Checks off: nothing flagged.
	res.Checks = Checks{}
	res.Flag()
	for _, c := range res.Cells {
		if len(c.Flags) > 0 {
			t.Errorf("cell %d flagged %v with the checks off", c.Index, c.Flags)
		}
	}
}

func TestAgreeingRuns(t *testing.T) {
	run := func(rate float64) Run {
		return Run{Result: &perf.Result{Records: 100, RecordsPerSec: rate}}
	}
	pool := []Run{run(100), run(40), run(180), run(95), {Error: "boom"}, run(300), run(104), {Result: &perf.Result{Records: 10, Failed: 1, RecordsPerSec: 101}}}
	best, rest := agreeingRuns(pool, 3)
	var got []float64
	for _, r := range best {
		got = append(got, r.Result.RecordsPerSec)
	}
	if !sameRates(got, []float64{100, 95, 104}) || len(rest) != len(pool)-3 {
		t.Errorf("best %v (rest %d)", got, len(rest))
	}
	if b, _ := agreeingRuns(pool[:3], 4); b != nil {
		t.Errorf("fewer clean runs than wanted gave %v", b)
	}
}

func sameRates(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
