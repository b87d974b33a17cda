package reports

import (
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/text"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// barSeries is one series of a grouped bar chart: value k stands at
// category k, the index-th of count bars side by side. Bars rise from the
// bottom of the axis (on a log axis, from below the floor, so the
// shortest still shows).
type barSeries struct {
	values       []float64
	index, count int
	look         look
}

func (b *barSeries) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	slot := (trX(1) - trX(0)) * 0.8
	w := slot / vg.Length(b.count)
	for k := range b.values {
		x0 := trX(float64(k)) - slot/2 + vg.Length(b.index)*w
		y1 := min(trY(b.values[k]), c.Max.Y)
		if y1 <= c.Min.Y {
			continue
		}
		r := vg.Rectangle{Min: vg.Point{X: x0 + w*0.05, Y: c.Min.Y}, Max: vg.Point{X: x0 + w*0.95, Y: y1}}
		c.FillPolygon(b.look.colour, rectPoints(r))
		if b.look.dashes != nil {
			c.StrokeLines(draw.LineStyle{Color: inkBlack, Width: vg.Points(0.8), Dashes: b.look.dashes}, append(rectPoints(r), r.Min))
		}
	}
}

func (b *barSeries) DataRange() (xmin, xmax, ymin, ymax float64) {
	ymin, ymax = math.Inf(1), math.Inf(-1)
	for k := range b.values {
		ymin, ymax = math.Min(ymin, b.values[k]), math.Max(ymax, b.values[k])
	}
	return -0.5, float64(len(b.values)) - 0.5, ymin, ymax
}

// warmupBand shades the warm-up, from time 0 to `to`, and labels it.
type warmupBand struct{ to float64 }

func (w warmupBand) Plot(c draw.Canvas, p *plot.Plot) {
	trX, _ := p.Transforms(&c)
	x0, x1 := max(c.Min.X, trX(0)), min(c.Max.X, trX(w.to))
	if x1 <= x0 {
		return
	}
	c.FillPolygon(bandGrey, rectPoints(vg.Rectangle{Min: vg.Point{X: x0, Y: c.Min.Y}, Max: vg.Point{X: x1, Y: c.Max.Y}}))
	sty := text.Style{Color: inkGrey, Font: font.From(sans, 8), XAlign: draw.XLeft, YAlign: draw.YTop, Handler: plot.DefaultTextHandler}
	c.FillText(sty, vg.Point{X: x0 + vg.Points(3), Y: c.Max.Y - vg.Points(3)}, "warm-up")
}
