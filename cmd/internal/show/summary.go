package show

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/reports"
)

// Summary prints a run's summary as allot sim does: the headline figures,
// then a table per team and per priority class, the objectives, the
// replay's fidelity and check, and a warning of unstarted work.
func Summary(w io.Writer, s *reports.Summary) {
	n := func(x int) string { return reports.Thousands(float64(x), 0) }
	d := reports.HumanDuration
	pc := func(x float64) string { return reports.FormatValue("utilization.mean", x) }
	fmt.Fprintf(w, "%s: policy %s, seed %d, days %s to %s, %s accelerators\n\n", s.Scenario, s.Policy, s.Seed,
		TrimFloat(s.WindowS[0]/86400), TrimFloat(s.WindowS[1]/86400), n(s.Capacity.Accelerators))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	j := s.Jobs
	fmt.Fprintf(tw, "jobs\t%s submitted: %s started, %s completed, %s failed; %s running and %s pending at the end\n",
		n(j.Submitted), n(j.Started), n(j.Completed), n(j.Failed), n(j.RunningAtEnd), n(j.PendingAtEnd))
	fmt.Fprintf(tw, "utilisation\tmean %s, peak (p95 of %s buckets) %s, max %s\n", pc(s.Utilization.Mean), d(s.BucketS), pc(s.Utilization.P95Bucket), pc(s.Utilization.MaxBucket))
	fmt.Fprintf(tw, "goodput\t%s of installed accelerator-time\n", pc(s.Goodput))
	wa := s.WaitAllS
	fmt.Fprintf(tw, "wait, all jobs\tmean %s, p50 %s, p95 %s, p99 %s, max %s; %s never started (%s)\n",
		d(wa.Mean), d(wa.P50), d(wa.P95), d(wa.P99), d(wa.Max), n(wa.Unstarted), pc(j.UnstartedShare))
	fmt.Fprintf(tw, "wait, started jobs\tmean %s, p50 %s, p95 %s, p99 %s, max %s\n", d(s.WaitS.Mean), d(s.WaitS.P50), d(s.WaitS.P95), d(s.WaitS.P99), d(s.WaitS.Max))
	fmt.Fprintf(tw, "preemptions\t%s (per job p95 %.0f, max %.0f); node failures %s\n", n(s.Preemptions), s.PreemptionsPerJob.P95, s.PreemptionsPerJob.Max, n(s.NodeFailures))
	fmt.Fprintf(tw, "fairness\tJain %.3f\n", s.Fairness.Jain)
	switch {
	case s.Cost.USD == 0 && len(s.Cost.UnpricedTypes) > 0:
		fmt.Fprintf(tw, "cost\tunpriced (no price for %s)\n", strings.Join(s.Cost.UnpricedTypes, ", "))
	case len(s.Cost.UnpricedTypes) > 0:
		fmt.Fprintf(tw, "cost\t$%s, $%.2f per useful accelerator-hour (leaving out unpriced %s)\n", reports.Thousands(s.Cost.USD, 0), s.Cost.USDPerUsefulAcceleratorHour, strings.Join(s.Cost.UnpricedTypes, ", "))
	default:
		fmt.Fprintf(tw, "cost\t$%s, $%.2f per useful accelerator-hour\n", reports.Thousands(s.Cost.USD, 0), s.Cost.USDPerUsefulAcceleratorHour)
	}
	tw.Flush()
	fmt.Fprintln(w)

	head := []string{"team", "usage", "entitled", "usage ÷ entitled", "borrowed (accelerators, mean)", "lent (accelerators, mean)", "mean wait", "p95 wait", "never started", "preempted"}
	var rows [][]string
	for _, name := range slices.Sorted(maps.Keys(s.ByTeam)) {
		t := s.ByTeam[name]
		ratio := "-"
		if t.UsageVsEntitled != nil {
			ratio = fmt.Sprintf("%.2f", *t.UsageVsEntitled)
		}
		rows = append(rows, []string{name, pc(t.UsageShare), pc(t.EntitledShare), ratio, fmt.Sprintf("%.1f", t.BorrowedMean), fmt.Sprintf("%.1f", t.LentMean),
			d(t.WaitAllS.Mean), d(t.WaitAllS.P95), n(t.WaitAllS.Unstarted), n(t.Preemptions)})
	}
	Table(w, head, rows)
	fmt.Fprintln(w)
	head = []string{"priority class", "jobs", "started", "mean wait", "p95 wait", "max wait", "never started"}
	rows = rows[:0]
	for _, name := range slices.Sorted(maps.Keys(s.ByPriorityClass)) {
		c := s.ByPriorityClass[name]
		rows = append(rows, []string{name, n(c.JobsSubmitted), n(c.JobsStarted), d(c.WaitAllS.Mean), d(c.WaitAllS.P95), d(c.WaitAllS.Max), n(c.WaitAllS.Unstarted)})
	}
	Table(w, head, rows)
	fmt.Fprintln(w, "(waits over all jobs: a job never started counts its wait up to the end of the window)")
	if len(s.Objectives) > 0 {
		fmt.Fprintln(w, "\nobjectives")
		for _, o := range s.Objectives {
			fmt.Fprintln(w, "  "+reports.FormatObjective(o))
		}
	}
	if f := s.Fidelity; f != nil {
		fmt.Fprintln(w, "\nreplay fidelity")
		for _, l := range reports.FidelityText(f) {
			fmt.Fprintln(w, "  "+l)
		}
	}
	if s.ReplayCheck != nil {
		ReplayCheck(w, s.ReplayCheck)
	}
	if warn := reports.UnstartedWarning(s); warn != "" {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
}
