package scenarios

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkPlaced fails unless err is nil or starts FILE:LINE: with a line >= 1.
func checkPlaced(t *testing.T, err error, file string) {
	t.Helper()
	if err == nil {
		return
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != file || fe.Line < 1 {
		t.Fatalf("error without its file and line: %#v (%v)", err, err)
	}
	if !strings.HasPrefix(err.Error(), fmt.Sprintf("%s:%d: ", file, fe.Line)) {
		t.Fatalf("error does not start FILE:LINE: %q", err)
	}
}

// addFiles seeds a fuzz target with files' contents.
func addFiles(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, name := range files {
			if data, err := os.ReadFile(name); err == nil {
				f.Add(data)
			}
		}
	}
}

func FuzzLoadScenario(f *testing.F) {
	f.Add([]byte(goodScenario))
	addFiles(f, "*.yaml", "bench/*.yaml", "replay/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data)
		checkPlaced(t, err, "fuzz.yaml")
		if err == nil {
			_, err = s.WithPolicy("fifo")
			checkPlaced(t, err, "fuzz.yaml")
		}
	})
}

func FuzzLoadPolicyFile(f *testing.F) {
	s, err := Parse("scen.yaml", []byte(goodScenario))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("policy: {kind: fairshare, share_decay: 1h}\n"))
	addFiles(f, "*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := s.withPolicyFile("policy.yaml", data)
		var fe *FileError
		if err != nil && errors.As(err, &fe) && fe.File == "scen.yaml" {
			checkPlaced(t, err, "scen.yaml") // the policy file leaves out what the scenario uses
			return
		}
		checkPlaced(t, err, "policy.yaml")
	})
}

func FuzzLoadSnapshot(f *testing.F) {
	f.Add([]byte(goodSnapshot))
	addFiles(f, "../../shared/parity/kueue/*.yaml")
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := ParseSnapshot("snap.yaml", data)
		checkPlaced(t, err, "snap.yaml")
	})
}
