package main

import (
	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

func newSweepCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sweep",
		Short: "Work with runs spread over several machines",
		Long: `A comparison can be split into shards (--shards N --shard I), each run on
its own machine; 'allot sweep merge' puts the shards back together.`,
		Example: `  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 4 --shards 2 --shard 1 --out part1/
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 4 --shards 2 --shard 2 --out part2/
  allot sweep merge part1/ part2/ --out cmp/`,
	}
	cmd.AddCommand(newSweepMergeCmd())
	return cmd
}

func newSweepMergeCmd() *cobra.Command {
	var (
		outDir string
		asJSON bool
		state  string
	)
	cmd := &cobra.Command{
		Use:   "merge SHARD...",
		Short: "Merge the shards of a comparison, or of a plan or tune round, as one machine would",
		Long: `Read shard files (or directories holding them, as --out left them), check
that every shard of one plan is there exactly once, and print the comparison
— the same table or JSON, to the last digit, that one machine running the
whole comparison prints (wall times aside). --out writes comparison.json
and the report, as 'allot compare --out' does.

The shards of a plan or tune round (round-shard-K-of-N.json) are merged
into the state of the rounds before (--state DIR), and the search is
replayed: it prints the next round to run, or the answer, the same to the
last digit as one machine's.`,
		Example: `  # each shard on its own machine (here one after the other), then, with the
  # three directories copied to one place:
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 6 --shards 3 --shard 1 --out part1/
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 6 --shards 3 --shard 2 --out part2/
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 6 --shards 3 --shard 3 --out part3/
  allot sweep merge part1/ part2/ part3/ --out cmp/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if search.RoundShards(args) {
				return mergeRounds(cmd, args, state, outDir, asJSON)
			}
			shards, err := reports.ReadShards(args)
			if err != nil {
				return badInput(err)
			}
			c, err := reports.MergeShards(shards)
			if err != nil {
				return badInput(err)
			}
			return showComparison(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, outDir, asJSON)
		},
	}
	cmd.Flags().StringVar(&outDir, "out", "", "directory for comparison.json and the report")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().StringVar(&state, "state", "", "for the shards of a plan or tune round: the directory of the rounds merged so far (state.json), which this round joins")
	return cmd
}
