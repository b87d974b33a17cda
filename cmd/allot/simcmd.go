package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

// simFlags are allot sim's flags.
type simFlags struct {
	policy    string
	seed      uint64
	asJSON    bool
	outDir    string
	stats     bool
	off       string
	reference bool
	cpuProf   string
	memProf   string
	engine    string
}

// newSimCmd is allot sim: the flags, then runSim.
func newSimCmd() *cobra.Command {
	var f simFlags
	cmd := &cobra.Command{
		Use:   "sim SCENARIO",
		Short: "Simulate one scenario and print its run summary",
		Long: `Simulate one scenario file over its fleet and workload, and print the run
summary (spec/summary.md): utilisation, waits, fairness, goodput, cost.
--policy swaps the scenario's policy for a kind (fifo, priority, fairshare,
quota) or a policy file; --out writes the run's files.`,
		Example: `  allot sim scenarios/amazon-search.yaml
  allot sim scenarios/amazon-search.yaml --policy fifo --json
  allot sim scenarios/hyperpod-teams.yaml --seed 3 --out out/
  allot sim scenarios/amazon-search.yaml --engine hyperpod`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runSim(cmd, args[0], &f)
		},
	}
	cmd.Flags().StringVar(&f.policy, "policy", "", "policy kind (fifo, priority, fairshare, quota) or policy file to use instead of the scenario's")
	// No default value of its own: cobra would print it beside the one named.
	cmd.Flags().Uint64Var(&f.seed, "seed", 0, "random seed (default: the scenario's sim.seed)")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the summary as one JSON object")
	cmd.Flags().StringVar(&f.outDir, "out", "", "directory to write the run's files into")
	cmd.Flags().BoolVar(&f.reference, "reference", false, "turn off the core's shortcuts (docs/performance.md lists those it covers): the same decisions, slower")
	cmd.Flags().BoolVar(&f.stats, "stats", false, "print speed and peak memory as one BENCH line, each core shortcut's hits and misses as SHORTCUT lines, and the core's work as a WORK line, on standard error")
	cmd.Flags().StringVar(&f.off, "off", "", "turn off the core's shortcuts named (comma-separated; docs/performance.md lists them): the same decisions")
	cmd.Flags().StringVar(&f.cpuProf, "cpuprofile", "", "write a Go CPU profile of the simulation to this file (for go tool pprof)")
	addEngineFlag(cmd, &f.engine)
	cmd.Flags().StringVar(&f.memProf, "memprofile", "", "write a Go allocation profile of the simulation to this file (go tool pprof -sample_index=alloc_space)")
	return cmd
}

// runSim simulates the scenario at path and prints its summary: exit 1
// when an objective is not met.
func runSim(cmd *cobra.Command, path string, f *simFlags) error {
	s, err := loadScenario(path, f.policy)
	if err != nil {
		return err
	}
	simrun.Warn(cmd.ErrOrStderr(), s)
	if s, err = asEngine(cmd, s, f.engine); err != nil {
		return err
	}
	if cmd.Flags().Changed("seed") {
		s.Seed = f.seed
	}
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return badInput(err)
	}
	defer in.Source.Close()
	if in.Off, err = policies.ParseShortcuts(f.off); err != nil {
		return badInput(fmt.Errorf("--off: %w", err))
	}
	if f.reference {
		in.Off = policies.AllShortcuts
	}
	var counts policies.ShortcutCounts
	in.ShortcutCounts = &counts
	bar := newProgress(cmd.ErrOrStderr(), f.asJSON, "simulating")
	in.Progress = func(now float64) {
		bar.update(now/s.Horizon, fmtDays(now)+" of "+fmtDays(s.Horizon))
	}
	col := reports.NewCollector()
	var sink workload.Sink = col
	if f.outDir != "" {
		if err := os.MkdirAll(f.outDir, 0o755); err != nil {
			return err
		}
		jw, err := reports.NewJobsWriter(filepath.Join(f.outDir, reports.JobsFile))
		if err != nil {
			return err
		}
		sink = workload.Tee(col, jw)
	}
	stopProf, err := startCPUProfile(f.cpuProf)
	if err != nil {
		return err
	}
	writeAllocs, err := openAllocProfile(f.memProf)
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
		return badInput(simrun.PlaceJobError(s, err))
	}
	if err := writeAllocs(); err != nil {
		return err
	}
	sum := col.Summary()
	allMet := simrun.CheckObjectives(sum, s.Objectives)
	if f.outDir != "" {
		if err := reports.WriteRun(f.outDir, col.Data()); err != nil {
			return err
		}
		if !f.asJSON {
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s,%s}\n", dirPrefix(f.outDir), reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile)
		}
	}
	if f.stats { // after the outputs, so peak memory includes them
		printStats(cmd.ErrOrStderr(), s.Name, sum)
		printShortcuts(cmd.ErrOrStderr(), &counts, in.Off)
	}
	if f.asJSON {
		if err := printJSON(cmd.OutOrStdout(), sum); err != nil {
			return err
		}
	} else {
		printSummary(cmd.OutOrStdout(), sum)
	}
	if !allMet {
		return unmetObjectives(sum.Objectives)
	}
	return nil
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func printSummary(w io.Writer, s *reports.Summary) {
	n := func(x int) string { return reports.Thousands(float64(x), 0) }
	d := reports.HumanDuration
	pc := func(x float64) string { return reports.FormatValue("utilization.mean", x) }
	fmt.Fprintf(w, "%s: policy %s, seed %d, days %s to %s, %s accelerators\n\n", s.Scenario, s.Policy, s.Seed,
		trimFloat(s.WindowS[0]/86400), trimFloat(s.WindowS[1]/86400), n(s.Capacity.Accelerators))
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
	writeTable(w, head, rows)
	fmt.Fprintln(w)
	head = []string{"priority class", "jobs", "started", "mean wait", "p95 wait", "max wait", "never started"}
	rows = rows[:0]
	for _, name := range slices.Sorted(maps.Keys(s.ByPriorityClass)) {
		c := s.ByPriorityClass[name]
		rows = append(rows, []string{name, n(c.JobsSubmitted), n(c.JobsStarted), d(c.WaitAllS.Mean), d(c.WaitAllS.P95), d(c.WaitAllS.Max), n(c.WaitAllS.Unstarted)})
	}
	writeTable(w, head, rows)
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
	if warn := reports.UnstartedWarning(s); warn != "" {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
}

// trimFloat writes a number without needless decimals.
func trimFloat(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", x), ".0") }

// addEngineFlag adds --engine: simulate a managed engine's own rules.
func addEngineFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "engine", "", "kueue, hyperpod or aws-batch: simulate how that engine would run the exported policy (its own rules where they differ from allot's; docs/export.md)")
}

// asEngine applies --engine, saying on standard error what it changed.
func asEngine(cmd *cobra.Command, s *scenarios.Scenario, engine string) (*scenarios.Scenario, error) {
	if engine == "" {
		return s, nil
	}
	out, notes, err := s.AsEngine(engine)
	if err != nil {
		return nil, badInput(err)
	}
	for _, n := range notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "--engine %s: %s\n", engine, n)
	}
	return out, nil
}
