package reports

import (
	"fmt"
	"math"
)

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
