package export

import (
	"fmt"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
)

// Imported is another engine's configuration, and its history where the
// source has one, as allot's: a scenario (or, without history, a policy
// file), a canonical trace and the warnings of what did not map.
type Imported struct {
	// File is the scenario or policy file. Its Workload and Sim are left
	// to the writer, which knows where the trace goes.
	File *scenfile.File
	// Jobs are the recorded jobs, in submit order (submit times from the
	// earliest, in seconds); nil when the source holds no history.
	Jobs []workload.Job
	// Columns name the trace columns of each job's Extra, in order.
	Columns []string
	// End is the last recorded moment, seconds from the first submit: the
	// writer's horizon covers it.
	End float64
	// Warnings are warnings.txt: one line per object and field that did
	// not map, and what was assumed instead.
	Warnings []string
	// Source says what was read, for the file's header.
	Source string
}

// importWarnings gathers an import's warnings: "OBJECT: FIELD: what was
// assumed", each line once, in the order met.
type importWarnings struct {
	lines []string
	seen  map[string]bool
}

// add is a warning about one object's field (field "" for the object as
// a whole).
func (w *importWarnings) add(object, field, format string, args ...any) {
	line := object + ": "
	if field != "" {
		line += field + ": "
	}
	line += fmt.Sprintf(format, args...)
	if w.seen == nil {
		w.seen = map[string]bool{}
	}
	if !w.seen[line] {
		w.seen[line] = true
		w.lines = append(w.lines, line)
	}
}
