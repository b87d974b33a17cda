package importers

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/workload"
)

// Result is an imported trace with what it says about its cluster.
type Result struct {
	Format string
	Jobs   []workload.Job // in submit order
	// Types and Nodes describe the fleet, when the trace has one.
	Types []hardware.InstanceType
	Nodes []hardware.NodeGroup
	// FleetAssumed says the fleet is not in the trace but sized by the
	// importer (see Notes).
	FleetAssumed    bool
	Teams           []Team
	PriorityClasses []PriorityClass
	Rows            int            // data rows read
	LeftOut         map[string]int // rows not imported, by reason
	Notes           []string       // the mapping and the choices made
	End             float64        // last time the trace covers, seconds
}

// Team is one tenant of the imported cluster.
type Team struct {
	Name  string
	Quota map[string]float64 // accelerators by instance type; nil = borrows only
}

// PriorityClass is a named priority the trace's jobs use.
type PriorityClass struct {
	Name  string
	Value int
}

// Options tune an import; each format reads the fields it needs.
type Options struct {
	// Throughputs is Gavel's simulation_throughputs.json (gavel-philly);
	// "" = look beside the trace files and in their parent folder.
	Throughputs string
	// ClusterSpec is Gavel's cluster_specs.json ("v100:p100:k80" GPUs);
	// "" = look beside the throughputs.
	ClusterSpec string
	// VCNodes is helios-sensetime/philly_vc.csv (vc, node num): the VCs'
	// shares of the fleet. "" = no quotas.
	VCNodes string
	// GPUsPerNode for formats whose nodes are not listed (default 8).
	GPUsPerNode int
}

// Format is one importable trace format.
type Format struct {
	Name    string
	Summary string
	Inputs  string // what files it takes
	Import  func(files []string, opt Options) (*Result, error)
}

// Formats lists the importers, by name.
func Formats() []Format {
	return []Format{
		{Name: "openb", Summary: "Alibaba GPU-sharing trace 2023 (openb): pod list, optionally with its node list",
			Inputs: "openb_pod_list_*.csv [openb_node_list_*.csv]", Import: importOpenB},
		{Name: "gavel-philly", Summary: "Gavel's Philly-derived per-VC job traces; durations from simulation_throughputs.json",
			Inputs: "VC.trace [VC.trace ...]", Import: importPhilly},
		{Name: "alibaba-dlrm", Summary: "Alibaba GPU-disaggregated DLRM serving trace 2025: instances of services",
			Inputs: "disaggregated_DLRM_trace.csv", Import: importDLRM},
	}
}

// Lookup finds a format by name.
func Lookup(name string) (Format, error) {
	var names []string
	for _, f := range Formats() {
		if f.Name == name {
			return f, nil
		}
		names = append(names, f.Name)
	}
	return Format{}, fmt.Errorf("unknown trace format %q (known: %s)", name, strings.Join(names, ", "))
}

func (r *Result) leave(reason string) {
	if r.LeftOut == nil {
		r.LeftOut = map[string]int{}
	}
	r.LeftOut[reason]++
}

func (r *Result) note(format string, args ...any) {
	r.Notes = append(r.Notes, fmt.Sprintf(format, args...))
}

// finish sorts the jobs by submit time (stable: ties keep file order) and
// records the end of the trace.
func (r *Result) finish() {
	sort.SliceStable(r.Jobs, func(a, b int) bool { return r.Jobs[a].Submit < r.Jobs[b].Submit })
	for i := range r.Jobs {
		j := &r.Jobs[i]
		r.End = math.Max(r.End, j.Submit+j.Duration)
		if !math.IsNaN(j.OrigEnd) {
			r.End = math.Max(r.End, j.OrigEnd)
		}
	}
}

// table reads a CSV file with a header row into named cells.
type table struct {
	file   string
	header []string
	col    map[string]int
	r      *csv.Reader
	f      *os.File
	rec    []string
	line   int
}

func openTable(path string, sep rune, header []string) (*table, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r := csv.NewReader(f)
	r.Comma = sep
	r.ReuseRecord = true
	r.FieldsPerRecord = -1
	t := &table{file: path, r: r, f: f, col: map[string]int{}}
	if header == nil {
		rec, err := r.Read()
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: reading the header: %w", path, err)
		}
		header = append([]string(nil), rec...)
		t.line = 1
	}
	t.header = header
	for i, h := range header {
		t.col[strings.TrimSpace(h)] = i
	}
	return t, nil
}

// need fails unless the header has every column.
func (t *table) need(cols ...string) error {
	for _, c := range cols {
		if _, ok := t.col[c]; !ok {
			return fmt.Errorf("%s: line 1: missing column %q (header: %s)", t.file, c, strings.Join(t.header, ","))
		}
	}
	return nil
}

// next advances to the next row; it returns io.EOF at the end.
func (t *table) next() error {
	rec, err := t.r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return io.EOF
		}
		return fmt.Errorf("%s: %w", t.file, err)
	}
	t.line++
	if len(rec) != len(t.header) {
		return t.errf("", "has %d fields, the header %d", len(rec), len(t.header))
	}
	t.rec = rec
	return nil
}

func (t *table) close() { t.f.Close() }

// each calls fn for every data row, until the end or an error.
func (t *table) each(fn func() error) error {
	for {
		if err := t.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		if err := fn(); err != nil {
			return err
		}
	}
}

func (t *table) str(c string) string { return strings.TrimSpace(t.rec[t.col[c]]) }

// num parses a number cell; empty = NaN when optional, an error otherwise.
func (t *table) num(c string, optional bool) (float64, error) {
	s := t.str(c)
	if s == "" || strings.EqualFold(s, "nan") {
		if optional {
			return math.NaN(), nil
		}
		return 0, t.errf(c, "missing value")
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) {
		return 0, t.errf(c, "not a number: %q", s)
	}
	return v, nil
}

// nums reads required numeric cells into dst, column by column.
func (t *table) nums(cols []string, dst ...*float64) error {
	for i, c := range cols {
		v, err := t.num(c, false)
		if err != nil {
			return err
		}
		*dst[i] = v
	}
	return nil
}

func (t *table) errf(col, format string, args ...any) error {
	if col == "" {
		return fmt.Errorf("%s: line %d: %s", t.file, t.line, fmt.Sprintf(format, args...))
	}
	return &workload.FieldError{File: t.file, Line: t.line, Unit: "line", Field: col, Reason: fmt.Sprintf(format, args...)}
}

// newJob returns a job with unknown original timing.
func newJob() workload.Job {
	return workload.Job{OrigStart: math.NaN(), OrigEnd: math.NaN()}
}

func sortSlice[T any](xs []T, less func(a, b int) bool) { sort.SliceStable(xs, less) }
