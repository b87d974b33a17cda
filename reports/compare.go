package reports

import (
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"gonum.org/v1/plot/plotter"
)

// ComparisonFile holds a comparison's results.
const ComparisonFile = "comparison.json"

// Comparison is several variants (scenario × policy), each run over the
// same seeds.
type Comparison struct {
	Variants []*VariantResult `json:"variants"`
	KPIs     []KPIRow         `json:"kpis"`
}

// VariantResult is one variant's runs.
type VariantResult struct {
	Name      string     `json:"name"`
	Scenario  string     `json:"scenario"`
	Policy    string     `json:"policy"`
	Seeds     []uint64   `json:"seeds"`
	Summaries []*Summary `json:"summaries"`
	// For the overlaid charts: per-bucket fleet utilisation and pending
	// jobs averaged over seeds, and wait quantiles pooled over seeds.
	BucketMid   []float64          `json:"bucket_mid_s"`
	Utilization []float64          `json:"utilization"`
	Pending     []float64          `json:"pending_jobs"`
	WaitQ       []float64          `json:"wait_quantiles_s"` // at i/(len-1)
	UsageShare  map[string]float64 `json:"usage_share"`
	Objectives  []VariantObjective `json:"objectives,omitempty"`
}

// Stat is a mean with a 95% confidence interval (NaN bounds for one run).
type Stat struct {
	Mean float64 `json:"mean"`
	Lo   float64 `json:"lo"`
	Hi   float64 `json:"hi"`
}

// KPIRow is one headline figure across variants, with the difference of
// each variant to the first (paired by seed).
type KPIRow struct {
	Key    string `json:"key"`
	Label  string `json:"label"`
	Higher bool   `json:"higher_is_better"`
	Values []Stat `json:"values"`
	Diffs  []Stat `json:"diff_to_first"`
}

// headline lists the compared figures: summary path, label, higher better.
// Waits over every job (wait_all_s) come before waits over started jobs, so
// that a policy that starves work cannot look best by leaving it out.
var headline = []struct {
	key, label string
	higher     bool
}{
	{"utilization.p95_bucket", "utilisation, peak (p95 bucket)", true},
	{"utilization.mean", "utilisation, mean", true},
	{"goodput", "goodput", true},
	{"wait_all_s.mean", "wait, mean (all jobs)", false},
	{"wait_all_s.p95", "wait, p95 (all jobs)", false},
	{classWaitKey, "", false}, // one row per priority class
	{"wait_s.p95", "wait, p95 (started jobs only)", false},
	{"jobs.unstarted_share", "jobs never started", false},
	{"jobs.completed", "jobs completed", true},
	{"preemptions", "preemptions", false},
	{"fairness.jain", "fairness (Jain)", true},
	{"cost.usd_per_useful_accelerator_hour", "USD per useful accelerator-hour", false},
}

// classWaitKey stands in the headline for one row per priority class that
// every run has: its p95 wait over all its jobs.
const classWaitKey = "by_priority_class.*.wait_all_s.p95"

// UnstartedWarnShare is the share of never-started jobs above which a
// comparison warns that wait_s flatters the variant.
const UnstartedWarnShare = 0.01

// meanCI is the mean of xs with its 95% interval within b (MeanCI95).
func meanCI(b Bounds, xs []float64) Stat {
	m, ci := MeanCI95(b, xs)
	if ci == nil {
		return Stat{Mean: m, Lo: math.NaN(), Hi: math.NaN()}
	}
	return Stat{Mean: m, Lo: ci[0], Hi: ci[1]}
}

// RunContribution is what one run adds to its variant: the summary, the
// per-bucket series the overlaid charts average, and the wait quantiles. It
// is small, so a comparison split over machines carries these, not runs.
type RunContribution struct {
	Seed        uint64    `json:"seed"`
	Summary     *Summary  `json:"summary"`
	BucketMid   []float64 `json:"bucket_mid_s"`
	Utilization []float64 `json:"utilization"`
	Pending     []float64 `json:"pending_jobs"`
	WaitQ       []float64 `json:"wait_quantiles_s"`
}

// Contribution extracts what a run adds to its variant.
func Contribution(seed uint64, d *RunData) *RunContribution {
	n := len(d.Start)
	rc := &RunContribution{Seed: seed, Summary: d.Summary,
		BucketMid: make([]float64, n), Utilization: make([]float64, n), Pending: make([]float64, n)}
	for k := range n {
		rc.BucketMid[k] = (d.Start[k] + d.End[k]) / 2
		a, in, p := 0.0, 0.0, 0.0
		for t := range d.Types {
			in += d.Installed[t][k]
			for m := range d.Teams {
				a += d.Allocated[t][m][k]
			}
		}
		for m := range d.Teams {
			p += d.Pending[m][k]
		}
		rc.Utilization[k], rc.Pending[k] = ratio(a, in), p
	}
	var waits []float64
	for _, w := range d.WaitsByTeam {
		waits = append(waits, w...)
	}
	sort.Float64s(waits)
	rc.WaitQ = make([]float64, 101)
	for i := range rc.WaitQ {
		if len(waits) > 0 {
			rc.WaitQ[i] = waits[min(len(waits)-1, int(float64(i)/100*float64(len(waits)-1)+0.5))]
		}
	}
	return rc
}

// Add records one run's contribution. Series are running means over the
// runs added so far, so runs must be added in the same order to give the
// same figures to the last bit.
func (v *VariantResult) Add(rc *RunContribution) {
	v.Seeds = append(v.Seeds, rc.Seed)
	v.Summaries = append(v.Summaries, rc.Summary)
	n := len(rc.Utilization)
	if len(v.Utilization) == 0 {
		v.BucketMid, v.Utilization, v.Pending = make([]float64, n), make([]float64, n), make([]float64, n)
		v.UsageShare = map[string]float64{}
	}
	k0 := float64(len(v.Seeds))
	for k := 0; k < n && k < len(v.Utilization); k++ {
		v.BucketMid[k] = rc.BucketMid[k]
		v.Utilization[k] += (rc.Utilization[k] - v.Utilization[k]) / k0
		v.Pending[k] += (rc.Pending[k] - v.Pending[k]) / k0
	}
	for team, ts := range rc.Summary.ByTeam {
		v.UsageShare[team] += (ts.UsageShare - v.UsageShare[team]) / k0
	}
	if len(v.WaitQ) == 0 {
		v.WaitQ = slices.Clone(rc.WaitQ)
	} else {
		for i, q := range rc.WaitQ {
			v.WaitQ[i] += (q - v.WaitQ[i]) / k0
		}
	}
}

// Finish computes the KPI table and each variant's objectives.
func (c *Comparison) Finish() error {
	c.KPIs = nil
	for _, h := range headline {
		if strings.HasPrefix(h.key, "cost.") && !c.anyPriced() {
			continue // no type has a price: every cost is 0 and says nothing
		}
		if h.key == classWaitKey {
			for _, cls := range c.commonClasses() {
				key := "by_priority_class." + cls + ".wait_all_s.p95"
				row, err := c.kpiRow(key, "wait, p95 (all jobs), "+cls, h.higher)
				if err != nil {
					return err
				}
				c.KPIs = append(c.KPIs, row)
			}
			continue
		}
		row, err := c.kpiRow(h.key, h.label, h.higher)
		if err != nil {
			return err
		}
		c.KPIs = append(c.KPIs, row)
	}
	for _, v := range c.Variants {
		v.Objectives = variantObjectives(v.Summaries)
	}
	return nil
}

// kpiRow is one summary figure across variants, with each variant's
// difference to the first paired by seed.
func (c *Comparison) kpiRow(key, label string, higher bool) (KPIRow, error) {
	row := KPIRow{Key: key, Label: label, Higher: higher}
	var first []float64
	for i, v := range c.Variants {
		xs := make([]float64, len(v.Summaries))
		for j, s := range v.Summaries {
			x, err := Lookup(s, key)
			if err != nil {
				return row, err
			}
			xs[j] = x
		}
		row.Values = append(row.Values, meanCI(BoundsOf(key), xs))
		if i == 0 {
			first = xs
			row.Diffs = append(row.Diffs, Stat{})
			continue
		}
		diffs := make([]float64, min(len(xs), len(first)))
		for j := range diffs {
			diffs[j] = xs[j] - first[j]
		}
		row.Diffs = append(row.Diffs, meanCI(BoundsOf(key).Diff(), diffs))
	}
	return row, nil
}

// commonClasses lists the priority classes every run has jobs of, by name.
func (c *Comparison) commonClasses() []string {
	count := map[string]int{}
	runs := 0
	for _, v := range c.Variants {
		for _, s := range v.Summaries {
			runs++
			for cls := range s.ByPriorityClass {
				count[cls]++
			}
		}
	}
	var out []string
	for cls, n := range count {
		if n == runs && len(count) > 1 {
			out = append(out, cls)
		}
	}
	sort.Strings(out)
	return out
}

// VariantObjective is one objective over a variant's seeds.
type VariantObjective struct {
	Objective string  `json:"objective"`
	Path      string  `json:"path"`
	Op        string  `json:"op"`
	Target    float64 `json:"target"`
	Value     Stat    `json:"value"`     // the measured value over seeds
	Met       bool    `json:"met"`       // met on every seed
	MetSeeds  int     `json:"met_seeds"` // on how many seeds it was met
	// MissedSeeds are the seeds it was not met on, in run order.
	MissedSeeds []uint64 `json:"missed_seeds"`
}

// variantObjectives gathers the objectives of a variant's runs, in the
// order the scenario lists them.
func variantObjectives(runs []*Summary) []VariantObjective {
	if len(runs) == 0 {
		return nil
	}
	var out []VariantObjective
	for i, o := range runs[0].Objectives {
		vo := VariantObjective{Objective: o.Objective, Path: o.Path, Op: o.Op, Target: o.Target, Met: true, MissedSeeds: []uint64{}}
		var xs []float64
		for _, s := range runs {
			if i >= len(s.Objectives) {
				continue
			}
			r := s.Objectives[i]
			xs = append(xs, r.Value)
			if r.Met {
				vo.MetSeeds++
			} else {
				vo.Met = false
				vo.MissedSeeds = append(vo.MissedSeeds, s.Seed)
			}
		}
		vo.Value = meanCI(BoundsOf(o.Path), xs)
		out = append(out, vo)
	}
	return out
}

// Verdict says on which of n seeds the objective was met, naming the
// seeds it missed: "met on 4 of 5 seeds; not met on seed 3".
func (o VariantObjective) Verdict(n int) string {
	switch {
	case o.Met:
		return "met"
	case n == 1:
		return "not met"
	case o.MetSeeds == 0:
		return fmt.Sprintf("not met on any of %d seeds", n)
	}
	v := fmt.Sprintf("met on %d of %d seeds", o.MetSeeds, n)
	if len(o.MissedSeeds) > 0 { // absent from comparisons written before it was recorded
		v += "; not met on " + SeedList(o.MissedSeeds)
	}
	return v
}

// SeedList names seeds in words: "seed 3", "seeds 2 and 5", "seeds 1, 2
// and 5".
func SeedList(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	if len(parts) == 1 {
		return "seed " + parts[0]
	}
	return "seeds " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}

// Warnings are what a reader of the comparison must not miss: variants
// that never started more than UnstartedWarnShare of their jobs, whose
// wait_s leaves those jobs out.
func (c *Comparison) Warnings() []string {
	var out []string
	for _, v := range c.Variants {
		n, sub := 0, 0
		for _, s := range v.Summaries {
			n += s.WaitAllS.Unstarted
			sub += s.Jobs.Submitted
		}
		if sub > 0 && float64(n)/float64(sub) > UnstartedWarnShare {
			out = append(out, fmt.Sprintf("%s never started %s of the window's jobs (%s of %s over %d seeds): its wait_s counts only the jobs that started; compare wait_all_s and jobs.unstarted_share",
				v.Name, FormatValue("jobs.unstarted_share", float64(n)/float64(sub)), Thousands(float64(n), 0), Thousands(float64(sub), 0), len(v.Summaries)))
		}
	}
	return out
}

func (c *Comparison) anyPriced() bool {
	for _, v := range c.Variants {
		for _, s := range v.Summaries {
			if s.Cost.USD > 0 || len(s.Cost.UnpricedTypes) == 0 {
				return true
			}
		}
	}
	return false
}

// FormatStat prints a mean with its interval, in the key's unit: "mean ±
// half" for an interval symmetric about the mean, "mean (lo .. hi)" for
// one cut at a bound of the key (MeanCI95).
func FormatStat(s Stat, key string) string {
	if math.IsNaN(s.Lo) {
		if key == "fairness.jain" {
			return fmt.Sprintf("%.3f", s.Mean)
		}
		return FormatValue(key, s.Mean)
	}
	f := statFormat(s, key)
	if cut(s) && f(s.Lo) != f(s.Hi) { // else too narrow to show: "0.0% ± 0.0%"
		return f(s.Mean) + " (" + f(s.Lo) + " .. " + f(s.Hi) + ")"
	}
	return f(s.Mean) + " ± " + f((s.Hi-s.Lo)/2)
}

// statFormat writes the figures of one Stat in one unit and precision.
func statFormat(s Stat, key string) func(float64) string {
	half := (s.Hi - s.Lo) / 2
	switch u := UnitOf(key); {
	case key == "fairness.jain":
		return func(x float64) string { return fmt.Sprintf("%.3f", x) }
	case u == UnitSeconds:
		div, unit := durationUnit(s.Mean)
		if s.Mean == 0 {
			div, unit = durationUnit(half)
		}
		return func(x float64) string { return Thousands(x/div, 1) + " " + unit }
	case u == UnitFraction:
		return func(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }
	case u == UnitNumber && math.Abs(s.Mean) >= 100:
		return func(x float64) string { return Thousands(x, 0) } // one precision for all
	case u == UnitNumber && (s.Mean != math.Trunc(s.Mean) || half != math.Trunc(half)):
		return func(x float64) string { return fmt.Sprintf("%.1f", x) }
	}
	return func(x float64) string { return FormatValue(key, x) }
}

// cut says an interval is not symmetric about its mean: a bound cut it.
func cut(s Stat) bool {
	return math.Abs((s.Hi-s.Mean)-(s.Mean-s.Lo)) > 1e-9*math.Max(1, s.Hi-s.Lo)
}

// FormatDiff prints a difference to the first variant; differences of
// fractions are in percentage points.
func FormatDiff(s Stat, key string) string {
	sign := "+"
	if s.Mean < 0 {
		sign = "−"
	}
	if UnitOf(key) == UnitFraction {
		pp := func(x float64) string { return fmt.Sprintf("%.1f pp", 100*x) }
		switch {
		case math.IsNaN(s.Lo):
			return sign + pp(math.Abs(s.Mean))
		case cut(s):
			return sign + pp(math.Abs(s.Mean)) + " (" + pp(s.Lo) + " .. " + pp(s.Hi) + ")"
		}
		return sign + pp(math.Abs(s.Mean)) + " ± " + pp((s.Hi-s.Lo)/2)
	}
	abs := Stat{Mean: math.Abs(s.Mean), Lo: s.Lo, Hi: s.Hi}
	if math.IsNaN(s.Lo) {
		return sign + FormatStat(abs, key)
	}
	f := statFormat(abs, key)
	if cut(s) {
		return sign + f(abs.Mean) + " (" + f(s.Lo) + " .. " + f(s.Hi) + ")"
	}
	return sign + f(abs.Mean) + " ± " + f((s.Hi-s.Lo)/2)
}

// Table is the side-by-side KPI table, as rows of cells.
func (c *Comparison) Table() (head []string, rows [][]string) {
	head = []string{"KPI"}
	for i, v := range c.Variants {
		head = append(head, v.Name)
		if i > 0 {
			head = append(head, "vs "+c.Variants[0].Name)
		}
	}
	for _, k := range c.KPIs {
		r := []string{k.Label}
		for i := range c.Variants {
			r = append(r, FormatStat(k.Values[i], k.Key))
			if i > 0 {
				r = append(r, FormatDiff(k.Diffs[i], k.Key))
			}
		}
		rows = append(rows, r)
	}
	return head, rows
}

// ObjectivesTable has a row per objective and a column per variant: the
// value in the objective's unit and whether it was met on every seed.
func (c *Comparison) ObjectivesTable() (head []string, rows [][]string) {
	head = []string{"objective"}
	var order []string
	cells := map[string][]string{}
	for i, v := range c.Variants {
		head = append(head, v.Name)
		for _, o := range v.Objectives {
			key := o.Path + " " + o.Op + " " + fmt.Sprint(o.Target)
			if _, ok := cells[key]; !ok {
				order = append(order, key)
				sym := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[o.Op]
				cells[key] = make([]string, 1+len(c.Variants))
				cells[key][0] = metricName(o.Path) + " " + sym + " " + FormatTarget(o.Path, o.Target)
			}
			cells[key][1+i] = FormatValue(o.Path, o.Value.Mean) + ": " + o.Verdict(len(v.Summaries))
		}
	}
	for _, k := range order {
		r := cells[k]
		for i := range r[1:] {
			if r[1+i] == "" {
				r[1+i] = "-"
			}
		}
		rows = append(rows, r)
	}
	return head, rows
}

// LoadComparison reads comparison.json.
func LoadComparison(dir string) (*Comparison, error) {
	b, err := os.ReadFile(filepath.Join(dir, ComparisonFile))
	if err != nil {
		return nil, err
	}
	var c Comparison
	if err := json.Unmarshal(b, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, ComparisonFile), err)
	}
	return &c, nil
}

// WriteComparison writes comparison.json and renders the report.
func WriteComparison(dir string, c *Comparison) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(c, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ComparisonFile), b, 0o644); err != nil {
		return err
	}
	return RenderComparison(dir, c)
}

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
