package replay

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// A state directory that already holds jobs is refused, named as the
// --data-dir it came from; an empty one opens.
func TestLiveRefusesAStateDirectoryThatHoldsJobs(t *testing.T) {
	dir := t.TempDir()
	store, err := openStore(dir)
	if err != nil {
		t.Fatalf("an empty directory: %v", err)
	}
	if err := store.Save([]*live.Job{{ID: "1", Name: "left-over"}}, nil); err != nil {
		t.Fatal(err)
	}
	store.Close()
	_, err = openStore(dir)
	var busy *BusyDirError
	if !errors.As(err, &busy) || err.Error() != "--data-dir "+dir+" already holds jobs: give an empty one" {
		t.Errorf("got %v, want a BusyDirError naming %s", err, dir)
	}
}

// A sleep job resumes from the work its earlier runs saved, and notes how
// long each run meant to sleep, which the replay reads back.
func TestSleepResumesFromSavedWorkAndNotesEachRun(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, sleepDoneFile), []byte("1"), 0o644); err != nil {
		t.Fatal(err)
	}
	total := 1.01
	for range 2 {
		if err := Sleep(dir, total, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	if got := plannedRuns(dir); !slices.Equal(got, []float64{total - 1, total - 1}) {
		t.Errorf("planned runs %v, want two of 0.01 s", got)
	}
}
