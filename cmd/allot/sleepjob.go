package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/allot-sim/allot/cmd/internal/replay"
	"github.com/spf13/cobra"
)

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
			start := time.Now()
			if at, err := strconv.ParseFloat(os.Getenv("ALLOT_ADMITTED_AT"), 64); err == nil {
				// Work counts from admission, as in the simulator: the
				// process's own start-up is not the daemon's latency.
				start = time.Unix(0, int64(at*1e9))
			}
			return replay.Sleep(os.Getenv("ALLOT_CHECKPOINT_DIR"), total, start)
		},
	}
}
