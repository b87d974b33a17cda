package scenarios

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// sharedDir is where the project's shared material lives beside the clone.
func sharedDir(t *testing.T, sub string) string {
	t.Helper()
	dir := filepath.Join("..", "..", "shared", sub)
	if _, err := os.Stat(dir); err != nil {
		t.Skipf("shared material %s is not present (%v); parity cases need ../shared beside the repository", dir, err)
	}
	return dir
}

// parityDir holds the parity cases: the shared ones and those restated
// here (testdata/parity/README.md).
const parityDir = "testdata/parity/kueue"

// The shared parity cases are the floor: each is in the repository,
// unchanged, so that the suite runs them without ../shared.
func TestSharedParityCasesAreKeptUnchangedInTheRepository(t *testing.T) {
	dir := sharedDir(t, "parity/kueue")
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity files in %s", dir)
	}
	for _, f := range files {
		want, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(filepath.Join(parityDir, filepath.Base(f)))
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s: not in %s as it is in ../shared (%v)", filepath.Base(f), parityDir, err)
		}
	}
}

func TestKueueParitySnapshotsReproduceDocumentedDecisions(t *testing.T) {
	dir := parityDir
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no parity files in %s", dir)
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			sf, err := LoadSnapshot(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := policies.RunSnapshot(sf.Snapshot)
			if err != nil {
				t.Fatal(err)
			}
			if diffs := sf.Expected.Check(res); len(diffs) > 0 {
				for _, d := range diffs {
					t.Error(d)
				}
				t.Logf("result: %+v", res)
			}
		})
	}
}
