package show

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/workload"
)

// TraceStats prints a trace's statistics as allot trace stats does: the
// jobs, the work, the arrivals, durations, teams and classes, then tables
// of job sizes and of arrivals over time with their bars.
func TraceStats(w io.Writer, name string, s *workload.TraceStats) {
	span := s.LastSubmitS - s.FirstSubmitS
	fmt.Fprintf(w, "trace          %s\n", name)
	fmt.Fprintf(w, "jobs           %s (%s CPU-only, %s sharing a GPU)\n", reports.Thousands(float64(s.Jobs), 0),
		reports.Thousands(float64(s.CPUOnlyJobs), 0), reports.Thousands(float64(s.FractionalJobs), 0))
	fmt.Fprintf(w, "work           %s accelerator-hours\n", reports.Thousands(s.AcceleratorHours, 0))
	fmt.Fprintf(w, "arrivals       %s to %s (%s), %.1f jobs/hour on average\n", Days(s.FirstSubmitS), Days(s.LastSubmitS),
		Days(span), float64(s.Jobs)/maxf(span/3600, 1e-9))
	if span > 0 {
		fmt.Fprintf(w, "mean demand    %.1f accelerators busy if every job ran at once on arrival\n", s.AcceleratorHours*3600/span)
	}
	d := s.Duration
	fmt.Fprintf(w, "duration       mean %s, p10 %s, p50 %s, p90 %s, p99 %s, max %s\n", reports.FmtDuration(d.Mean),
		reports.FmtDuration(d.P10), reports.FmtDuration(d.P50), reports.FmtDuration(d.P90),
		reports.FmtDuration(d.P99), reports.FmtDuration(d.Max))
	if o := s.Orig; o != nil {
		if o.Jobs > 0 {
			fmt.Fprintf(w, "original wait  %d jobs: mean %s, p50 %s, p90 %s, p99 %s\n", o.Jobs, reports.FmtDuration(o.Wait.Mean),
				reports.FmtDuration(o.Wait.P50), reports.FmtDuration(o.Wait.P90), reports.FmtDuration(o.Wait.P99))
		}
		fmt.Fprintf(w, "original end   %s\n", countsLine(o.Statuses))
	}
	fmt.Fprintf(w, "teams          %d: %s\n", len(s.Teams), topCounts(s.Teams, 8))
	if len(s.PriorityClasses) > 0 {
		fmt.Fprintf(w, "classes        %s\n", countsLine(s.PriorityClasses))
	}
	th := func(x float64) string { return reports.Thousands(x, 0) }
	fmt.Fprintln(w, "\njob sizes:")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "  accelerators\tjobs\tshare\t\n")
	for _, sz := range sizeRows(s.Sizes) {
		share := float64(sz.jobs) / float64(s.Jobs)
		fmt.Fprintf(tw, "  %s\t%s\t%.1f%%\t %s\n", sz.label, th(float64(sz.jobs)), 100*share, bar(share, 30))
	}
	tw.Flush()
	fmt.Fprintf(w, "\narrivals per %s:\n", reports.FmtDuration(s.PeriodS))
	peak := 1
	for _, n := range s.Arrivals {
		peak = max(peak, n)
	}
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "  from\tjobs\taccelerator-hours\t\n")
	for k, n := range s.Arrivals {
		fmt.Fprintf(tw, "  %s\t%s\t%s\t %s\n", Days(s.FirstSubmitS+float64(k)*s.PeriodS), th(float64(n)), th(s.Demand[k]), bar(float64(n)/float64(peak), 40))
	}
	tw.Flush()
}

func bar(frac float64, width int) string {
	n := int(frac*float64(width) + 0.5)
	if frac > 0 && n == 0 {
		return "."
	}
	return strings.Repeat("#", n)
}

func countsLine(m map[string]int) string { return topCounts(m, len(m)) }

// topCounts lists the largest counts first, then "and N more".
func topCounts(m map[string]int, n int) string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(a, b int) bool {
		if m[keys[a]] != m[keys[b]] {
			return m[keys[a]] > m[keys[b]]
		}
		return keys[a] < keys[b]
	})
	var parts []string
	for i, k := range keys {
		if i == n {
			parts = append(parts, fmt.Sprintf("and %d more", len(keys)-n))
			break
		}
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

type sizeRow struct {
	label string
	jobs  int
}

// sizeRows lists whole sizes one by one and GPU-sharing fractions in
// quarter-GPU bins, which keeps traces with many fractions readable.
func sizeRows(sizes []workload.SizeCount) []sizeRow {
	var out []sizeRow
	bins := []struct {
		hi    float64
		label string
	}{{0.25, "(0, 0.25]"}, {0.5, "(0.25, 0.5]"}, {0.75, "(0.5, 0.75]"}, {1, "(0.75, 1)"}}
	frac := make([]int, len(bins))
	for _, sz := range sizes {
		if sz.Accelerators > 0 && sz.Accelerators < 1 {
			for i, b := range bins {
				if sz.Accelerators <= b.hi {
					frac[i] += sz.Jobs
					break
				}
			}
			continue
		}
		if sz.Accelerators >= 1 {
			for i, b := range bins {
				if frac[i] > 0 {
					out = append(out, sizeRow{b.label, frac[i]})
					frac[i] = 0
				}
			}
		}
		out = append(out, sizeRow{fmt.Sprintf("%g", sz.Accelerators), sz.Jobs})
	}
	for i, b := range bins {
		if frac[i] > 0 {
			out = append(out, sizeRow{b.label, frac[i]})
		}
	}
	return out
}

// maxf is the larger of a and b; b when either is NaN.
func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
