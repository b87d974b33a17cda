package exportfiles

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios/export"
)

// A per-team file of an earlier export that this one does not write is
// removed and said so; every input is written with a newline, and the
// warnings one a line.
func TestAWSReplacesAnEarlierExportWhole(t *testing.T) {
	dir := t.TempDir()
	stale := filepath.Join(dir, "quota-share-gone.json")
	if err := os.WriteFile(stale, []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := export.Load("../../../scenarios/hyperpod-teams.yaml")
	if err != nil {
		t.Fatal(err)
	}
	b, err := export.ToBatch(s, export.BatchTarget{ComputeEnvironment: "ce"})
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	files := Batch(b)
	if err := AWS(dir, files, []string{"one", "two"}, "quota-share-*.json", &log); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) || !strings.Contains(log.String(), "removed "+stale) {
		t.Errorf("the stale file is there (%v), log %q", err, log.String())
	}
	for name := range files {
		if data, err := os.ReadFile(filepath.Join(dir, name)); err != nil || !strings.HasSuffix(string(data), "}\n") {
			t.Errorf("%s: %q, %v", name, data, err)
		}
	}
	if data, err := os.ReadFile(filepath.Join(dir, "warnings.txt")); err != nil || string(data) != "one\ntwo\n" {
		t.Errorf("warnings %q, %v", data, err)
	}
}
