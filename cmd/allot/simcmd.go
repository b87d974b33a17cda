package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
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
	check     bool
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
quota) or a policy file; --out writes the run's files. --replay-check
compares the replay of an imported history with its record (docs/import.md).`,
		Example: `  allot sim scenarios/amazon-search.yaml
  allot sim scenarios/amazon-search.yaml --policy fifo --json
  allot sim scenarios/hyperpod-teams.yaml --seed 3 --out out/
  allot sim scenarios/amazon-search.yaml --engine hyperpod
  allot sim docs/examples/replay-check.yaml --replay-check`,
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
	cmd.Flags().BoolVar(&f.check, "replay-check", false, "compare the replay with the trace's recorded starts and ends: utilisation, waits per team and class, admission order")
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
	off, err := policies.ParseShortcuts(f.off)
	if err != nil {
		return badInput(fmt.Errorf("--off: %w", err))
	}
	bar := show.NewProgress(cmd.ErrOrStderr(), f.asJSON, "simulating")
	r, err := simrun.Simulate(s, in, simrun.Options{Reference: f.reference, Off: off, OutDir: f.outDir, CPUProfile: f.cpuProf, MemProfile: f.memProf, ReplayCheck: f.check,
		Progress: func(now float64) { bar.Update(now/s.Horizon, show.Days(now)+" of "+show.Days(s.Horizon)) }})
	bar.Done()
	if err != nil {
		return libraryErr(err)
	}
	if f.outDir != "" && !f.asJSON {
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s,%s}\n", dirPrefix(f.outDir), reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile)
	}
	if f.stats { // after the outputs, so peak memory includes them
		show.Bench(cmd.ErrOrStderr(), s.Name, r.Summary)
		show.Shortcuts(cmd.ErrOrStderr(), &r.Counts, r.Off)
	}
	if f.asJSON {
		if err := show.JSON(cmd.OutOrStdout(), r.Summary); err != nil {
			return err
		}
	} else {
		show.Summary(cmd.OutOrStdout(), r.Summary)
	}
	if !r.AllMet {
		return &problemError{simrun.Unmet(r.Summary.Objectives)} // after everything was printed
	}
	return nil
}

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
