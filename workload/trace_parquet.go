package workload

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"
)

type parquetTrace struct {
	f       *os.File
	pf      *parquet.File
	r       *parquet.GenericReader[any]
	name    string
	colName []string // leaf column index -> top-level field name
	extra   []string
	extraIx map[int]int // column index -> position in Extra
	rows    []parquet.Row
	n, i    int
	row     int
	done    bool
	opt     TraceOptions
	skipped int
}

func openParquetFile(path string) (*os.File, *parquet.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if err := checkParquetFooter(f, st.Size()); err != nil {
		f.Close()
		return nil, nil, &FieldError{File: path, Reason: fmt.Sprintf("not a readable Parquet file: %v", err), Err: err}
	}
	var pf *parquet.File
	err = parquetSafe(path, 0, func() (err error) {
		pf, err = parquet.OpenFile(f, st.Size(), parquet.SkipPageIndex(true), parquet.SkipBloomFilters(true))
		if err != nil {
			return err
		}
		return checkParquetPages(f, st.Size(), columnChunks(pf))
	})
	var fe *FieldError
	if errors.As(err, &fe) {
		f.Close()
		return nil, nil, err
	}
	if err != nil {
		f.Close()
		return nil, nil, &FieldError{File: path, Reason: fmt.Sprintf("not a readable Parquet file: %v", err), Err: err}
	}
	return f, pf, nil
}

func openParquetTrace(path string, opt TraceOptions) (*parquetTrace, error) {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return nil, err
	}
	t := &parquetTrace{f: f, pf: pf, name: path, extraIx: map[int]int{}, opt: opt}
	have := map[string]bool{}
	for i, p := range pf.Schema().Columns() {
		name := p[0]
		t.colName = append(t.colName, name)
		if !have[name] && !isKnownColumn(name) {
			t.extraIx[i] = len(t.extra)
			t.extra = append(t.extra, name)
		}
		have[name] = true
	}
	for _, c := range requiredColumns {
		if !have[c] {
			f.Close()
			return nil, &FieldError{File: path, Field: c, Reason: "required column is missing (have " + strings.Join(t.colName, ", ") + ")"}
		}
	}
	t.r = parquet.NewGenericReader[any](pf)
	t.rows = make([]parquet.Row, 512)
	return t, nil
}

func (t *parquetTrace) ExtraColumns() []string { return t.extra }
func (t *parquetTrace) Skipped() int           { return t.skipped }
func (t *parquetTrace) Close() error           { return t.f.Close() }

func (t *parquetTrace) Next() (Job, error) {
	for {
		if t.i >= t.n {
			if t.done {
				return Job{}, io.EOF
			}
			var n int
			err := parquetSafe(t.name, t.row+1, func() (err error) {
				n, err = t.r.ReadRows(t.rows)
				return err
			})
			var fe *FieldError
			if errors.As(err, &fe) {
				return Job{}, err
			}
			t.n, t.i = n, 0
			if errors.Is(err, io.EOF) {
				t.done = true
			} else if err != nil {
				return Job{}, &FieldError{File: t.name, Line: t.row + 1, Unit: "row", Reason: fmt.Sprintf("unreadable: %v", err), Err: err}
			}
			if n == 0 {
				continue
			}
		}
		row := t.rows[t.i]
		t.i++
		t.row++
		j, err := t.parse(row)
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

func valueString(v parquet.Value) string {
	switch v.Kind() {
	case parquet.ByteArray, parquet.FixedLenByteArray:
		return string(v.ByteArray())
	case parquet.Double:
		return strconv.FormatFloat(v.Double(), 'g', -1, 64)
	case parquet.Float:
		return strconv.FormatFloat(float64(v.Float()), 'g', -1, 32)
	case parquet.Int32:
		return strconv.FormatInt(int64(v.Int32()), 10)
	case parquet.Int64:
		return strconv.FormatInt(v.Int64(), 10)
	case parquet.Boolean:
		return strconv.FormatBool(v.Boolean())
	}
	return v.String()
}

func (t *parquetTrace) parse(row parquet.Row) (Job, error) {
	rf := rowFields{file: t.name, line: t.row, unit: "row"}
	j := Job{Submit: nan, Accelerators: nan, Duration: nan, VCPUs: nan, MemoryGiB: nan, CheckpointInterval: nan, OrigStart: nan, OrigEnd: nan}
	if len(t.extra) > 0 {
		j.Extra = make([]string, len(t.extra))
	}
	for _, v := range row {
		c := v.Column()
		if v.IsNull() {
			continue
		}
		if k, ok := t.extraIx[c]; ok {
			j.Extra[k] = valueString(v)
			continue
		}
		name := t.colName[c]
		var dst *float64
		switch name {
		case ColJobID:
			j.ID = strings.TrimSpace(valueString(v))
		case ColTeam:
			j.Team = strings.TrimSpace(valueString(v))
		case ColPriorityClass:
			j.PriorityClass = strings.TrimSpace(valueString(v))
		case ColUser:
			j.User = valueString(v)
		case ColOrigStatus:
			j.OrigStatus = valueString(v)
		case ColClass:
			j.Class = valueString(v)
		case ColResource:
			j.Resource = strings.TrimSpace(valueString(v))
		case ColInstanceTypes:
			for _, p := range strings.Split(valueString(v), ";") {
				if p = strings.TrimSpace(p); p != "" {
					j.InstanceTypes = append(j.InstanceTypes, p)
				}
			}
		case ColSubmitTime:
			dst = &j.Submit
		case ColAccelerators:
			dst = &j.Accelerators
		case ColDuration:
			dst = &j.Duration
		case ColVCPUs:
			dst = &j.VCPUs
		case ColMemoryGiB:
			dst = &j.MemoryGiB
		case ColCheckpointInterval:
			dst = &j.CheckpointInterval
		case ColOrigStart:
			dst = &j.OrigStart
		case ColOrigEnd:
			dst = &j.OrigEnd
		}
		if dst != nil {
			f, err := rf.float(name, valueString(v), false)
			if err != nil {
				return j, err
			}
			*dst = f
		}
	}
	for _, req := range []struct {
		v   float64
		col string
	}{{j.Submit, ColSubmitTime}, {j.Accelerators, ColAccelerators}, {j.Duration, ColDuration}} {
		if math.IsNaN(req.v) {
			return j, rf.err(req.col, "missing value")
		}
	}
	return j, rf.finish(&j)
}

// parquetSubmitSorted reads only the submit_time column.
func parquetSubmitSorted(path string) (sorted bool, err error) {
	err = parquetSafe(path, 0, func() (err error) {
		sorted, err = submitSorted(path)
		return err
	})
	return sorted, err
}

func submitSorted(path string) (bool, error) {
	f, pf, err := openParquetFile(path)
	if err != nil {
		return false, err
	}
	defer f.Close()
	idx := -1
	for i, p := range pf.Schema().Columns() {
		if p[0] == ColSubmitTime {
			idx = i
		}
	}
	if idx < 0 {
		return false, &FieldError{File: path, Field: ColSubmitTime, Reason: "required column is missing"}
	}
	last := math.Inf(-1)
	buf := make([]parquet.Value, 4096)
	for _, rg := range pf.RowGroups() {
		pages := rg.ColumnChunks()[idx].Pages()
		for {
			p, err := pages.ReadPage()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				pages.Close()
				return false, &FieldError{File: path, Field: ColSubmitTime, Reason: fmt.Sprintf("unreadable: %v", err), Err: err}
			}
			vr := p.Values()
			for {
				n, err := vr.ReadValues(buf)
				for _, v := range buf[:n] {
					if v.IsNull() {
						continue
					}
					x, perr := strconv.ParseFloat(valueString(v), 64)
					if perr != nil {
						continue // reported with its row by the full read
					}
					if x < last {
						pages.Close()
						return false, nil
					}
					last = x
				}
				if err != nil {
					break
				}
			}
		}
		pages.Close()
	}
	return true, nil
}

type parquetTraceWriter struct {
	f     *os.File
	w     *parquet.GenericWriter[map[string]any]
	extra []string
	buf   []map[string]any
}

func traceSchema(extra []string) *parquet.Schema {
	g := parquet.Group{
		ColJobID:              parquet.String(),
		ColSubmitTime:         parquet.Leaf(parquet.DoubleType),
		ColTeam:               parquet.String(),
		ColAccelerators:       parquet.Leaf(parquet.DoubleType),
		ColDuration:           parquet.Leaf(parquet.DoubleType),
		ColPriorityClass:      parquet.Optional(parquet.String()),
		ColVCPUs:              parquet.Leaf(parquet.DoubleType),
		ColMemoryGiB:          parquet.Leaf(parquet.DoubleType),
		ColInstanceTypes:      parquet.List(parquet.String()),
		ColUser:               parquet.Optional(parquet.String()),
		ColCheckpointInterval: parquet.Leaf(parquet.DoubleType),
		ColOrigStart:          parquet.Optional(parquet.Leaf(parquet.DoubleType)),
		ColOrigEnd:            parquet.Optional(parquet.Leaf(parquet.DoubleType)),
		ColOrigStatus:         parquet.Optional(parquet.String()),
		ColClass:              parquet.Optional(parquet.String()),
		ColResource:           parquet.Optional(parquet.String()),
	}
	for _, e := range extra {
		g[e] = parquet.Optional(parquet.String())
	}
	return parquet.NewSchema("trace", g)
}

func newParquetTraceWriter(f *os.File, extra []string) *parquetTraceWriter {
	return &parquetTraceWriter{f: f, extra: extra,
		w: parquet.NewGenericWriter[map[string]any](f, traceSchema(extra), parquet.Compression(&parquet.Zstd), parquet.MaxRowsPerRowGroup(131072))}
}

func optString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// optFloat is nil for NaN; a present value goes by pointer, since the
// map writer takes a bare zero for null (an original start at time 0 is
// a real value).
func optFloat(v float64) any {
	if math.IsNaN(v) {
		return nil
	}
	return &v
}

func (w *parquetTraceWriter) Write(j *Job) error {
	types := j.InstanceTypes
	if types == nil {
		types = []string{}
	}
	m := map[string]any{
		ColJobID: j.ID, ColSubmitTime: j.Submit, ColTeam: j.Team, ColAccelerators: j.Accelerators, ColDuration: j.Duration,
		ColPriorityClass: optString(j.PriorityClass), ColVCPUs: j.VCPUs, ColMemoryGiB: j.MemoryGiB, ColInstanceTypes: types,
		ColUser: optString(j.User), ColCheckpointInterval: j.CheckpointInterval, ColOrigStart: optFloat(j.OrigStart),
		ColOrigEnd: optFloat(j.OrigEnd), ColOrigStatus: optString(j.OrigStatus), ColClass: optString(j.Class),
		ColResource: optString(j.Resource),
	}
	for i, e := range w.extra {
		var v any
		if i < len(j.Extra) {
			v = optString(j.Extra[i])
		}
		m[e] = v
	}
	w.buf = append(w.buf, m)
	if len(w.buf) >= 1024 {
		return w.flush()
	}
	return nil
}

func (w *parquetTraceWriter) flush() error {
	_, err := w.w.Write(w.buf)
	w.buf = w.buf[:0]
	return err
}

func (w *parquetTraceWriter) Close() error {
	if err := w.flush(); err != nil {
		w.f.Close()
		return err
	}
	if err := w.w.Close(); err != nil {
		w.f.Close()
		return err
	}
	return w.f.Close()
}

// columnChunks lists each column chunk's first byte and length.
func columnChunks(pf *parquet.File) [][2]int64 {
	var out [][2]int64
	for _, rg := range pf.Metadata().RowGroups {
		for _, c := range rg.Columns {
			m := c.MetaData
			start := m.DataPageOffset
			if m.DictionaryPageOffset > 0 && m.DictionaryPageOffset < start {
				start = m.DictionaryPageOffset
			}
			out = append(out, [2]int64{start, m.TotalCompressedSize})
		}
	}
	return out
}

// parquetSafe runs fn and turns a panic inside parquet-go into an error
// naming the file (and the row, when > 0): the library trusts a file's
// offsets, and a corrupt file is bad input, not a crash.
func parquetSafe(path string, row int, fn func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = &FieldError{File: path, Line: row, Unit: "row", Reason: fmt.Sprintf("not a readable Parquet file: %v", r)}
		}
	}()
	return fn()
}
