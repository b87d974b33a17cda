package main

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"
)

// Files a sleep job keeps in its checkpoint directory.
const (
	sleepDoneFile = "done" // seconds of work done, kept across preemptions
	sleepRunsFile = "runs" // one line per run: the seconds it meant to sleep
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
			return sleepJob(os.Getenv("ALLOT_CHECKPOINT_DIR"), total, start)
		},
	}
}

func sleepJob(dir string, total float64, start time.Time) error {
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	done := 0.0
	if data, err := os.ReadFile(filepath.Join(dir, sleepDoneFile)); err == nil {
		done, _ = strconv.ParseFloat(strings.TrimSpace(string(data)), 64)
	}
	left := max(0, total-done)
	if f, err := os.OpenFile(filepath.Join(dir, sleepRunsFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644); err == nil {
		fmt.Fprintf(f, "%g\n", left)
		f.Close()
	}
	select {
	case <-time.After(time.Until(start.Add(time.Duration(left * float64(time.Second))))):
		return nil
	case <-term:
		done += time.Since(start).Seconds()
		return os.WriteFile(filepath.Join(dir, sleepDoneFile), []byte(strconv.FormatFloat(done, 'g', -1, 64)), 0o644)
	}
}
