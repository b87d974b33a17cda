package main

import (
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

func newTraceStatsCmd() *cobra.Command {
	var (
		asJSON  bool
		periods int
	)
	cmd := &cobra.Command{
		Use:   "stats FILE",
		Short: "Describe a canonical trace: jobs, accelerator-hours, arrivals over time, sizes, durations",
		Long: `Read a canonical trace (.parquet or .csv) and print how many jobs and
accelerator-hours it holds, its arrival rate and submitted demand over time,
the job-size and duration distributions, the teams and priority classes, and,
where it has original times, the original waits and final statuses.`,
		Example: `  allot trace gen scenarios/amazon-search.yaml -o jobs.parquet
  allot trace stats jobs.parquet
  allot trace stats jobs.parquet --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			src, err := workload.OpenTrace(args[0], workload.TraceOptions{})
			if err != nil {
				return badInput(err)
			}
			defer src.Close()
			st, err := workload.Describe(src, periods)
			if err != nil {
				return badInput(err)
			}
			if asJSON {
				return show.JSON(cmd.OutOrStdout(), st)
			}
			show.TraceStats(cmd.OutOrStdout(), args[0], st)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the statistics as one JSON object")
	cmd.Flags().IntVar(&periods, "periods", 30, "about how many periods the arrival histogram has")
	return cmd
}
