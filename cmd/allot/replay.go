package main

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"

	"github.com/allot-sim/allot/cmd/internal/replay"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/live/local"
	"github.com/spf13/cobra"
)

// newReplayCmd is allot live replay: the flags, then runReplay.
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
			if speedup <= 0 {
				return &usageError{cmd: cmd.CommandPath(), msg: "--speedup K is required and must be positive"}
			}
			return runReplay(cmd, args[0], policy, dataDir, replay.Options{Speedup: speedup, Poll: poll})
		},
	}
	cmd.Flags().StringVar(&policy, "policy", "", "policy kind or policy file to use instead of the scenario's")
	cmd.Flags().Float64Var(&speedup, "speedup", 0, "run K times faster than the workload's times (required)")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "the daemon's state directory (default: a temporary one, removed after)")
	cmd.Flags().DurationVar(&poll, "poll", time.Millisecond, "how often the daemon looks for ended runs")
	return cmd
}

// runReplay replays a scenario at o.Speedup in dataDir (a temporary
// directory when empty) and prints how live and sim compare: exit 1 when
// they disagree.
func runReplay(cmd *cobra.Command, path, policy, dataDir string, o replay.Options) error {
	s, err := loadScenario(path, policy)
	if err != nil {
		return err
	}
	simrun.Warn(cmd.ErrOrStderr(), s)
	jobs, err := replay.Jobs(s)
	if err != nil {
		return badInput(err)
	}
	sd, err := replay.Simulate(s, jobs)
	if err != nil {
		return badInput(err)
	}
	o.Dir = dataDir
	if o.Dir == "" {
		if o.Dir, err = os.MkdirTemp("", "allot-replay"); err != nil {
			return err
		}
		defer os.RemoveAll(o.Dir)
	}
	// Interrupted, it ends the runs it started and leaves no
	// temporary directory behind.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		if _, ok := <-sigs; ok {
			local.KillRuns(o.Dir)
			if dataDir == "" {
				os.RemoveAll(o.Dir)
			}
			os.Exit(130)
		}
	}()
	if pm := s.Policy.Preemption; pm.Restore != 0 || pm.CheckpointSave != 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "note: simulating with policy.preemption restore and checkpoint_save 0s (not %gs and %gs): the replay's jobs save and resume at once\n", pm.Restore, pm.CheckpointSave)
	}
	start := time.Now()
	ld, err := replay.Live(cmd.ErrOrStderr(), s, jobs, sd, o)
	var busy *replay.BusyDirError
	if errors.As(err, &busy) {
		return badInput(err)
	}
	if err != nil {
		return err
	}
	r := replay.Compare(sd, ld, o.Speedup)
	replay.Print(cmd.OutOrStdout(), s, jobs, o.Speedup, sd, ld, r, time.Since(start))
	if !r.Agree() {
		return &problemError{"live and sim disagree (see above)"}
	}
	return nil
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
			total, err := strconv.ParseFloat(args[0], 64)
			if err != nil || total < 0 {
				return badInput(fmt.Errorf("sleepjob: %q is not a number of seconds", args[0]))
			}
			return replay.SleepJob(total)
		},
	}
}
