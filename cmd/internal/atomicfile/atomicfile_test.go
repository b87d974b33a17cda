package atomicfile

import (
	"os"
	"path/filepath"
	"testing"
)

// A written file holds the data and no temporary file is left beside it;
// a second write replaces the first whole.
func TestWriteReplacesWholeAndLeavesNoTemporaryFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "f.txt")
	for _, want := range []string{"first, longer text\n", "second\n"} {
		if err := Write(path, []byte(want)); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(path)
		if err != nil || string(got) != want {
			t.Fatalf("read %q, %v; want %q", got, err, want)
		}
		if _, err := os.Stat(path + ".tmp"); !os.IsNotExist(err) {
			t.Errorf("the temporary file is left: %v", err)
		}
	}
}

// A directory that does not exist is an error, and nothing is written.
func TestWriteIntoAMissingDirectoryFails(t *testing.T) {
	if err := Write(filepath.Join(t.TempDir(), "no", "f.txt"), []byte("x")); err == nil {
		t.Fatal("no error")
	}
}
