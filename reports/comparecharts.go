package reports

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// RenderComparison writes the charts, report.md and report.html.
func RenderComparison(dir string, c *Comparison) error {
	charts, err := comparisonCharts(c)
	if err != nil {
		return err
	}
	if err := writeCharts(dir, charts); err != nil {
		return err
	}
	names := make([]string, len(c.Variants))
	for i, v := range c.Variants {
		names[i] = v.Name
	}
	p := &page{Title: "Comparison: " + strings.Join(names, " vs "), Charts: charts}
	if len(c.Variants) > 0 {
		v := c.Variants[0]
		p.Sub = fmt.Sprintf("%d seeds per variant (%v); means with 95%% confidence intervals; differences to %s paired by seed.", len(v.Seeds), v.Seeds, v.Name)
	}
	p.Cards = c.cards()
	p.Warnings = c.Warnings()
	head, rows := c.Table()
	p.Tables = []table{{Title: "Headline figures", Head: head, Rows: rows}}
	if head, rows := c.ObjectivesTable(); len(rows) > 0 {
		p.Tables = append(p.Tables, table{Title: "Objectives (met on every seed?)", Head: head, Rows: rows})
	}
	return writePages(dir, p)
}

func comparisonCharts(c *Comparison) ([]Chart, error) {
	var out []Chart
	names := make([]string, len(c.Variants))
	for i, v := range c.Variants {
		names[i] = v.Name
	}
	lookOf := func(i int, _ string) look { return variantLook(i) }
	end, warm := c.timeSpan()
	ck := clockFor(end)

	f := newFigure("cmp-utilization", "Utilisation over time (mean over seeds)", "")
	pn := f.addPanel(chartH, ck.name, "utilisation")
	for i, v := range c.Variants {
		pts := make(plotter.XYs, len(v.Utilization))
		for k := range pts {
			pts[k] = plotter.XY{X: ck.at(v.BucketMid[k]), Y: 100 * v.Utilization[k]}
		}
		if err := pn.line(v.Name, "variant", variantLook(i), pts, lineW); err != nil {
			return nil, err
		}
	}
	pn.timeAxis(ck, end, warm)
	pn.percentAxis()
	ch, err := f.render()
	if err != nil {
		return nil, err
	}
	out = append(out, ch)

	groups := map[string][]float64{}
	for _, v := range c.Variants {
		groups[v.Name] = v.WaitQ
	}
	ch, err = cdfChart("cmp-wait", "Wait time distribution (pooled over seeds)", names, groups, "variant", lookOf)
	if err != nil {
		return nil, err
	}
	out = append(out, ch)

	if ch, err = pendingChart(c, ck, end, warm); err != nil {
		return nil, err
	}
	out = append(out, ch)
	if ch, err = teamWaitChart(c); err != nil {
		return nil, err
	}
	return append(out, ch), nil
}

// timeSpan is the horizon and the warm-up in seconds, the warm-up only
// where every run shares it.
func (c *Comparison) timeSpan() (end, warm float64) {
	warm = math.NaN()
	for _, v := range c.Variants {
		if n := len(v.BucketMid); n > 0 {
			end = math.Max(end, v.BucketMid[n-1])
		}
		for _, s := range v.Summaries {
			end = math.Max(end, s.WindowS[1])
			switch w := s.WindowS[0]; {
			case math.IsNaN(warm):
				warm = w
			case warm != w:
				warm = -1
			}
		}
	}
	if math.IsNaN(warm) || warm < 0 {
		warm = 0
	}
	return end, warm
}

// logRatio is how far apart the largest and the smallest value may be on
// a linear axis; beyond it the small ones would be a few pixels or none.
const logRatio = 50

// needsLog says whether values (under floor counted as floor) span more
// than logRatio.
func needsLog(values []float64, floor float64) bool {
	lo, hi := math.Inf(1), 0.0
	for _, v := range values {
		lo, hi = math.Min(lo, math.Max(v, floor)), math.Max(hi, v)
	}
	return hi > 0 && hi >= logRatio*lo
}

// pendingChart: jobs waiting over time per variant, on a log axis where
// one variant's queue dwarfs another's.
func pendingChart(c *Comparison, ck clock, end, warm float64) (Chart, error) {
	const floor = 0.1
	var peaks []float64
	for _, v := range c.Variants {
		peaks = append(peaks, slices.Max(append([]float64{0}, v.Pending...)))
	}
	log := needsLog(peaks, floor)
	y := "jobs waiting"
	f := newFigure("cmp-pending", "Pending jobs over time (mean over seeds)", "")
	if log {
		y = "jobs waiting (log scale)"
		f.note = "The queues differ by orders of magnitude, hence the log scale; under 0.1 job is drawn at 0.1."
	}
	pn := f.addPanel(chartH, ck.name, y)
	for i, v := range c.Variants {
		pts := make(plotter.XYs, len(v.Pending))
		for k := range pts {
			y := v.Pending[k]
			if log {
				y = log10At(y, floor)
			}
			pts[k] = plotter.XY{X: ck.at(v.BucketMid[k]), Y: y}
		}
		if err := pn.line(v.Name, "variant", variantLook(i), pts, lineW); err != nil {
			return Chart{}, err
		}
	}
	pn.timeAxis(ck, end, warm)
	if log {
		logAxis(pn, floor)
	} else {
		pn.yFromZero()
	}
	return f.render()
}

// logAxis labels y, which holds log10 of the data, from floor up to the
// next power of ten.
func logAxis(pn *panel, floor float64) {
	p := pn.p
	p.Y.Tick.Marker = logTicks{}
	p.Y.Min = math.Log10(floor)
	p.Y.Max = math.Ceil(math.Max(p.Y.Max, p.Y.Min+1) - 1e-9)
}

// teamWaitChart: each team's mean wait under each variant (mean over
// seeds), where fair share shows who gains and who pays. Waits that differ
// by orders of magnitude go on a log axis, so no bar is too short to see.
func teamWaitChart(c *Comparison) (Chart, error) {
	teams := map[string]bool{}
	for _, v := range c.Variants {
		for _, s := range v.Summaries {
			for t := range s.ByTeam {
				teams[t] = true
			}
		}
	}
	names := slices.Sorted(maps.Keys(teams))
	vals := make([][]float64, len(c.Variants))
	var all []float64
	for i, v := range c.Variants {
		vals[i] = make([]float64, len(names))
		for k, t := range names {
			sum := 0.0
			for _, s := range v.Summaries {
				sum += s.ByTeam[t].WaitS.Mean
			}
			if n := len(v.Summaries); n > 0 {
				vals[i][k] = sum / float64(n) / 3600
			}
		}
		all = append(all, vals[i]...)
	}
	log := needsLog(all, waitFloor)
	f := newFigure("cmp-team-wait", "Mean wait per team", "Mean over seeds.")
	y := "mean wait (hours)"
	if log {
		y = "mean wait (hours, log scale)"
		f.note = "Mean over seeds. The waits differ by orders of magnitude, hence the log scale; under a minute is drawn at a minute."
		for i := range vals {
			for k := range vals[i] {
				vals[i][k] = log10At(vals[i][k], waitFloor)
			}
		}
	}
	pn := f.addPanel(chartH, "", y)
	for i, v := range c.Variants {
		pn.bars(v.Name, "variant", variantLook(i), vals[i], i, len(c.Variants))
	}
	teamAxis(pn, names)
	if log {
		logAxis(pn, waitFloor)
		// Bars stand on the axis, below the floor, so the shortest still shows.
		pn.p.Y.Min = math.Log10(waitFloor / 4)
	} else {
		pn.yFromZero()
	}
	return f.render()
}
