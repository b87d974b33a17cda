package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/traces"
	"github.com/spf13/cobra"
)

func newTraceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "trace",
		Short:   "Write, import, describe and transform canonical traces",
		Example: `  allot trace gen scenarios/amazon-search.yaml -o jobs.parquet`,
	}
	cmd.AddCommand(newTraceGenCmd(), newTraceImportCmd(), newTraceStatsCmd(), newTraceTransformCmd())
	return cmd
}

func newTraceGenCmd() *cobra.Command {
	var (
		out  string
		seed uint64
	)
	cmd := &cobra.Command{
		Use:   "gen SCENARIO -o FILE",
		Short: "Write a scenario's synthetic workload as a canonical trace",
		Long: `Draw the scenario's synthetic workload for its seed (or --seed) and write
it as a canonical trace (spec/trace.md); .parquet or .csv by the name of
FILE. A scenario can replay the file with workload.trace.`,
		Example: `  allot trace gen scenarios/amazon-search.yaml -o jobs.parquet
  allot trace gen scenarios/amazon-search.yaml --seed 7 -o jobs.csv`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("trace gen: -o FILE is required"))
			}
			s, err := loadScenario(args[0], "")
			if err != nil {
				return err
			}
			if s.Synthetic == nil {
				return badInput(fmt.Errorf("%s: workload is a trace, not synthetic; nothing to generate", args[0]))
			}
			if !cmd.Flags().Changed("seed") {
				seed = s.Seed
			}
			bar := show.NewProgress(cmd.ErrOrStderr(), false, "generating")
			n, err := traces.Gen(s, seed, out, bar.Update)
			bar.Done()
			if err != nil {
				return badInput(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d jobs to %s\n", n, out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "trace file to write (.parquet or .csv)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed (default: the scenario's sim.seed)")
	return cmd
}
