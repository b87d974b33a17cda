package show

import (
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
)

// CycleStats writes the median time of the decision over the runs.
func CycleStats(w io.Writer, sf *scenarios.SnapshotFile, took []time.Duration) {
	slices.Sort(took)
	name := sf.ID
	if name == "" {
		name = "snapshot"
	}
	s := sf.Snapshot
	fmt.Fprintf(w, "BENCH name=%s kind=%s teams=%d running=%d pending=%d runs=%d ns_per_decision=%d\n",
		name, s.Kind, len(s.Model.Queues), len(s.Running), len(s.Pending), len(took), took[(len(took)-1)/2].Nanoseconds())
}

// Cycle prints what one scheduling cycle on a snapshot decided, as allot
// cycle does: each job's decision and why, then the order queues were popped.
func Cycle(w io.Writer, sf *scenarios.SnapshotFile, res *policies.CycleResult) {
	if sf.Title != "" {
		fmt.Fprintf(w, "%s\n\n", sf.Title)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tDECISION\tDETAIL")
	for _, a := range res.Admitted {
		var parts []string
		for ps, byRes := range a.Flavors {
			for r, f := range byRes {
				parts = append(parts, fmt.Sprintf("%s/%s on %s", ps, r, f))
			}
		}
		sort.Strings(parts)
		fmt.Fprintf(tw, "%s\tadmitted\t%s\n", a.Name, strings.Join(parts, ", "))
	}
	for _, p := range res.Preempted {
		fmt.Fprintf(tw, "%s\tpreempted\t%s\n", p.Name, p.Reason)
	}
	for _, p := range res.Pending {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.State, p.Reason)
	}
	if len(res.PopOrder) > 0 {
		fmt.Fprintf(tw, "\t\npop order\t%s\t\n", strings.Join(res.PopOrder, ", "))
	}
	tw.Flush()
}
