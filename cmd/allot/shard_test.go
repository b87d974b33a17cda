package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// withoutWall drops the wall-time lines, the one thing two runs may differ in.
func withoutWall(s string) string {
	return regexp.MustCompile(`(?m)^.*"wall_s".*\n`).ReplaceAllString(s, "")
}

func TestMergedShardsGiveExactlyTheComparisonOfOneMachine(t *testing.T) {
	scen := "../../scenarios/hyperpod-teams.yaml"
	base := []string{"compare", scen, "--policy", "fifo", "--policy", "quota", "--seeds", "3"}
	code, whole, errs := cli(append(base, "--json")...)
	if code != 0 {
		t.Fatalf("whole comparison: %d %s", code, errs)
	}
	dir := t.TempDir()
	for _, k := range []string{"1", "2", "3", "4"} {
		code, out, errs := cli(append(base, "--shards", "4", "--shard", k, "--out", filepath.Join(dir, "part"+k), "--json")...)
		if code != 0 {
			t.Fatalf("shard %s: %d %s", k, code, errs)
		}
		// Six runs dealt out in turn: shards 1 and 2 get two, 3 and 4 one.
		want := map[string]string{"1": `"runs": 2`, "2": `"runs": 2`, "3": `"runs": 1`, "4": `"runs": 1`}[k]
		if !strings.Contains(out, want) || !strings.Contains(out, "shard-"+k+"-of-4.json") {
			t.Errorf("shard %s printed %s; want %s and its file", k, out, want)
		}
	}
	// Given in any order, as directories or files.
	code, merged, errs := cli("sweep", "merge", filepath.Join(dir, "part3"), filepath.Join(dir, "part1"),
		filepath.Join(dir, "part4", "shard-4-of-4.json"), filepath.Join(dir, "part2"), "--json", "--out", filepath.Join(dir, "cmp"))
	if code != 0 {
		t.Fatalf("merge: %d %s", code, errs)
	}
	if withoutWall(merged) != withoutWall(whole) {
		t.Fatal("the merged comparison differs from the one run on one machine")
	}
	if _, err := os.Stat(filepath.Join(dir, "cmp", "report.html")); err != nil {
		t.Fatalf("merge --out wrote no report: %v", err)
	}
}

func TestMergeRefusesMissingRepeatedAndForeignShards(t *testing.T) {
	scen := "../../scenarios/hyperpod-teams.yaml"
	dir := t.TempDir()
	shard := func(name string, args ...string) string {
		out := filepath.Join(dir, name)
		if code, _, errs := cli(append([]string{"compare", scen, "--policy", "fifo"}, append(args, "--out", out)...)...); code != 0 {
			t.Fatalf("%s: %d %s", name, code, errs)
		}
		return out
	}
	a1 := shard("a1", "--seeds", "2", "--shards", "2", "--shard", "1")
	a2 := shard("a2", "--seeds", "2", "--shards", "2", "--shard", "2")
	b2 := shard("b2", "--seeds", "3", "--shards", "2", "--shard", "2") // another plan: three seeds
	// The same plan run from a scenario file that changed in between.
	body, err := os.ReadFile(scen)
	if err != nil {
		t.Fatal(err)
	}
	csv, err := os.ReadFile("../../scenarios/hyperpod-teams.csv") // the trace it names
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "hyperpod-teams.csv", string(csv))
	copyPath := writeFile(t, dir, "hyperpod-teams.yaml", string(body))
	c1 := filepath.Join(dir, "c1")
	if code, _, errs := cli("compare", copyPath, "--policy", "fifo", "--seeds", "2", "--shards", "2", "--shard", "1", "--out", c1); code != 0 {
		t.Fatal(errs)
	}
	writeFile(t, dir, "hyperpod-teams.yaml", string(body)+"\n# edited\n")
	c2 := filepath.Join(dir, "c2")
	if code, _, errs := cli("compare", copyPath, "--policy", "fifo", "--seeds", "2", "--shards", "2", "--shard", "2", "--out", c2); code != 0 {
		t.Fatal(errs)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{c1, c2}, "parts of different comparisons"},
		{[]string{a1}, "missing shard 2 of 2"},
		{[]string{a1, a2, a2}, "shard 2 of 2 is given twice"},
		{[]string{a1, b2}, "parts of different comparisons"},
		{[]string{filepath.Join(a1, "nothing.json")}, "no such file"},
		{[]string{t.TempDir()}, "no shard files"},
	} {
		code, _, errs := cli(append([]string{"sweep", "merge"}, tc.args...)...)
		if code == 0 || !strings.Contains(errs, tc.want) {
			t.Errorf("merge %v: exit %d, stderr %q; want an error saying %q", tc.args, code, errs, tc.want)
		}
	}
	for _, bad := range [][2]string{{"2", "0"}, {"2", "3"}, {"0", "1"}} {
		code, _, errs := cli("compare", scen, "--shards", bad[0], "--shard", bad[1], "--out", filepath.Join(dir, "x"))
		if code != 2 || !strings.Contains(errs, "want 1 <= shard <= shards") {
			t.Errorf("--shards %s --shard %s: exit %d, stderr %q", bad[0], bad[1], code, errs)
		}
	}
	if code, _, errs := cli("compare", scen, "--shards", "2", "--shard", "1"); code != 2 || !strings.Contains(errs, "--shards needs --out") {
		t.Errorf("--shards without --out: exit %d, stderr %q", code, errs)
	}
}
