package show

import (
	"fmt"
	"io"
	"slices"

	"github.com/allot-sim/allot/reports"
)

// Plan prints a plan as allot plan does: the fleet each quarter as demand
// grows, or the cheapest fleet with its objectives and the cost frontier
// of the fleets simulated.
func Plan(w io.Writer, p *reports.Plan) {
	if len(p.Quarters) > 0 {
		fmt.Fprintf(w, "%s: the fleet each quarter as demand grows (%s), %d seeds (%v)\n\n", p.Scenario, p.DemandGrowth, len(p.Seeds), p.Seeds)
		head, rows := p.QuartersTable()
		Table(w, head, rows)
		fmt.Fprintf(w, "\n%d fleets simulated (%d simulations) over %d quarters.\n", p.Fleets, p.Simulations, len(p.Quarters))
		for _, warn := range p.Warnings {
			fmt.Fprintf(w, "warning: %s\n", warn)
		}
		return
	}
	if p.Found {
		fmt.Fprintf(w, "%s: cheapest fleet meeting %d objectives on every one of %d seeds (%v)\n\n", p.Scenario, len(p.Objectives), len(p.Seeds), p.Seeds)
	} else {
		fmt.Fprintf(w, "%s: NO fleet in the ranges meets every objective on every seed; the largest fleet tried:\n\n", p.Scenario)
	}
	head, rows := p.FleetTable()
	Table(w, head, rows)
	if p.ShippedCost > 0 && p.Found {
		fmt.Fprintf(w, "\nshipped fleet: %s, $%s per hour; this fleet costs %+.1f%%.\n", reports.FleetString(p.Shipped, p.Types()),
			reports.Thousands(p.ShippedCost, 2), 100*(p.CostPerHour/p.ShippedCost-1))
	}
	fmt.Fprintln(w)
	head, rows = p.ObjectivesTable()
	Table(w, head, rows)
	fmt.Fprintf(w, "\ncost against %s (frontier of the fleets simulated):\n", p.FrontierKey)
	head, rows = p.FrontierTable()
	if len(rows) > frontierRows {
		fmt.Fprintf(w, "(%d of %d fleets on it, evenly spaced, and the answer; --json and --out have every one)\n", frontierRows, len(rows))
		rows = evenly(rows, frontierRows, p.AnswerRow())
	}
	Table(w, head, rows)
	pct := 100 * float64(p.Fleets) / float64(max(p.GridPoints, 1))
	fmt.Fprintf(w, "\n%d fleets simulated (%d simulations, %d rounds) of a %s-fleet grid (%.1f%%).\n", p.Fleets, p.Simulations, p.Rounds,
		reports.Thousands(float64(p.GridPoints), 0), pct)
	for _, warn := range p.Warnings {
		fmt.Fprintf(w, "warning: %s\n", warn)
	}
}

// frontierRows is how much of the frontier the text output shows.
const frontierRows = 12

// evenly keeps n rows spread evenly, the first and the last among them,
// and row keep (-1: none) in place of the kept row nearest to it.
func evenly(rows [][]string, n, keep int) [][]string {
	at := make([]int, n)
	for i := range n {
		at[i] = i * (len(rows) - 1) / (n - 1)
	}
	if keep >= 0 && !slices.Contains(at, keep) {
		near := 0
		for i := range at {
			if abs(at[i]-keep) < abs(at[near]-keep) {
				near = i
			}
		}
		at[near] = keep
	}
	out := make([][]string, 0, n)
	for _, i := range at {
		out = append(out, rows[i])
	}
	return out
}

func abs(x int) int { return max(x, -x) }
