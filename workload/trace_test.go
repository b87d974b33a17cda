package workload

import (
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func sampleJobs() []Job {
	return []Job{
		{ID: "a", Submit: 0, Team: "t1", PriorityClass: "prod", Accelerators: 8, Duration: 3600, InstanceTypes: []string{"p5.48xlarge", "p4d.24xlarge"},
			User: "alice", CheckpointInterval: 600, OrigStart: math.NaN(), OrigEnd: math.NaN(), Extra: []string{"x1"}},
		{ID: "b", Submit: 1.5, Team: "t2", Accelerators: 0.5, VCPUs: 4, MemoryGiB: 16, Duration: 60, OrigStart: 2, OrigEnd: 62, OrigStatus: "completed", Extra: []string{""}},
	}
}

func TestTraceRoundTripsThroughCSVAndParquet(t *testing.T) {
	for _, ext := range []string{".csv", ".parquet"} {
		p := filepath.Join(t.TempDir(), "t"+ext)
		w, err := CreateTrace(p, []string{"vc"})
		if err != nil {
			t.Fatal(err)
		}
		in := sampleJobs()
		for i := range in {
			if err := w.Write(&in[i]); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		r, err := OpenTrace(p, TraceOptions{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := ReadAll(r)
		r.Close()
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(r.ExtraColumns(), []string{"vc"}) {
			t.Errorf("%s: extra columns %v", ext, r.ExtraColumns())
		}
		if len(got) != 2 {
			t.Fatalf("%s: %d jobs", ext, len(got))
		}
		for i := range in {
			a, b := in[i], got[i]
			nanEq := func(x, y float64) bool { return x == y || (math.IsNaN(x) && math.IsNaN(y)) }
			if a.ID != b.ID || a.Submit != b.Submit || a.Team != b.Team || a.PriorityClass != b.PriorityClass || a.Accelerators != b.Accelerators ||
				a.Duration != b.Duration || a.VCPUs != b.VCPUs || a.MemoryGiB != b.MemoryGiB || a.User != b.User ||
				a.CheckpointInterval != b.CheckpointInterval || !nanEq(a.OrigStart, b.OrigStart) || !nanEq(a.OrigEnd, b.OrigEnd) ||
				a.OrigStatus != b.OrigStatus || strings.Join(a.InstanceTypes, ";") != strings.Join(b.InstanceTypes, ";") || a.Extra[0] != b.Extra[0] {
				t.Errorf("%s: job %d\n got %+v\nwant %+v", ext, i, b, a)
			}
		}
	}
}

func writeCSV(t *testing.T, body string) string {
	p := filepath.Join(t.TempDir(), "trace.csv")
	if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

const header = "job_id,submit_time,team,accelerators,duration_s,priority_class\n"

// Bad rows are rejected with the file, the row and the column.
func TestBadTraceRowsNameTheLineAndColumn(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		want       []string
	}{
		{"negative duration", header + "a,0,t,1,3600,\nb,5,t,1,-10,\n", []string{"row 3", "duration_s", "negative"}},
		{"negative submit", header + "a,-1,t,1,3600,\n", []string{"row 2", "submit_time", "negative"}},
		{"not a number", header + "a,0,t,eight,3600,\n", []string{"row 2", "accelerators", `"eight"`}},
		{"missing team", header + "a,0,,1,3600,\n", []string{"row 2", "team", "missing"}},
		{"requests nothing", header + "a,0,t,0,3600,\n", []string{"row 2", "requests nothing"}},
		{"fraction above one", header + "a,0,t,2.5,3600,\n", []string{"row 2", "accelerators", "fractions"}},
		{"missing column", "job_id,submit_time,team,duration_s\na,0,t,1\n", []string{"row 1", "column accelerators"}},
		{"duplicate column", "job_id,job_id,submit_time,team,accelerators,duration_s\n", []string{"row 1", "twice"}},
		{"empty file", "", []string{"empty file"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeCSV(t, tc.body)
			r, err := OpenTrace(p, TraceOptions{})
			if err == nil {
				_, err = ReadAll(r)
			}
			if err == nil {
				t.Fatal("accepted")
			}
			if !strings.Contains(err.Error(), p) {
				t.Errorf("error %q does not name the file", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestSkipInvalidSkipsAndCountsBadRows(t *testing.T) {
	p := writeCSV(t, header+"a,0,t,1,3600,\nb,1,t,1,-5,\nc,2,t,x,3,\nd,3,t,1,1,\n")
	r, err := OpenTrace(p, TraceOptions{SkipInvalid: true})
	if err != nil {
		t.Fatal(err)
	}
	jobs, err := ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != 2 || r.Skipped() != 2 {
		t.Errorf("kept %d, skipped %d; want 2 and 2", len(jobs), r.Skipped())
	}
}

func TestUnsortedTraceIsReadInSubmitOrder(t *testing.T) {
	p := writeCSV(t, header+"late,50,t,1,1,\nearly,10,t,1,1,\nmid,20,t,1,1,\n")
	r, err := OpenTrace(p, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for {
		j, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		ids = append(ids, j.ID)
	}
	if strings.Join(ids, ",") != "early,mid,late" {
		t.Errorf("order %v", ids)
	}
}
