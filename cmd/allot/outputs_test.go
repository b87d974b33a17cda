package main

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/reports"
)

func TestRunDirectoryFilesReadBackWithTheirSchema(t *testing.T) {
	out := filepath.Join(t.TempDir(), "out")
	if code, _, errs := cli("sim", "../../scenarios/hyperpod-teams.yaml", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	for _, f := range []string{reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile, "charts/utilization.svg"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	rows := map[string]reports.JobRow{}
	if err := reports.ReadJobs(filepath.Join(out, reports.JobsFile), func(r *reports.JobRow) error { rows[r.JobID] = *r; return nil }); err != nil {
		t.Fatal(err)
	}
	j1, j3 := rows["J1"], rows["J3"]
	if len(rows) != 3 || j1.Team != "team-a" || j1.PriorityClass != "training" || j1.Preemptions != 1 || j1.State != "pending" ||
		j1.InstanceTypes != "ml.g5.8xlarge" || j1.FirstStart == nil || *j1.FirstStart != 0 || j1.Held != 3 {
		t.Errorf("J1 row: %+v", j1)
	}
	if j3.State != "completed" || j3.End == nil || math.Abs(*j3.End-(7220+86400)) > 1e-6 || j3.KeptAccS != 2*86400 {
		t.Errorf("J3 row: %+v", j3)
	}
	d, err := reports.ReadSeries(filepath.Join(out, reports.SeriesFile))
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Types) != 1 || len(d.Teams) != 2 || len(d.Start) != 48 {
		t.Fatalf("series: %d types, %d teams, %d buckets", len(d.Types), len(d.Teams), len(d.Start))
	}
	// J1 holds 3 instances in hour 0, 2 of them team A's own, 1 borrowed.
	if a, b, q := d.Allocated[0][0][0], d.Borrowed[0][0][0], d.Quota[0][0][0]; a != 3 || b != 1 || q != 2 {
		t.Errorf("hour 0, team a: allocated %g borrowed %g quota %g; want 3, 1, 2", a, b, q)
	}
	if l := d.Lent[0][1][0]; l != 1 {
		t.Errorf("hour 0, team b lent %g, want 1", l)
	}
	// The series integrate to the summary's utilisation.
	sum, inst := 0.0, 0.0
	for k := range d.Start {
		w := d.End[k] - d.Start[k]
		inst += d.Installed[0][k] * w
		for m := range d.Teams {
			sum += d.Allocated[0][m][k] * w
		}
	}
	r, _ := reports.LoadRun(out)
	if math.Abs(sum/inst-r.Summary.Utilization.Mean) > 1e-9 {
		t.Errorf("series utilisation %g, summary %g", sum/inst, r.Summary.Utilization.Mean)
	}
	// allot report re-renders the same report from the files.
	before, _ := os.ReadFile(filepath.Join(out, reports.ReportHTMLFile))
	os.Remove(filepath.Join(out, reports.ReportHTMLFile))
	if code, _, errs := cli("report", out); code != 0 {
		t.Fatal(errs)
	}
	after, _ := os.ReadFile(filepath.Join(out, reports.ReportHTMLFile))
	if len(after) == 0 || string(before) != string(after) {
		t.Errorf("re-rendered report differs (%d vs %d bytes)", len(before), len(after))
	}
}
