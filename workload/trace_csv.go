package workload

import (
	"bufio"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"strings"
)

type csvTrace struct {
	f       *os.File
	r       *csv.Reader
	name    string
	col     map[string]int
	extra   []string
	extraIx []int
	line    int // the row read last, the header being row 1
	opt     TraceOptions
	skipped int
}

func openCSVTrace(path string, opt TraceOptions) (*csvTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(bufio.NewReaderSize(f, 1<<20))
	r.ReuseRecord = true
	r.FieldsPerRecord = -1
	header, err := r.Read()
	if err != nil {
		f.Close()
		if err == io.EOF {
			return nil, &FieldError{File: path, Line: 1, Unit: "row", Reason: "empty file, expected a header row"}
		}
		return nil, malformedCSV(path, 1, err)
	}
	t := &csvTrace{f: f, r: r, name: path, col: map[string]int{}, line: 1, opt: opt}
	for i, h := range header {
		h = strings.TrimSpace(strings.TrimPrefix(h, "\ufeff"))
		if _, dup := t.col[h]; dup {
			f.Close()
			return nil, &FieldError{File: path, Line: 1, Unit: "row", Field: h, Reason: "appears twice in the header"}
		}
		t.col[h] = i
		if !isKnownColumn(h) {
			t.extra = append(t.extra, h)
			t.extraIx = append(t.extraIx, i)
		}
	}
	for _, c := range requiredColumns {
		if _, ok := t.col[c]; !ok {
			f.Close()
			return nil, &FieldError{File: path, Line: 1, Unit: "row", Field: c, Reason: "required column is missing from the header (have " + strings.Join(header, ", ") + ")"}
		}
	}
	return t, nil
}

func malformedCSV(path string, row int, err error) error {
	return &FieldError{File: path, Line: row, Unit: "row", Reason: fmt.Sprintf("malformed CSV: %v", err), Err: err}
}

func (t *csvTrace) ExtraColumns() []string { return t.extra }
func (t *csvTrace) Skipped() int           { return t.skipped }
func (t *csvTrace) Close() error           { return t.f.Close() }

func (t *csvTrace) Next() (Job, error) {
	for {
		rec, err := t.r.Read()
		t.line++
		if err == io.EOF {
			return Job{}, io.EOF
		}
		if err != nil {
			return Job{}, malformedCSV(t.name, t.line, err)
		}
		j, err := t.parse(rec)
		if err != nil {
			if t.opt.SkipInvalid {
				t.skipped++
				continue
			}
			return Job{}, err
		}
		return j, nil
	}
}

func (t *csvTrace) cell(rec []string, name string) string {
	i, ok := t.col[name]
	if !ok || i >= len(rec) {
		return ""
	}
	return rec[i]
}

func (t *csvTrace) parse(rec []string) (Job, error) {
	rf := rowFields{file: t.name, line: t.line, unit: "row"}
	j := Job{
		ID:            strings.TrimSpace(t.cell(rec, ColJobID)),
		Team:          strings.TrimSpace(t.cell(rec, ColTeam)),
		PriorityClass: strings.TrimSpace(t.cell(rec, ColPriorityClass)),
		User:          t.cell(rec, ColUser),
		OrigStatus:    t.cell(rec, ColOrigStatus),
		Class:         t.cell(rec, ColClass),
		Resource:      strings.TrimSpace(t.cell(rec, ColResource)),
	}
	var err error
	num := []struct {
		dst      *float64
		col      string
		required bool
	}{
		{&j.Submit, ColSubmitTime, true}, {&j.Accelerators, ColAccelerators, true}, {&j.Duration, ColDuration, true},
		{&j.VCPUs, ColVCPUs, false}, {&j.MemoryGiB, ColMemoryGiB, false}, {&j.CheckpointInterval, ColCheckpointInterval, false},
		{&j.OrigStart, ColOrigStart, false}, {&j.OrigEnd, ColOrigEnd, false},
	}
	for _, n := range num {
		if *n.dst, err = rf.float(n.col, t.cell(rec, n.col), n.required); err != nil {
			return j, err
		}
	}
	if s := strings.TrimSpace(t.cell(rec, ColInstanceTypes)); s != "" {
		for _, p := range strings.Split(s, ";") {
			if p = strings.TrimSpace(p); p != "" {
				j.InstanceTypes = append(j.InstanceTypes, p)
			}
		}
	}
	if len(t.extraIx) > 0 {
		j.Extra = make([]string, len(t.extraIx))
		for k, i := range t.extraIx {
			if i < len(rec) {
				j.Extra[k] = rec[i]
			}
		}
	}
	return j, rf.finish(&j)
}

type csvTraceWriter struct {
	f     *os.File
	bw    *bufio.Writer
	w     *csv.Writer
	extra []string
	rec   []string
}

func newCSVTraceWriter(f *os.File, extra []string) *csvTraceWriter {
	bw := bufio.NewWriterSize(f, 1<<20)
	w := &csvTraceWriter{f: f, bw: bw, w: csv.NewWriter(bw), extra: extra}
	header := append(append(append([]string{}, requiredColumns...), optionalColumns...), extra...)
	w.w.Write(header)
	w.rec = make([]string, len(header))
	return w
}

func (w *csvTraceWriter) Write(j *Job) error {
	r := w.rec[:0]
	r = append(r, j.ID, formatFloat(j.Submit), j.Team, formatFloat(j.Accelerators), formatFloat(j.Duration),
		j.PriorityClass, formatFloat(j.VCPUs), formatFloat(j.MemoryGiB), strings.Join(j.InstanceTypes, ";"), j.User,
		formatFloat(j.CheckpointInterval), formatFloat(j.OrigStart), formatFloat(j.OrigEnd), j.OrigStatus, j.Class, j.Resource)
	for i := range w.extra {
		v := ""
		if i < len(j.Extra) {
			v = j.Extra[i]
		}
		r = append(r, v)
	}
	return w.w.Write(r)
}

func (w *csvTraceWriter) Close() error {
	w.w.Flush()
	if err := w.w.Error(); err != nil {
		w.f.Close()
		return err
	}
	if err := w.bw.Flush(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// nan is the value of an absent optional number.
var nan = math.NaN()
