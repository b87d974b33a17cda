package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/importfiles"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newImportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "import kueue|slurm|aws-batch|hyperpod ...",
		Short: "Write a scenario from another scheduler's configuration and history",
		Long: `Read the configuration (and, where the source keeps one, the history) of
the scheduler a cluster runs, and write what allot needs to ask what-if
questions of it: a scenario (fleet, teams, cohorts, priority classes,
policy) and a canonical trace of the recorded jobs, or a policy file where
there is no history. warnings.txt beside -o names every object and field
that could not be mapped and what was assumed instead. See docs/import.md.`,
		Example: `  allot export kueue scenarios/amazon-search.yaml -o k/
  allot import kueue k/objects.yaml k/kueue-config.yaml -o mine/policy.yaml`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newImportKueueCmd(), newImportSlurmCmd(), newImportBatchCmd(), newImportHyperPodCmd())
	return cmd
}

// importOut is where an import goes: -o and --trace.
type importOut struct{ scenario, trace string }

func (o *importOut) flags(cmd *cobra.Command) {
	cmd.Flags().StringVarP(&o.scenario, "output", "o", "", "the scenario (or policy file) to write; warnings.txt goes beside it (required)")
	cmd.Flags().StringVar(&o.trace, "trace", "", "the trace of the recorded jobs (.parquet or .csv; default: beside -o, with .parquet)")
	_ = cmd.MarkFlagRequired("output")
}

// write writes imp and says what it wrote; warnings go to stderr too.
func (o *importOut) write(cmd *cobra.Command, imp *export.Imported) error {
	w, err := importfiles.Write(imp, o.scenario, o.trace)
	if err != nil {
		return err
	}
	for _, line := range imp.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", line)
	}
	out := cmd.OutOrStdout()
	fmt.Fprintf(out, "wrote %s (%d teams", w.Scenario, len(imp.File.Teams))
	if f := imp.File.Fleet; f != nil {
		fmt.Fprintf(out, ", %d node groups", len(f.Nodes))
	}
	fmt.Fprintln(out, ")")
	if w.Trace != "" {
		fmt.Fprintf(out, "wrote %s (%d jobs)\n", w.Trace, w.Jobs)
	}
	fmt.Fprintf(out, "wrote %s (%d warnings)\n", w.Warnings, len(imp.Warnings))
	return nil
}
