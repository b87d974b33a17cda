package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
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
