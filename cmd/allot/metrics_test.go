package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/reports"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// starving writes a one-accelerator fleet for 15 h: team a's A (0 h, 10 h
// long) runs at once, a's B (1 h) waits 9 h for it, b's C (2 h) never starts.
// Team b has no quota: entitled to nothing, it has no usage_vs_entitled.
func starving(t *testing.T, objectives string) string {
	t.Helper()
	dir := t.TempDir()
	writeFile(t, dir, "jobs.csv", `
job_id,submit_time,team,accelerators,duration_s
A,0,a,1,36000
B,3600,a,1,36000
C,7200,b,1,36000
`)
	return writeFile(t, dir, "s.yaml", `
name: starving
fleet:
  instance_types: [{name: one, accelerators: 1, vcpus: 8, memory_gib: 64}]
  nodes: [{type: one, count: 1}]
teams: [{name: a, quota: {one: 1}}, {name: b}]
policy: {kind: fifo, reservations: none}
workload: {trace: jobs.csv}
sim: {horizon: 15h, warmup: 0s}
`+objectives)
}

func TestWaitAllCountsNeverStartedJobsUpToTheHorizon(t *testing.T) {
	s := simulate(t, starving(t, ""), "", 0, false).sum
	h := 3600.0
	assert.Equal(t, reports.WaitStats{Mean: 4.5 * h, P50: 0, P95: 9 * h, P99: 9 * h, Max: 9 * h}, s.WaitS, "wait_s: A and B only")
	assert.Equal(t, reports.WaitAllStats{Mean: 22.0 / 3 * h, P50: 9 * h, P95: 13 * h, P99: 13 * h, Max: 13 * h, Unstarted: 1}, s.WaitAllS,
		"wait_all_s: C counts 15 h - 2 h")
	assert.InDelta(t, 1.0/3, s.Jobs.UnstartedShare, 1e-12)
	assert.Equal(t, reports.ShortWaitAll{Mean: 13 * h, P95: 13 * h, Max: 13 * h, Unstarted: 1}, s.ByTeam["b"].WaitAllS)
	assert.Equal(t, reports.ShortWait{}, s.ByTeam["b"].WaitS, "b never started a job")
	assert.Equal(t, reports.ShortWaitAll{Mean: 22.0 / 3 * h, P95: 13 * h, Max: 13 * h, Unstarted: 1}, s.ByPriorityClass["none"].WaitAllS)
	require.NotNil(t, s.ByTeam["a"].UsageVsEntitled)
	assert.InDelta(t, 1.0, *s.ByTeam["a"].UsageVsEntitled, 1e-12, "a held the fleet all along and is entitled to all of it")
	assert.Nil(t, s.ByTeam["b"].UsageVsEntitled, "entitled to nothing: absent")
}

func TestSimExitsOneWhenAnObjectiveIsNotMetAfterPrintingEverything(t *testing.T) {
	p := starving(t, `objectives:
  - "jobs.unstarted_share <= 1%"
  - "by_team.*.wait_all_s.p95 <= 14h"
  - "by_team.*.usage_vs_entitled >= 0.8"
`)
	code, out, errs := cli("sim", p, "--json")
	require.Equal(t, exitProblem, code, errs)
	var s reports.Summary
	require.NoError(t, json.Unmarshal([]byte(out), &s), "the whole summary is printed before the exit")
	require.Len(t, s.Objectives, 3)
	assert.Equal(t, reports.ObjectiveResult{Objective: "jobs.unstarted_share <= 1%", Value: 1.0 / 3, Met: false,
		Path: "jobs.unstarted_share", Op: "<=", Target: 0.01}, s.Objectives[0])
	assert.Equal(t, "by_team.b.wait_all_s.p95", s.Objectives[1].At, "a wildcard is judged on its worst match")
	assert.Equal(t, 13*3600.0, s.Objectives[1].Value)
	assert.True(t, s.Objectives[1].Met)
	assert.Equal(t, "by_team.a.usage_vs_entitled", s.Objectives[2].At, "b has no usage_vs_entitled and is skipped")
	assert.True(t, s.Objectives[2].Met)
	assert.Equal(t, "allot: 1 of 3 objectives not met: jobs.unstarted_share <= 1%\n", errs)

	code, out, _ = cli("sim", p)
	assert.Equal(t, exitProblem, code)
	assert.Contains(t, out, "share of jobs never started 33.3% ≤ 1%: NOT met")
	assert.Contains(t, out, "every team's p95 wait (all jobs) 13 h ≤ 14 h: met (worst: by_team.b.wait_all_s.p95)")
	assert.Contains(t, out, "warning: 33.3% of the window's jobs (1 of 3) never started")

	met := starving(t, "objectives: [\"by_team.a.wait_all_s.max <= 9h\"]\n")
	code, _, errs = cli("sim", met)
	assert.Equal(t, exitOK, code, errs)
}

func TestCompareShowsWaitsOverAllJobsAndWarnsOfAPolicyThatStarvesJobs(t *testing.T) {
	code, out, errs := cli("compare", filepath.Join("..", "..", "scenarios", "amazon-search.yaml"), "--policy", "fifo", "--policy", "quota", "--seeds", "2")
	require.Equal(t, exitOK, code, "compare reports objectives and exits 0: %s", errs)
	for _, row := range []string{"wait, p95 (all jobs), production", "jobs never started", "utilisation, peak (p95 bucket)",
		"goodput", "USD per useful accelerator-hour", "share of jobs never started ≤ 1%"} {
		assert.Contains(t, out, row)
	}
	assert.Contains(t, out, "warning: fifo never started")
	assert.NotContains(t, out, "warning: quota")
	assert.Regexp(t, `utilisation, mean +[0-9.]+% ± [0-9.]+% +[0-9.]+% ± [0-9.]+% +\+[0-9.]+ pp ± [0-9.]+ pp`, out, "differences of fractions in percentage points")
	assert.LessOrEqual(t, strings.Count(out, "\n"), 30, "the demo's story fits one screen:\n%s", out)
}

func TestVersionPrintsNameVersionAndCommit(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, errs := cli(args...)
		require.Equal(t, exitOK, code, errs)
		assert.Regexp(t, `^allot \S+ \(\S+\)\n$`, out, "%v", args)
	}
}

func TestOutDirectoryIsNamedWithOneSlash(t *testing.T) {
	dir := t.TempDir() + "/"
	code, _, errs := cli("sim", starving(t, ""), "--out", dir)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, errs, "wrote "+dir+"{summary.json,")
	assert.NotContains(t, errs, "//")
}

func TestReplayTraceMissingSaysToRunMakeTraces(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "replay"), 0o755))
	body := mustRead(t, filepath.Join("..", "..", "scenarios", "replay", "philly.yaml"))
	p := writeFile(t, filepath.Join(dir, "replay"), "philly.yaml", body)
	code, _, errs := cli("sim", p)
	assert.Equal(t, exitBadInput, code)
	assert.Contains(t, errs, "make traces")
}

func TestTraceImportWithoutScenarioWritesTheTraceAlone(t *testing.T) {
	shared := filepath.Join("..", "..", "..", "shared", "traces", "alibaba-gpu-v2025-dlrm", "disaggregated_DLRM_trace.csv")
	if _, err := os.Stat(shared); err != nil {
		t.Skipf("needs the public traces at %s (../shared is not beside the repository)", shared)
	}
	dir := t.TempDir()
	code, _, errs := cli("trace", "import", "--no-scenario", "--format", "alibaba-dlrm", shared, "-o", filepath.Join(dir, "dlrm.parquet"))
	require.Equal(t, exitOK, code, errs)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.Len(t, entries, 1)
	assert.Equal(t, "dlrm.parquet", entries[0].Name())
	assert.NotContains(t, errs, "run it with")
}

func TestCatalogTableNamesItsSources(t *testing.T) {
	code, out, errs := cli("catalog")
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "SOURCES")
	assert.Contains(t, out, "p5.48xlarge: price, vCPU, memory:")
}

func TestTraceStatsHistogramsHaveColumnHeaders(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "jobs.parquet")
	code, _, errs := cli("trace", "gen", filepath.Join("..", "..", "scenarios", "amazon-search.yaml"), "-o", p)
	require.Equal(t, exitOK, code, errs)
	code, out, errs := cli("trace", "stats", p)
	require.Equal(t, exitOK, code, errs)
	assert.Regexp(t, `(?m)^ +accelerators +jobs +share$`, out)
	assert.Regexp(t, `(?m)^ +from +jobs +accelerator-hours$`, out)
}

func TestOutputsTheReadmeWritesAreIgnoredByGit(t *testing.T) {
	root := filepath.Join("..", "..")
	if _, err := os.Stat(filepath.Join(root, ".git")); err != nil {
		t.Skip("not a git checkout")
	}
	for _, p := range []string{"jobs.parquet", "openb.parquet", "out/summary.json", "cmp/comparison.json", "bin/allot", "scenarios/replay/traces/openb.parquet"} {
		cmd := exec.Command("git", "check-ignore", "-q", p)
		cmd.Dir = root
		assert.NoError(t, cmd.Run(), "%s is not ignored by .gitignore", p)
	}
}

func TestReplayFidelityIsInTheTextSummary(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "jobs.csv", `
job_id,submit_time,team,accelerators,duration_s,orig_start_time,orig_end_time
A,0,a,1,3600,0,3600
B,600,a,1,3600,3600,7200
`)
	p := writeFile(t, dir, "s.yaml", `
name: replayed
fleet:
  instance_types: [{name: one, accelerators: 1, vcpus: 8, memory_gib: 64}]
  nodes: [{type: one, count: 1}]
teams: [{name: a, quota: {one: 1}}]
policy: {kind: fifo}
workload: {trace: jobs.csv}
sim: {horizon: 1d, warmup: 0s}
`)
	code, out, errs := cli("sim", p)
	require.Equal(t, exitOK, code, errs)
	assert.Contains(t, out, "\nreplay fidelity\n  Jobs compared: 2 (those with original start and end times).\n")
	assert.Contains(t, out, "Wait: original mean 25.0 min, simulated 25.0 min")
}
