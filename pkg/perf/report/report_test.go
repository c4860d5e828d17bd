package report

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"image/color"
	"image/png"
	"math"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/perftest"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotutil"
)

// chartSweep is a finished sweep over the dimensions specs with
// strategy; rate gives each cell's records/s (0: the cell failed), flags
// its flags.
func chartSweep(t *testing.T, strategy string, rate func(c sweep.Cell) (float64, []string), specs ...string) *sweep.Result {
	t.Helper()
	p := &sweep.Plan{Mode: "produce", Strategy: strategy, TopicPrefix: "rc", Records: 1000, Repeat: 1, RecordSize: 100,
		Producers: 1, Consumers: 1, Partitions: 3, ReplicationFactor: 1}
	for _, s := range specs {
		d, err := sweep.ParseVary(s, "produce")
		if err != nil {
			t.Fatal(err)
		}
		p.Dimensions = append(p.Dimensions, d)
	}
	cells, err := sweep.Expand(p.Dimensions, strategy)
	if err != nil {
		t.Fatal(err)
	}
	r := &sweep.Result{FormatVersion: perf.FormatVersion, Kind: "sweep", Plan: *p, Complete: true}
	for _, c := range cells {
		v, flags := rate(c)
		cr := sweep.CellResult{Cell: c, Key: c.Key(), Flags: flags}
		if v > 0 {
			w := p.Workload(c)
			cr.RecordsPerSec, cr.MBPerSec, cr.Records = v, v*float64(w.RecordSize)/(1<<20), 1000
			cr.Latency = perf.LatencySummary{Count: 1000, P50Ms: 2, P90Ms: 3, P99Ms: 5, P999Ms: 7, MaxMs: 9}
		}
		r.Cells = append(r.Cells, cr)
	}
	return r
}

func TestAxisFor(t *testing.T) {
	for _, tc := range []struct {
		spec               string
		numeric, log, size bool
	}{
		{"record-size=100,10,1000,10000", true, true, true},
		{"batch.size=16k,64k", true, true, true}, // a size: log even within a decade
		{"batch.size=0,16k", true, false, true},  // 0 has no place on a log axis
		{"partitions=6,1,3,9", true, false, false},
		{"linger.ms=0,5,100", true, false, false},
		{"linger.ms=1,10,100", true, true, false}, // spans two decades
		{"linger.ms=1,10", true, false, false},    // exactly one decade
		{"compression.type=none,gzip,lz4", false, false, false},
		{"acks=1,0,-1", false, false, false}, // modes, though they parse as numbers
		{"enable.idempotence=true,false", false, false, false},
	} {
		d, err := sweep.ParseVary(tc.spec, "produce")
		if err != nil {
			t.Fatal(err)
		}
		a := axisFor(d)
		if a.numeric != tc.numeric || a.log != tc.log || a.size != tc.size {
			t.Errorf("%s: numeric %v log %v size %v; want %v %v %v", tc.spec, a.numeric, a.log, a.size, tc.numeric, tc.log, tc.size)
		}
	}
}

func TestDimensionTicks(t *testing.T) {
	labels := func(ts []plot.Tick) (major []string, minor []float64) {
		for _, tk := range ts {
			if tk.Label != "" {
				major = append(major, tk.Label)
			} else {
				minor = append(minor, tk.Value)
			}
		}
		return major, minor
	}
	for _, tc := range []struct {
		spec  string
		major string
		minor []float64
	}{
		{"record-size=100,10,1000,10000", "10 100 1000 10000", nil},
		{"batch.size=64k,16k,1m,256k", "16 KiB|64 KiB|256 KiB|1 MiB", []float64{1e5, 1e6}},
		{"record-size=1536,512", "512 1.5 KiB", []float64{1000}},
		{"partitions=6,1,3,9", "1 3 6 9", nil},
		{"linger.ms=100,1,10,1000", "1 10 100 1000", nil},
		// 100 and 101 would print on top of each other: 101 keeps its tick
		// but loses its label.
		{"linger.ms=100,101,0,200", "0 100 200", []float64{101}},
	} {
		d, err := sweep.ParseVary(tc.spec, "produce")
		if err != nil {
			t.Fatal(err)
		}
		p := plot.New()
		axisFor(d).setX(p, d)
		ts := p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max)
		major, minor := labels(ts)
		sep := " "
		if strings.Contains(tc.major, "|") {
			sep = "|"
		}
		if got := strings.Join(major, sep); got != tc.major {
			t.Errorf("%s: labels %q, want %q", tc.spec, got, tc.major)
		}
		if fmt.Sprint(minor) != fmt.Sprint(tc.minor) {
			t.Errorf("%s: minor ticks %v, want %v", tc.spec, minor, tc.minor)
		}
		for _, tk := range ts {
			if tk.Value < p.X.Min || tk.Value > p.X.Max {
				t.Errorf("%s: tick %v outside [%v, %v]", tc.spec, tk.Value, p.X.Min, p.X.Max)
			}
		}
		atValue := 0
		for _, tk := range ts {
			for _, v := range d.Values {
				if strconv.FormatFloat(tk.Value, 'f', -1, 64) == v {
					atValue++
				}
			}
		}
		if atValue != len(d.Values) {
			t.Errorf("%s: %d ticks at values for %d values", tc.spec, atValue, len(d.Values))
		}
	}
}

func TestSILabels(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 250: "250", 5000: "5000", 250000: "250k", 1.5e6: "1.5M", 2e9: "2G", 0.25: "0.25"} {
		if got := siLabel(v); got != want {
			t.Errorf("siLabel(%v) = %q, want %q", v, got, want)
		}
	}
}

// svgText is a <text> of an SVG chart: its position (gonum draws it with
// transform scale(1,-1), so y grows upwards) and its content.
type svgText struct {
	x, y float64
	s    string
}

type svgPath struct {
	d, style string
}

func parseSVG(t *testing.T, s string) (texts []svgText, paths []svgPath) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(s))
	for {
		tok, err := dec.Token()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		attr := map[string]string{}
		for _, a := range se.Attr {
			attr[a.Name.Local] = a.Value
		}
		switch se.Name.Local {
		case "text":
			var body string
			if err := dec.DecodeElement(&body, &se); err != nil {
				t.Fatal(err)
			}
			x, _ := strconv.ParseFloat(attr["x"], 64)
			y, _ := strconv.ParseFloat(attr["y"], 64)
			texts = append(texts, svgText{x, -y, body})
		case "path":
			paths = append(paths, svgPath{attr["d"], attr["style"]})
		}
	}
	return texts, paths
}

// xTickLabels are the texts of the row just above the x axis label (the
// dimension's name), left to right.
func xTickLabels(texts []svgText, dim string) []string {
	axisY := math.NaN()
	for _, tx := range texts {
		if tx.s == dim || strings.HasPrefix(tx.s, dim+" (") {
			axisY = tx.y
		}
	}
	gap := math.Inf(1)
	for _, tx := range texts {
		if tx.y > axisY {
			gap = math.Min(gap, tx.y-axisY)
		}
	}
	var row []svgText
	for _, tx := range texts {
		if tx.y > axisY && math.Abs(tx.y-axisY-gap) < 0.5 {
			row = append(row, tx)
		}
	}
	sort.Slice(row, func(i, j int) bool { return row[i].x < row[j].x })
	var out []string
	for _, tx := range row {
		out = append(out, tx.s)
	}
	return out
}

func hexColor(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02X%02X%02X", r>>8, g>>8, b>>8)
}

// filled counts the closed paths filled with colour c (bars, boxes); the
// SVG leaves out a black fill, the default.
func filled(paths []svgPath, c color.Color) int {
	n := 0
	for _, p := range paths {
		if !strings.HasSuffix(strings.TrimSpace(p.d), "Z") {
			continue
		}
		if hexColor(c) == "#000000" && p.style == "" || p.style != "" && strings.Contains(p.style, "fill:"+hexColor(c)) {
			n++
		}
	}
	return n
}

func chartByID(t *testing.T, charts []Chart, id string) Chart {
	t.Helper()
	for _, c := range charts {
		if c.ID == id {
			return c
		}
	}
	t.Fatalf("no chart %s", id)
	return Chart{}
}

// TestOneAtATimeCharts: the sweep, values given out of order.
// Every dimension gets a records/s and an MB/s chart (one group), x ticks
// sorted, the baseline marked, flagged cells marked and named.
func TestOneAtATimeCharts(t *testing.T) {
	sizes := map[string]float64{"10": 600000, "100": 400000, "1000": 100000, "10000": 12000}
	r := chartSweep(t, sweep.StrategyOneAtATime, func(c sweep.Cell) (float64, []string) {
		rs, _ := c.Get(sweep.DimRecordSize)
		pa, _ := c.Get(sweep.DimPartitions)
		v := sizes[rs]
		if pa != "6" {
			v *= 0.8
		}
		var flags []string
		if rs == "10" {
			flags = []string{sweep.FlagShortRun}
		}
		if pa == "1" {
			flags = []string{sweep.FlagOutlier, sweep.FlagStall}
		}
		return v, flags
	}, "record-size=100,10,1000,10000", "partitions=6,1,3,9", "compression.type=none,gzip,lz4")
	o, _ := sweep.ParseObjective("throughput")
	charts, err := Charts(r, o)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, c := range charts {
		ids = append(ids, c.ID+"/"+c.Group)
	}
	want := "throughput-vs-record-size/vs-record-size mbps-vs-record-size/vs-record-size throughput-vs-partitions/vs-partitions mbps-vs-partitions/vs-partitions " +
		"throughput-vs-compression.type/vs-compression.type mbps-vs-compression.type/vs-compression.type latency-per-cell/ throughput-vs-p99/ series-rate/ series-p99/"
	if strings.Join(ids, " ") != want {
		t.Fatalf("charts\n%s\nwant\n%s", strings.Join(ids, " "), want)
	}
	for _, tc := range []struct {
		dim, ticks, flagLegend, caption string
		bars                            int
	}{
		{"record-size", "10 100 1000 10000", "flagged (short-run)", "#2 short-run", 0},
		{"partitions", "1 3 6 9", "flagged (outlier, stall)", "#5 outlier, stall", 0},
		{"compression.type", "none gzip lz4", "", "One bar per value", 3},
	} {
		for _, m := range []string{"throughput", "mbps"} {
			c := chartByID(t, charts, m+"-vs-"+tc.dim)
			svg, err := c.SVG()
			if err != nil {
				t.Fatal(err)
			}
			texts, paths := parseSVG(t, svg)
			if got := strings.Join(xTickLabels(texts, tc.dim), " "); got != tc.ticks {
				t.Errorf("%s: x ticks %q, want %q", c.ID, got, tc.ticks)
			}
			var legend []string
			for _, tx := range texts {
				legend = append(legend, tx.s)
			}
			all := "|" + strings.Join(legend, "|") + "|"
			if !strings.Contains(all, "|baseline|") {
				t.Errorf("%s: no baseline legend: %s", c.ID, all)
			}
			// The baseline box: in the legend and on the chart.
			if n := filled(paths, baselineGlyph.Color); n != 2 {
				t.Errorf("%s: %d baseline boxes, want 2", c.ID, n)
			}
			if tc.flagLegend != "" && !strings.Contains(all, "|"+tc.flagLegend+"|") {
				t.Errorf("%s: no %q legend: %s", c.ID, tc.flagLegend, all)
			}
			if tc.flagLegend == "" && strings.Contains(all, "flagged") {
				t.Errorf("%s: flagged legend without a flagged cell: %s", c.ID, all)
			}
			if !strings.Contains(c.Caption, tc.caption) {
				t.Errorf("%s: caption %q lacks %q", c.ID, c.Caption, tc.caption)
			}
			// Bars are filled closed paths in the series colour: one per
			// value plus the legend's swatch; a line chart has none.
			if n := filled(paths, plotutil.Color(0)); (tc.bars == 0 && n != 0) || (tc.bars > 0 && n != tc.bars+1) {
				t.Errorf("%s: %d filled paths in the series colour, want %d bars", c.ID, n, tc.bars)
			}
			if !strings.Contains(all, "|"+map[string]string{"throughput": "records/s", "mbps": "MB/s"}[m]+"|") {
				t.Errorf("%s: y axis label missing: %s", c.ID, all)
			}
		}
	}
	if c := chartByID(t, charts, "throughput-vs-record-size"); !strings.Contains(c.Caption, "log scale") {
		t.Errorf("record-size caption: %q", c.Caption)
	}
}

// TestGridCharts: a grid draws one line (or one colour of bars) per
// combination of the other dimensions, each line sorted by x.
func TestGridCharts(t *testing.T) {
	r := chartSweep(t, sweep.StrategyGrid, func(c sweep.Cell) (float64, []string) {
		rs, _ := c.Get(sweep.DimRecordSize)
		n, _ := strconv.Atoi(rs)
		return 1e6 / math.Sqrt(float64(n)), nil
	}, "compression.type=none,lz4", "record-size=1000,10,100")
	p, _, err := dimensionChart(r, 1, metricRecords)
	if err != nil {
		t.Fatal(err)
	}
	c := Chart{plot: p, w: 400, h: 300}
	svg, err := c.SVG()
	if err != nil {
		t.Fatal(err)
	}
	texts, paths := parseSVG(t, svg)
	if got := strings.Join(xTickLabels(texts, "record-size"), " "); got != "10 100 1000" {
		t.Errorf("x ticks %q", got)
	}
	var legend []string
	for _, tx := range texts {
		if strings.HasPrefix(tx.s, "compression.type=") || tx.s == "baseline" {
			legend = append(legend, tx.s)
		}
	}
	if strings.Join(legend, ",") != "compression.type=none,compression.type=lz4,baseline" {
		t.Errorf("legend %v", legend)
	}
	// Each line's path visits its points left to right.
	lines := 0
	re := regexp.MustCompile(`[ML]([-\d.e]+),([-\d.e]+)`)
	for _, pa := range paths {
		if !strings.Contains(pa.style, "stroke:"+hexColor(plotutil.Color(0))) && !strings.Contains(pa.style, "stroke:"+hexColor(plotutil.Color(1))) {
			continue
		}
		pts := re.FindAllStringSubmatch(pa.d, -1)
		if len(pts) != 3 {
			continue
		}
		lines++
		prev := math.Inf(-1)
		for _, m := range pts {
			x, _ := strconv.ParseFloat(m[1], 64)
			if x <= prev {
				t.Errorf("line not sorted by x: %s", pa.d)
			}
			prev = x
		}
	}
	if lines != 2 {
		t.Errorf("%d lines of 3 points, want 2", lines)
	}
	// Against compression.type: grouped bars, one colour per record size.
	p, _, err = dimensionChart(r, 0, metricMB)
	if err != nil {
		t.Fatal(err)
	}
	svg, err = Chart{plot: p, w: 400, h: 300}.SVG()
	if err != nil {
		t.Fatal(err)
	}
	_, paths = parseSVG(t, svg)
	for i := 0; i < 3; i++ {
		if n := filled(paths, plotutil.Color(i)); n != 3 {
			t.Errorf("colour %d: %d filled paths, want 2 bars + 1 swatch", i, n)
		}
	}
}

// TestHTMLReportFlagsAndPairs: the table names each flagged cell's flags,
// and records/s and MB/s charts share a row.
func TestHTMLReportFlagsAndPairs(t *testing.T) {
	r := chartSweep(t, sweep.StrategyOneAtATime, func(c sweep.Cell) (float64, []string) {
		bs, _ := c.Get("batch.size")
		if bs == "65536" {
			return 2000, []string{sweep.FlagShortRun, sweep.FlagStall}
		}
		return 1000, nil
	}, "batch.size=16k,64k", "acks=all,1")
	o, _ := sweep.ParseObjective("throughput")
	var b bytes.Buffer
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	h := b.String()
	if !strings.Contains(h, "<th>FLAGS</th>") {
		t.Error("no FLAGS column")
	}
	if !strings.Contains(h, `<tr class="best flagged"><td class="s">1 best</td><td class="s">2</td>`) || !strings.Contains(h, `<td class="s flag">short-run,stall</td>`) {
		t.Errorf("flagged best cell not marked:\n%s", h)
	}
	if strings.Count(h, `<td class="s flag">-</td>`) != 2 {
		t.Error("unflagged cells should have an empty FLAGS cell")
	}
	if !strings.Contains(h, "<b>short-run</b> (#2): a run was measured for less than") || !strings.Contains(h, "<b>stall</b> (#2): p50 latency over") {
		t.Errorf("flag meanings not explained:\n%s", h)
	}
	// No load average in the results: the stall is not put down to a busy machine.
	if !strings.Contains(h, "does not record the machine&#39;s load average") || !strings.Contains(h, "<dt>machine</dt><dd>CPUs and load average not recorded") {
		t.Errorf("missing load average not said:\n%s", h)
	}
	for _, d := range []string{"batch.size", "acks"} {
		re := regexp.MustCompile(`<div class="pair" id="vs-` + regexp.QuoteMeta(d) + `"><figure id="throughput-vs-` + regexp.QuoteMeta(d) + `" class="chart"><svg.*?</figure><figure id="mbps-vs-` + regexp.QuoteMeta(d) + `" class="chart"><svg.*?</figure></div>`)
		if !re.MatchString(strings.ReplaceAll(h, "\n", " ")) {
			t.Errorf("records/s and MB/s vs %s not in one row", d)
		}
	}
	// Without flags: no explanation.
	for i := range r.Cells {
		r.Cells[i].Flags = nil
	}
	b.Reset()
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "FLAGS:") || strings.Contains(b.String(), "flagged (") || strings.Contains(b.String(), `flagged"`) {
		t.Error("flag notes without flagged cells")
	}
}

// TestPNGReportFlags: flagged cells get their own colour in the summary
// PNG, only when there are some.
func TestPNGReportFlags(t *testing.T) {
	amber := color.RGBA{R: 235, G: 150, B: 20, A: 255}
	has := func(r *sweep.Result) bool {
		t.Helper()
		o, _ := sweep.ParseObjective("throughput")
		var b bytes.Buffer
		if err := WritePNG(&b, r, o); err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(&b)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for y := img.Bounds().Min.Y; y < img.Bounds().Max.Y; y++ {
			for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
				if color.RGBAModel.Convert(img.At(x, y)) == amber {
					n++
				}
			}
		}
		return n > 5000 // a bar, not the legend swatch (about 500 pixels)
	}
	rate := func(flag bool) func(c sweep.Cell) (float64, []string) {
		return func(c sweep.Cell) (float64, []string) {
			ls, _ := c.Get("linger.ms")
			if ls == "5" && flag {
				return 900, []string{sweep.FlagOutlier}
			}
			return 1000, nil
		}
	}
	if !has(chartSweep(t, sweep.StrategyGrid, rate(true), "linger.ms=0,5,20")) {
		t.Error("flagged cell not drawn in its colour")
	}
	if has(chartSweep(t, sweep.StrategyGrid, rate(false), "linger.ms=0,5,20")) {
		t.Error("flag colour without a flagged cell")
	}
}

func TestPerRunText(t *testing.T) {
	for _, c := range []struct {
		p    sweep.Plan
		want string
	}{
		{sweep.Plan{DurationSec: 5, WarmupDurationSec: 1, RecordSize: 100}, "5 s measured after a warm-up of 1 s, 100-byte values"},
		{sweep.Plan{Records: 50000, WarmupRecords: 5000, RecordSize: 1024, Throughput: 1000}, "50000 measured records after a warm-up of 5000 records, 1024-byte values, target 1000 records/s"},
		{sweep.Plan{DurationSec: 2.5, RecordSize: 10}, "2.5 s measured, 10-byte values"},
	} {
		if got := perRunText(&c.p); got != c.want {
			t.Errorf("perRunText(%+v) = %q, want %q", c.p, got, c.want)
		}
	}
	w := &sweep.ClusterWarmup{Topic: "kbox-warmup", Seconds: 17, MaxSeconds: 60, Stable: true, WindowRecordsPerSec: []float64{1e5, 2e5, 201000}}
	if got, want := clusterWarmupText(w), "17 s on topic kbox-warmup, stable; last 1 s window 201000 records/s"; got != want {
		t.Errorf("clusterWarmupText = %q, want %q", got, want)
	}
	w.Stable = false
	if got := clusterWarmupText(w); !strings.Contains(got, "not stable within 60 s") {
		t.Errorf("unstable warm-up text %q", got)
	}
	// The warm-up of docs/perf-methodology/message-size.json, for people.
	w = &sweep.ClusterWarmup{Topic: "t", Seconds: 34.1892094, MaxSeconds: 60.0001, Stable: false, WindowRecordsPerSec: []float64{330857.2}}
	if got, want := clusterWarmupText(w), "34.2 s on topic t, not stable within 60 s (the time bound); last 1 s window 330857 records/s"; got != want {
		t.Errorf("clusterWarmupText = %q, want %q", got, want)
	}
}

// TestMachineAndLoadNote: the report says how busy the machine was and
// whether that explains the outliers.
func TestMachineAndLoadNote(t *testing.T) {
	r := chartSweep(t, sweep.StrategyOneAtATime, func(c sweep.Cell) (float64, []string) {
		if bs, _ := c.Get("batch.size"); bs == "65536" {
			return 900, []string{sweep.FlagOutlier}
		}
		return 1000, nil
	}, "batch.size=16k,64k")
	if got := LoadNote(r); !strings.Contains(got, "does not record the machine's load average") {
		t.Errorf("no load: %q", got)
	}
	setLoad := func(loads ...float64) {
		for i := range r.Cells {
			v := loads[i%len(loads)]
			r.Cells[i].Runs = []sweep.Run{{LoadAverage: &v}}
		}
	}
	r.CPUs = 2
	if got, want := MachineText(r), "2 CPUs; load average not recorded"; got != want {
		t.Errorf("machineText = %q, want %q", got, want)
	}
	setLoad(40.04, 190.26)
	if got, want := MachineText(r), "2 CPUs; load average (1 min) from 40.0 to 190.3 at the end of the 2 runs"; got != want {
		t.Errorf("machineText = %q, want %q", got, want)
	}
	if got := LoadNote(r); !strings.HasPrefix(got, "The machine was busy: its load average reached 190.3 on 2 CPUs") || !strings.Contains(got, "idle machine") {
		t.Errorf("busy: %q", got)
	}
	setLoad(0.5)
	if got, want := MachineText(r), "2 CPUs; load average (1 min) 0.5 at the end of the runs"; got != want {
		t.Errorf("machineText = %q, want %q", got, want)
	}
	if got := LoadNote(r); got != "The load average stayed within the 2 CPUs (at most 0.5): a busy machine does not explain these flags." {
		t.Errorf("idle: %q", got)
	}
	r.Cells[1].Flags = nil
	if got := LoadNote(r); got != "" {
		t.Errorf("no flags, yet %q", got)
	}
}

func TestSecText(t *testing.T) {
	for _, c := range []struct {
		sec  float64
		want string
	}{
		{34.1892094, "34.2 s"}, {60.04, "60 s"}, {60.05, "60.1 s"}, {3, "3 s"}, {1, "1 s"}, {0.99996, "1 s"},
		{125.36, "125.4 s"}, {0.25, "0.25 s"}, {0.0004, "0 s"}, {0, "0 s"}, {-0.00001, "0 s"}, {-2.26, "-2.3 s"},
	} {
		if got := secText(c.sec); got != c.want {
			t.Errorf("secText(%v) = %q, want %q", c.sec, got, c.want)
		}
	}
}

// ranSweep is a grid sweep over specs whose cells ran once each: at
// spec[i][0] records/s with latencies from spec[i][1] ms (0: the cell failed).
func ranSweep(t *testing.T, spec [][2]float64, specs ...string) *sweep.Result {
	t.Helper()
	r := chartSweep(t, sweep.StrategyGrid, func(sweep.Cell) (float64, []string) { return 0, nil }, specs...)
	for i := range r.Cells {
		c := &r.Cells[i]
		c.Runs = []sweep.Run{{Error: "boom"}}
		if spec[i][0] > 0 {
			c.Runs = []sweep.Run{{Result: perftest.Run(t, spec[i][0], time.Duration(spec[i][1]*float64(time.Millisecond))), CPUPercent: 50}}
		}
		if err := c.Summarize(); err != nil {
			t.Fatal(err)
		}
	}
	return r
}

func TestReport(t *testing.T) {
	r := ranSweep(t, [][2]float64{{1000, 5}, {3000, 40}, {0, 0}, {2000, 10}}, "batch.size=16k,64k", "linger.ms=0,20")
	r.Cells[0].Runs[0].Result.Intervals = []perf.Interval{{ElapsedSec: 1, RecordsPerSec: 900, P99Ms: 3}, {ElapsedSec: 2, RecordsPerSec: 1100, P99Ms: 4}}
	o, _ := sweep.ParseObjective("throughput-at-p99<=25")
	var b bytes.Buffer
	if err := WriteHTML(&b, r, o); err != nil {
		t.Fatal(err)
	}
	html := b.String()
	for _, id := range []string{"throughput-vs-batch.size", "throughput-vs-linger.ms", "latency-per-cell", "throughput-vs-p99", "series-rate", "series-p99"} {
		i := strings.Index(html, `<figure id="`+id+`"`)
		if i < 0 {
			t.Fatalf("chart %s missing", id)
		}
		if !strings.HasPrefix(html[i+len(`<figure id="`+id+`" class="chart">`):], "<svg") {
			t.Fatalf("chart %s has no inline svg", id)
		}
	}
	for _, banned := range []string{"<script", "src=", "@import", "url(", "<link"} {
		if strings.Contains(html, banned) {
			t.Fatalf("report is not self-contained: has %q", banned)
		}
	}
	for _, line := range strings.Split(html, "\n") {
		if strings.Contains(line, "http") && !strings.Contains(line, "www.w3.org") {
			t.Fatalf("external reference: %.200s", line)
		}
	}
	if !strings.Contains(html, `<tr class="best"><td class="s">1 best</td><td class="s">4</td>`) {
		t.Fatalf("best row (cell 4 under p99<=25) not marked")
	}
	// Every inline SVG is well-formed XML.
	for rest := html; ; {
		i := strings.Index(rest, "<svg")
		if i < 0 {
			break
		}
		j := strings.Index(rest[i:], "</svg>")
		dec := xml.NewDecoder(strings.NewReader(rest[i : i+j+6]))
		for {
			if _, err := dec.Token(); err != nil {
				if err.Error() != "EOF" {
					t.Fatalf("svg not well-formed: %v", err)
				}
				break
			}
		}
		rest = rest[i+j+6:]
	}
	var png bytes.Buffer
	if err := WritePNG(&png, r, o); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(png.Bytes(), []byte("\x89PNG\r\n\x1a\n")) || png.Len() < 5000 {
		t.Fatalf("png: %d bytes", png.Len())
	}
	chart := TerminalChart(r)
	if !strings.Contains(chart, "records/s by cell #1..#4") || strings.Count(chart, "\n") < 8 {
		t.Fatalf("terminal chart:\n%s", chart)
	}
}
