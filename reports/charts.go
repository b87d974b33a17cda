package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Chart is one rendered chart. A chart left out (nothing to draw) has no
// SVG and says why in Note.
type Chart struct {
	ID    string
	Title string
	Note  string
	SVG   string
}

const (
	chartW = 11 * vg.Inch
	chartH = 4 * vg.Inch
	// halfH is the height of each of two panels that share a chart.
	halfH = 2.6 * vg.Inch
)

func days(t float64) float64 { return t / 86400 }

// clock is the unit of a time axis: days, or hours for runs shorter than
// three days (minutes, seconds for a live history of minutes), so ticks
// stay whole numbers.
type clock struct {
	unit float64 // seconds
	name string
}

func clockFor(horizon float64) clock {
	switch {
	case horizon < 180:
		return clock{1, "second"}
	case horizon < 3*3600:
		return clock{60, "minute"}
	case horizon < 3*86400:
		return clock{3600, "hour"}
	}
	return clock{86400, "day"}
}

func (c clock) at(t float64) float64 { return t / c.unit }

// runSpan is the run's end and warm-up, in seconds.
func runSpan(d *RunData) (end, warm float64) {
	if n := len(d.End); n > 0 {
		end = d.End[n-1]
	}
	if d.Summary != nil {
		warm = d.Summary.WindowS[0]
		end = math.Max(end, d.Summary.WindowS[1])
	}
	return end, warm
}

func runClock(d *RunData) clock {
	end, _ := runSpan(d)
	return clockFor(end)
}

func mid(ck clock, d *RunData, k int) float64 { return ck.at((d.Start[k] + d.End[k]) / 2) }

// timeAxis puts the run's time on the panel's x axis, warm-up shaded.
func timeAxis(pn *panel, ck clock, d *RunData) {
	end, warm := runSpan(d)
	pn.timeAxis(ck, end, warm)
}

// yFromZero starts the y axis at 0 and ends it on a labelled tick.
func (pn *panel) yFromZero() {
	p := pn.p
	p.Y.Min = 0
	if math.IsInf(p.Y.Max, 0) || p.Y.Max <= 0 {
		p.Y.Max = 1
		return
	}
	step := niceStep(p.Y.Max, 5)
	p.Y.Max = math.Ceil(p.Y.Max/step-1e-9) * step
}

// percentAxis shows y as 0%–100%.
func (pn *panel) percentAxis() {
	pn.p.Y.Min, pn.p.Y.Max = 0, 100
	pn.p.Y.Tick.Marker = linearTicks{Target: 5, Suffix: "%"}
}

const lineW = vg.Length(1.3)

// utilizationChart: allocated ÷ installed per type and for the fleet, with
// the peak (95th percentile of the window's buckets) marked.
func utilizationChart(d *RunData) (Chart, error) {
	note := ""
	s := d.Summary
	ck := runClock(d)
	if s != nil {
		note = fmt.Sprintf("Mean %.1f%%, peak %.1f%% (95th percentile of %s buckets), measured from %s %s.", 100*s.Utilization.Mean, 100*s.Utilization.P95Bucket, fmtDur(s.BucketS), ck.name, fmtTick(ck.at(s.WindowS[0]), 1))
	}
	f := newFigure("utilization", "Utilisation over time, per instance type", note)
	pn := f.addPanel(chartH, ck.name, "utilisation")
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
			pts[k] = plotter.XY{X: mid(ck, d, k), Y: 100 * ratio(a, d.Installed[t][k])}
		}
		if len(d.Types) > 1 { // one type is the fleet
			if err := pn.line(ty, "other", otherLook(t), pts, lineW); err != nil {
				return Chart{}, err
			}
		}
	}
	pts := make(plotter.XYs, nB)
	for k := range pts {
		pts[k] = plotter.XY{X: mid(ck, d, k), Y: 100 * ratio(fleetA[k], fleetI[k])}
	}
	if err := pn.reference("fleet", inkBlack, false, pts); err != nil {
		return Chart{}, err
	}
	if s != nil {
		peak := 100 * s.Utilization.P95Bucket
		if err := pn.reference(fmt.Sprintf("peak (p95) %.0f%%", peak), inkGrey, true, plotter.XYs{{X: ck.at(s.WindowS[0]), Y: peak}, {X: ck.at(s.WindowS[1]), Y: peak}}); err != nil {
			return Chart{}, err
		}
	}
	timeAxis(pn, ck, d)
	pn.percentAxis()
	return f.render()
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
	f := newFigure("teams", "Allocated accelerators per team (stacked)", "Each band is a team's allocation; the dashed line is the fleet.")
	ck := runClock(d)
	pn := f.addPanel(chartH, ck.name, "accelerators")
	nB := len(d.Start)
	cum := make([]float64, nB)
	var layers []plotter.XYs
	for m := range d.Teams {
		pts := make(plotter.XYs, nB)
		for k := 0; k < nB; k++ {
			for t := range d.Types {
				cum[k] += d.Allocated[t][m][k]
			}
			pts[k] = plotter.XY{X: mid(ck, d, k), Y: cum[k]}
		}
		layers = append(layers, pts)
	}
	// Paint the tallest layer first so each lower one shows on top of it;
	// the legend then lists teams top band first, as they stack.
	for m := len(layers) - 1; m >= 0; m-- {
		if err := pn.area(d.Teams[m], "team", teamLook(m), layers[m]); err != nil {
			return Chart{}, err
		}
	}
	inst := make(plotter.XYs, nB)
	for k := 0; k < nB; k++ {
		for t := range d.Types {
			inst[k].Y += d.Installed[t][k]
		}
		inst[k].X = mid(ck, d, k)
	}
	if err := pn.reference("installed", inkBlack, true, inst); err != nil {
		return Chart{}, err
	}
	timeAxis(pn, ck, d)
	pn.yFromZero()
	return f.render()
}

// teamBarChart: per team, mean quota, allocated, borrowed and lent over the
// window (the HyperPod dashboard's allocated vs borrowed).
func teamBarChart(d *RunData) (Chart, error) {
	f := newFigure("team-bars", "Quota, allocated, borrowed and lent per team", "Borrowed: held above the team's quota; lent: the team's quota others held.")
	pn := f.addPanel(chartH, "", "accelerators (mean over the window)")
	first := windowStart(d)
	n := len(d.Teams)
	names := []string{"quota", "allocated", "borrowed", "lent"}
	series := make([][]float64, len(names))
	for i := range series {
		series[i] = make([]float64, n)
	}
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
			series[0][m], series[1][m], series[2][m], series[3][m] = q/w, a/w, b/w, l/w
		}
	}
	for i, name := range names {
		pn.bars(name, "other", otherLook(i), series[i], i, len(names))
	}
	teamAxis(pn, d.Teams)
	pn.yFromZero()
	return f.render()
}

// teamAxis names the categories of a bar chart after teams.
func teamAxis(pn *panel, teams []string) {
	if len(teams) == 0 {
		return
	}
	pn.p.NominalX(teams...)
	pn.p.X.Tick.Label.Rotation = math.Pi / 6
	pn.p.X.Tick.Label.XAlign = draw.XRight
	pn.p.X.Min, pn.p.X.Max = -0.5, float64(len(teams))-0.5
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

// perBucket sums a [team][bucket] series over teams.
func perBucket(ck clock, d *RunData, by [][]float64) plotter.XYs {
	pts := make(plotter.XYs, len(d.Start))
	for k := range pts {
		pts[k].X = mid(ck, d, k)
		for m := range by {
			pts[k].Y += by[m][k]
		}
	}
	return pts
}

// queueChart: waiting and running jobs, and the accelerators waiting jobs
// ask for, in two panels: one counts jobs, the other accelerators.
func queueChart(d *RunData) (Chart, error) {
	f := newFigure("queue", "Pending and running jobs, and pending demand", "Means over each bucket: jobs waiting and running, and the accelerators the waiting jobs ask for.")
	ck := runClock(d)
	jobs := f.addPanel(halfH, "", "jobs")
	if err := jobs.line("pending jobs", "other", otherLook(0), perBucket(ck, d, d.Pending), lineW); err != nil {
		return Chart{}, err
	}
	if err := jobs.line("running jobs", "other", otherLook(1), perBucket(ck, d, d.Running), lineW); err != nil {
		return Chart{}, err
	}
	acc := f.addPanel(halfH, ck.name, "accelerators")
	if err := acc.line("pending demand", "other", otherLook(2), perBucket(ck, d, d.Demand), lineW); err != nil {
		return Chart{}, err
	}
	for _, pn := range f.panels {
		timeAxis(pn, ck, d)
		pn.yFromZero()
	}
	return f.render()
}

// waitFloor is where waits under a minute are drawn on log axes (hours).
const waitFloor = 1.0 / 60

// cdfChart: the distribution of waits per group, groups in the given order.
func cdfChart(id, title string, names []string, groups map[string][]float64, role string, lookOf func(i int, name string) look) (Chart, error) {
	f := newFigure(id, title, "")
	f.note = "Waits under a minute are drawn at a minute."
	pn := f.addPanel(chartH, "wait (hours, log scale)", "jobs waiting at most this long")
	pn.p.X.Tick.Marker = logTicks{}
	drawn := 0
	for i, n := range names {
		w := groups[n]
		if len(w) == 0 {
			continue
		}
		step := max(1, len(w)/400)
		var pts plotter.XYs
		for j := 0; j < len(w); j += step {
			pts = append(pts, plotter.XY{X: log10At(w[j]/3600, waitFloor), Y: 100 * float64(j+1) / float64(len(w))})
		}
		pts = append(pts, plotter.XY{X: log10At(w[len(w)-1]/3600, waitFloor), Y: 100})
		if err := pn.line(n, role, lookOf(i, n), pts, lineW); err != nil {
			return Chart{}, err
		}
		drawn++
	}
	if drawn == 0 {
		if err := pn.reference("no job started", inkGrey, true, plotter.XYs{{X: math.Log10(waitFloor), Y: 0}, {X: 0, Y: 0}}); err != nil {
			return Chart{}, err
		}
	}
	pn.percentAxis()
	// From a minute to at least an hour, even when every job started at once.
	pn.p.X.Min = math.Log10(waitFloor)
	pn.p.X.Max = math.Max(pn.p.X.Max, 0)
	return f.render()
}

// preemptionChart: preemptions and lost work per bucket, each in its own
// panel (a count and accelerator-hours).
func preemptionChart(d *RunData) (Chart, error) {
	f := newFigure("preemptions", "Preemptions and lost work", "Lost work is progress since a job's last checkpoint, thrown away by a preemption or a failure.")
	ck := runClock(d)
	per := ""
	if d.Summary != nil {
		per = " per " + bucketName(d.Summary.BucketS)
	}
	for i, s := range []struct {
		name, unit string
		ys         []float64
	}{{"preemptions", "preemptions" + per, d.Preempts}, {"work lost", "accelerator-hours lost" + per, d.LostAccH}} {
		x := ""
		if i == 1 {
			x = ck.name
		}
		pn := f.addPanel(halfH, x, s.unit)
		if err := pn.line(s.name, "other", otherLook(i), bucketPoints(ck, d, s.ys), lineW); err != nil {
			return Chart{}, err
		}
		timeAxis(pn, ck, d)
		pn.yFromZero()
	}
	return f.render()
}

// bucketName is a bucket's length as a unit: "day", "hour", "6-hour bucket".
func bucketName(s float64) string {
	switch s {
	case 86400:
		return "day"
	case 3600:
		return "hour"
	}
	return fmtDur(s) + " bucket"
}

func bucketPoints(ck clock, d *RunData, ys []float64) plotter.XYs {
	pts := make(plotter.XYs, len(ys))
	for k, y := range ys {
		pts[k] = plotter.XY{X: mid(ck, d, k), Y: y}
	}
	return pts
}

// unpricedFleet: no instance type of the run has a price, so there is no
// cost to speak of (not a cost of $0).
func unpricedFleet(d *RunData) bool {
	if s := d.Summary; s != nil {
		return len(s.Cost.UnpricedTypes) > 0 && s.Cost.USD == 0
	}
	for _, p := range d.Price {
		if p > 0 {
			return false
		}
	}
	return true
}

const costTitle = "Cost per useful accelerator-hour"

func costChart(d *RunData) (Chart, error) {
	if unpricedFleet(d) {
		return Chart{ID: "cost", Title: costTitle, Note: "Unpriced: no instance type of this fleet has a price, so there is no cost chart."}, nil
	}
	f := newFigure("cost", costTitle, "Installed node-hours at on-demand prices over accelerator-hours of kept progress.")
	ck := runClock(d)
	pn := f.addPanel(chartH, ck.name, "USD per useful accelerator-hour")
	var pts plotter.XYs
	for k := range d.Start {
		usd := 0.0
		for t := range d.Types {
			if d.Price[t] > 0 && d.PerNode[t] > 0 {
				usd += d.Installed[t][k] / d.PerNode[t] * d.Price[t]
			}
		}
		if d.Goodput[k] > 0 {
			pts = append(pts, plotter.XY{X: mid(ck, d, k), Y: usd / d.Goodput[k]})
		}
	}
	if len(pts) == 0 {
		pts = plotter.XYs{{X: 0, Y: 0}}
		f.note = "No progress kept, so no cost per useful accelerator-hour."
	}
	if err := pn.line("per bucket", "other", otherLook(0), pts, lineW); err != nil {
		return Chart{}, err
	}
	if s := d.Summary; s != nil && s.Cost.USDPerUsefulAcceleratorHour > 0 {
		v := s.Cost.USDPerUsefulAcceleratorHour
		if err := pn.reference(fmt.Sprintf("over the window $%.2f", v), inkBlack, true, plotter.XYs{{X: ck.at(s.WindowS[0]), Y: v}, {X: ck.at(s.WindowS[1]), Y: v}}); err != nil {
			return Chart{}, err
		}
	}
	timeAxis(pn, ck, d)
	pn.yFromZero()
	return f.render()
}

// RunCharts renders every chart of a run report.
func RunCharts(d *RunData) ([]Chart, error) {
	looks := teamLooks(d.Teams)
	teamLookOf := func(_ int, name string) look { return looks[name] }
	otherLookOf := func(i int, _ string) look { return otherLook(i) }
	var out []Chart
	for _, f := range []func() (Chart, error){
		func() (Chart, error) { return utilizationChart(d) },
		func() (Chart, error) { return teamAreaChart(d) },
		func() (Chart, error) { return teamBarChart(d) },
		func() (Chart, error) { return queueChart(d) },
		func() (Chart, error) {
			return cdfChart("wait-class", "Wait time distribution per priority class", slices.Sorted(maps.Keys(d.WaitsByClass)), d.WaitsByClass, "other", otherLookOf)
		},
		func() (Chart, error) {
			return cdfChart("wait-team", "Wait time distribution per team", teamOrder(d), d.WaitsByTeam, "team", teamLookOf)
		},
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

// teamOrder is the scenario's team order, then any other team with waits.
func teamOrder(d *RunData) []string {
	names := append([]string(nil), d.Teams...)
	known := map[string]bool{}
	for _, t := range d.Teams {
		known[t] = true
	}
	for _, t := range slices.Sorted(maps.Keys(d.WaitsByTeam)) {
		if !known[t] {
			names = append(names, t)
		}
	}
	return names
}

// fidelityChart: accelerators in use, originally and in the replay.
func fidelityChart(d *RunData) (Chart, error) {
	f := newFigure("fidelity", "Replay fidelity: accelerators in use, original and simulated", "")
	ck := runClock(d)
	pn := f.addPanel(chartH, ck.name, "accelerators in use")
	if err := pn.line("original", "other", otherLook(0), bucketPoints(ck, d, d.Fidelity.OrigInUse), lineW); err != nil {
		return Chart{}, err
	}
	if err := pn.line("simulated", "other", otherLook(1), bucketPoints(ck, d, d.Fidelity.SimInUse), lineW); err != nil {
		return Chart{}, err
	}
	timeAxis(pn, ck, d)
	pn.yFromZero()
	return f.render()
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
