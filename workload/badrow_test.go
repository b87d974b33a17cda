package workload

import (
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// readTrace opens and reads a whole trace, returning the first error.
func readTrace(p string) error {
	r, err := OpenTrace(p, TraceOptions{})
	if err != nil {
		return err
	}
	defer r.Close()
	_, err = ReadAll(r)
	return err
}

// assertRow checks that err reads FILE: row N: column COL: message.
func assertRow(t *testing.T, err error, file string, row int, col, msg string) {
	t.Helper()
	if err == nil {
		t.Fatal("accepted")
	}
	want := fmt.Sprintf("%s: row %d: ", file, row)
	if col != "" {
		want += "column " + col + ": "
	}
	if !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), msg) {
		t.Errorf("error %q\nwant %q...%q", err, want, msg)
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.File != file || fe.Line != row || fe.Field != col {
		t.Errorf("not a FieldError{%s %d %s}: %#v", file, row, col, err)
	}
}

func TestBadCSVRowsNameFileRowAndColumn(t *testing.T) {
	const hdr = "job_id,submit_time,team,accelerators,duration_s,vcpus,checkpoint_interval_s,user\n"
	for _, tc := range []struct {
		name, body string
		row        int
		col, msg   string
	}{
		{"negative duration", hdr + "a,0,t,1,3600,,,\nb,5,t,1,-10,,,\n", 3, "duration_s", "negative duration -10"},
		{"negative submit time", hdr + "a,-1,t,1,3600,,,\n", 2, "submit_time", "negative time -1"},
		{"text for a number", hdr + "a,0,t,eight,3600,,,\n", 2, "accelerators", `not a number: "eight"`},
		{"missing team", hdr + "a,0,,1,3600,,,\n", 2, "team", "missing value"},
		{"missing submit time", hdr + "a,,t,1,3600,,,\n", 2, "submit_time", "missing value"},
		{"missing job id", hdr + ",0,t,1,3600,,,\n", 2, "job_id", "missing value"},
		{"requests nothing", hdr + "a,0,t,0,3600,0,,\n", 2, "accelerators", "requests nothing"},
		{"fraction above one", hdr + "a,0,t,2.5,3600,,,\n", 2, "accelerators", "fractions are allowed only below 1"},
		{"negative vcpus", hdr + "a,0,t,1,3600,-4,,\n", 2, "vcpus", "must be >= 0, got -4"},
		{"negative checkpoint interval", hdr + "a,0,t,1,3600,,-60,\n", 2, "checkpoint_interval_s", "must be >= 0, got -60"},
		{"infinite duration", hdr + "a,0,t,1,inf,,,\n", 2, "duration_s", "not a finite number"},
		{"rows are records, not lines", hdr + "a,0,t,1,60,,,\"two\nlines\"\nb,1,t,1,-1,,,\n", 3, "duration_s", "negative"},
		{"missing column", "job_id,submit_time,team,duration_s\na,0,t,1\n", 1, "accelerators", "required column is missing"},
		{"column twice", "job_id,job_id,submit_time,team,accelerators,duration_s\n", 1, "job_id", "appears twice"},
		{"malformed CSV", hdr + "a,0,t,1,60,,,\nb,1,t,1,6\"0,,,\n", 3, "", "malformed CSV"},
		{"empty file", "", 1, "", "empty file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := writeCSV(t, tc.body)
			assertRow(t, readTrace(p), p, tc.row, tc.col, tc.msg)
		})
	}
}

func TestBadParquetRowsNameFileRowAndColumn(t *testing.T) {
	p := filepath.Join(t.TempDir(), "t.parquet")
	w, err := CreateTrace(p, nil)
	if err != nil {
		t.Fatal(err)
	}
	jobs := []Job{
		{ID: "a", Team: "t", Accelerators: 1, Duration: 60, OrigStart: math.NaN(), OrigEnd: math.NaN()},
		{ID: "b", Submit: 1, Team: "t", Accelerators: 1, Duration: -5, OrigStart: math.NaN(), OrigEnd: math.NaN()},
	}
	for i := range jobs {
		if err := w.Write(&jobs[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	assertRow(t, readTrace(p), p, 2, "duration_s", "negative duration -5")
}

func TestParquetWithoutARequiredColumnNamesIt(t *testing.T) {
	type row struct {
		JobID  string  `parquet:"job_id"`
		Submit float64 `parquet:"submit_time"`
		Team   string  `parquet:"team"`
		Dur    float64 `parquet:"duration_s"`
	}
	p := filepath.Join(t.TempDir(), "t.parquet")
	if err := parquet.WriteFile(p, []row{{"a", 0, "t", 60}}); err != nil {
		t.Fatal(err)
	}
	err := readTrace(p)
	var fe *FieldError
	if !errors.As(err, &fe) || fe.File != p || fe.Field != "accelerators" || !strings.HasPrefix(err.Error(), p+": column accelerators: required column is missing") {
		t.Errorf("got %v", err)
	}
}
