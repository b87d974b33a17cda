package traces

import (
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/workload"
)

// A window is START:END in durations, END optional; what is not one says
// which part is wrong.
func TestWindowReadsStartAndEnd(t *testing.T) {
	var tr workload.Transform
	if err := Window(&tr, "1d:2d"); err != nil || tr.From != 86400 || tr.To != 172800 {
		t.Errorf("1d:2d: from %v to %v, %v", tr.From, tr.To, err)
	}
	tr = workload.Transform{}
	if err := Window(&tr, "12h:"); err != nil || tr.From != 43200 || tr.To != 0 {
		t.Errorf("12h: from %v to %v, %v", tr.From, tr.To, err)
	}
	for in, want := range map[string]string{
		"30d":  `"30d": want START:END, like 120d:150d (END may be empty)`,
		"x:1d": "start: ",
		"1d:y": "end: ",
	} {
		err := Window(&workload.Transform{}, in)
		if err == nil || len(err.Error()) < len(want) || err.Error()[:len(want)] != want {
			t.Errorf("Window(%q) = %v, want %q...", in, err, want)
		}
	}
}

// A transform writes every job of the trace it keeps.
func TestTransformWritesTheChangedTrace(t *testing.T) {
	out := filepath.Join(t.TempDir(), "copy.csv")
	n, err := Transform("../../../scenarios/hyperpod-teams.csv", out, &workload.Transform{Copies: 2})
	if err != nil {
		t.Fatal(err)
	}
	src, err := workload.OpenTrace(out, workload.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	jobs, err := workload.ReadAll(src)
	if err != nil || len(jobs) != n || n == 0 || n%2 != 0 {
		t.Errorf("wrote %d jobs, read back %d (%v); want an even, equal count", n, len(jobs), err)
	}
}
