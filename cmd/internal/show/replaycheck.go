package show

import (
	"fmt"
	"io"
	"maps"
	"slices"

	"github.com/allot-sim/allot/reports"
)

// ReplayCheck prints allot sim --replay-check's comparison: the record's
// figures beside the replay's, overall, then a table by team and by
// priority class.
func ReplayCheck(w io.Writer, rc *reports.ReplayCheck) {
	d := reports.HumanDuration
	pc := func(x float64) string { return reports.FormatValue("utilization.mean", x) }
	n := func(x int) string { return reports.Thousands(float64(x), 0) }
	fmt.Fprintf(w, "\nreplay check: the replay against the record, %s to %s\n", d(rc.RecordS[0]), d(rc.RecordS[1]))
	fmt.Fprintf(w, "  jobs compared: %s with a recorded start (%s still running when recorded); %s not started in the record, left out\n",
		n(rc.Jobs), n(rc.RunningInRecord), n(rc.NotStartedInRecord))
	fmt.Fprintf(w, "  utilisation over the record: recorded %s, simulated %s\n", pc(rc.Utilization.Recorded), pc(rc.Utilization.Simulated))
	fmt.Fprintf(w, "  admitted in their team's recorded order: %s of jobs (%s would have to move)\n",
		pc(rc.All.SameOrderShare), n(rc.All.OutOfOrder))
	head := []string{"", "jobs", "same order", "recorded wait: mean", "p50", "p95", "simulated: mean", "p50", "p95", "mean error", "not started"}
	row := func(name string, g reports.ReplayGroup) []string {
		e := "-"
		if g.Wait.MeanRelativeError != nil {
			e = fmt.Sprintf("%+.1f%%", 100**g.Wait.MeanRelativeError)
		}
		r, s := g.Wait.Recorded, g.Wait.Simulated
		return []string{name, n(g.Jobs), pc(g.SameOrderShare), d(r.Mean), d(r.P50), d(r.P95), d(s.Mean), d(s.P50), d(s.P95), e, n(g.NotStartedInReplay)}
	}
	rows := [][]string{row("all", rc.All)}
	for _, name := range slices.Sorted(maps.Keys(rc.ByTeam)) {
		rows = append(rows, row("team "+name, rc.ByTeam[name]))
	}
	for _, name := range slices.Sorted(maps.Keys(rc.ByPriorityClass)) {
		rows = append(rows, row("class "+name, rc.ByPriorityClass[name]))
	}
	fmt.Fprintln(w)
	Table(w, head, rows)
	fmt.Fprintln(w, "(wait = first start − submit; same order: within each team's queue; not started: never in the replay, its wait counted to the end of the run)")
}
