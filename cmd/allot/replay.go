package main

import (
	"time"

	"github.com/allot-sim/allot/cmd/internal/replay"
	"github.com/spf13/cobra"
)

// newReplayCmd is allot live replay: the flags, then replay.Run.
func newReplayCmd() *cobra.Command {
	var policy, dataDir string
	var speedup float64
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "replay SCENARIO --speedup K [--policy FILE]",
		Short: "Run a scenario's workload through a live daemon and compare it with allot sim",
		Long: `Run a scenario's workload (trace or synthetic) through a live daemon on the
scenario's declared fleet: each job is submitted at its submit time ÷ K as
a process that sleeps for its running time ÷ K, saves its progress at once
on SIGTERM and resumes from it when restarted. Then the same jobs are
simulated with the same policy, and the two are compared: the same
admissions and preemptions of the same jobs in the same order (two events
closer together than the daemon's measured scheduling latency may swap:
they are counted as near-ties) and utilisation within 2 percentage points.
The simulation is run with no restore time and no checkpoint save time, as
the sleeping jobs have; scenarios with node failures, timeline changes,
backfill, several speeds or fractional accelerators are refused. Exit 1
when they disagree.`,
		Example:     `  allot live replay scenarios/live/replay-two-teams.yaml --speedup 600`,
		Annotations: map[string]string{needsDaemon: "starts one and runs for minutes"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			o := replay.Options{Speedup: speedup, Poll: poll, Dir: dataDir}
			r, err := replay.Run(cmd.OutOrStdout(), cmd.ErrOrStderr(), args[0], policy, o)
			if err != nil {
				return libraryErr(err)
			}
			if !r.Agree() {
				return &problemError{"live and sim disagree (see above)"}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy kind or policy file to use instead of the scenario's")
	cmd.Flags().Float64Var(&speedup, "speedup", 0, "run K times faster than the workload's times (required)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "the daemon's state directory (default: a temporary one, removed after)")
	cmd.Flags().DurationVar(&poll, "poll", time.Millisecond, "how often the daemon looks for ended runs")
	return cmd
}

// newSleepJobCmd is the job allot live replay submits: it works (sleeps)
// for SECONDS in all, and on SIGTERM saves what it did at once, as a job
// whose checkpoint takes no time would, so a restart resumes from there.
func newSleepJobCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "sleepjob SECONDS",
		Short:  "Sleep for SECONDS of work, kept across preemptions (allot live replay's job)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return libraryErr(replay.SleepJob(args[0]))
		},
	}
}
