package replay

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/live/local"
)

// Run is allot live replay: the scenario at path (with a --policy
// override, simrun.Load) simulated, then run live at o.Speedup in o.Dir
// (a temporary directory when empty, removed after), and the two compared
// and printed on w; errW gets the scenario's warnings, the progress and
// the notes. What it refuses is a usage error (errtext.UsageError) or
// the input's (errtext.InputError); the caller reports a disagreement
// (Result.Agree).
//
// Interrupted (SIGINT, SIGTERM), it ends the runs it started, leaves no
// temporary directory behind and exits the process with 130.
func Run(w, errW io.Writer, path, policy string, o Options) (*Result, error) {
	if o.Speedup <= 0 {
		return nil, errtext.Usagef("--speedup K is required and must be positive")
	}
	s, err := simrun.Load(path, policy)
	if err != nil {
		return nil, errtext.Input(err)
	}
	simrun.Warn(errW, s)
	jobs, err := Jobs(s)
	if err != nil {
		return nil, errtext.Input(err)
	}
	sd, err := Simulate(s, jobs)
	if err != nil {
		return nil, errtext.Input(err)
	}
	temp := o.Dir == ""
	if temp {
		if o.Dir, err = os.MkdirTemp("", "allot-replay"); err != nil {
			return nil, err
		}
		defer os.RemoveAll(o.Dir)
	}
	defer onInterrupt(o.Dir, temp)()
	if pm := s.Policy.Preemption; pm.Restore != 0 || pm.CheckpointSave != 0 {
		fmt.Fprintf(errW, "note: simulating with policy.preemption restore and checkpoint_save 0s (not %gs and %gs): the replay's jobs save and resume at once\n", pm.Restore, pm.CheckpointSave)
	}
	start := time.Now()
	ld, err := Live(errW, s, jobs, sd, o)
	var busy *BusyDirError
	if errors.As(err, &busy) {
		return nil, errtext.Input(err)
	}
	if err != nil {
		return nil, err
	}
	r := Compare(sd, ld, o.Speedup)
	Print(w, s, jobs, o.Speedup, sd, ld, r, time.Since(start))
	return r, nil
}

// onInterrupt has SIGINT and SIGTERM end the runs started in dir, remove
// dir when it is temporary, and exit with 130; the function it returns
// stops that.
func onInterrupt(dir string, temp bool) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go func() {
		if _, ok := <-sigs; ok {
			local.KillRuns(dir)
			if temp {
				os.RemoveAll(dir)
			}
			os.Exit(130)
		}
	}()
	return func() { signal.Stop(sigs) }
}
