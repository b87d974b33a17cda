package reports

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strings"

	"github.com/allot-sim/allot/workload"
	"github.com/parquet-go/parquet-go"
)

// JobRow is one row of jobs.parquet: what became of a job.
type JobRow struct {
	JobID         string   `parquet:"job_id"`
	Team          string   `parquet:"team"`
	PriorityClass string   `parquet:"priority_class"`
	User          string   `parquet:"user,optional"`
	JobClass      string   `parquet:"job_class,optional"`
	Submit        float64  `parquet:"submit_time"`
	FirstStart    *float64 `parquet:"first_start,optional"`
	End           *float64 `parquet:"end_time,optional"`
	Wait          float64  `parquet:"wait_s"`
	Accelerators  float64  `parquet:"accelerators"`
	Held          float64  `parquet:"held_accelerators"`
	Duration      float64  `parquet:"duration_s"`
	InstanceTypes string   `parquet:"instance_types"` // types run on, in order, ;-separated
	Preemptions   int32    `parquet:"preemptions"`
	Failures      int32    `parquet:"failures"`
	LostAccS      float64  `parquet:"lost_accelerator_s"`
	KeptAccS      float64  `parquet:"kept_accelerator_s"`
	State         string   `parquet:"state"`
	OrigStart     *float64 `parquet:"orig_start_time,optional"`
	OrigEnd       *float64 `parquet:"orig_end_time,optional"`
	OrigStatus    string   `parquet:"orig_status,optional"`
	Extra         []string `parquet:"extra,list"`
}

// JobsWriter is a sink that streams one row per finished job to
// jobs.parquet, so a long run never holds every job in memory.
type JobsWriter struct {
	path string
	f    *os.File
	w    *parquet.GenericWriter[JobRow]
	buf  []JobRow
	info *workload.RunInfo
	err  error
}

// NewJobsWriter creates the file.
func NewJobsWriter(path string) (*JobsWriter, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &JobsWriter{path: path, f: f, w: parquet.NewGenericWriter[JobRow](f, parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(rowGroupRows),
		parquet.KeyValueMetadata("allot.extra_columns", ""))}, nil
}

func (j *JobsWriter) Begin(info *workload.RunInfo) error {
	j.info = info
	j.w.SetKeyValueMetadata("allot.extra_columns", strings.Join(info.ExtraColumns, ","))
	return nil
}

func (j *JobsWriter) Event(*workload.Event) {}

func optF(x float64) *float64 {
	if math.IsNaN(x) {
		return nil
	}
	return &x
}

func (j *JobsWriter) Job(r *workload.JobRecord) {
	row := JobRow{JobID: r.ID, Team: j.info.Teams[r.Team].Name, PriorityClass: className(j.info, r.Class), User: r.User, JobClass: r.JobClass,
		Submit: r.Submit, FirstStart: optF(r.FirstStart), End: optF(r.End), Wait: r.Wait, Accelerators: r.Accelerators, Held: r.Held,
		Duration: r.Duration, InstanceTypes: strings.Join(r.InstanceTypes, ";"), Preemptions: int32(r.Preemptions), Failures: int32(r.Failures),
		LostAccS: r.LostAccS, KeptAccS: r.KeptAccS, State: r.State, OrigStart: optF(r.OrigStart), OrigEnd: optF(r.OrigEnd),
		OrigStatus: r.OrigStatus, Extra: append([]string{}, r.Extra...)}
	j.buf = append(j.buf, row)
	if len(j.buf) >= 4096 {
		j.flush()
	}
}

func (j *JobsWriter) flush() {
	if j.err == nil && len(j.buf) > 0 {
		_, j.err = j.w.Write(j.buf)
	}
	j.buf = j.buf[:0]
}

func (j *JobsWriter) End(*workload.RunEnd) error {
	j.flush()
	if err := j.w.Close(); err != nil && j.err == nil {
		j.err = err
	}
	if err := j.f.Close(); err != nil && j.err == nil {
		j.err = err
	}
	if j.err != nil {
		return fmt.Errorf("%s: %w", j.path, j.err)
	}
	return nil
}

// ReadJobs streams the rows of a jobs.parquet file to fn.
func ReadJobs(path string, fn func(*JobRow) error) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	r := parquet.NewGenericReader[JobRow](f)
	defer r.Close()
	rows := make([]JobRow, 1024)
	for {
		n, err := r.Read(rows)
		for i := 0; i < n; i++ {
			if e := fn(&rows[i]); e != nil {
				return e
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
	}
}

// rowGroupRows bounds a row group: the writer holds one in memory, so a
// 10M-job run must not write them all as one.
const rowGroupRows = 131072
