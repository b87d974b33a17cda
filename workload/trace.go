package workload

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Canonical trace columns (spec/trace.md).
const (
	ColJobID              = "job_id"
	ColSubmitTime         = "submit_time"
	ColTeam               = "team"
	ColAccelerators       = "accelerators"
	ColDuration           = "duration_s"
	ColPriorityClass      = "priority_class"
	ColVCPUs              = "vcpus"
	ColMemoryGiB          = "memory_gib"
	ColInstanceTypes      = "instance_types"
	ColUser               = "user"
	ColCheckpointInterval = "checkpoint_interval_s"
	ColOrigStart          = "orig_start_time"
	ColOrigEnd            = "orig_end_time"
	ColOrigStatus         = "orig_status"
	// Columns allot adds beside the canonical ones.
	ColClass    = "job_class"
	ColResource = "accelerator_resource"
)

// RequiredColumns must be present in every trace.
var requiredColumns = []string{ColJobID, ColSubmitTime, ColTeam, ColAccelerators, ColDuration}

// optionalColumns are understood when present, in the order files write them.
var optionalColumns = []string{ColPriorityClass, ColVCPUs, ColMemoryGiB, ColInstanceTypes, ColUser,
	ColCheckpointInterval, ColOrigStart, ColOrigEnd, ColOrigStatus, ColClass, ColResource}

func isKnownColumn(c string) bool {
	for _, k := range requiredColumns {
		if k == c {
			return true
		}
	}
	for _, k := range optionalColumns {
		if k == c {
			return true
		}
	}
	return false
}

// TraceOptions change how a trace is read.
type TraceOptions struct {
	// SkipInvalid skips rows that fail validation instead of failing; the
	// reader counts them.
	SkipInvalid bool
}

// TraceReader is a Source read from a file.
type TraceReader interface {
	Source
	// Skipped counts the invalid rows skipped so far.
	Skipped() int
}

// OpenTrace opens a canonical trace by its extension (.parquet or .csv).
// Rows must be in submit-time order or the file is read whole and sorted.
func OpenTrace(path string, opt TraceOptions) (TraceReader, error) {
	open := func() (TraceReader, error) {
		switch strings.ToLower(filepath.Ext(path)) {
		case ".parquet", ".pq":
			return openParquetTrace(path, opt)
		case ".csv":
			return openCSVTrace(path, opt)
		}
		return nil, fmt.Errorf("%s: unknown trace format %q (want .parquet or .csv)", path, filepath.Ext(path))
	}
	sorted, err := traceIsSorted(path, open)
	if err != nil {
		return nil, err
	}
	r, err := open()
	if err != nil || sorted {
		return r, err
	}
	jobs, err := ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	return &sortedTrace{SliceSource: NewSliceSource(jobs, r.ExtraColumns()), skipped: r.Skipped()}, nil
}

type sortedTrace struct {
	*SliceSource
	skipped int
}

func (s *sortedTrace) Skipped() int { return s.skipped }

// traceIsSorted reads submit times only, where the format allows it.
func traceIsSorted(path string, open func() (TraceReader, error)) (bool, error) {
	if strings.EqualFold(filepath.Ext(path), ".parquet") || strings.EqualFold(filepath.Ext(path), ".pq") {
		return parquetSubmitSorted(path)
	}
	r, err := open()
	if err != nil {
		return false, err
	}
	defer r.Close()
	last := math.Inf(-1)
	for {
		j, err := r.Next()
		if err == io.EOF {
			return true, nil
		}
		if err != nil {
			return false, err
		}
		if j.Submit < last {
			return false, nil
		}
		last = j.Submit
	}
}

// TraceWriter writes jobs as a canonical trace.
type TraceWriter interface {
	Write(j *Job) error
	Close() error
}

// CreateTrace creates a trace file by its extension; extra names the
// pass-through columns carried in Job.Extra.
func CreateTrace(path string, extra []string) (TraceWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".parquet", ".pq":
		return newParquetTraceWriter(f, extra), nil
	case ".csv":
		return newCSVTraceWriter(f, extra), nil
	}
	f.Close()
	os.Remove(path)
	return nil, fmt.Errorf("%s: unknown trace format %q (want .parquet or .csv)", path, filepath.Ext(path))
}

// rowFields turns parsed cells into a Job; get returns (value, present).
type rowFields struct {
	file string
	line int
	unit string
}

func (r rowFields) err(field, reason string) error {
	return &FieldError{File: r.file, Line: r.line, Unit: r.unit, Field: field, Reason: reason}
}

func (r rowFields) float(field, s string, required bool) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		if required {
			return 0, r.err(field, "missing value")
		}
		return math.NaN(), nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, r.err(field, fmt.Sprintf("not a number: %q", s))
	}
	return v, nil
}

func formatFloat(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// finish fills defaults of optional numbers and validates the job.
func (r rowFields) finish(j *Job) error {
	if math.IsNaN(j.VCPUs) {
		j.VCPUs = 0
	}
	if math.IsNaN(j.MemoryGiB) {
		j.MemoryGiB = 0
	}
	if math.IsNaN(j.CheckpointInterval) {
		j.CheckpointInterval = 0
	}
	if field, reason := j.Check(); field != "" {
		return r.err(field, reason)
	}
	return nil
}

// WriteAll copies a source into a new trace file and closes both; each is
// called after every job written (for progress), and n counts them.
func WriteAll(path string, src Source, each func(n int, j *Job)) (n int, err error) {
	w, err := CreateTrace(path, src.ExtraColumns())
	if err != nil {
		return 0, err
	}
	defer func() {
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}()
	for {
		j, err := src.Next()
		if err == io.EOF {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		if err := w.Write(&j); err != nil {
			return n, err
		}
		n++
		if each != nil {
			each(n, &j)
		}
	}
}
