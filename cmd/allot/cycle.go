package main

import (
	"fmt"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/cycle"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/spf13/cobra"
)

func newCycleCmd() *cobra.Command {
	var (
		asJSON, check, stats bool
		repeat               int
	)
	cmd := &cobra.Command{
		Use:   "cycle SNAPSHOT",
		Short: "Run one scheduling cycle on a snapshot and explain the plan",
		Long: `Load a snapshot (spec/snapshot.md: instance types as flavors, teams as
queues with quotas, cohorts, running and pending jobs), run the policy core
on it, and print what is admitted (and on which flavor), what is preempted
(and why), and why every other job is still pending. --check compares the
plan with the snapshot's expected section and exits 1 on a difference.`,
		Example: `  allot cycle docs/examples/snapshot.yaml
  allot cycle docs/examples/snapshot.yaml --json
  allot cycle docs/examples/snapshot.yaml --check
  allot cycle docs/examples/snapshot.yaml --stats --repeat 5 >/dev/null`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if repeat < 1 {
				return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--repeat: must be at least 1, got %d", repeat)}
			}
			sf, res, took, err := cycle.Run(args[0], repeat)
			if err != nil {
				return badInput(err)
			}
			if stats {
				show.CycleStats(cmd.ErrOrStderr(), sf, took)
			}
			if asJSON {
				if err := show.JSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				show.Cycle(cmd.OutOrStdout(), sf, res)
			}
			if check {
				if sf.Expected == nil {
					return badInput(fmt.Errorf("%s: --check needs an expected section", args[0]))
				}
				if diffs := sf.Expected.Check(res); len(diffs) > 0 {
					return &problemError{fmt.Sprintf("%s: %d difference(s) from expected:\n  %s", args[0], len(diffs), strings.Join(diffs, "\n  "))}
				}
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "\n%s: matches the expected plan\n", args[0])
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as one JSON object")
	cmd.Flags().BoolVar(&check, "check", false, "compare with the snapshot's expected plan; exit 1 on a difference")
	cmd.Flags().BoolVar(&stats, "stats", false, "print the decision's time (loading excluded) as one BENCH line on standard error")
	cmd.Flags().IntVar(&repeat, "repeat", 1, "run the snapshot this many times; --stats reports the median")
	return cmd
}
