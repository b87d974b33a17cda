package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

// planFlags are plan's flags: the search's options, and where its
// answer goes.
type planFlags struct {
	search.PlanOptions
	asJSON   bool
	outDir   string
	sharding search.RoundOptions
}

func newPlanCmd() *cobra.Command {
	var f planFlags
	cmd := &cobra.Command{
		Use:   "plan SCENARIO --vary TYPE=MIN..MAX... [--objective EXPR]...",
		Short: "Find the cheapest fleet that meets the scenario's objectives",
		Long: `Search node counts of the instance types named by --vary for the cheapest
fleet that meets every objective (the scenario's, and each --objective) on
every seed. Unless told otherwise (--allow-unstarted) it also requires
'jobs.unstarted_share <= 1%', so that no answer is bought by starving work.

The search simulates far fewer fleets than the grid: it assumes more nodes
never make a wait worse and fewer never make utilisation worse, bisects the
last type's count for each combination of the others, and skips every
fleet that cannot beat the best one found. It prints the fleet, its cost,
each objective's mean and margin with their 95% intervals, and the
cost-against-wait frontier of the fleets it simulated; --out writes
plan.json and a report with the frontier chart.

Costs are on-demand prices (allot catalog) unless --price or --discount say
otherwise; --spot-share moves a share of every type's nodes to spot, whose
interruptions are node failures at their own rate. Team quotas follow the
fleet (--quotas scale) unless --quotas keep.

--demand-growth 15%/quarter --quarters 8 (or --demand-scales 1,1.2,1.5)
asks when the scenario's fleet stops meeting the objectives and what to add
each quarter. Exit 1 when no fleet in the ranges meets every objective.`,
		Example: `  allot plan scenarios/amazon-search.yaml --vary p5.48xlarge=24..72 --vary p4d.24xlarge=30..90
  allot plan scenarios/amazon-search.yaml --vary p5.48xlarge=48..96/4 --vary p4d.24xlarge=60..120/5 \
      --objective 'by_priority_class.production.wait_all_s.p95 <= 4h' --seeds 2 --out plan/
  allot plan scenarios/amazon-search.yaml --vary p5.48xlarge=72..120/8 --vary p4d.24xlarge=90..180/10 \
      --demand-growth 15%/quarter --quarters 2 --seeds 1 --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runPlan(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.Objectives, "objective", nil, "an objective, 'SUMMARY.PATH OP VALUE' (spec/scenario.md); repeat for several")
	fl.StringArrayVar(&f.Vary, "vary", nil, "TYPE=MIN..MAX or TYPE=MIN..MAX/STEP: node counts to search for one instance type of the fleet; repeat per type")
	fl.IntVar(&f.Seeds, "seeds", 3, "seeds per fleet (1..N); a fleet meets an objective only when it does on every seed")
	fl.BoolVar(&f.asJSON, "json", false, "print the plan as one JSON object (spec/cli.md)")
	fl.StringVar(&f.outDir, "out", "", "directory for plan.json and the report with its charts")
	fl.IntVar(&f.Workers, "workers", 0, "parallel simulations (default: all cores)")
	fl.IntVar(&f.Width, "width", 4, "fleets the search asks for per round (the answer does not depend on --workers)")
	fl.StringVar(&f.Quotas, "quotas", "scale", "team and cohort quotas when the fleet changes: scale (keep each quota's share of its type) or keep")
	fl.StringArrayVar(&f.Prices, "price", nil, "TYPE=USD: price of one node-hour (a reserved or savings-plan rate); repeat per type")
	fl.StringVar(&f.Discount, "discount", "", "discount off on-demand prices for every type without --price, e.g. 30%")
	fl.StringVar(&f.SpotShare, "spot-share", "", "share of every type's nodes bought as spot, e.g. 25%")
	fl.StringVar(&f.SpotOff, "spot-discount", "", "with --spot-share: spot price below on-demand, e.g. 60%")
	fl.StringVar(&f.SpotMTBF, "spot-interruptions", "", "with --spot-share: mean time between interruptions of one spot node, e.g. 20d")
	fl.StringVar(&f.SpotReplace, "spot-replace", "1h", "with --spot-share: time until an interrupted spot node is replaced")
	fl.StringVar(&f.Growth, "demand-growth", "", "demand growth per quarter, e.g. 15%/quarter: plan each quarter with --quarters")
	fl.IntVar(&f.Quarters, "quarters", 8, "with --demand-growth: quarters to plan")
	fl.StringVar(&f.Scales, "demand-scales", "", "a list of demand scales to plan in turn, e.g. 1,1.2,1.5 (instead of --demand-growth)")
	fl.BoolVar(&f.AnyStarved, "allow-unstarted", false, "do not add 'jobs.unstarted_share <= 1%' to the objectives")
	fl.StringVar(&f.Policy, "policy", "", "policy kind or policy file to plan with instead of the scenario's")
	addRoundFlags(cmd, &f.sharding)
	return cmd
}

func runPlan(cmd *cobra.Command, path string, f *planFlags) error {
	f.Path = path
	pl, err := search.NewPlanner(f.PlanOptions)
	if err != nil {
		return badInput(err)
	}
	simrun.Warn(cmd.ErrOrStderr(), pl.Scenario())
	digest, err := pl.Digest()
	if err != nil {
		return err
	}
	rounds, err := openRounds(cmd, &f.sharding, "plan", path, digest)
	if err != nil {
		return err
	}
	bar := show.NewProgress(cmd.ErrOrStderr(), f.asJSON, "planning")
	p, err := pl.Run(rounds, bar.Update)
	bar.Done()
	if handled, err := rounds.Finish(err, f.outDir, cmd.OutOrStdout(), cmd.ErrOrStderr()); handled || err != nil {
		return libraryErr(err)
	}
	if f.outDir != "" {
		if err := reports.WritePlan(f.outDir, p); err != nil {
			return err
		}
		if !f.asJSON {
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s/}\n", dirPrefix(f.outDir), reports.PlanFile, reports.ReportMDFile, reports.ReportHTMLFile, reports.ChartDir)
		}
	}
	if f.asJSON {
		if err := show.JSON(cmd.OutOrStdout(), p); err != nil {
			return err
		}
	} else {
		show.Plan(cmd.OutOrStdout(), p)
	}
	switch {
	case len(p.Quarters) > 0 && !p.Quarters[len(p.Quarters)-1].Found:
		return &problemError{fmt.Sprintf("no fleet in the ranges meets every objective at demand ×%.2f", p.Quarters[len(p.Quarters)-1].DemandScale)}
	case len(p.Quarters) == 0 && !p.Found:
		return &problemError{"no fleet in the ranges meets every objective"}
	}
	return nil
}
