package workload

import (
	"fmt"
	"math"
)

// Job is one unit of work as a trace or a generator describes it.
type Job struct {
	ID            string
	Submit        float64 // seconds from the start of the trace
	Team          string
	PriorityClass string
	Accelerators  float64 // total over the gang; below 1 = a shared GPU
	VCPUs         float64
	MemoryGiB     float64
	Duration      float64  // running time on the first listed instance type
	InstanceTypes []string // compatible types, preferred first; nil = any
	User          string
	// CheckpointInterval is the running time between periodic checkpoints;
	// 0 means the job never checkpoints and restarts from zero.
	CheckpointInterval float64
	// Class names the synthetic class (or trace job type) for per-class speeds.
	Class string
	// Resource is the accelerator resource name; "" = the default.
	Resource string
	// Original timing, for fidelity checks; NaN when unknown.
	OrigStart, OrigEnd float64
	OrigStatus         string
	// Extra holds pass-through trace columns, aligned with the source's
	// ExtraColumns.
	Extra []string
}

// HasOrig says whether the job carries original start and end times.
func (j *Job) HasOrig() bool { return !math.IsNaN(j.OrigStart) && !math.IsNaN(j.OrigEnd) }

// FieldError is a problem with one field of one job, placed in its source:
// FILE: row N: column COL: reason. A CSV trace's rows are numbered as a
// spreadsheet shows them, the header being row 1; a Parquet trace's from 1.
type FieldError struct {
	File   string
	Line   int    // 1-based row (or line, for importers' raw inputs); 0 = the file as a whole
	Unit   string // "row" or "line"
	Field  string // the column; "" when the whole row is at fault
	Reason string
	Err    error // the cause, if another error is behind it
}

func (e *FieldError) Error() string {
	loc := e.File
	if e.Line > 0 {
		loc = fmt.Sprintf("%s: %s %d", e.File, e.Unit, e.Line)
	}
	if e.Field == "" {
		return fmt.Sprintf("%s: %s", loc, e.Reason)
	}
	return fmt.Sprintf("%s: column %s: %s", loc, e.Field, e.Reason)
}

func (e *FieldError) Unwrap() error { return e.Err }

// Check validates the fields every job needs; it returns the field at fault.
func (j *Job) Check() (field, reason string) {
	switch {
	case j.ID == "":
		return "job_id", "missing value"
	case j.Team == "":
		return "team", "missing value"
	case math.IsNaN(j.Submit) || math.IsInf(j.Submit, 0):
		return "submit_time", "not a finite number"
	case j.Submit < 0:
		return "submit_time", fmt.Sprintf("negative time %g", j.Submit)
	case math.IsNaN(j.Duration) || math.IsInf(j.Duration, 0):
		return "duration_s", "not a finite number"
	case j.Duration < 0:
		return "duration_s", fmt.Sprintf("negative duration %g", j.Duration)
	case math.IsNaN(j.Accelerators) || j.Accelerators < 0:
		return "accelerators", fmt.Sprintf("must be >= 0, got %g", j.Accelerators)
	case j.Accelerators > 1 && j.Accelerators != math.Trunc(j.Accelerators):
		return "accelerators", fmt.Sprintf("fractions are allowed only below 1 (GPU sharing), got %g", j.Accelerators)
	case math.IsNaN(j.VCPUs) || j.VCPUs < 0:
		return "vcpus", fmt.Sprintf("must be >= 0, got %g", j.VCPUs)
	case math.IsNaN(j.MemoryGiB) || j.MemoryGiB < 0:
		return "memory_gib", fmt.Sprintf("must be >= 0, got %g", j.MemoryGiB)
	case j.Accelerators == 0 && j.VCPUs == 0:
		return "accelerators", "the job requests nothing (no accelerators and no vcpus)"
	case j.CheckpointInterval < 0 || math.IsNaN(j.CheckpointInterval):
		return "checkpoint_interval_s", fmt.Sprintf("must be >= 0, got %g", j.CheckpointInterval)
	}
	return "", ""
}
