package simrun

import (
	"os"
	"path/filepath"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

// Options are what allot sim adds to a scenario's run.
type Options struct {
	// Reference turns every shortcut of the core off; Off those named.
	Reference bool
	Off       policies.ShortcutSet
	// OutDir, when set, receives the run's files: jobs.parquet as the run
	// goes, then the summary, the time series and the report.
	OutDir string
	// CPUProfile and MemProfile, when set, are the files of Go's CPU and
	// allocation profiles of the simulation.
	CPUProfile, MemProfile string
	// Progress, when set, is told the simulated time as the run goes.
	Progress func(now float64)
	// ReplayCheck adds the summary's replay_check: the replay against the
	// trace's recorded starts and ends; a workload without a recorded
	// start is an InputError (CheckRecord), before the run.
	ReplayCheck bool
}

// Result is a run's outcome.
type Result struct {
	Summary *reports.Summary
	AllMet  bool // every objective of the scenario is met
	// Counts are the core's shortcuts' hits and misses and its work; Off
	// the shortcuts that were off.
	Counts policies.ShortcutCounts
	Off    policies.ShortcutSet
}

// InputError is a run the simulator refused for its input: a job the
// scenario cannot take, named by its trace row where it has one.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Simulate runs a scenario's input (Input, for the scenario's seed) with
// its records collected on a goroutine of their own, checks the
// objectives, and writes the run's files.
func Simulate(s *scenarios.Scenario, in *sim.Input, o Options) (*Result, error) {
	res := &Result{Off: o.Off}
	if o.ReplayCheck {
		if err := CheckRecord(s); err != nil {
			return nil, &InputError{err}
		}
	}
	in.Off = o.Off
	if o.Reference {
		in.Off, res.Off = policies.AllShortcuts, policies.AllShortcuts
	}
	in.ShortcutCounts = &res.Counts
	in.Progress = o.Progress
	col := reports.NewCollector()
	var sink workload.Sink = col
	var check *reports.ReplayChecker
	if o.ReplayCheck {
		check = reports.NewReplayChecker()
		sink = workload.Tee(col, check)
	}
	if o.OutDir != "" {
		if err := os.MkdirAll(o.OutDir, 0o755); err != nil {
			return nil, err
		}
		jw, err := reports.NewJobsWriter(filepath.Join(o.OutDir, reports.JobsFile))
		if err != nil {
			return nil, err
		}
		sink = workload.Tee(sink, jw)
	}
	stopProf, err := startCPUProfile(o.CPUProfile)
	if err != nil {
		return nil, err
	}
	writeAllocs, err := openAllocProfile(o.MemProfile)
	if err != nil {
		stopProf()
		return nil, err
	}
	async := workload.NewAsyncSink(sink) // collection runs on a core of its own
	err = sim.Run(in, async)
	async.Stop()
	stopProf()
	if err != nil {
		return nil, &InputError{PlaceJobError(s, err)}
	}
	if err := writeAllocs(); err != nil {
		return nil, err
	}
	res.Summary = col.Summary()
	if check != nil {
		if res.Summary.ReplayCheck = check.Result(); res.Summary.ReplayCheck == nil {
			return nil, &InputError{noRecord(s)}
		}
	}
	res.AllMet = CheckObjectives(res.Summary, s.Objectives)
	if o.OutDir != "" {
		if err := reports.WriteRun(o.OutDir, col.Data()); err != nil {
			return nil, err
		}
	}
	return res, nil
}
