package export

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/workload"
)

// pipeTable is the output of a Slurm command run with --parsable2 (or
// -P): a header line of column names, then one '|'-separated row per
// line. --parsable's trailing '|' is taken too.
type pipeTable struct {
	file string
	cols map[string]int // lower-cased name -> index
	rows []pipeRow
}

// pipeRow is one data line of a pipeTable.
type pipeRow struct {
	t    *pipeTable
	line int // 1-based, the header being line 1
	f    []string
}

// readPipeTable reads path, requiring the named columns (any case, any
// order; others are kept for has/get).
func readPipeTable(path, what string, required ...string) (*pipeTable, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t := &pipeTable{file: path, cols: map[string]int{}}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	var header []string
	trailing := false
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimRight(sc.Text(), "\r")
		if header == nil {
			if strings.TrimSpace(text) == "" {
				return nil, &workload.FieldError{File: path, Line: line, Unit: "line", Reason: "empty: expected the header line of " + what}
			}
			trailing = strings.HasSuffix(text, "|")
			header = strings.Split(strings.TrimSuffix(text, "|"), "|")
			for i, h := range header {
				t.cols[strings.ToLower(strings.TrimSpace(h))] = i
			}
			for _, c := range required {
				if _, ok := t.cols[strings.ToLower(c)]; !ok {
					return nil, &workload.FieldError{File: path, Line: 1, Unit: "line", Field: c,
						Reason: fmt.Sprintf("missing from the header (%s has %s); is this the output of %s?", path, strings.Join(header, "|"), what)}
				}
			}
			continue
		}
		if strings.TrimSpace(text) == "" {
			continue
		}
		if trailing {
			text = strings.TrimSuffix(text, "|")
		}
		fields := strings.Split(text, "|")
		if len(fields) != len(header) {
			return nil, &workload.FieldError{File: path, Line: line, Unit: "line",
				Reason: fmt.Sprintf("%d fields, the header has %d (a '|' inside a value, or a cut line?)", len(fields), len(header))}
		}
		t.rows = append(t.rows, pipeRow{t: t, line: line, f: fields})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if header == nil {
		return nil, &workload.FieldError{File: path, Reason: "empty: expected the output of " + what}
	}
	return t, nil
}

// has says whether the table has a column.
func (t *pipeTable) has(col string) bool {
	_, ok := t.cols[strings.ToLower(col)]
	return ok
}

// raw is a field as written ("" where the table lacks the column).
func (r pipeRow) raw(col string) string {
	if i, ok := r.t.cols[strings.ToLower(col)]; ok {
		return r.f[i]
	}
	return ""
}

// get is a field without surrounding spaces.
func (r pipeRow) get(col string) string { return strings.TrimSpace(r.raw(col)) }

// errf is an error about one field of the row: FILE: line N: column COL.
func (r pipeRow) errf(col, format string, args ...any) error {
	return &workload.FieldError{File: r.t.file, Line: r.line, Unit: "line", Field: col, Reason: fmt.Sprintf(format, args...)}
}

// slurmTimeLayout is how Slurm prints a time by default (SLURM_TIME_FORMAT
// unset or "standard"): local time, no zone.
const slurmTimeLayout = "2006-01-02T15:04:05"

// slurmTime reads a time column: ok false for "Unknown", "None" or empty
// (a job not started or not ended). Times are read as UTC: only their
// differences are used.
func (r pipeRow) slurmTime(col string) (t time.Time, ok bool, err error) {
	s := r.get(col)
	switch s {
	case "", "Unknown", "None":
		return time.Time{}, false, nil
	}
	t, err = time.Parse(slurmTimeLayout, s)
	if err != nil {
		return t, false, r.errf(col, "%q is not a time as Slurm prints it (2024-03-01T10:00:00; SLURM_TIME_FORMAT unset)", s)
	}
	return t, true, nil
}

// slurmDuration reads [D-]HH:MM:SS (also MM:SS and fractional seconds,
// as Slurm prints short and CPU times).
func slurmDuration(s string) (float64, error) {
	days := 0.0
	if d, rest, ok := strings.Cut(s, "-"); ok {
		n, err := strconv.ParseUint(d, 10, 32)
		if err != nil {
			return 0, fmt.Errorf("%q is not [D-]HH:MM:SS", s)
		}
		days, s = float64(n), rest
	}
	parts := strings.Split(s, ":")
	if len(parts) < 2 || len(parts) > 3 {
		return 0, fmt.Errorf("%q is not [D-]HH:MM:SS", s)
	}
	sec := 0.0
	for i, p := range parts {
		v, err := strconv.ParseFloat(p, 64)
		last := i == len(parts)-1
		if err != nil || v < 0 || math.IsInf(v, 0) || (!last && v != math.Trunc(v)) || (i > 0 && v >= 60) {
			return 0, fmt.Errorf("%q is not [D-]HH:MM:SS", s)
		}
		sec = sec*60 + v
	}
	return days*86400 + sec, nil
}

// duration reads a duration column; ok false when empty.
func (r pipeRow) duration(col string) (float64, bool, error) {
	s := r.get(col)
	if s == "" {
		return 0, false, nil
	}
	d, err := slurmDuration(s)
	if err != nil {
		return 0, false, r.errf(col, "%v", err)
	}
	return d, true, nil
}
