package main

import (
	"fmt"
	"io"

	"github.com/allot-sim/allot/cmd/internal/compare"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

func newCompareCmd() *cobra.Command {
	var (
		policies []string
		seeds    int
		outDir   string
		asJSON   bool
		workers  int
		shard    int
		shards   int
		engine   string
	)
	cmd := &cobra.Command{
		Use:   "compare SCENARIO... [--policy KIND|FILE]...",
		Short: "Compare policies or scenarios side by side over several seeds",
		Long: `Run every variant — each scenario under each --policy (or under its own
policy) — over the same seeds, in parallel on all cores, and print the
headline figures with 95% confidence intervals and each variant's difference
to the first (paired by seed). --out writes comparison.json and a report
with overlaid charts.

To spread a comparison over several machines, run the same command on each
with --shards N --shard I (I from 1 to N) and --out: shard I runs every N-th
run and writes shard-I-of-N.json there. 'allot sweep merge' then prints and
writes exactly what one machine would have.`,
		Example: `  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --out cmp/
  allot compare scenarios/hyperpod-teams.yaml scenarios/hyperpod-teams-h2.yaml --seeds 3 --json

  # the same comparison on two machines, then merged
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --shards 2 --shard 1 --out part1/
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --shards 2 --shard 2 --out part2/
  allot sweep merge part1/ part2/ --out cmp/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 {
				return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--seeds: must be at least 1, got %d", seeds)}
			}
			k, n := shard, shards
			if n < 1 || k < 1 || k > n {
				return badInput(fmt.Errorf("--shards %d --shard %d: want 1 <= shard <= shards", n, k))
			}
			if n > 1 && outDir == "" {
				return badInput(fmt.Errorf("--shards needs --out: the directory the shard's file goes to"))
			}
			plan, scens, err := compare.Plan(args, policies, seeds)
			if err != nil {
				return badInput(err)
			}
			simrun.Warn(cmd.ErrOrStderr(), scens...)
			for i := range scens {
				if scens[i], err = asEngine(cmd, scens[i], engine); err != nil {
					return err
				}
				if engine != "" {
					plan.Variants[i].Name += " (" + engine + ")"
				}
			}
			owned := compare.Owned(plan, k, n)
			bar := show.NewProgress(cmd.ErrOrStderr(), asJSON, "comparing")
			contribs, err := compare.Run(plan, scens, owned, workers, bar.Update)
			bar.Done()
			if err != nil {
				return badInput(err)
			}
			if n > 1 {
				path, err := compare.WriteShard(outDir, plan, k, n, owned, contribs)
				if err != nil {
					return err
				}
				if asJSON {
					return show.JSON(cmd.OutOrStdout(), map[string]any{"shard": k, "shards": n, "runs": len(owned), "of_runs": plan.Runs(), "file": path})
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "shard %d of %d: %d of %d runs; wrote %s (merge the shards with 'allot sweep merge')\n", k, n, len(owned), plan.Runs(), path)
				return nil
			}
			c, err := reports.Assemble(plan, contribs) // with one shard, every run in plan order
			if err != nil {
				return err
			}
			return showComparison(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, outDir, asJSON)
		},
	}
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "policy kind or policy file; repeat to compare several")
	cmd.Flags().IntVar(&seeds, "seeds", 5, "seeds per variant (the scenario's seed and the ones after it)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for comparison.json and the report (with --shard: for the shard file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel runs (default: all cores)")
	addEngineFlag(cmd, &engine)
	cmd.Flags().IntVar(&shards, "shards", 1, "split the runs into this many shards (run each with --shard, then 'allot sweep merge')")
	cmd.Flags().IntVar(&shard, "shard", 1, "with --shards: the shard to run, from 1 to --shards; its file goes to --out")
	return cmd
}

// showComparison prints a comparison (table or JSON) and writes its
// files, saying on errW which (as sim --out does).
func showComparison(w, errW io.Writer, c *reports.Comparison, outDir string, asJSON bool) error {
	if outDir != "" {
		if err := reports.WriteComparison(outDir, c); err != nil {
			return err
		}
		if !asJSON {
			fmt.Fprintf(errW, "wrote %s{%s,%s,%s,%s/}\n", dirPrefix(outDir), reports.ComparisonFile, reports.ReportMDFile, reports.ReportHTMLFile, reports.ChartDir)
		}
	}
	if asJSON {
		return show.JSON(w, c)
	}
	show.Comparison(w, c)
	return nil
}
