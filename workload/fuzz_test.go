package workload

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkRow fails unless err is nil or names the file (and, for CSV, a row).
func checkRow(t *testing.T, err error, file string, rowRequired bool) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FieldError
	if !errors.As(err, &fe) || fe.File != file || !strings.HasPrefix(err.Error(), file+": ") {
		t.Fatalf("error without its file: %#v (%v)", err, err)
	}
	if rowRequired && (fe.Line < 1 || !strings.HasPrefix(err.Error(), file+": row ")) {
		t.Fatalf("error without its row: %v", err)
	}
}

func fuzzTrace(f *testing.F, ext string, rowRequired bool) {
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), "fuzz"+ext)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		checkRow(t, readTrace(p), p, rowRequired)
		r, err := OpenTrace(p, TraceOptions{SkipInvalid: true})
		if err == nil {
			_, err = ReadAll(r)
			r.Close()
		}
		checkRow(t, err, p, rowRequired)
	})
}

func FuzzReadTraceCSV(f *testing.F) {
	f.Add([]byte(header + "a,0,t,1,3600,prod\nb,5,t,0.5,60,\n"))
	f.Add([]byte("job_id,submit_time,team,accelerators,duration_s,vcpus,instance_types,user\nx,1,t,8,60,4,p5.48xlarge;p4d.24xlarge,\"a, b\"\n"))
	fuzzTrace(f, ".csv", true)
}

func FuzzReadTraceParquet(f *testing.F) {
	data, err := os.ReadFile(writeSampleParquet(f, []string{"vc"}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data)
	fuzzTrace(f, ".parquet", false)
}
