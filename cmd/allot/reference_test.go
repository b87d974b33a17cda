package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// summaryWithoutWallTime is a run's JSON summary less sim.wall_s, the one
// figure a run may change.
func summaryWithoutWallTime(t *testing.T, args ...string) string {
	t.Helper()
	code, out, errs := cli(append([]string{"sim", "--json"}, args...)...)
	if code != 0 && code != 1 { // 1: an objective not met
		t.Fatalf("sim %v: exit %d %s", args, code, errs)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(out), &m); err != nil {
		t.Fatal(err)
	}
	delete(m["sim"].(map[string]any), "wall_s")
	b, _ := json.Marshal(m)
	return string(b)
}

// allot sim --reference turns the core's shortcuts off and must decide
// exactly as the default: the same summary on every shipped scenario, and
// on 3,000-job cuts of the 1M benchmark and of the stress family.
func TestReferenceRunDecidesExactlyAsTheDefault(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	big, _ := filepath.Glob("../../scenarios/bench/stress/*.yaml")
	big = append(big, "../../scenarios/bench/1m-jobs.yaml")
	dir := t.TempDir()
	for _, f := range big {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cut := strings.Replace(string(data), "count: 1000000", "count: 3000", 1)
		files = append(files, writeFile(t, dir, filepath.Base(f), cut))
	}
	if len(files) < 14 {
		t.Fatalf("only %d scenarios", len(files))
	}
	for _, f := range files {
		if a, b := summaryWithoutWallTime(t, f), summaryWithoutWallTime(t, f, "--reference"); a != b {
			t.Errorf("%s: --reference changed the summary:\n%s\n%s", filepath.Base(f), a, b)
		}
	}
}
