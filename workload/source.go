package workload

import (
	"io"
	"sort"
)

// Source is a stream of jobs in submit-time order.
type Source interface {
	// Next returns the next job; io.EOF ends the stream.
	Next() (Job, error)
	// ExtraColumns names the pass-through columns of Job.Extra.
	ExtraColumns() []string
	Close() error
}

// SliceSource serves jobs from memory, sorted by submit time (stable).
type SliceSource struct {
	jobs  []Job
	extra []string
	i     int
}

// NewSliceSource sorts jobs by submit time and serves them.
func NewSliceSource(jobs []Job, extra []string) *SliceSource {
	sort.SliceStable(jobs, func(a, b int) bool { return jobs[a].Submit < jobs[b].Submit })
	return &SliceSource{jobs: jobs, extra: extra}
}

func (s *SliceSource) Next() (Job, error) {
	if s.i >= len(s.jobs) {
		return Job{}, io.EOF
	}
	s.i++
	return s.jobs[s.i-1], nil
}
func (s *SliceSource) ExtraColumns() []string { return s.extra }
func (s *SliceSource) Close() error           { return nil }

// ReadAll drains a source into memory.
func ReadAll(src Source) ([]Job, error) {
	var out []Job
	for {
		j, err := src.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, j)
	}
}
