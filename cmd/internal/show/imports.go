package show

import (
	"fmt"
	"io"
	"sort"

	"github.com/allot-sim/allot/workload/importers"
)

// Import says what allot trace import did, on w (standard error): rows
// read, jobs written to out, rows left out by reason, the mapping's
// notes, and the scenario written beside the trace ("" for none).
func Import(e io.Writer, r *importers.Result, out, scenario string) {
	left := 0
	for _, n := range r.LeftOut {
		left += n
	}
	fmt.Fprintf(e, "%s: %d rows read, %d jobs written to %s, %d left out\n", r.Format, r.Rows, len(r.Jobs), out, left)
	var reasons []string
	for k := range r.LeftOut {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		fmt.Fprintf(e, "  left out: %6d  %s\n", r.LeftOut[k], k)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(e, "  - %s\n", n)
	}
	if scenario != "" {
		nodes := 0
		for _, n := range r.Nodes {
			nodes += n.Count
		}
		what := "from the trace"
		if r.FleetAssumed {
			what = "sized by the importer"
		}
		fmt.Fprintf(e, "wrote %s: %d node types, %d nodes (%s), %d teams; run it with: allot sim %s\n",
			scenario, len(r.Types), nodes, what, len(r.Teams), scenario)
	}
}
