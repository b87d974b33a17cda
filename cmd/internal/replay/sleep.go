package replay

import (
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/allot-sim/allot/cmd/internal/errtext"
)

// Files a sleep job keeps in its checkpoint directory.
const (
	sleepDoneFile = "done" // seconds of work done, kept across preemptions
	sleepRunsFile = "runs" // one line per run: the seconds it meant to sleep
)

// Sleep is the work of a replayed job (allot live sleepjob): it sleeps
// until total seconds of work from start are done, counting what earlier
// runs saved in dir, and on SIGTERM saves what it did at once, as a job
// whose checkpoint takes no time would, so a restart resumes from there.
// Each run notes in dir how long it meant to sleep, for the replay to
// measure the daemon's lag.
func Sleep(dir string, total float64, start time.Time) error {
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

// SleepJob is Sleep as the daemon runs the job (allot live sleepjob
// SECONDS): in its checkpoint directory (ALLOT_CHECKPOINT_DIR), with work
// counted from its admission (ALLOT_ADMITTED_AT, else now), as in the
// simulator: the process's own start-up is not the daemon's latency.
func SleepJob(seconds string) error {
	total, err := strconv.ParseFloat(seconds, 64)
	if err != nil || total < 0 {
		return errtext.Input(fmt.Errorf("sleepjob: %q is not a number of seconds", seconds))
	}
	start := time.Now()
	if at, err := strconv.ParseFloat(os.Getenv("ALLOT_ADMITTED_AT"), 64); err == nil {
		start = time.Unix(0, int64(at*1e9))
	}
	return Sleep(os.Getenv("ALLOT_CHECKPOINT_DIR"), total, start)
}

// plannedRuns reads back how long each run of a job meant to sleep.
func plannedRuns(checkpointDir string) []float64 {
	var planned []float64
	if data, err := os.ReadFile(filepath.Join(checkpointDir, sleepRunsFile)); err == nil {
		for _, f := range strings.Fields(string(data)) {
			x, _ := strconv.ParseFloat(f, 64)
			planned = append(planned, x)
		}
	}
	return planned
}
