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
// on 20,000-job cuts of the 1M benchmark and of the stress family, with
// no warm-up so that the summary counts every job. The full-size
// comparison is in make bench.
func TestReferenceRunDecidesExactlyAsTheDefault(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/*.yaml")
	big, _ := filepath.Glob("../../scenarios/bench/stress/*.yaml")
	big = append(big, "../../scenarios/bench/1m-jobs.yaml")
	if testing.Short() {
		// The 20,000-job cuts take most of a minute on two cores.
		t.Log("-short: the shipped scenarios only, not the 20,000-job cuts")
		big = nil
	}
	dir := t.TempDir()
	for _, f := range big {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cut := strings.NewReplacer("count: 1000000", "count: 20000", "warmup: 2d", "warmup: 0s").Replace(string(data))
		if cut == string(data) || !strings.Contains(cut, "count: 20000") {
			t.Fatalf("%s: no count: 1000000 to cut", f)
		}
		files = append(files, writeFile(t, dir, filepath.Base(f), cut))
	}
	if len(files) < 14 && !testing.Short() {
		t.Fatalf("only %d scenarios", len(files))
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			t.Parallel()
			if a, b := summaryWithoutWallTime(t, f), summaryWithoutWallTime(t, f, "--reference"); a != b {
				t.Errorf("--reference changed the summary:\n%s\n%s", a, b)
			}
		})
	}
}

// allot sim --off NAME turns one shortcut off, with the same summary;
// --stats reports each shortcut's hits and misses, and one WORK line, on
// standard error only, and says which shortcuts are off.
func TestEachShortcutSwitchedOffByNameDecidesAsTheDefault(t *testing.T) {
	f := "../../scenarios/hyperpod-teams.yaml"
	want := summaryWithoutWallTime(t, f)
	for _, s := range []string{"settled-cycle", "kept-nomination", "remembered-search", "quick-none", "fit-once", "flat-order", "tie-skip", "first-test", "own-limits"} {
		if got := summaryWithoutWallTime(t, f, "--off", s); got != want {
			t.Errorf("--off %s changed the summary:\n%s\n%s", s, got, want)
		}
	}
	code, out, errs := cli("sim", f, "--json", "--stats", "--off", "tie-skip,first-test")
	if code != 0 && code != 1 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	if strings.Contains(out, "SHORTCUT") {
		t.Errorf("shortcut counts in the summary:\n%s", out)
	}
	lines := 0
	for _, l := range strings.Split(errs, "\n") {
		if !strings.HasPrefix(l, "SHORTCUT ") {
			continue
		}
		lines++
		off := strings.Contains(l, "name=tie-skip ") || strings.Contains(l, "name=first-test ")
		if off != strings.Contains(l, " off hits=0 misses=0") {
			t.Errorf("line %q: off=%v", l, off)
		}
	}
	if lines != 9 {
		t.Errorf("%d SHORTCUT lines, want 9:\n%s", lines, errs)
	}
	if n := strings.Count(errs, "\nWORK nominations="); n != 1 || strings.Contains(out, "WORK") {
		t.Errorf("%d WORK lines on standard error, want 1 (and none in the summary):\n%s", n, errs)
	}
	code, _, errs = cli("sim", f, "--off", "settled,bogus")
	if code != 2 || !strings.Contains(errs, `unknown shortcut "settled"`) || !strings.Contains(errs, "first-test") {
		t.Errorf("unknown name: exit %d, %s", code, errs)
	}
}
