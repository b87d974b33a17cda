package reports

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/plotutil"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is one rendered chart.
type Chart struct {
	ID    string
	Title string
	Note  string
	SVG   string
}

const (
	chartW = 11 * vg.Inch
	chartH = 4 * vg.Inch
)

func newPlot(title, x, y string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = x
	p.Y.Label.Text = y
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(9)
	p.Legend.ThumbnailWidth = vg.Points(14)
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		a.Label.TextStyle.Font.Size = vg.Points(10)
		a.Tick.Label.Font.Size = vg.Points(9)
	}
	p.Title.TextStyle.Font.Size = vg.Points(11)
	g := plotter.NewGrid()
	g.Vertical.Color = color.Gray{Y: 225}
	g.Horizontal.Color = color.Gray{Y: 225}
	p.Add(g)
	return p
}

func render(id, title, note string, p *plot.Plot) (Chart, error) {
	wt, err := p.WriterTo(chartW, chartH, "svg")
	if err != nil {
		return Chart{}, fmt.Errorf("chart %s: %w", id, err)
	}
	var b bytes.Buffer
	if _, err := wt.WriteTo(&b); err != nil {
		return Chart{}, err
	}
	svg := b.String()
	if i := bytes.Index(b.Bytes(), []byte("<svg")); i > 0 {
		svg = svg[i:] // drop the XML prolog to inline the SVG in HTML
	}
	return Chart{ID: id, Title: title, Note: note, SVG: svg}, nil
}

func days(t float64) float64 { return t / 86400 }

func mid(d *RunData, k int) float64 { return days((d.Start[k] + d.End[k]) / 2) }

func line(p *plot.Plot, label string, pts plotter.XYs, i int, dashed bool) error {
	l, err := plotter.NewLine(pts)
	if err != nil {
		return err
	}
	l.Color = plotutil.Color(i)
	l.Width = vg.Points(1.2)
	if dashed {
		l.Dashes = []vg.Length{vg.Points(4), vg.Points(3)}
	}
	p.Add(l)
	if label != "" {
		p.Legend.Add(label, l)
	}
	return nil
}

// utilizationChart: allocated ÷ installed per type and for the fleet, with
// the peak (95th percentile of the window's buckets) marked.
func utilizationChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "utilisation %")
	nB := len(d.Start)
	fleetA, fleetI := make([]float64, nB), make([]float64, nB)
	for t, ty := range d.Types {
		pts := make(plotter.XYs, nB)
		for k := 0; k < nB; k++ {
			a := 0.0
			for m := range d.Teams {
				a += d.Allocated[t][m][k]
			}
			fleetA[k] += a
			fleetI[k] += d.Installed[t][k]
			pts[k] = plotter.XY{X: mid(d, k), Y: 100 * ratio(a, d.Installed[t][k])}
		}
		if err := line(p, ty, pts, t+1, false); err != nil {
			return Chart{}, err
		}
	}
	pts := make(plotter.XYs, nB)
	for k := range pts {
		pts[k] = plotter.XY{X: mid(d, k), Y: 100 * ratio(fleetA[k], fleetI[k])}
	}
	if err := line(p, "fleet", pts, 0, false); err != nil {
		return Chart{}, err
	}
	note := ""
	if s := d.Summary; s != nil {
		peak := 100 * s.Utilization.P95Bucket
		if err := line(p, fmt.Sprintf("peak (p95) %.0f%%", peak), plotter.XYs{{X: days(s.WindowS[0]), Y: peak}, {X: days(s.WindowS[1]), Y: peak}}, 0, true); err != nil {
			return Chart{}, err
		}
		note = fmt.Sprintf("Mean %.1f%%, peak %.1f%% (95th percentile of %s buckets), measured from day %.0f.", 100*s.Utilization.Mean, peak, fmtDur(s.BucketS), days(s.WindowS[0]))
	}
	p.Y.Min, p.Y.Max = 0, 105
	return render("utilization", "Utilisation over time, per instance type", note, p)
}

func ratio(a, b float64) float64 {
	if b <= 0 {
		return 0
	}
	return a / b
}

// teamAreaChart: accelerators allocated per team as stacked areas, with
// the fleet's installed capacity.
func teamAreaChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "accelerators")
	nB := len(d.Start)
	cum := make([]float64, nB)
	var layers []plotter.XYs
	for m := range d.Teams {
		pts := make(plotter.XYs, nB)
		for k := 0; k < nB; k++ {
			for t := range d.Types {
				cum[k] += d.Allocated[t][m][k]
			}
			pts[k] = plotter.XY{X: mid(d, k), Y: cum[k]}
		}
		layers = append(layers, pts)
	}
	// Paint the tallest layer first so each lower one shows on top of it.
	for m := len(layers) - 1; m >= 0; m-- {
		l, err := plotter.NewLine(layers[m])
		if err != nil {
			return Chart{}, err
		}
		c := plotutil.Color(m + 1)
		l.Color = c
		l.FillColor = fade(c)
		p.Add(l)
		p.Legend.Add(d.Teams[m], l)
	}
	inst := make(plotter.XYs, nB)
	for k := 0; k < nB; k++ {
		for t := range d.Types {
			inst[k].Y += d.Installed[t][k]
		}
		inst[k].X = mid(d, k)
	}
	if err := line(p, "installed", inst, 0, true); err != nil {
		return Chart{}, err
	}
	p.Y.Min = 0
	return render("teams", "Allocated accelerators per team (stacked)", "Each band is a team's allocation; the dashed line is the fleet.", p)
}

// fade is a lighter, opaque tint of a colour, for filled areas.
func fade(c color.Color) color.Color {
	r, g, b, _ := c.RGBA()
	mix := func(x uint32) uint8 { return uint8((x>>8)*6/10 + 255*4/10) }
	return color.NRGBA{R: mix(r), G: mix(g), B: mix(b), A: 255}
}

// teamBarChart: per team, mean quota, allocated, borrowed and lent over the
// window (the HyperPod dashboard's allocated vs borrowed).
func teamBarChart(d *RunData) (Chart, error) {
	p := newPlot("", "", "accelerators (mean over the window)")
	first := windowStart(d)
	n := len(d.Teams)
	series := map[string]plotter.Values{"quota": make(plotter.Values, n), "allocated": make(plotter.Values, n),
		"borrowed": make(plotter.Values, n), "lent": make(plotter.Values, n)}
	for m := range d.Teams {
		var q, a, b, l, w float64
		for k := first; k < len(d.Start); k++ {
			dt := d.End[k] - d.Start[k]
			w += dt
			for t := range d.Types {
				q += d.Quota[t][m][k] * dt
				a += d.Allocated[t][m][k] * dt
				b += d.Borrowed[t][m][k] * dt
				l += d.Lent[t][m][k] * dt
			}
		}
		if w > 0 {
			series["quota"][m], series["allocated"][m], series["borrowed"][m], series["lent"][m] = q/w, a/w, b/w, l/w
		}
	}
	width := vg.Points(8)
	for i, name := range []string{"quota", "allocated", "borrowed", "lent"} {
		bc, err := plotter.NewBarChart(series[name], width)
		if err != nil {
			return Chart{}, err
		}
		bc.Color = plotutil.Color(i + 1)
		bc.LineStyle.Width = 0
		bc.Offset = vg.Length(i-2) * width
		p.Add(bc)
		p.Legend.Add(name, bc)
	}
	p.NominalX(d.Teams...)
	p.X.Tick.Label.Rotation = math.Pi / 6
	p.X.Tick.Label.XAlign = draw.XRight
	return render("team-bars", "Quota, allocated, borrowed and lent per team", "Borrowed: held above the team's quota; lent: the team's quota others held.", p)
}

func windowStart(d *RunData) int {
	if d.Summary == nil {
		return 0
	}
	for k, s := range d.Start {
		if s >= d.Summary.WindowS[0] {
			return k
		}
	}
	return 0
}

// queueChart: waiting and running jobs, and the accelerators waiting jobs ask for.
func queueChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "jobs / accelerators")
	nB := len(d.Start)
	pend, run, dem := make(plotter.XYs, nB), make(plotter.XYs, nB), make(plotter.XYs, nB)
	for k := 0; k < nB; k++ {
		x := mid(d, k)
		pend[k].X, run[k].X, dem[k].X = x, x, x
		for m := range d.Teams {
			pend[k].Y += d.Pending[m][k]
			run[k].Y += d.Running[m][k]
			dem[k].Y += d.Demand[m][k]
		}
	}
	for i, s := range []struct {
		name string
		pts  plotter.XYs
	}{{"pending jobs", pend}, {"running jobs", run}, {"pending demand (accelerators)", dem}} {
		if err := line(p, s.name, s.pts, i+1, i == 2); err != nil {
			return Chart{}, err
		}
	}
	p.Y.Min = 0
	return render("queue", "Pending and running jobs, and pending demand", "", p)
}

// cdfChart: the distribution of waits per group.
func cdfChart(id, title string, groups map[string][]float64) (Chart, error) {
	p := newPlot("", "wait (hours, log scale; under a minute shown at a minute)", "fraction of jobs")
	p.X.Scale = plot.LogScale{}
	p.X.Tick.Marker = plot.LogTicks{Prec: -1}
	names := make([]string, 0, len(groups))
	for n := range groups {
		if len(groups[n]) > 0 {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	const floor = 1.0 / 60
	for i, n := range names {
		w := groups[n]
		step := max(1, len(w)/400)
		var pts plotter.XYs
		for j := 0; j < len(w); j += step {
			pts = append(pts, plotter.XY{X: math.Max(floor, w[j]/3600), Y: float64(j+1) / float64(len(w))})
		}
		pts = append(pts, plotter.XY{X: math.Max(floor, w[len(w)-1]/3600), Y: 1})
		if err := line(p, n, pts, i+1, false); err != nil {
			return Chart{}, err
		}
	}
	if len(names) == 0 {
		if err := line(p, "no job started", plotter.XYs{{X: floor, Y: 0}, {X: 1, Y: 0}}, 1, false); err != nil {
			return Chart{}, err
		}
	}
	p.Y.Min, p.Y.Max = 0, 1.02
	// A log axis needs a positive, non-empty range, even when every job
	// started at once.
	p.X.Min = floor
	p.X.Max = math.Max(p.X.Max, 1)
	return render(id, title, "", p)
}

// preemptionChart: preemptions and lost work per bucket.
func preemptionChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "per bucket")
	if err := bucketLines(d, p, []string{"preemptions", "work lost (accelerator-hours)"}, d.Preempts, d.LostAccH); err != nil {
		return Chart{}, err
	}
	return render("preemptions", "Preemptions and lost work", "Lost work is progress since a job's last checkpoint, thrown away by a preemption or a failure.", p)
}

// bucketLines draws per-bucket series as lines, styled in turn, from y = 0.
func bucketLines(d *RunData, p *plot.Plot, names []string, series ...[]float64) error {
	for i, ys := range series {
		pts := make(plotter.XYs, len(ys))
		for k, y := range ys {
			pts[k] = plotter.XY{X: mid(d, k), Y: y}
		}
		if err := line(p, names[i], pts, i+1, false); err != nil {
			return err
		}
	}
	p.Y.Min = 0
	return nil
}

func costChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "USD per useful accelerator-hour")
	nB := len(d.Start)
	var pts plotter.XYs
	for k := 0; k < nB; k++ {
		usd := 0.0
		for t := range d.Types {
			if d.Price[t] > 0 && d.PerNode[t] > 0 {
				usd += d.Installed[t][k] / d.PerNode[t] * d.Price[t]
			}
		}
		if d.Goodput[k] > 0 {
			pts = append(pts, plotter.XY{X: mid(d, k), Y: usd / d.Goodput[k]})
		}
	}
	note := "Installed node-hours at on-demand prices over accelerator-hours of kept progress."
	if len(pts) == 0 {
		pts = plotter.XYs{{X: 0, Y: 0}}
		note = "No priced instance type or no progress kept."
	}
	if err := line(p, "cost per useful accelerator-hour", pts, 1, false); err != nil {
		return Chart{}, err
	}
	if s := d.Summary; s != nil && s.Cost.USDPerUsefulAcceleratorHour > 0 {
		v := s.Cost.USDPerUsefulAcceleratorHour
		if err := line(p, fmt.Sprintf("over the window $%.2f", v), plotter.XYs{{X: days(s.WindowS[0]), Y: v}, {X: days(s.WindowS[1]), Y: v}}, 0, true); err != nil {
			return Chart{}, err
		}
	}
	p.Y.Min = 0
	return render("cost", "Cost per useful accelerator-hour", note, p)
}

// RunCharts renders every chart of a run report.
func RunCharts(d *RunData) ([]Chart, error) {
	var out []Chart
	for _, f := range []func() (Chart, error){
		func() (Chart, error) { return utilizationChart(d) },
		func() (Chart, error) { return teamAreaChart(d) },
		func() (Chart, error) { return teamBarChart(d) },
		func() (Chart, error) { return queueChart(d) },
		func() (Chart, error) {
			return cdfChart("wait-class", "Wait time distribution per priority class", d.WaitsByClass)
		},
		func() (Chart, error) { return cdfChart("wait-team", "Wait time distribution per team", d.WaitsByTeam) },
		func() (Chart, error) { return preemptionChart(d) },
		func() (Chart, error) { return costChart(d) },
	} {
		c, err := f()
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	if d.Fidelity != nil && len(d.Fidelity.OrigInUse) > 0 {
		c, err := fidelityChart(d)
		if err != nil {
			return nil, err
		}
		out = append(out, c)
	}
	return out, nil
}

// fidelityChart: accelerators in use, originally and in the replay.
func fidelityChart(d *RunData) (Chart, error) {
	p := newPlot("", "day", "accelerators in use")
	if err := bucketLines(d, p, []string{"original", "simulated"}, d.Fidelity.OrigInUse, d.Fidelity.SimInUse); err != nil {
		return Chart{}, err
	}
	return render("fidelity", "Replay fidelity: accelerators in use, original and simulated", "", p)
}

func fmtDur(s float64) string {
	switch {
	case s >= 86400 && math.Mod(s, 86400) == 0:
		return fmt.Sprintf("%.0f-day", s/86400)
	case s >= 3600 && math.Mod(s, 3600) == 0:
		return fmt.Sprintf("%.0f-hour", s/3600)
	case s >= 60:
		return fmt.Sprintf("%.0f-minute", s/60)
	}
	return fmt.Sprintf("%.0f-second", s)
}
