package reports

import "strings"

// A card shows one headline figure of a comparison: each variant's value
// and its difference to the first.
type card struct {
	Label string
	Rows  []cardRow
}

type cardRow struct {
	Name, Value, Diff string
	Tone              string // "better", "worse" or "same" (the interval holds 0)
}

// cardKPIs are the comparison's headline cards, in order.
var cardKPIs = []struct {
	key, label string
	higher     bool
}{
	{"utilization.mean", "mean utilisation", true},
	{"utilization.p95_bucket", "peak utilisation (p95 bucket)", true},
	{"by_priority_class.production.wait_all_s.p95", "production p95 wait (all jobs)", false},
	{"wait_all_s.p95", "p95 wait (all jobs)", false},
	{"jobs.unstarted_share", "jobs never started", false},
	{"goodput", "goodput", true},
	{"cost.usd_per_useful_accelerator_hour", "cost per useful accelerator-hour", false},
}

// cards builds the headline cards. A figure some run lacks (no production
// class) has no card; an unpriced fleet's cost reads "unpriced".
func (c *Comparison) cards() []card {
	var out []card
	for _, k := range cardKPIs {
		cd := card{Label: k.label}
		if strings.HasPrefix(k.key, "cost.") && !c.anyPriced() {
			for _, v := range c.Variants {
				cd.Rows = append(cd.Rows, cardRow{Name: v.Name, Value: "unpriced"})
			}
			out = append(out, cd)
			continue
		}
		row, err := c.kpiRow(k.key, k.label, k.higher)
		if err != nil {
			continue
		}
		for i, v := range c.Variants {
			r := cardRow{Name: v.Name, Value: FormatStat(row.Values[i], k.key)}
			if i > 0 {
				r.Diff = FormatDiff(row.Diffs[i], k.key)
				r.Tone = tone(row.Diffs[i], k.higher)
			}
			cd.Rows = append(cd.Rows, r)
		}
		out = append(out, cd)
	}
	return out
}

// tone says whether a difference is better, worse, or not told apart from
// none by its 95% interval.
func tone(d Stat, higher bool) string {
	switch {
	case d.Mean == 0 || (d.Lo <= 0 && d.Hi >= 0):
		return "same"
	case (d.Mean > 0) == higher:
		return "better"
	}
	return "worse"
}
