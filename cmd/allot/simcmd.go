package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"text/tabwriter"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

func newSimCmd() *cobra.Command {
	var (
		policy  string
		seed    uint64
		asJSON  bool
		outDir  string
		stats   bool
		cpuProf string
		memProf string
	)
	cmd := &cobra.Command{
		Use:   "sim SCENARIO",
		Short: "Simulate one scenario and print its run summary",
		Long: `Simulate one scenario file over its fleet and workload, and print the run
summary (spec/summary.md): utilisation, waits, fairness, goodput, cost.
--policy swaps the scenario's policy for a kind (fifo, priority, fairshare,
quota) or a policy file; --out writes the run's files.`,
		Example: `  allot sim scenarios/amazon-search.yaml
  allot sim scenarios/amazon-search.yaml --policy fifo --json
  allot sim scenarios/hyperpod-teams.yaml --seed 3 --out out/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := loadScenario(args[0], policy)
			if err != nil {
				return err
			}
			if cmd.Flags().Changed("seed") {
				s.Seed = seed
			}
			in, err := simInput(s, s.Seed)
			if err != nil {
				return badInput(err)
			}
			defer in.Source.Close()
			bar := newProgress(cmd.ErrOrStderr(), asJSON, "simulating")
			in.Progress = func(now float64) {
				bar.update(now/s.Horizon, fmtDays(now)+" of "+fmtDays(s.Horizon))
			}
			col := reports.NewCollector()
			var sink workload.Sink = col
			if outDir != "" {
				if err := os.MkdirAll(outDir, 0o755); err != nil {
					return err
				}
				jw, err := reports.NewJobsWriter(filepath.Join(outDir, reports.JobsFile))
				if err != nil {
					return err
				}
				sink = workload.Tee(col, jw)
			}
			stopProf, err := startCPUProfile(cpuProf)
			if err != nil {
				return err
			}
			writeAllocs, err := openAllocProfile(memProf)
			if err != nil {
				stopProf()
				return err
			}
			async := workload.NewAsyncSink(sink) // collection runs on a core of its own
			err = sim.Run(in, async)
			async.Stop()
			stopProf()
			bar.done()
			if err != nil {
				return badInput(err)
			}
			if err := writeAllocs(); err != nil {
				return err
			}
			sum := col.Summary()
			checkObjectives(sum, s.Objectives)
			if outDir != "" {
				if err := reports.WriteRun(outDir, col.Data()); err != nil {
					return err
				}
				if !asJSON {
					fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s/{%s,%s,%s,%s,%s}\n", outDir, reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile)
				}
			}
			if stats { // after the outputs, so peak memory includes them
				printStats(cmd.ErrOrStderr(), s.Name, sum)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), sum)
			}
			printSummary(cmd.OutOrStdout(), sum)
			return nil
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy kind (fifo, priority, fairshare, quota) or policy file to use instead of the scenario's")
	// No default value of its own: cobra would print it beside the one named.
	cmd.Flags().Uint64Var(&seed, "seed", 0, "random seed (default: the scenario's sim.seed)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as one JSON object")
	cmd.Flags().StringVar(&outDir, "out", "", "directory to write the run's files into")
	cmd.Flags().BoolVar(&stats, "stats", false, "print speed and peak memory as one BENCH line on standard error")
	cmd.Flags().StringVar(&cpuProf, "cpuprofile", "", "write a Go CPU profile of the simulation to this file (for go tool pprof)")
	cmd.Flags().StringVar(&memProf, "memprofile", "", "write a Go allocation profile of the simulation to this file (go tool pprof -sample_index=alloc_space)")
	return cmd
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func hours(s float64) string {
	switch {
	case s < 120:
		return fmt.Sprintf("%.0fs", s)
	case s < 7200:
		return fmt.Sprintf("%.1fm", s/60)
	default:
		return fmt.Sprintf("%.1fh", s/3600)
	}
}

func printSummary(w io.Writer, s *reports.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "scenario\t%s (policy %s, seed %d)\n", s.Scenario, s.Policy, s.Seed)
	fmt.Fprintf(tw, "window\t%s to %s\n", fmtDays(s.WindowS[0]), fmtDays(s.WindowS[1]))
	fmt.Fprintf(tw, "capacity\t%d accelerators\n", s.Capacity.Accelerators)
	fmt.Fprintf(tw, "jobs\t%d submitted, %d started, %d completed, %d failed, %d running and %d pending at the end\n",
		s.Jobs.Submitted, s.Jobs.Started, s.Jobs.Completed, s.Jobs.Failed, s.Jobs.RunningAtEnd, s.Jobs.PendingAtEnd)
	fmt.Fprintf(tw, "utilisation\tmean %.1f%%, peak (p95 of %s buckets) %.1f%%, max %.1f%%\n", 100*s.Utilization.Mean, hours(s.BucketS), 100*s.Utilization.P95Bucket, 100*s.Utilization.MaxBucket)
	fmt.Fprintf(tw, "goodput\t%.1f%% of installed accelerator-time\n", 100*s.Goodput)
	fmt.Fprintf(tw, "wait\tmean %s, p50 %s, p95 %s, p99 %s, max %s\n", hours(s.WaitS.Mean), hours(s.WaitS.P50), hours(s.WaitS.P95), hours(s.WaitS.P99), hours(s.WaitS.Max))
	fmt.Fprintf(tw, "preemptions\t%d (per job p95 %.0f, max %.0f); node failures %d\n", s.Preemptions, s.PreemptionsPerJob.P95, s.PreemptionsPerJob.Max, s.NodeFailures)
	fmt.Fprintf(tw, "fairness\tJain %.3f\n", s.Fairness.Jain)
	fmt.Fprintf(tw, "cost\t$%.0f, $%.2f per useful accelerator-hour\n", s.Cost.USD, s.Cost.USDPerUsefulAcceleratorHour)
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "team\tusage\tentitled\tborrowed\tlent\tmean wait\tp95 wait\tpreempted\t")
	names := make([]string, 0, len(s.ByTeam))
	for n := range s.ByTeam {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		t := s.ByTeam[n]
		fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%.1f\t%.1f\t%s\t%s\t%d\t\n", n, 100*t.UsageShare, 100*t.EntitledShare, t.BorrowedMean, t.LentMean, hours(t.WaitS.Mean), hours(t.WaitS.P95), t.Preemptions)
	}
	tw.Flush()
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "priority class\tjobs\tmean wait\tp95 wait\tmax wait\t")
	names = names[:0]
	for n := range s.ByPriorityClass {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		c := s.ByPriorityClass[n]
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t\n", n, c.JobsSubmitted, hours(c.WaitS.Mean), hours(c.WaitS.P95), hours(c.WaitS.Max))
	}
	tw.Flush()
	for _, o := range s.Objectives {
		mark := "met"
		if !o.Met {
			mark = "NOT met"
		}
		fmt.Fprintf(w, "objective %-50s %s (%.4g)\n", o.Objective, mark, o.Value)
	}
}
