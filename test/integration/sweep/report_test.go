//go:build integration

package sweep_test

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/kboxdev/kbox/pkg/perf/report"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
)

// probeScript is appended to a copy of a report (the report itself has no
// script): it measures every chart as Chromium laid it out, text and path
// boxes in page pixels, and leaves them as JSON in <pre id="kbox-probe">.
const probeScript = `<script>
(function(){
  var out = [];
  document.querySelectorAll('figure.chart').forEach(function(f){
    var fr = f.getBoundingClientRect(), par = f.parentElement;
    var o = {id: f.id, parent: par.id, parentClass: par.className, x: fr.left, y: fr.top, w: fr.width, h: fr.height, texts: [], paths: []};
    f.querySelectorAll('svg text').forEach(function(t){
      var r = t.getBoundingClientRect();
      o.texts.push({s: t.textContent, cx: r.left + r.width/2, cy: r.top + r.height/2});
    });
    f.querySelectorAll('svg path').forEach(function(p){
      var r = p.getBoundingClientRect(), cs = getComputedStyle(p);
      o.paths.push({x: r.left, y: r.top, w: r.width, h: r.height, fill: cs.fill, stroke: cs.stroke});
    });
    out.push(o);
  });
  var pre = document.createElement('pre');
  pre.id = 'kbox-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type probeText struct {
	S      string
	Cx, Cy float64
}

type probePath struct {
	X, Y, W, H   float64
	Fill, Stroke string
}

type probeFigure struct {
	ID, Parent, ParentClass string
	X, Y, W, H              float64
	Texts                   []probeText
	Paths                   []probePath
}

// probe opens the report with the probe script in headless Chromium and
// returns the measured charts by id.
func probe(t *testing.T, report string) map[string]probeFigure {
	t.Helper()
	b, err := os.ReadFile(report)
	if err != nil {
		t.Fatal(err)
	}
	probed := strings.TrimSuffix(report, ".html") + "-probe.html"
	if err := os.WriteFile(probed, bytes.Replace(b, []byte("</body>"), []byte(probeScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser(t), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(), "--window-size=1300,2600",
		"--dump-dom", "file://"+probed)
	var dom, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &dom, &errb
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium --dump-dom: %v\n%s", err, tail(errb.String()))
	}
	m := regexp.MustCompile(`(?s)<pre id="kbox-probe">(.*?)</pre>`).FindStringSubmatch(dom.String())
	if m == nil {
		t.Fatalf("the probe did not run:\n%s", tail(dom.String()))
	}
	var figs []probeFigure
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &figs); err != nil {
		t.Fatal(err)
	}
	out := map[string]probeFigure{}
	for _, f := range figs {
		out[f.ID] = f
	}
	return out
}

// xTicks are the x axis's tick labels, left to right: the row of texts
// just above the axis label (the dimension's name).
func (f probeFigure) xTicks(dim string) []probeText {
	title := -1.0
	for _, tx := range f.Texts {
		if tx.S == dim || strings.HasPrefix(tx.S, dim+" (") {
			title = tx.Cy
		}
	}
	if title < 0 {
		return nil
	}
	row := math.Inf(-1)
	for _, tx := range f.Texts {
		if tx.Cy < title-2 {
			row = math.Max(row, tx.Cy)
		}
	}
	var out []probeText
	for _, tx := range f.Texts {
		if math.Abs(tx.Cy-row) < 1 {
			out = append(out, tx)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Cx < out[j].Cx })
	return out
}

// tickMark is the x of the vertical tick mark nearest to x (tick marks are
// short vertical strokes; grid lines are long ones).
func (f probeFigure) tickMark(x float64) (float64, bool) {
	best, found := math.Inf(1), false
	var at float64
	for _, p := range f.Paths {
		if p.W < 0.8 && p.H > 1.5 && p.H < 20 && math.Abs(p.X-x) < best {
			best, at, found = math.Abs(p.X-x), p.X+p.W/2, true
		}
	}
	return at, found && best < 6
}

// bars are the filled rectangles standing on the x axis (the lowest
// common bottom), wider than a line and narrower than a quarter chart.
func (f probeFigure) bars() []probePath {
	var cand []probePath
	bottom := 0.0
	for _, p := range f.Paths {
		if p.Fill == "none" || p.Fill == "rgb(255, 255, 255)" || p.W < 4 || p.H < 1 || p.W > f.W/4 || math.Abs(p.W-p.H) < 1 {
			continue
		}
		cand = append(cand, p)
		bottom = math.Max(bottom, p.Y+p.H)
	}
	var out []probePath
	for _, p := range cand {
		if math.Abs(p.Y+p.H-bottom) < 1.5 {
			out = append(out, p)
		}
	}
	return out
}

// glyphs are the roughly square paths filled (or stroked) in colour c,
// split into the legend's (level with the legend text) and the chart's.
func (f probeFigure) glyphs(c string, stroked bool, legend string) (inLegend, onChart []probePath) {
	ly := math.NaN()
	for _, tx := range f.Texts {
		if strings.HasPrefix(tx.S, legend) {
			ly = tx.Cy
		}
	}
	for _, p := range f.Paths {
		col := p.Fill
		if stroked {
			col = p.Stroke
		}
		if col != c || p.W < 4 || p.W > 30 || math.Abs(p.W-p.H) > 1.5 {
			continue
		}
		if math.Abs(p.Y+p.H/2-ly) < 4 {
			inLegend = append(inLegend, p)
		} else {
			onChart = append(onChart, p)
		}
	}
	return inLegend, onChart
}

const (
	black = "rgb(0, 0, 0)"
	red   = "rgb(215, 25, 25)"
)

// TestReportChartsInChromium renders the reports of two one-at-a-time
// sweep results (testdata/*.json, no broker involved) and checks the
// charts as Chromium lays them out: records/s and MB/s side by side for
// every dimension; numeric dimensions with ticks ascending left to right,
// sizes on a log axis (equal spacing per decade), other numbers linear;
// categorical ones as one bar per value in the order given; the baseline
// marked at its value; flagged cells circled, named in the legend and in
// the table.
func TestReportChartsInChromium(t *testing.T) {
	type dimWant struct {
		name    string
		kind    string // log, linear or bars
		flagged string // legend of the flagged cells, "" when none
	}
	for _, tc := range []struct {
		fixture string
		dims    []dimWant
		flags   map[string]string // cell number -> FLAGS column
	}{
		{"one-at-a-time-sizes", []dimWant{{"record-size", "log", "flagged (short-run)"}, {"partitions", "linear", ""},
			{"replication-factor", "linear", "flagged (outlier, stall)"}, {"producers", "linear", ""}},
			map[string]string{"2": "short-run", "8": "outlier,stall"}},
		{"one-at-a-time-categorical", []dimWant{{"compression.type", "bars", "flagged (outlier)"}, {"acks", "bars", ""},
			{"batch.size", "log", ""}, {"linger.ms", "linear", ""}},
			map[string]string{"2": "outlier"}},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			b, err := os.ReadFile(filepath.Join("testdata", tc.fixture+".json"))
			if err != nil {
				t.Fatal(err)
			}
			var r sweep.Result
			if err := json.Unmarshal(b, &r); err != nil {
				t.Fatal(err)
			}
			html := filepath.Join(outDir, tc.fixture+"-report.html")
			fh, err := os.Create(html)
			if err != nil {
				t.Fatal(err)
			}
			o, _ := sweep.ParseObjective("throughput")
			if err := report.WriteHTML(fh, &r, o); err != nil {
				t.Fatal(err)
			}
			if err := fh.Close(); err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range tc.dims {
				ids = append(ids, "throughput-vs-"+d.name, "mbps-vs-"+d.name)
			}
			checkHTML(t, html, append(ids, "latency-per-cell", "throughput-vs-p99", "series-rate", "series-p99"))
			src, _ := os.ReadFile(html)
			for cell, flags := range tc.flags {
				if !regexp.MustCompile(`<tr class="[^"]*flagged[^"]*"><td class="s">[^<]*</td><td class="s">` + cell + `</td>.*<td class="s flag">` + regexp.QuoteMeta(flags) + `</td></tr>`).Match(src) {
					t.Errorf("cell %s: FLAGS %q not in the table", cell, flags)
				}
			}
			figs := probe(t, html)
			for di, d := range tc.dims {
				dim := r.Plan.Dimensions[di]
				if dim.Name != d.name {
					t.Fatalf("fixture dimension %d is %s, want %s", di, dim.Name, d.name)
				}
				rec, mb := figs["throughput-vs-"+d.name], figs["mbps-vs-"+d.name]
				if rec.ID == "" || mb.ID == "" {
					t.Errorf("%s: records/s or MB/s chart missing", d.name)
					continue
				}
				if rec.ParentClass != "pair" || rec.Parent != mb.Parent || math.Abs(rec.Y-mb.Y) > 1 || mb.X < rec.X+rec.W {
					t.Errorf("%s: records/s (%s at %.0f,%.0f w %.0f) and MB/s (%s at %.0f,%.0f) not side by side",
						d.name, rec.Parent, rec.X, rec.Y, rec.W, mb.Parent, mb.X, mb.Y)
				}
				for _, f := range []probeFigure{rec, mb} {
					checkDimChart(t, f, dim, d.kind, d.flagged)
				}
			}
		})
	}
}

func checkDimChart(t *testing.T, f probeFigure, dim sweep.Dimension, kind, flagged string) {
	t.Helper()
	ticks := f.xTicks(dim.Name)
	var labels []string
	for _, tx := range ticks {
		labels = append(labels, tx.S)
	}
	// x of each value's label (bars) or tick mark (numeric axes).
	xs := map[string]float64{}
	switch kind {
	case "bars":
		if strings.Join(labels, ",") != strings.Join(dim.Labels, ",") {
			t.Errorf("%s: x labels %v, want the values in the order given %v", f.ID, labels, dim.Labels)
		}
		bars := f.bars()
		if len(bars) != len(dim.Labels) {
			t.Errorf("%s: %d bars for %d values", f.ID, len(bars), len(dim.Labels))
		}
		for _, tx := range ticks {
			n := 0
			for _, b := range bars {
				if tx.Cx > b.X && tx.Cx < b.X+b.W {
					n++
				}
			}
			if n != 1 {
				t.Errorf("%s: %d bars over %q", f.ID, n, tx.S)
			}
			xs[tx.S] = tx.Cx
		}
		for i, l := range dim.Labels {
			xs[dim.Values[i]] = xs[l]
		}
	default:
		if n := len(f.bars()); n != 0 {
			t.Errorf("%s: %d bars on a numeric axis", f.ID, n)
		}
		if len(labels) != len(dim.Values) {
			t.Fatalf("%s: x tick labels %v for values %v", f.ID, labels, dim.Values)
		}
		var vs, px []float64
		for _, tx := range ticks {
			v, err := sweep.ParseSize(tx.S)
			if err != nil {
				t.Fatalf("%s: tick label %q: %v", f.ID, tx.S, err)
			}
			x, ok := f.tickMark(tx.Cx)
			if !ok {
				t.Fatalf("%s: no tick mark under %q", f.ID, tx.S)
			}
			vs, px = append(vs, float64(v)), append(px, x)
			xs[strconv.FormatInt(v, 10)] = x
		}
		// Ascending left to right, and each value once.
		for i := 1; i < len(vs); i++ {
			if vs[i] <= vs[i-1] || px[i] <= px[i-1] {
				t.Errorf("%s: ticks not ascending: %v at %v", f.ID, labels, px)
			}
		}
		// Pixels per unit (linear) or per decade (log) are the same
		// between every pair of neighbouring ticks.
		scale := func(v float64) float64 {
			if kind == "log" {
				return math.Log10(v)
			}
			return v
		}
		var per []float64
		for i := 1; i < len(vs); i++ {
			per = append(per, (px[i]-px[i-1])/(scale(vs[i])-scale(vs[i-1])))
		}
		for _, p := range per {
			if math.Abs(p-per[0]) > 0.01*math.Abs(per[0])+0.05 {
				t.Errorf("%s: not a %s axis: ticks %v at %v (%v px per step)", f.ID, kind, labels, px, per)
				break
			}
		}
		if kind == "log" && !strings.Contains(strings.Join(textsOf(f), "|"), "log scale") {
			t.Errorf("%s: axis label does not say log scale", f.ID)
		}
	}
	// The baseline: legend entry and a black box at the first value's x.
	inLegend, onChart := f.glyphs(black, false, "baseline")
	if !contains(textsOf(f), "baseline") || len(inLegend) != 1 || len(onChart) != 1 {
		t.Errorf("%s: baseline marker: legend %v, %d in the legend, %d on the chart", f.ID, textsOf(f), len(inLegend), len(onChart))
	} else if x := onChart[0].X + onChart[0].W/2; math.Abs(x-xs[dim.Values[0]]) > 4 {
		t.Errorf("%s: baseline marker at x %.1f, the baseline value %s at %.1f", f.ID, x, dim.Labels[0], xs[dim.Values[0]])
	}
	inLegend, onChart = f.glyphs(red, true, "flagged")
	if flagged == "" {
		if len(inLegend)+len(onChart) != 0 {
			t.Errorf("%s: flag marks without a flagged cell", f.ID)
		}
		return
	}
	if !contains(textsOf(f), flagged) || len(inLegend) != 1 || len(onChart) != 1 {
		t.Errorf("%s: flagged cell: want legend %q (texts %v), %d in the legend, %d on the chart", f.ID, flagged, textsOf(f), len(inLegend), len(onChart))
	}
}

func textsOf(f probeFigure) []string {
	var out []string
	for _, tx := range f.Texts {
		out = append(out, tx.S)
	}
	return out
}

func contains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
