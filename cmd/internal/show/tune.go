package show

import (
	"fmt"
	"io"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/reports"
)

// Tune prints a tuning as allot tune does: the tuned settings, the key
// and every constraint under the shipped and the tuned policy.
func Tune(w io.Writer, r *search.TuneResult) {
	verb := "maximise"
	if r.Direction == "minimize" {
		verb = "minimise"
	}
	fmt.Fprintf(w, "%s: %s %s subject to %d constraints on every one of %d seeds (%v)\n\n", r.Scenario, verb, r.Key, len(r.Constraints), len(r.Seeds), r.Seeds)
	if !r.Found {
		fmt.Fprintf(w, "NO candidate meets every constraint; the closest:\n\n")
	}
	rows := [][]string{}
	for _, s := range r.Settings {
		rows = append(rows, []string{s.Path, s.Value})
	}
	Table(w, []string{"setting", "tuned value"}, rows)
	fmt.Fprintln(w)
	val := func(path string, f search.TuneFigure) string {
		s := reports.FormatValue(path, f.Value)
		if f.CI95 != nil {
			s += " (" + reports.FormatValue(path, f.CI95[0]) + " .. " + reports.FormatValue(path, f.CI95[1]) + ")"
		}
		return s
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	rows = [][]string{{r.Key + " (" + verb + ")", val(r.Key, r.Shipped), val(r.Key, r.Tuned)}}
	for _, c := range r.Constraints {
		path := strings.Fields(c.Objective)[0]
		rows = append(rows, []string{c.Objective, val(path, c.Shipped) + " " + met(c.ShippedMet), val(path, c.Tuned) + " " + met(c.TunedMet)})
	}
	Table(w, []string{"", "shipped policy", "tuned policy"}, rows)
	fmt.Fprintf(w, "\nmeans over seeds (95%% intervals); a constraint is met when it holds on every seed.\n")
	fmt.Fprintf(w, "%d candidates simulated (%d simulations) in %d rounds.\n", r.Candidates, r.Simulations, r.Rounds)
	if r.PolicyFile != "" {
		fmt.Fprintf(w, "wrote %s (use it with --policy %s, or allot live serve --config)\n", r.PolicyFile, r.PolicyFile)
	}
}
