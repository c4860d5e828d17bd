package report

import (
	"bytes"
	"fmt"
	"html/template"
	"image/color"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/guptarohit/asciigraph"
	"github.com/kboxdev/kbox/pkg/perf"
	"github.com/kboxdev/kbox/pkg/perf/sweep"
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
	// Group names the charts drawn side by side in one row (records/s and
	// MB/s against the same dimension); empty for a chart of its own.
	Group string
	plot  *plot.Plot
	w, h  vg.Length
}

// Charts builds the report's charts: records/s and MB/s against each
// varied dimension (side by side), latency percentiles per cell, and the
// per-interval series of records/s and p99 of every cell.
func Charts(r *sweep.Result, o sweep.Objective) ([]Chart, error) {
	var charts []Chart
	for di, d := range r.Plan.Dimensions {
		for _, m := range []dimMetric{metricRecords, metricMB} {
			p, caption, err := dimensionChart(r, di, m)
			if err != nil {
				return nil, err
			}
			charts = append(charts, Chart{ID: m.id + "-vs-" + d.Name, Title: m.title + " vs " + d.Name, Caption: caption,
				Group: "vs-" + d.Name, plot: p, w: 14.5 * vg.Centimeter, h: 10 * vg.Centimeter})
		}
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

func latencyBasis(r *sweep.Result) string {
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
	p.Y.Tick.Marker = siTicks{}
	return p
}

// dimMetric is what a chart against a dimension draws on its y axis.
type dimMetric struct {
	id, title, unit string
	get             func(*sweep.CellResult) float64
}

var (
	metricRecords = dimMetric{"throughput", "Records/s", "records/s", func(c *sweep.CellResult) float64 { return c.RecordsPerSec }}
	metricMB      = dimMetric{"mbps", "MB/s", "MB/s", func(c *sweep.CellResult) float64 { return c.MBPerSec }}
)

// categoricalDims are dimensions drawn as bars even when their values
// look like numbers (acks=0,1,-1 are modes, not quantities).
var categoricalDims = map[string]bool{"acks": true, "compression.type": true, "compression.level": true}

// dimAxis is how a dimension is drawn on the x axis.
type dimAxis struct {
	// numeric: every value is a number; points are drawn at their value,
	// sorted, and joined by lines. Otherwise one bar per value, in the
	// plan's order.
	numeric bool
	// log: a log10 x axis, for byte sizes and values spanning more than a
	// decade (all values positive).
	log  bool
	size bool      // values are byte sizes
	x    []float64 // x of each value (in the order of Dimension.Values)
}

// axisFor decides how dimension d is drawn.
func axisFor(d sweep.Dimension) dimAxis {
	a := dimAxis{size: d.Bytes(), numeric: !categoricalDims[d.Name] && len(d.Values) > 0}
	for _, v := range d.Values {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			a.numeric = false
			break
		}
		a.x = append(a.x, f)
	}
	if !a.numeric {
		a.size, a.x = false, make([]float64, len(d.Values))
		for i := range a.x {
			a.x[i] = float64(i)
		}
		return a
	}
	lo, hi := minMax(a.x)
	a.log = lo > 0 && (a.size || hi/lo > 10)
	return a
}

func minMax(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return lo, hi
}

// setX configures p's x axis for dimension d: nominal labels for a
// categorical dimension; for a numeric one, a linear or log scale with a
// labelled tick at every value (and unlabelled ticks at the decades of a
// log axis).
func (a dimAxis) setX(p *plot.Plot, d sweep.Dimension) {
	p.X.Label.Text = d.Name
	if !a.numeric {
		p.NominalX(d.Labels...)
		p.X.Min, p.X.Max = -0.6, float64(len(d.Values))-0.4
		return
	}
	lo, hi := minMax(a.x)
	if a.log {
		p.X.Scale = plot.LogScale{}
		pad := math.Pow(10, math.Max(math.Log10(hi/lo), 0.5)*0.07)
		p.X.Min, p.X.Max = lo/pad, hi*pad
	} else {
		pad := (hi - lo) * 0.07
		if pad == 0 {
			pad = math.Max(math.Abs(lo)*0.1, 0.5)
		}
		p.X.Min, p.X.Max = lo-pad, hi+pad
	}
	p.X.Tick.Marker = plot.ConstantTicks(a.ticks(p.X.Min, p.X.Max))
	switch {
	case a.size && a.log:
		p.X.Label.Text += " (bytes, log scale)"
	case a.size:
		p.X.Label.Text += " (bytes)"
	case a.log:
		p.X.Label.Text += " (log scale)"
	}
}

// ticks is a labelled tick at every value, ascending; a label that would
// overlap the previous one is left out (the tick stays). A log axis also
// gets unlabelled ticks at the powers of ten.
func (a dimAxis) ticks(lo, hi float64) []plot.Tick {
	norm := func(v float64) float64 {
		if a.log {
			return (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
		}
		return (v - lo) / (hi - lo)
	}
	xs := append([]float64(nil), a.x...)
	sort.Float64s(xs)
	var ts []plot.Tick
	lastPos, lastLen := math.Inf(-1), 0
	for _, v := range xs {
		l := a.label(v)
		// About 6 points per character on an axis about 430 points long.
		if norm(v)-lastPos < float64(len(l)+lastLen)/2*6/430+0.01 {
			l = ""
		} else {
			lastPos, lastLen = norm(v), len(l)
		}
		ts = append(ts, plot.Tick{Value: v, Label: l})
	}
	if a.log {
		for e := math.Ceil(math.Log10(lo)); math.Pow(10, e) <= hi; e++ {
			v := math.Pow(10, e)
			if sort.SearchFloat64s(xs, v) == len(xs) || xs[sort.SearchFloat64s(xs, v)] != v {
				ts = append(ts, plot.Tick{Value: v})
			}
		}
	}
	return ts
}

// label is a value as a tick label: byte sizes in KiB/MiB/GiB when they
// are a whole number of quarter units, other numbers as they are.
func (a dimAxis) label(v float64) string {
	if a.size && v == math.Trunc(v) {
		n := int64(v)
		for _, u := range []struct {
			s string
			m int64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if n >= u.m && n%(u.m/4) == 0 {
				return strconv.FormatFloat(float64(n)/float64(u.m), 'f', -1, 64) + " " + u.s
			}
		}
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// siTicks are DefaultTicks labelled 200k, 1.5M rather than 200000, 1.5e+06.
type siTicks struct{}

func (siTicks) Ticks(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	for i := range ts {
		if ts[i].Label != "" {
			ts[i].Label = siLabel(ts[i].Value)
		}
	}
	return ts
}

func siLabel(v float64) string {
	f := func(x float64, suf string) string {
		return strconv.FormatFloat(math.Round(x*1e4)/1e4, 'f', -1, 64) + suf
	}
	switch a := math.Abs(v); {
	case a >= 1e9:
		return f(v/1e9, "G")
	case a >= 1e6:
		return f(v/1e6, "M")
	case a >= 1e4:
		return f(v/1e3, "k")
	}
	return f(v, "")
}

// marks draws a glyph at data points, each shifted by an offset (the
// position of a bar in a group).
type marks struct {
	pts   []markPt
	style draw.GlyphStyle
}

type markPt struct {
	x, y float64
	off  vg.Length
}

func (m *marks) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for _, pt := range m.pts {
		c.DrawGlyphNoClip(m.style, vg.Point{X: trX(pt.x) + pt.off, Y: trY(pt.y)})
	}
}

func (m *marks) Thumbnail(c *draw.Canvas) { c.DrawGlyphNoClip(m.style, c.Center()) }

var (
	baselineGlyph = draw.GlyphStyle{Shape: draw.BoxGlyph{}, Radius: vg.Points(4), Color: color.RGBA{A: 255}}
	flaggedGlyph  = draw.GlyphStyle{Shape: flagRing{}, Radius: vg.Points(8), Color: color.RGBA{R: 215, G: 25, B: 25, A: 255}}
)

// flagRing is a ring thick enough to stand out around a line's own glyph.
type flagRing struct{}

func (flagRing) DrawGlyph(c *draw.Canvas, sty draw.GlyphStyle, pt vg.Point) {
	c.SetLineStyle(draw.LineStyle{Color: sty.Color, Width: vg.Points(1.8)})
	var p vg.Path
	p.Move(vg.Point{X: pt.X + sty.Radius, Y: pt.Y})
	p.Arc(pt, sty.Radius, 0, 2*math.Pi)
	p.Close()
	c.Stroke(p)
}

// dimPoint is one cell in a chart against a dimension.
type dimPoint struct {
	vi   int // index of the cell's value in Dimension.Values
	cell *sweep.CellResult
}

// dimensionChart plots metric m against dimension di: one line (numeric
// dimension) or one set of bars (categorical) per combination of the other
// dimensions; one-at-a-time sweeps draw only the cells with the other
// dimensions at their baseline. The baseline cell and flagged cells are
// marked. It also returns the chart's caption.
func dimensionChart(r *sweep.Result, di int, m dimMetric) (*plot.Plot, string, error) {
	d := r.Plan.Dimensions[di]
	ax := axisFor(d)
	p := newPlot(m.title+" vs "+d.Name, d.Name, m.unit)
	ax.setX(p, d)
	pos := map[string]int{}
	for i, v := range d.Values {
		pos[v] = i
	}
	base := r.Plan.Baseline()
	oneAtATime := r.Plan.Strategy == sweep.StrategyOneAtATime
	type group struct {
		name string
		pts  []dimPoint
	}
	var groups []*group
	byName := map[string]*group{}
	for i := range r.Cells {
		c := &r.Cells[i]
		if !c.OK() || di >= len(c.Settings) {
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
		if oneAtATime && !atBase {
			continue
		}
		name := strings.Join(others, " ")
		if oneAtATime || name == "" {
			name = m.unit
		}
		g := byName[name]
		if g == nil {
			g = &group{name: name}
			byName[name] = g
			groups = append(groups, g)
		}
		g.pts = append(g.pts, dimPoint{vi: pos[c.Settings[di].Value], cell: c})
	}
	var baseMarks, flagMarks marks
	baseMarks.style, flagMarks.style = baselineGlyph, flaggedGlyph
	flagNames := map[string]bool{}
	var flagged []string
	mark := func(pt dimPoint, x, y float64, off vg.Length) {
		if isBaseline(pt.cell, base) {
			baseMarks.pts = append(baseMarks.pts, markPt{x, y, off})
		}
		if len(pt.cell.Flags) > 0 {
			flagMarks.pts = append(flagMarks.pts, markPt{x, y, off})
			for _, f := range pt.cell.Flags {
				flagNames[f] = true
			}
			flagged = append(flagged, cellName(pt.cell)+" "+strings.Join(pt.cell.Flags, ", "))
		}
	}
	top := 0.0
	if ax.numeric {
		var vs []any
		for _, g := range groups {
			sort.SliceStable(g.pts, func(a, b int) bool { return ax.x[g.pts[a].vi] < ax.x[g.pts[b].vi] })
			xys := make(plotter.XYs, len(g.pts))
			for k, pt := range g.pts {
				xys[k] = plotter.XY{X: ax.x[pt.vi], Y: m.get(pt.cell)}
				top = math.Max(top, xys[k].Y)
				mark(pt, xys[k].X, xys[k].Y, 0)
			}
			vs = append(vs, g.name, xys)
		}
		if len(vs) > 0 {
			if err := plotutil.AddLinePoints(p, vs...); err != nil {
				return nil, "", err
			}
		}
	} else {
		n := max(len(groups), 1)
		slot := 11 * vg.Centimeter / vg.Length(max(len(d.Values), 1))
		bw := min(slot*0.75/vg.Length(n), 1.4*vg.Centimeter)
		for gi, g := range groups {
			vals := make(plotter.Values, len(d.Values))
			off := vg.Length(float64(gi)-float64(n-1)/2) * bw
			for _, pt := range g.pts {
				vals[pt.vi] = m.get(pt.cell)
				top = math.Max(top, vals[pt.vi])
				mark(pt, float64(pt.vi), vals[pt.vi], off)
			}
			b, err := plotter.NewBarChart(vals, bw)
			if err != nil {
				return nil, "", err
			}
			b.LineStyle.Width = 0
			b.Color = plotutil.Color(gi)
			b.Offset = off
			p.Add(b)
			p.Legend.Add(g.name, b)
		}
	}
	if len(baseMarks.pts) > 0 {
		p.Add(&baseMarks)
		p.Legend.Add("baseline", &baseMarks)
	}
	if len(flagMarks.pts) > 0 {
		var fl []string
		for f := range flagNames {
			fl = append(fl, f)
		}
		sort.Strings(fl)
		p.Add(&flagMarks)
		p.Legend.Add("flagged ("+strings.Join(fl, ", ")+")", &flagMarks)
	}
	if top > 0 {
		p.Y.Max = top * 1.3
	}
	caption := "One line per combination of the other dimensions; median of the repeats."
	if !ax.numeric {
		caption = "One bar per value, in the order given; one colour per combination of the other dimensions; median of the repeats."
	}
	if oneAtATime {
		caption = "The other dimensions at their baseline (" + baseLabel(r, di) + "); median of the repeats."
		if !ax.numeric {
			caption = "One bar per value, in the order given; the other dimensions at their baseline (" + baseLabel(r, di) + "); median of the repeats."
		}
	}
	switch {
	case ax.log:
		caption += " Values sorted, on a log scale."
	case ax.numeric:
		caption += " Values sorted."
	}
	caption += " The black square is the baseline cell."
	if len(flagged) > 0 {
		caption += " Circled in red, flagged cells: " + strings.Join(flagged, "; ") + "."
	}
	return p, caption, nil
}

// isBaseline reports whether every setting of c is its dimension's
// baseline value.
func isBaseline(c *sweep.CellResult, base map[string]string) bool {
	for _, s := range c.Settings {
		if base[s.Name] != s.Value {
			return false
		}
	}
	return len(c.Settings) > 0
}

// baseLabel lists the baseline values of the dimensions other than di.
func baseLabel(r *sweep.Result, di int) string {
	var parts []string
	for j, d := range r.Plan.Dimensions {
		if j != di {
			parts = append(parts, d.Name+"="+d.Labels[0])
		}
	}
	if len(parts) == 0 {
		return "none"
	}
	return strings.Join(parts, ", ")
}

func cellName(c *sweep.CellResult) string { return "#" + strconv.Itoa(c.Index) }

// latencyBars draws grouped bars of p50/p90/p99/p99.9 per cell.
func latencyBars(r *sweep.Result) (*plot.Plot, error) {
	p := newPlot("Latency percentiles per cell", "cell", "ms")
	var names []string
	for i := range r.Cells {
		names = append(names, cellName(&r.Cells[i]))
	}
	p.NominalX(names...)
	pcts := []struct {
		name string
		get  func(perf.LatencySummary) float64
	}{
		{"p50", func(l perf.LatencySummary) float64 { return l.P50Ms }},
		{"p90", func(l perf.LatencySummary) float64 { return l.P90Ms }},
		{"p99", func(l perf.LatencySummary) float64 { return l.P99Ms }},
		{"p99.9", func(l perf.LatencySummary) float64 { return l.P999Ms }},
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
func tradeoff(r *sweep.Result, o sweep.Objective) (*plot.Plot, error) {
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
func series(r *sweep.Result, metric string) (*plot.Plot, error) {
	p := newPlot("Per-interval "+metric, "elapsed (s)", metric)
	var vs []any
	for i := range r.Cells {
		c := &r.Cells[i]
		var iv []perf.Interval
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

// WritePNG writes one summary chart: records/s per cell, the best
// cell in another colour and flagged cells in a third (their labels end in
// "!"), the baseline cell marked, with each cell's settings on the x axis.
func WritePNG(w io.Writer, r *sweep.Result, o sweep.Objective) error {
	p := newPlot(fmt.Sprintf("kbox perf sweep %s: records/s per cell (objective %s)", r.Plan.Mode, o), "", "records/s")
	best := o.Best(r.Cells)
	base := r.Plan.Baseline()
	var names []string
	vals := make(plotter.Values, len(r.Cells))
	bestVals := make(plotter.Values, len(r.Cells))
	flagVals := make(plotter.Values, len(r.Cells))
	baseMarks := marks{style: baselineGlyph}
	flagged := false
	for i := range r.Cells {
		c := &r.Cells[i]
		var parts []string
		for _, s := range c.Settings {
			parts = append(parts, s.Label)
		}
		name := cellName(c) + " " + strings.Join(parts, "/")
		if len(c.Flags) > 0 {
			name += " !"
		}
		names = append(names, name)
		switch {
		case i == best:
			bestVals[i] = c.RecordsPerSec
		case len(c.Flags) > 0:
			flagVals[i], flagged = c.RecordsPerSec, true
		default:
			vals[i] = c.RecordsPerSec
		}
		if c.OK() && isBaseline(c, base) {
			baseMarks.pts = append(baseMarks.pts, markPt{x: float64(i), y: c.RecordsPerSec})
		}
	}
	p.NominalX(names...)
	if len(r.Cells) > 4 {
		p.X.Tick.Label.Rotation = math.Pi / 6
		p.X.Tick.Label.XAlign = draw.XRight
	}
	bw := vg.Length(math.Min(40, 500/float64(max(len(r.Cells), 1)))) * vg.Millimeter / 3
	var bars []*plotter.BarChart
	for _, v := range []struct {
		vals plotter.Values
		c    color.RGBA
	}{{vals, color.RGBA{R: 70, G: 110, B: 190, A: 255}}, {bestVals, color.RGBA{R: 200, G: 30, B: 30, A: 255}}, {flagVals, color.RGBA{R: 235, G: 150, B: 20, A: 255}}} {
		b, err := plotter.NewBarChart(v.vals, bw)
		if err != nil {
			return err
		}
		b.Color, b.LineStyle.Width = v.c, 0
		p.Add(b)
		bars = append(bars, b)
	}
	p.X.Min, p.X.Max = -0.6, float64(len(r.Cells))-0.4
	top := 0.0
	for i := range r.Cells {
		top = math.Max(top, r.Cells[i].RecordsPerSec)
	}
	p.Y.Max = top * 1.2
	p.Legend.Add("records/s (median of repeats)", bars[0])
	if best >= 0 {
		p.Legend.Add("best", bars[1])
	}
	if flagged {
		p.Legend.Add("flagged (!): see the FLAGS of the cell", bars[2])
	}
	if len(baseMarks.pts) > 0 {
		p.Add(&baseMarks)
		p.Legend.Add("baseline", &baseMarks)
	}
	names2 := strings.Join(dimNames(r), " / ")
	p.X.Label.Text = "cell: " + names2
	cv := vgimg.PngCanvas{Canvas: vgimg.NewWith(vgimg.UseWH(24*vg.Centimeter, 13*vg.Centimeter), vgimg.UseDPI(110))}
	p.Draw(draw.New(cv))
	_, err := cv.WriteTo(w)
	return err
}

func dimNames(r *sweep.Result) []string {
	var out []string
	for _, d := range r.Plan.Dimensions {
		out = append(out, d.Name)
	}
	return out
}

// TerminalChart is a compact text chart of records/s per cell in the
// plan's order.
func TerminalChart(r *sweep.Result) string {
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
td.flag{color:#b01818;font-weight:600;text-align:left} tr.flagged td.s:first-child{box-shadow:inset 3px 0 #d71919}
figure{margin:14px 10px 14px 0;display:inline-block;vertical-align:top;width:min-content} figcaption{font-size:.85em;color:#555}
.pair{display:flex;flex-wrap:nowrap;gap:10px;align-items:flex-start} .pair figure{margin-right:0}
.charts svg{background:#fff;border:1px solid #eee}
code{font-size:.9em}
</style></head><body>
<h1>kbox perf sweep {{.Mode}}</h1>
<dl>
<dt>varied</dt><dd>{{range .Plan.Dimensions}}<code>{{.Name}}</code> = {{range $i, $l := .Labels}}{{if $i}}, {{end}}{{$l}}{{end}}<br>{{end}}</dd>
<dt>strategy</dt><dd>{{.Plan.Strategy}} ({{len .Cells}} cells, {{.Plan.Repeat}} repeat(s) each)</dd>
<dt>per run</dt><dd>{{.PerRun}}</dd>
<dt>machine</dt><dd>{{.Machine}}</dd>
{{if .ClusterWarmup}}<dt>cluster warm-up</dt><dd>{{.ClusterWarmup}}</dd>{{end}}
<dt>objective</dt><dd>{{.Objective}}{{if .BestLabel}}: best cell #{{.BestIndex}} <code>{{.BestLabel}}</code>{{else}}: no cell met it{{end}}</dd>
<dt>latency from</dt><dd>{{.Basis}}</dd>
{{if .Plan.Properties}}<dt>fixed properties</dt><dd>{{range .Plan.Properties}}<code>{{.}}</code> {{end}}</dd>{{end}}
<dt>started</dt><dd>{{.Started}}{{if not .Complete}} (incomplete: interrupted){{end}}</dd>
</dl>
<h2>Cells (best first)</h2>
<table id="cells"><thead><tr>{{range .Header}}<th>{{.}}</th>{{end}}</tr></thead><tbody>
{{range $i, $r := .Rows}}<tr{{with index $.RowClasses $i}} class="{{.}}"{{end}}>{{range $j, $c := $r}}<td class="{{index $.Classes $i $j}}">{{$c}}</td>{{end}}</tr>
{{end}}</tbody></table>
<p style="font-size:.85em;color:#555">Highlighted settings differ from the baseline (each dimension's first value). SPREAD% is (max-min)/median of the repeats' records/s.</p>
{{if .Flagged}}<p style="font-size:.85em" id="flags">FLAGS: {{range $i, $f := .FlagNotes}}{{if $i}}; {{end}}<b>{{$f.Flag}}</b> ({{range $j, $c := $f.Cells}}{{if $j}} {{end}}{{$c}}{{end}}): {{$f.Means}}{{end}}.{{with .LoadNote}} {{.}}{{end}}</p>{{end}}
<h2>Charts</h2>
<div class="charts">
{{range .ChartRows}}{{if .Group}}<div class="pair" id="{{.Group}}">{{end}}{{range .Charts}}<figure id="{{.ID}}" class="chart">{{.SVG}}<figcaption><b>{{.Title}}.</b> {{.Caption}}</figcaption></figure>{{end}}{{if .Group}}</div>{{end}}
{{end}}</div>
</body></html>
`))

// WriteHTML writes one self-contained HTML file (inline SVG charts,
// no scripts, no external fetches).
func WriteHTML(w io.Writer, r *sweep.Result, o sweep.Objective) error {
	charts, err := Charts(r, o)
	if err != nil {
		return err
	}
	type chartOut struct {
		ID, Title, Caption string
		SVG                template.HTML
	}
	type chartRow struct {
		Group  string
		Charts []chartOut
	}
	var rows []chartRow
	for _, c := range charts {
		s, err := c.SVG()
		if err != nil {
			return err
		}
		out := chartOut{c.ID, c.Title, c.Caption, template.HTML(s)} // #nosec: produced by gonum's SVG canvas
		if n := len(rows); n > 0 && c.Group != "" && rows[n-1].Group == c.Group {
			rows[n-1].Charts = append(rows[n-1].Charts, out)
			continue
		}
		rows = append(rows, chartRow{Group: c.Group, Charts: []chartOut{out}})
	}
	t := r.Table(o, nil)
	flagsByIndex := map[string][]string{}
	flagged := false
	for i := range r.Cells {
		if len(r.Cells[i].Flags) > 0 {
			flagsByIndex[strconv.Itoa(r.Cells[i].Index)] = r.Cells[i].Flags
			flagged = true
		}
	}
	// The table gets a FLAGS column unless it has one already.
	hasFlags := false
	for _, h := range t.Header {
		hasFlags = hasFlags || h == "FLAGS"
	}
	if !hasFlags {
		t.Header = append(t.Header, "FLAGS")
		for i := range t.Rows {
			t.Rows[i] = append(t.Rows[i], strings.Join(flagsByIndex[t.Rows[i][1]], ", "))
			t.Differs[i] = append(t.Differs[i], false)
		}
	}
	classes := make([][]string, len(t.Rows))
	rowClasses := make([]string, len(t.Rows))
	nd := len(r.Plan.Dimensions)
	for i := range t.Rows {
		var rc []string
		if i == t.Best {
			rc = append(rc, "best")
		}
		if len(flagsByIndex[t.Rows[i][1]]) > 0 {
			rc = append(rc, "flagged")
		}
		rowClasses[i] = strings.Join(rc, " ")
		classes[i] = make([]string, len(t.Rows[i]))
		for j := range t.Rows[i] {
			switch {
			case t.Header[j] == "FLAGS":
				classes[i][j] = "s flag"
			case j < len(t.Differs[i]) && t.Differs[i][j]:
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
		"Header": t.Header, "Rows": t.Rows, "Classes": classes, "RowClasses": rowClasses, "ChartRows": rows,
		"Flagged": flagged, "FlagNotes": r.FlagNotes(), "LoadNote": LoadNote(r), "Machine": MachineText(r),
		"PerRun": perRunText(&r.Plan), "ClusterWarmup": clusterWarmupText(r.ClusterWarmup),
	})
}

// perRunText says how each run was sized: by time or by count, with its
// warm-up (which comes on top of the measured part).
func perRunText(p *sweep.Plan) string {
	var b strings.Builder
	if p.Records > 0 {
		fmt.Fprintf(&b, "%d measured records", p.Records)
	} else {
		fmt.Fprintf(&b, "%s measured", secText(p.DurationSec))
	}
	var warm []string
	if p.WarmupRecords > 0 {
		warm = append(warm, fmt.Sprintf("%d records", p.WarmupRecords))
	}
	if p.WarmupDurationSec > 0 {
		warm = append(warm, secText(p.WarmupDurationSec))
	}
	if len(warm) > 0 {
		fmt.Fprintf(&b, " after a warm-up of %s", strings.Join(warm, " or "))
	}
	fmt.Fprintf(&b, ", %d-byte values", p.RecordSize)
	if p.Throughput > 0 {
		fmt.Fprintf(&b, ", target %g records/s", p.Throughput)
	}
	return b.String()
}

// MachineText says how many CPUs the machine that ran the sweep had and
// how busy it was (the one-minute load average at the end of the runs).
func MachineText(r *sweep.Result) string {
	cpus := "CPUs not recorded"
	if r.CPUs > 0 {
		cpus = fmt.Sprintf("%d CPUs", r.CPUs)
	}
	lo, hi, n := r.LoadRange()
	switch {
	case n == 0 && r.CPUs == 0:
		return "CPUs and load average not recorded (a results file written before kbox recorded them)"
	case n == 0:
		return cpus + "; load average not recorded"
	case lo == hi:
		return fmt.Sprintf("%s; load average (1 min) %.1f at the end of the runs", cpus, hi)
	}
	return fmt.Sprintf("%s; load average (1 min) from %.1f to %.1f at the end of the %d runs", cpus, lo, hi, n)
}

// LoadNote says whether the machine's load can explain the repeats that
// disagree (outlier and stall flags), from what the results file recorded.
func LoadNote(r *sweep.Result) string {
	noisy := false
	for i := range r.Cells {
		noisy = noisy || r.Cells[i].HasFlag(sweep.FlagOutlier) || r.Cells[i].HasFlag(sweep.FlagStall)
	}
	if !noisy {
		return ""
	}
	_, hi, n := r.LoadRange()
	switch {
	case n == 0:
		return "The results file does not record the machine's load average, so these flags cannot be told apart from a busy machine: re-run the sweep on an idle machine with a kbox that records it."
	case r.CPUs > 0 && hi > float64(r.CPUs):
		return fmt.Sprintf("The machine was busy: its load average reached %.1f on %d CPUs (more runnable processes than CPUs), so the runs competed with other processes for the CPUs and their repeats may disagree because of that load rather than the settings: re-run the sweep on an idle machine to tell.", hi, r.CPUs)
	case r.CPUs > 0:
		return fmt.Sprintf("The load average stayed within the %d CPUs (at most %.1f): a busy machine does not explain these flags.", r.CPUs, hi)
	}
	return ""
}

// clusterWarmupText summarises the warm-up before the first cell.
func clusterWarmupText(w *sweep.ClusterWarmup) string {
	if w == nil {
		return ""
	}
	state := "stable"
	if !w.Stable {
		state = fmt.Sprintf("not stable within %s (the time bound)", secText(w.MaxSeconds))
	}
	last := 0.0
	if n := len(w.WindowRecordsPerSec); n > 0 {
		last = w.WindowRecordsPerSec[n-1]
	}
	return fmt.Sprintf("%s on topic %s, %s; last 1 s window %.0f records/s", secText(w.Seconds), w.Topic, state, last)
}

// secText is a number of seconds for people: to the tenth of a second
// from 1 s up ("34.2 s" for a warm-up that took 34.1892094 s, "3 s",
// "60 s"), to the millisecond below ("0.25 s"). output.Duration is not
// used: it writes "34.2s" and "1m00s", where the report, like the sweep's
// table ("cluster warm-up: 34.2 s"), writes seconds with a unit after a
// space.
func secText(sec float64) string {
	scale := 10.0
	if math.Abs(sec) < 1 {
		scale = 1000
	}
	v := math.Round(sec*scale) / scale
	if v == 0 {
		v = 0 // no "-0 s"
	}
	return strconv.FormatFloat(v, 'f', -1, 64) + " s"
}

// WriteFile writes the report for res to path: PNG when path ends in .png
// (any case), HTML otherwise. The file appears whole or not at all (a
// temporary file in the same directory, renamed).
func WriteFile(path string, res *sweep.Result, o sweep.Objective) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if strings.EqualFold(filepath.Ext(path), ".png") {
		err = WritePNG(tmp, res, o)
	} else {
		err = WriteHTML(tmp, res, o)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	_ = os.Chmod(tmp.Name(), 0o644)
	return os.Rename(tmp.Name(), path)
}
