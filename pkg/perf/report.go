package perf

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/guptarohit/asciigraph"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Chart is one rendered report chart.
type Chart struct {
	ID      string
	Title   string
	Caption string
	plot    *plot.Plot
	w, h    vg.Length
}

// ReportCharts builds the report's charts: records/s against each varied
// dimension, latency percentiles per cell, and the per-interval series of
// records/s and p99 of every cell.
func ReportCharts(r *SweepResult, o Objective) ([]Chart, error) {
	var charts []Chart
	for di, d := range r.Plan.Dimensions {
		p, err := throughputVs(r, di)
		if err != nil {
			return nil, err
		}
		cap := "One line per combination of the other dimensions; median of the repeats."
		if r.Plan.Strategy == StrategyOneAtATime {
			cap = "The other dimensions at their baseline; median of the repeats."
		}
		charts = append(charts, Chart{ID: "throughput-vs-" + d.Name, Title: "Records/s vs " + d.Name, Caption: cap, plot: p, w: 16 * vg.Centimeter, h: 10 * vg.Centimeter})
	}
	p, err := latencyBars(r)
	if err != nil {
		return nil, err
	}
	charts = append(charts, Chart{ID: "latency-per-cell", Title: "Latency percentiles per cell", Caption: "From each cell's merged HDR histogram; latency from " + latencyBasis(r) + ".", plot: p, w: 18 * vg.Centimeter, h: 10 * vg.Centimeter})
	p, err = tradeoff(r, o)
	if err != nil {
		return nil, err
	}
	charts = append(charts, Chart{ID: "throughput-vs-p99", Title: "Records/s vs p99 latency", Caption: "Each point is a cell (its number); the best cell for objective " + o.String() + " is marked.", plot: p, w: 16 * vg.Centimeter, h: 10 * vg.Centimeter})
	for _, metric := range []string{"records/s", "p99 ms"} {
		p, err := series(r, metric)
		if err != nil {
			return nil, err
		}
		id := "series-rate"
		if metric != "records/s" {
			id = "series-p99"
		}
		charts = append(charts, Chart{ID: id, Title: "Per-interval " + metric + " of each cell", Caption: "First repeat of each cell; cells shorter than one interval have no points.", plot: p, w: 18 * vg.Centimeter, h: 10 * vg.Centimeter})
	}
	return charts, nil
}

func latencyBasis(r *SweepResult) string {
	for _, c := range r.Cells {
		for _, run := range c.Runs {
			if run.Result != nil && run.Result.LatencyBasis != "" {
				return run.Result.LatencyBasis
			}
		}
	}
	return "-"
}

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Add(plotter.NewGrid())
	p.Legend.Top = true
	p.Y.Min = 0
	return p
}

// throughputVs plots records/s against dimension di.
func throughputVs(r *SweepResult, di int) (*plot.Plot, error) {
	d := r.Plan.Dimensions[di]
	p := newPlot("Records/s vs "+d.Name, d.Name, "records/s")
	p.NominalX(d.Labels...)
	pos := map[string]int{}
	for i, v := range d.Values {
		pos[v] = i
	}
	base := r.Plan.Baseline()
	type line struct {
		name string
		xys  plotter.XYs
	}
	var lines []*line
	byName := map[string]*line{}
	for _, c := range r.Cells {
		if !c.OK() {
			continue
		}
		var others []string
		atBase := true
		for j, s := range c.Settings {
			if j == di {
				continue
			}
			others = append(others, s.Name+"="+s.Label)
			if s.Value != base[s.Name] {
				atBase = false
			}
		}
		if r.Plan.Strategy == StrategyOneAtATime && !atBase {
			continue
		}
		name := strings.Join(others, " ")
		if name == "" || r.Plan.Strategy == StrategyOneAtATime {
			name = "baseline"
			if len(others) == 0 {
				name = "records/s"
			}
		}
		l := byName[name]
		if l == nil {
			l = &line{name: name}
			byName[name] = l
			lines = append(lines, l)
		}
		l.xys = append(l.xys, plotter.XY{X: float64(pos[c.Settings[di].Value]), Y: c.RecordsPerSec})
	}
	var vs []any
	for _, l := range lines {
		vs = append(vs, l.name, l.xys)
	}
	if len(vs) > 0 {
		if err := plotutil.AddLinePoints(p, vs...); err != nil {
			return nil, err
		}
	}
	p.X.Min, p.X.Max = -0.3, float64(len(d.Values))-0.7
	headroom(p, vs)
	return p, nil
}

func cellName(c *CellResult) string { return "#" + strconv.Itoa(c.Index) }

// latencyBars draws grouped bars of p50/p90/p99/p99.9 per cell.
func latencyBars(r *SweepResult) (*plot.Plot, error) {
	p := newPlot("Latency percentiles per cell", "cell", "ms")
	var names []string
	for i := range r.Cells {
		names = append(names, cellName(&r.Cells[i]))
	}
	p.NominalX(names...)
	pcts := []struct {
		name string
		get  func(LatencySummary) float64
	}{
		{"p50", func(l LatencySummary) float64 { return l.P50Ms }},
		{"p90", func(l LatencySummary) float64 { return l.P90Ms }},
		{"p99", func(l LatencySummary) float64 { return l.P99Ms }},
		{"p99.9", func(l LatencySummary) float64 { return l.P999Ms }},
	}
	var all []any
	n := max(len(r.Cells), 1)
	w := vg.Length(math.Min(12, 360/float64(n*len(pcts)))) * vg.Millimeter / 3
	for i, pc := range pcts {
		vals := make(plotter.Values, len(r.Cells))
		for j := range r.Cells {
			vals[j] = pc.get(r.Cells[j].Latency)
		}
		all = append(all, vals)
		b, err := plotter.NewBarChart(vals, w)
		if err != nil {
			return nil, err
		}
		b.LineStyle.Width = 0
		b.Color = plotutil.Color(i)
		b.Offset = vg.Length(float64(i)-float64(len(pcts)-1)/2) * w
		p.Add(b)
		p.Legend.Add(pc.name, b)
	}
	p.X.Min, p.X.Max = -0.6, float64(len(r.Cells))-0.4
	headroom(p, all)
	return p, nil
}

// tradeoff scatters cells by p99 (x) and records/s (y).
func tradeoff(r *SweepResult, o Objective) (*plot.Plot, error) {
	p := newPlot("Records/s vs p99 latency", "p99 latency (ms)", "records/s")
	p.X.Min = 0
	best := o.Best(r.Cells)
	var xys plotter.XYs
	var labels []string
	var bestXY plotter.XYs
	for i := range r.Cells {
		c := &r.Cells[i]
		if !c.OK() {
			continue
		}
		xys = append(xys, plotter.XY{X: c.Latency.P99Ms, Y: c.RecordsPerSec})
		labels = append(labels, " "+cellName(c))
		if i == best {
			bestXY = append(bestXY, plotter.XY{X: c.Latency.P99Ms, Y: c.RecordsPerSec})
		}
	}
	if len(xys) == 0 {
		return p, nil
	}
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Shape = draw.CircleGlyph{}
	sc.GlyphStyle.Radius = vg.Points(3)
	sc.GlyphStyle.Color = plotutil.Color(0)
	p.Add(sc)
	lb, err := plotter.NewLabels(plotter.XYLabels{XYs: xys, Labels: labels})
	if err != nil {
		return nil, err
	}
	p.Add(lb)
	headroom(p, []any{xys})
	if len(bestXY) > 0 {
		bs, err := plotter.NewScatter(bestXY)
		if err != nil {
			return nil, err
		}
		bs.GlyphStyle.Shape = draw.RingGlyph{}
		bs.GlyphStyle.Radius = vg.Points(7)
		bs.GlyphStyle.Color = color.RGBA{R: 200, G: 30, B: 30, A: 255}
		p.Add(bs)
		p.Legend.Add("best ("+o.String()+")", bs)
	}
	if o.Kind == "throughput-at-p99" {
		top := 0.0
		for _, xy := range xys {
			top = math.Max(top, xy.Y)
		}
		l, err := plotter.NewLine(plotter.XYs{{X: o.MaxP99Ms, Y: 0}, {X: o.MaxP99Ms, Y: top}})
		if err != nil {
			return nil, err
		}
		l.LineStyle.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
		l.LineStyle.Color = color.RGBA{R: 200, G: 30, B: 30, A: 255}
		p.Add(l)
		p.Legend.Add("p99 limit", l)
	}
	return p, nil
}

// series draws the per-interval series (first repeat) of every cell.
func series(r *SweepResult, metric string) (*plot.Plot, error) {
	p := newPlot("Per-interval "+metric, "elapsed (s)", metric)
	var vs []any
	for i := range r.Cells {
		c := &r.Cells[i]
		var iv []Interval
		for _, run := range c.Runs {
			if run.Result != nil && len(run.Result.Intervals) > 0 {
				iv = run.Result.Intervals
				break
			}
		}
		if len(iv) == 0 {
			continue
		}
		xys := make(plotter.XYs, len(iv))
		for j, x := range iv {
			y := x.RecordsPerSec
			if metric != "records/s" {
				y = x.P99Ms
			}
			xys[j] = plotter.XY{X: x.ElapsedSec, Y: y}
		}
		vs = append(vs, cellName(c), xys)
	}
	if len(vs) > 0 {
		if err := plotutil.AddLinePoints(p, vs...); err != nil {
			return nil, err
		}
	}
	headroom(p, vs)
	return p, nil
}

// headroom leaves room above the data for the legend.
func headroom(p *plot.Plot, vs []any) {
	top := 0.0
	for _, v := range vs {
		switch x := v.(type) {
		case plotter.XYs:
			for _, xy := range x {
				top = math.Max(top, xy.Y)
			}
		case plotter.Values:
			for _, y := range x {
				top = math.Max(top, y)
			}
		}
	}
	if top > 0 && !math.IsInf(top, 0) {
		p.Y.Max = top * 1.25
	}
}

// SVG renders a chart as an inline <svg> element (no XML prolog).
func (c Chart) SVG() (string, error) {
	cv := vgsvg.New(c.w, c.h)
	c.plot.Draw(draw.New(cv))
	var b bytes.Buffer
	if _, err := cv.WriteTo(&b); err != nil {
		return "", err
	}
	s := b.String()
	if i := strings.Index(s, "<svg"); i > 0 {
		s = s[i:]
	}
	return s, nil
}

// WritePNGReport writes one summary chart: records/s per cell, the best
// cell in another colour, with each cell's settings on the x axis.
func WritePNGReport(w io.Writer, r *SweepResult, o Objective) error {
	p := newPlot(fmt.Sprintf("kbox perf sweep %s: records/s per cell (objective %s)", r.Plan.Mode, o), "", "records/s")
	best := o.Best(r.Cells)
	var names []string
	vals := make(plotter.Values, len(r.Cells))
	bestVals := make(plotter.Values, len(r.Cells))
	for i := range r.Cells {
		c := &r.Cells[i]
		var parts []string
		for _, s := range c.Settings {
			parts = append(parts, s.Label)
		}
		names = append(names, cellName(c)+" "+strings.Join(parts, "/"))
		if i == best {
			bestVals[i] = c.RecordsPerSec
		} else {
			vals[i] = c.RecordsPerSec
		}
	}
	p.NominalX(names...)
	if len(r.Cells) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
	}
	bw := vg.Length(math.Min(40, 500/float64(max(len(r.Cells), 1)))) * vg.Millimeter / 3
	b, err := plotter.NewBarChart(vals, bw)
	if err != nil {
		return err
	}
	b.Color, b.LineStyle.Width = color.RGBA{R: 70, G: 110, B: 190, A: 255}, 0
	bb, err := plotter.NewBarChart(bestVals, bw)
	if err != nil {
		return err
	}
	bb.Color, bb.LineStyle.Width = color.RGBA{R: 200, G: 30, B: 30, A: 255}, 0
	p.Add(b, bb)
	p.X.Min, p.X.Max = -0.6, float64(len(r.Cells))-0.4
	top := 0.0
	for i := range r.Cells {
		top = math.Max(top, r.Cells[i].RecordsPerSec)
	}
	p.Y.Max = top * 1.2
	p.Legend.Add("records/s (median of repeats)", b)
	if best >= 0 {
		p.Legend.Add("best", bb)
	}
	names2 := strings.Join(dimNames(r), " / ")
	p.X.Label.Text = "cell: " + names2
	cv := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(24*vg.Centimeter, 13*vg.Centimeter), vgimg.UseDPI(110))}
	p.Draw(draw.New(cv))
	_, err = cv.WriteTo(w)
	return err
}

func dimNames(r *SweepResult) []string {
	var out []string
	for _, d := range r.Plan.Dimensions {
		out = append(out, d.Name)
	}
	return out
}

// TerminalChart is a compact text chart of records/s per cell in the
// plan's order.
func TerminalChart(r *SweepResult) string {
	var data []float64
	for _, c := range r.Cells {
		data = append(data, c.RecordsPerSec)
	}
	if len(data) < 2 {
		return ""
	}
	width := min(max(len(data)*6, 30), 72)
	return asciigraph.Plot(data, asciigraph.Height(8), asciigraph.Width(width), asciigraph.Precision(0),
		asciigraph.Caption(fmt.Sprintf("records/s by cell #1..#%d (plan order)", len(data))))
}

var reportTmpl = template.Must(template.New("r").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="generator" content="kbox perf sweep">
<title>kbox perf sweep {{.Mode}}: {{.Dims}}</title>
<style>
body{font-family:system-ui,-apple-system,"Segoe UI",Roboto,"Liberation Sans",sans-serif;margin:24px;color:#222;max-width:1280px}
h1{font-size:1.4em} h2{font-size:1.15em;margin-top:1.6em}
table{border-collapse:collapse;font-size:.85em} th,td{border:1px solid #ccc;padding:3px 7px;text-align:right} th{background:#f3f3f3}
td.s{text-align:left} td.diff{background:#fff1b8;font-weight:600} tr.best td{background:#d9f7d9} tr.best td.diff{background:#c6ecaa}
dl{display:grid;grid-template-columns:max-content auto;gap:2px 14px;font-size:.9em} dt{font-weight:600}
figure{margin:14px 10px 14px 0;display:inline-block;vertical-align:top;width:min-content} figcaption{font-size:.85em;color:#555}
.charts svg{background:#fff;border:1px solid #eee}
code{font-size:.9em}
</style></head><body>
<h1>kbox perf sweep {{.Mode}}</h1>
<dl>
<dt>varied</dt><dd>{{range .Plan.Dimensions}}<code>{{.Name}}</code> = {{range $i, $l := .Labels}}{{if $i}}, {{end}}{{$l}}{{end}}<br>{{end}}</dd>
<dt>strategy</dt><dd>{{.Plan.Strategy}} ({{len .Cells}} cells, {{.Plan.Repeat}} repeat(s) each)</dd>
<dt>per run</dt><dd>{{.Plan.Records}} measured records + {{.Plan.WarmupRecords}} warm-up, {{.Plan.RecordSize}}-byte values{{if gt .Plan.Throughput 0.0}}, target {{.Plan.Throughput}} records/s{{end}}</dd>
<dt>objective</dt><dd>{{.Objective}}{{if .BestLabel}}: best cell #{{.BestIndex}} <code>{{.BestLabel}}</code>{{else}}: no cell met it{{end}}</dd>
<dt>latency from</dt><dd>{{.Basis}}</dd>
{{if .Plan.Properties}}<dt>fixed properties</dt><dd>{{range .Plan.Properties}}<code>{{.}}</code> {{end}}</dd>{{end}}
<dt>started</dt><dd>{{.Started}}{{if not .Complete}} (incomplete: interrupted){{end}}</dd>
</dl>
<h2>Cells (best first)</h2>
<table id="cells"><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range $i, $r := .Rows}}<tr{{if eq $i $.Best}} class="best"{{end}}>{{range $j, $c := $r}}<td class="{{index $.Classes $i $j}}">{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p style="font-size:.85em;color:#555">Highlighted settings differ from the baseline (each dimension's first value). SPREAD% is (max-min)/median of the repeats' records/s.</p>
<h2>Charts</h2>
<div class="charts">
{{range .Charts}}<figure id="{{.ID}}" class="chart">{{.SVG}}<figcaption><b>{{.Title}}.</b> {{.Caption}}</figcaption></figure>
{{end}}</div>
</body></html>
`))

// WriteHTMLReport writes one self-contained HTML file (inline SVG charts,
// no scripts, no external fetches).
func WriteHTMLReport(w io.Writer, r *SweepResult, o Objective) error {
	charts, err := ReportCharts(r, o)
	if err != nil {
		return err
	}
	type chartOut struct {
		ID, Title, Caption string
		SVG                template.HTML
	}
	var outs []chartOut
	for _, c := range charts {
		s, err := c.SVG()
		if err != nil {
			return err
		}
		outs = append(outs, chartOut{c.ID, c.Title, c.Caption, template.HTML(s)}) // #nosec: produced by gonum's SVG canvas
	}
	t := r.Table(o, nil)
	classes := make([][]string, len(t.Rows))
	nd := len(r.Plan.Dimensions)
	for i := range t.Rows {
		classes[i] = make([]string, len(t.Rows[i]))
		for j := range t.Rows[i] {
			switch {
			case t.Differs[i][j]:
				classes[i][j] = "s diff"
			case j < 2+nd:
				classes[i][j] = "s"
			}
		}
	}
	best := o.Best(r.Cells)
	var bestLabel string
	bestIndex := 0
	if best >= 0 {
		bestLabel, bestIndex = r.Cells[best].Label(), r.Cells[best].Index
	}
	return reportTmpl.Execute(w, map[string]any{
		"Mode": r.Plan.Mode, "Dims": strings.Join(dimNames(r), " x "), "Plan": r.Plan, "Cells": r.Cells,
		"Objective": o.String(), "BestLabel": bestLabel, "BestIndex": bestIndex, "Basis": latencyBasis(r),
		"Started": r.Started.Format(time.RFC3339), "Complete": r.Complete,
		"Header": t.Header, "Rows": t.Rows, "Classes": classes, "Best": t.Best, "Charts": outs,
	})
}
