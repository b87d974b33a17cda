package simrun

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/reports"
)

// A run with OutDir writes the run's files; Reference reports every
// shortcut off, and the summary is the one Summary makes.
func TestSimulateWritesTheRunAndReportsTheShortcutsOff(t *testing.T) {
	s, err := Load("../../../scenarios/hyperpod-teams.yaml", "")
	if err != nil {
		t.Fatal(err)
	}
	in, err := Input(s, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Source.Close()
	dir := t.TempDir()
	r, err := Simulate(s, in, Options{Reference: true, OutDir: dir})
	if err != nil {
		t.Fatal(err)
	}
	if r.Off != policies.AllShortcuts {
		t.Errorf("Off = %v, want every shortcut", r.Off)
	}
	for _, f := range []string{reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	want, err := Summary(s, s.Seed)
	if err != nil {
		t.Fatal(err)
	}
	if r.Summary.Jobs != want.Jobs || r.Summary.Utilization.Mean != want.Utilization.Mean {
		t.Errorf("jobs %+v, utilisation %v; Summary says %+v, %v", r.Summary.Jobs, r.Summary.Utilization.Mean, want.Jobs, want.Utilization.Mean)
	}
}
