package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/reports"
	"github.com/stretchr/testify/require"
)

const planSmall = "testdata/plan-small.yaml"

func TestPlanJSONHasTheKeysOfTheSpec(t *testing.T) {
	code, out, errOut := cli("plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "2", "--json")
	require.Equal(t, 0, code, errOut)
	var m map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &m))
	for _, k := range []string{"fleet", "cost_usd_per_hour", "objectives", "seeds", "simulations", "grid_points"} {
		require.Contains(t, m, k)
	}
	require.Equal(t, map[string]any{"big": 3.0, "small": 4.0}, m["fleet"])
	require.Equal(t, []any{1.0, 2.0}, m["seeds"])
	o := m["objectives"].([]any)[0].(map[string]any)
	for _, k := range []string{"objective", "value", "ci95", "met"} {
		require.Contains(t, o, k)
	}
	require.Equal(t, "wait_all_s.p95 <= 2h", o["objective"])
	require.Len(t, o["ci95"], 2)
}

func TestPlanExitsOneWhenNoFleetInTheRangesMeetsTheObjectives(t *testing.T) {
	code, out, errOut := cli("plan", planSmall, "--vary", "big=0..2", "--vary", "small=0..2", "--seeds", "1")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, out, "NO fleet in the ranges meets every objective")
	require.Contains(t, out, "2 big + 2 small", "the largest fleet tried is shown")
	require.Contains(t, errOut, "no fleet in the ranges meets every objective")
}

func TestPlanWritesItsReportWithTheFrontierChart(t *testing.T) {
	dir := t.TempDir()
	code, _, errOut := cli("plan", planSmall, "--vary", "big=0..8", "--vary", "small=0..10", "--seeds", "2", "--out", dir)
	require.Equal(t, 0, code, errOut)
	var p reports.Plan
	data, err := os.ReadFile(filepath.Join(dir, reports.PlanFile))
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &p))
	require.Equal(t, 48.0, p.CostPerHour)
	svg, err := os.ReadFile(filepath.Join(dir, reports.ChartDir, "plan-frontier.svg"))
	require.NoError(t, err)
	require.Contains(t, string(svg), "chosen fleet")
	html, err := os.ReadFile(filepath.Join(dir, reports.ReportHTMLFile))
	require.NoError(t, err)
	require.Contains(t, string(html), "3 big &#43; 4 small")
}

func TestPlanRejectsBadFlagsNamingThem(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"", "--vary: name at least one instance type"},
		{"--vary big", `--vary "big": want TYPE=MIN..MAX`},
		{"--vary big=3..1", `--vary "big=3..1": want 0 <= MIN <= MAX`},
		{"--vary big=0..7/2", "MAX - MIN (7) is not a multiple of the step 2"},
		{"--vary p5.48xlarge=0..4", "the fleet of testdata/plan-small.yaml has no p5.48xlarge nodes"},
		{"--vary big=0..4 --vary big=1..2", "big is varied twice"},
		{"--vary big=0..4 --objective nonsense", "--objective: objective \"nonsense\""},
		{"--vary big=0..4 --quotas some", `--quotas "some": want scale or keep`},
		{"--vary big=0..4 --spot-share 20%", "--spot-share needs --spot-discount"},
		{"--vary big=0..4 --discount 120%", `--discount "120%": want a percentage`},
		{"--vary big=0..4 --demand-growth 15%/year", "want a percentage per quarter"},
		{"--vary big=0..4 --price big=x", `--price "big=x": want TYPE=USD`},
	} {
		args := append([]string{"plan", planSmall}, strings.Fields(c.args)...)
		code, _, errOut := cli(args...)
		require.Equal(t, 2, code, c.args)
		require.Contains(t, errOut, c.want, c.args)
	}
}

// The README's example (scenarios/amazon-search.yaml, both types varied
// from 0, 3 seeds): its frontier holds the answer and, for every other
// fleet on it, the objective it misses and its value.
func TestPlanOnTheReadmeExampleSaysWhatEachFrontierFleetMisses(t *testing.T) {
	if testing.Short() {
		t.Skip("76 fleets on 3 seeds: about 20 s on two cores")
	}
	// Beside the tests that wait on a control plane (TestKueueDifferential
	// most), not before them.
	t.Parallel()
	dir := t.TempDir()
	code, out, errOut := cli("plan", "../../scenarios/amazon-search.yaml", "--vary", "p5.48xlarge=0..120", "--vary", "p4d.24xlarge=0..300", "--out", dir)
	require.Equal(t, 0, code, errOut)
	var p reports.Plan
	require.NoError(t, json.Unmarshal([]byte(mustRead(t, filepath.Join(dir, reports.PlanFile))), &p))
	require.Equal(t, map[string]int{"p5.48xlarge": 1, "p4d.24xlarge": 204}, p.Fleet)
	answers := 0
	for _, f := range p.Frontier {
		if f.Answer {
			answers++
			require.Equal(t, p.Fleet, f.Fleet)
		}
		require.Equal(t, f.Met, len(f.Misses) == 0, "%v", f.Fleet)
		for _, m := range f.Misses {
			require.Contains(t, m.MissedSeeds, m.Seed)
			require.Less(t, m.Margin, 0.0)
		}
	}
	require.Equal(t, 1, answers)
	for _, want := range []string{
		"4,479.36       0 p5.48xlarge + 204 p4d.24xlarge                                         30 s                                                 utilization.p95_bucket >= 80% missed on seed 3: 76.8%, 3.2 pp short",
		"4,534.40       1 p5.48xlarge + 204 p4d.24xlarge                                        2.9 h                                                                                   the answer: meets every objective",
		"by_priority_class.production.wait_all_s.p95 <= 6h  2.9 h    0 s .. 8.8 h   3.1 h (-2.8 h .. 6 h)",
		"warning: the search settled on 2 p5.48xlarge + 204 p4d.24xlarge; 1 p5.48xlarge + 204 p4d.24xlarge, one step cheaper, meets every objective too and is the answer",
	} {
		require.Contains(t, out, want)
	}
	require.Equal(t, "wrote "+dir+"/{plan.json,report.md,report.html,charts/}\n", errOut)
}
