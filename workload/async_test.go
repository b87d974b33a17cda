package workload

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
)

// logSink writes every record it gets as a line, copying nothing else.
type logSink struct {
	lines []string
	ended bool
}

func (l *logSink) Begin(*RunInfo) error { return nil }
func (l *logSink) Event(e *Event) {
	l.lines = append(l.lines, fmt.Sprintf("event %d %g %s", e.Job, e.Time, e.Reason))
}
func (l *logSink) Job(r *JobRecord) {
	l.lines = append(l.lines, fmt.Sprintf("job %d %v %v", r.Seq, r.InstanceTypes, r.Extra))
}
func (l *logSink) End(*RunEnd) error { l.ended = true; return nil }

func TestAsyncSinkDeliversRecordsInOrderAsCopiesBeforeEnd(t *testing.T) {
	direct, behind := &logSink{}, &logSink{}
	a := NewAsyncSink(behind)
	both := Tee(direct, a)
	// The sender reuses one event, one record and one types buffer, as the
	// simulator does; more records than fit one batch.
	var ev Event
	var rec JobRecord
	types := make([]string, 0, 2)
	for i := range 3*asyncBatch + 17 {
		if i%3 == 2 {
			types = append(types[:0], fmt.Sprint("t", i), "u")
			rec = JobRecord{Seq: int64(i), InstanceTypes: types, Extra: []string{fmt.Sprint(i)}}
			both.Job(&rec)
			types[0] = "overwritten"
		} else {
			ev = Event{Job: int64(i), Time: float64(i) / 2, Reason: fmt.Sprint("r", i)}
			both.Event(&ev)
		}
	}
	if err := both.End(&RunEnd{}); err != nil {
		t.Fatal(err)
	}
	if !behind.ended {
		t.Fatal("End was not passed on")
	}
	if !slices.Equal(direct.lines, behind.lines) {
		t.Fatalf("async sink got %d records, direct %d; first difference at %d", len(behind.lines), len(direct.lines),
			firstDiff(direct.lines, behind.lines))
	}
	a.Stop() // after End: harmless
}

func firstDiff(a, b []string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// countSource yields n jobs, then err.
type countSource struct {
	n, i int
	err  error
}

func (c *countSource) Next() (Job, error) {
	if c.i >= c.n {
		return Job{}, c.err
	}
	c.i++
	return Job{ID: fmt.Sprint("j", c.i), Submit: float64(c.i)}, nil
}
func (c *countSource) ExtraColumns() []string { return []string{"x"} }
func (c *countSource) Close() error           { return nil }

func TestPrefetchYieldsTheSourcesJobsPreparedThenItsError(t *testing.T) {
	bad := errors.New("row 7: duration: negative")
	for _, tc := range []struct {
		n   int
		err error
	}{{0, io.EOF}, {5, io.EOF}, {asyncBatch, io.EOF}, {2*asyncBatch + 3, bad}} {
		p := NewPrefetch(&countSource{n: tc.n, err: tc.err}, func(j *Job, twice *float64) { *twice = 2 * j.Submit })
		for i := 1; i <= tc.n; i++ {
			j, twice, err := p.Next()
			if err != nil || j.ID != fmt.Sprint("j", i) || *twice != 2*float64(i) {
				t.Fatalf("n=%d: job %d: got %v, %v, %v", tc.n, i, j, twice, err)
			}
		}
		for range 2 { // the end is sticky
			if _, _, err := p.Next(); !errors.Is(err, tc.err) {
				t.Fatalf("n=%d: end: got %v, want %v", tc.n, err, tc.err)
			}
		}
		if got := p.ExtraColumns(); !slices.Equal(got, []string{"x"}) {
			t.Fatalf("extra columns %v", got)
		}
		p.Stop()
	}
}

func TestPrefetchStopsWhileItsReaderIsAhead(t *testing.T) {
	p := NewPrefetch[struct{}](&countSource{n: 100 * asyncBatch, err: io.EOF}, nil)
	if _, _, err := p.Next(); err != nil {
		t.Fatal(err)
	}
	p.Stop() // must not hang on the blocked reader
	p.Stop() // and may be called again
}
