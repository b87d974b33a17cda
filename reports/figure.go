package reports

import (
	"bytes"
	"fmt"
	"html"
	"image/color"
	"math"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// A figure is one chart: panels stacked top to bottom, each a gonum plot
// with one unit per axis, and beside them a column of legends, one per
// panel, so no legend ever covers data. Each part is drawn on its own
// canvas and the SVG is put together from them, so that series, legends
// and data areas are groups with classes and data attributes that a
// browser (and a test) can find.
type figure struct {
	id, title, note string
	panels          []*panel
}

type panel struct {
	p      *plot.Plot
	height vg.Length
	marks  []mark
	warmup float64 // end of the warm-up in x units; 0 draws no band
}

type markKind int

const (
	lineMark markKind = iota
	areaMark
	barMark
	pointMark
)

// mark is one drawn series: what the legend calls it and how it looks.
type mark struct {
	name  string
	look  look
	kind  markKind
	width vg.Length
	role  string // "team", "other", "variant" or "reference"
	draw  plot.Plotter
}

const (
	legendFont   = 9
	legendRow    = 11.5 // points per legend entry
	legendSwatch = 20
	legendPad    = 6
	legendGap    = 14 // between a panel's data area and its legend
)

var sans = font.Font{Typeface: "Liberation", Variant: "Sans"}

func newFigure(id, title, note string) *figure {
	return &figure{id: id, title: title, note: note}
}

// addPanel adds a panel of the given height with axis labels x and y.
func (f *figure) addPanel(height vg.Length, x, y string) *panel {
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = x, y
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font = font.From(sans, 10)
		a.Tick.Label.Font = font.From(sans, 9)
		a.Color, a.Tick.Color = inkGrey, inkGrey
		a.Label.TextStyle.Color, a.Tick.Label.Color = inkBlack, inkBlack
	}
	p.X.Tick.Marker = linearTicks{Target: 10}
	p.Y.Tick.Marker = linearTicks{Target: 5}
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 232}
	g.Horizontal.Color = color.Gray{Y: 232}
	p.Add(g)
	pn := &panel{p: p, height: height}
	f.panels = append(f.panels, pn)
	return pn
}

// extend widens the panel's axes to a plotter's data, as plot.Add would.
func (pn *panel) extend(d plot.Plotter) {
	if r, ok := d.(plot.DataRanger); ok {
		x0, x1, y0, y1 := r.DataRange()
		p := pn.p
		p.X.Min, p.X.Max = math.Min(p.X.Min, x0), math.Max(p.X.Max, x1)
		p.Y.Min, p.Y.Max = math.Min(p.Y.Min, y0), math.Max(p.Y.Max, y1)
	}
}

func (pn *panel) add(m mark) {
	pn.extend(m.draw)
	pn.marks = append(pn.marks, m)
}

// line adds a line series.
func (pn *panel) line(name, role string, lk look, pts plotter.XYs, width vg.Length) error {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color, l.Width, l.Dashes = lk.colour, width, lk.dashes
	pn.add(mark{name: name, look: lk, kind: lineMark, width: width, role: role, draw: l})
	return nil
}

// reference adds a neutral line (fleet, installed, a window mean).
func (pn *panel) reference(name string, c color.NRGBA, dashed bool, pts plotter.XYs) error {
	lk := look{colour: c}
	if dashed {
		lk.dashes = []vg.Length{vg.Points(5), vg.Points(3)}
	}
	return pn.line(name, "reference", lk, pts, vg.Points(1.5))
}

// area adds a filled area from the axis up to pts, edged in white so
// neighbouring bands of a stack stay apart.
func (pn *panel) area(name, role string, lk look, pts plotter.XYs) error {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.FillColor = lk.colour
	l.Color, l.Width = white, vg.Points(0.5)
	if lk.dashes != nil {
		l.Color, l.Dashes, l.Width = inkBlack, lk.dashes, vg.Points(0.8)
	}
	pn.add(mark{name: name, look: lk, kind: areaMark, role: role, draw: l})
	return nil
}

// points adds a scatter series of dots of the given radius.
func (pn *panel) points(name, role string, lk look, pts plotter.XYs, radius vg.Length) error {
	sc, err := plotter.NewScatter(pts)
	if err != nil {
		return err
	}
	sc.GlyphStyle = draw.GlyphStyle{Color: lk.colour, Radius: radius, Shape: draw.CircleGlyph{}}
	pn.add(mark{name: name, look: lk, kind: pointMark, width: radius, role: role, draw: sc})
	return nil
}

// bars adds the index-th of count bar series side by side per category.
func (pn *panel) bars(name, role string, lk look, values []float64, index, count int) {
	b := &barSeries{values: values, index: index, count: count, look: lk}
	pn.add(mark{name: name, look: lk, kind: barMark, role: role, draw: b})
}

// timeAxis makes x the run's time from 0 to end (seconds) in the clock's
// unit, with the warm-up shaded.
func (pn *panel) timeAxis(ck clock, end, warm float64) {
	pn.p.X.Min, pn.p.X.Max = 0, ck.at(end)
	pn.warmup = ck.at(warm)
	if ck.name == "hour" {
		pn.p.X.Tick.Marker = linearTicks{Target: 10, Steps: []float64{1, 2, 3, 6, 12, 24}}
	}
}

// render lays the figure out and writes its SVG.
func (f *figure) render() (Chart, error) {
	W := chartW
	var H vg.Length
	for _, pn := range f.panels {
		H += pn.height
	}
	sty := text.Style{Color: inkBlack, Font: font.From(sans, legendFont), XAlign: draw.XLeft, YAlign: draw.YCenter, Handler: plot.DefaultTextHandler}
	legendW := vg.Length(0)
	layouts := make([]legendLayout, len(f.panels))
	for i, pn := range f.panels {
		layouts[i] = layoutLegend(pn, sty)
		legendW = max(legendW, layouts[i].width)
	}
	if legendW > 0 {
		legendW += legendGap
	}
	var b strings.Builder
	fmt.Fprintf(&b, `<svg width="%gpt" height="%gpt" viewBox="0 0 %g %g" xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" class="allot-chart" data-chart="%s">`+"\n",
		W.Points(), H.Points(), W.Points(), H.Points(), html.EscapeString(f.id))
	fmt.Fprintf(&b, `<g transform="scale(1, -1) translate(0, -%g)">`+"\n", H.Points())
	fmt.Fprintf(&b, `<rect x="0" y="0" width="%g" height="%g" fill="#ffffff"/>`+"\n", W.Points(), H.Points())
	// Panels share the x axis: line their data areas up on the widest y axis.
	areas := make([]vg.Rectangle, len(f.panels))
	top, left := H, vg.Length(0)
	for i, pn := range f.panels {
		areas[i] = vg.Rectangle{Min: vg.Point{X: 0, Y: top - pn.height}, Max: vg.Point{X: W - legendW, Y: top}}
		top -= pn.height
		left = max(left, pn.p.DataCanvas(drawCanvas(vgsvg.New(W, H), areas[i])).Min.X)
	}
	for i, pn := range f.panels {
		area := areas[i]
		area.Min.X += left - pn.p.DataCanvas(drawCanvas(vgsvg.New(W, H), area)).Min.X
		if err := pn.render(&b, i, area, W, H, layouts[i], sty); err != nil {
			return Chart{}, fmt.Errorf("chart %s: %w", f.id, err)
		}
	}
	b.WriteString("</g>\n</svg>\n")
	return Chart{ID: f.id, Title: f.title, Note: f.note, SVG: b.String()}, nil
}

func (pn *panel) render(b *strings.Builder, i int, area vg.Rectangle, W, H vg.Length, lay legendLayout, sty text.Style) error {
	p := pn.p
	p.BackgroundColor = nil
	fmt.Fprintf(b, `<g class="panel" data-panel="%d">`+"\n", i)
	frame := vgsvg.New(W, H)
	fc := draw.Canvas{Canvas: frame, Rectangle: area}
	p.Draw(fc)
	body, err := svgBody(frame, H)
	if err != nil {
		return err
	}
	fmt.Fprintf(b, "<g class=\"frame\">\n%s</g>\n", body)
	da := p.DataCanvas(fc).Rectangle
	fmt.Fprintf(b, `<rect class="data-area" x="%.5g" y="%.5g" width="%.5g" height="%.5g" fill="none" stroke="none"/>`+"\n",
		da.Min.X.Points(), da.Min.Y.Points(), (da.Max.X - da.Min.X).Points(), (da.Max.Y - da.Min.Y).Points())
	// Each layer gets a canvas of its own, so that it becomes a group.
	layer := func(paint func(c draw.Canvas)) (string, error) {
		c := vgsvg.New(W, H)
		paint(drawCanvas(c, da))
		return svgBody(c, H)
	}
	if pn.warmup > 0 {
		s, err := layer(func(c draw.Canvas) { warmupBand{to: pn.warmup}.Plot(c, p) })
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<g class=\"warmup\">\n%s</g>\n", s)
	}
	for _, m := range pn.marks {
		s, err := layer(func(c draw.Canvas) { m.draw.Plot(c, p) })
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<g class=\"series\" data-series=\"%s\" data-colour=\"%s\" data-role=\"%s\">\n%s</g>\n",
			html.EscapeString(m.name), hexColour(m.look.colour), m.role, s)
	}
	if len(lay.entries) > 0 {
		if err := drawLegend(b, lay, W-lay.width, da.Max.Y, area.Min.Y, W, H, sty); err != nil {
			return err
		}
	}
	b.WriteString("</g>\n")
	return nil
}

func drawCanvas(c vg.Canvas, r vg.Rectangle) draw.Canvas {
	return draw.Canvas{Canvas: c, Rectangle: r}
}

// svgBody is what a vgsvg canvas drew, without its svg element and its
// flipping group (the figure has one of its own).
func svgBody(c *vgsvg.Canvas, H vg.Length) (string, error) {
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return "", err
	}
	s := buf.String()
	open := fmt.Sprintf(`<g transform="scale(1, -1) translate(0, -%.5g)">`+"\n", H.Points())
	i := strings.Index(s, open)
	j := strings.LastIndex(s, "</g>\n</svg>")
	if i < 0 || j < i {
		return "", fmt.Errorf("unexpected SVG from vgsvg")
	}
	return s[i+len(open) : j], nil
}

type legendLayout struct {
	entries []mark
	rows    int
	colW    vg.Length
	width   vg.Length
}

// layoutLegend fits a panel's legend into as many columns as its height
// needs.
func layoutLegend(pn *panel, sty text.Style) legendLayout {
	var l legendLayout
	for _, m := range pn.marks {
		if m.name != "" {
			l.entries = append(l.entries, m)
		}
	}
	if len(l.entries) == 0 {
		return l
	}
	textW := vg.Length(0)
	for _, m := range l.entries {
		textW = max(textW, sty.Width(m.name))
	}
	l.rows = max(1, int((pn.height.Points()-2*legendPad-8)/legendRow))
	cols := (len(l.entries) + l.rows - 1) / l.rows
	l.rows = (len(l.entries) + cols - 1) / cols
	l.colW = vg.Points(legendSwatch+5) + textW + vg.Points(8)
	l.width = vg.Length(cols)*l.colW + vg.Points(2*legendPad) - vg.Points(8)
	return l
}

// drawLegend writes a panel's legend with its top left corner at (x0, y0),
// lifted if need be to stay above bottom: a light box, then one group per
// entry with its swatch and name.
func drawLegend(b *strings.Builder, l legendLayout, x0, y0, bottom, W, H vg.Length, sty text.Style) error {
	h := vg.Points(float64(l.rows)*legendRow + 2*legendPad)
	y0 = max(y0, bottom+h)
	box := vgsvg.New(W, H)
	bc := drawCanvas(box, vg.Rectangle{Max: vg.Point{X: W, Y: H}})
	rect := vg.Rectangle{Min: vg.Point{X: x0, Y: y0 - h}, Max: vg.Point{X: x0 + l.width, Y: y0}}
	bc.FillPolygon(color.NRGBA{0xfa, 0xfb, 0xfc, 0xff}, rectPoints(rect))
	bc.StrokeLines(draw.LineStyle{Color: color.Gray{Y: 215}, Width: vg.Points(0.6)}, append(rectPoints(rect), rect.Min))
	s, err := svgBody(box, H)
	if err != nil {
		return err
	}
	b.WriteString("<g class=\"legend\">\n<g class=\"legend-box\">\n" + s + "</g>\n")
	for k, m := range l.entries {
		col, row := k/l.rows, k%l.rows
		x := x0 + vg.Points(legendPad) + vg.Length(col)*l.colW
		y := y0 - vg.Points(legendPad) - vg.Points((float64(row)+0.5)*legendRow)
		c := vgsvg.New(W, H)
		dc := drawCanvas(c, vg.Rectangle{Max: vg.Point{X: W, Y: H}})
		drawSwatch(dc, m, x, y)
		dc.FillText(sty, vg.Point{X: x + vg.Points(legendSwatch+5), Y: y}, m.name)
		s, err := svgBody(c, H)
		if err != nil {
			return err
		}
		fmt.Fprintf(b, "<g class=\"legend-entry\" data-series=\"%s\" data-colour=\"%s\">\n%s</g>\n",
			html.EscapeString(m.name), hexColour(m.look.colour), s)
	}
	b.WriteString("</g>\n")
	return nil
}

func rectPoints(r vg.Rectangle) []vg.Point {
	return []vg.Point{r.Min, {X: r.Max.X, Y: r.Min.Y}, r.Max, {X: r.Min.X, Y: r.Max.Y}}
}

// drawSwatch draws a legend entry's sample: a stroke for lines, a block
// for areas and bars.
func drawSwatch(c draw.Canvas, m mark, x, y vg.Length) {
	w := vg.Points(legendSwatch)
	if m.kind == pointMark {
		c.DrawGlyph(draw.GlyphStyle{Color: m.look.colour, Radius: max(m.width, vg.Points(3)), Shape: draw.CircleGlyph{}}, vg.Point{X: x + w/2, Y: y})
		return
	}
	if m.kind == lineMark {
		c.StrokeLine2(draw.LineStyle{Color: m.look.colour, Width: max(m.width, vg.Points(1.5)), Dashes: m.look.dashes}, x, y, x+w, y)
		return
	}
	r := vg.Rectangle{Min: vg.Point{X: x, Y: y - vg.Points(4)}, Max: vg.Point{X: x + w, Y: y + vg.Points(4)}}
	c.FillPolygon(m.look.colour, rectPoints(r))
	if m.look.dashes != nil {
		c.StrokeLines(draw.LineStyle{Color: inkBlack, Width: vg.Points(0.8), Dashes: m.look.dashes}, append(rectPoints(r), r.Min))
	}
}
