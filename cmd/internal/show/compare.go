package show

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/allot-sim/allot/reports"
)

// Comparison prints a comparison as allot compare does: what is compared,
// the table of figures, how to read it, the objectives and the warnings.
func Comparison(w io.Writer, c *reports.Comparison) {
	fmt.Fprintln(w, comparisonTitle(c))
	fmt.Fprintln(w)
	head, rows := c.Table()
	Table(w, head, rows)
	seeds := 0
	if len(c.Variants) > 0 {
		seeds = len(c.Variants[0].Seeds)
	}
	fmt.Fprintf(w, "\n%d seeds per variant; ± is the 95%% confidence interval (lo .. hi where a bound such as 0 s or 100%% cuts it); differences are paired by seed; pp = percentage points.\n", seeds)
	if head, rows := c.ObjectivesTable(); len(rows) > 0 {
		fmt.Fprintln(w)
		Table(w, head, rows)
	}
	for _, warn := range c.Warnings() {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
}

// comparisonTitle says what is compared: "amazon-search: fifo against
// quota, 5 seeds, days 7 to 60".
func comparisonTitle(c *reports.Comparison) string {
	var names, scens []string
	for _, v := range c.Variants {
		names = append(names, v.Name)
		if !slices.Contains(scens, v.Scenario) {
			scens = append(scens, v.Scenario)
		}
	}
	t := strings.Join(names, " against ")
	if len(scens) == 1 {
		t = scens[0] + ": " + t
	}
	if len(c.Variants) > 0 {
		v := c.Variants[0]
		t += fmt.Sprintf(", %d seeds", len(v.Seeds))
		if len(v.Summaries) > 0 {
			w := v.Summaries[0].WindowS
			t += fmt.Sprintf(", days %s to %s", TrimFloat(w[0]/86400), TrimFloat(w[1]/86400))
		}
	}
	return t
}
