package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/sim/planner"
	"github.com/stretchr/testify/require"
)

const planSmall = "testdata/plan-small.yaml"

func smallPlanner(t *testing.T, extra ...func(*planFlags)) *fleetPlanner {
	t.Helper()
	f := &planFlags{vary: []string{"big=0..8", "small=0..10"}, seeds: 2, width: 4, quotas: "scale", spotReplace: "1h"}
	for _, e := range extra {
		e(f)
	}
	pl, err := newFleetPlanner(planSmall, f)
	require.NoError(t, err)
	pl.progress = newProgress(nil, true, "")
	return pl
}

func TestPlanFindsTheBruteForceOptimumOfASmallGrid(t *testing.T) {
	pl := smallPlanner(t)
	sp := pl.space(nil)
	p, err := pl.plan(pl.base, sp)
	require.NoError(t, err)
	require.True(t, p.Found)

	// Every fleet of the 9 x 11 grid, simulated on the same seeds.
	brute := smallPlanner(t)
	known := map[string]*fleetRun{}
	_, err = brute.evaluate(brute.base, sp.Grid(), known)
	require.NoError(t, err)
	want, ok := sp.Cheapest(sp.Grid(), func(q planner.Point) bool { return known[pointKey(q)].unmet() == 0 })
	require.True(t, ok)
	require.Equal(t, brute.fleetOf(want), p.Fleet)
	require.Equal(t, map[string]int{"big": 3, "small": 4}, p.Fleet)
	require.Equal(t, 48.0, p.CostPerHour)
	require.Equal(t, 99, p.GridPoints)
	require.Equal(t, 2*p.Fleets, p.Simulations)
	require.Less(t, p.Fleets, 99/4, "the search simulates under a quarter of the grid")
}

func TestPlanChecksTheFleetsOneStepCheaperThanItsAnswer(t *testing.T) {
	pl := smallPlanner(t)
	s, known, err := pl.search(pl.base, pl.space(nil))
	require.NoError(t, err)
	best, _ := s.Best()
	for _, q := range pl.space(nil).Neighbours(best) {
		r, ok := known[pointKey(q)]
		require.True(t, ok, "%v simulated", q)
		require.NotZero(t, r.unmet(), "%v, cheaper, misses an objective", q)
	}
}

func TestPlanRequiresEveryJobToStartUnlessAllowed(t *testing.T) {
	pl := smallPlanner(t)
	require.Equal(t, "jobs.unstarted_share <= 1%", pl.objs[len(pl.objs)-1].Text)
	require.Equal(t, []string{steerCapacity, steerUtilization, steerCapacity}, pl.steers)
	pl = smallPlanner(t, func(f *planFlags) { f.anyStarved = true })
	require.Len(t, pl.objs, 2)
}

func TestPlanFleetWithoutATypeAClassNeedsMissesEveryObjectiveUnsimulated(t *testing.T) {
	pl := smallPlanner(t)
	// a-jobs asks for 4 accelerators: only big nodes hold it, but a
	// fleet of no big nodes still lists small for the class; no class has
	// no type left, so both are simulated.
	known := map[string]*fleetRun{}
	runs, err := pl.evaluate(pl.base, []planner.Point{{0, 4}}, known)
	require.NoError(t, err)
	require.Equal(t, 1, pl.fleets)
	require.False(t, runs[0].verdict(pl.steers).Capacity, "4-accelerator jobs never start on 2-accelerator nodes")
}

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

func TestPlanGrowthAddsNodesOnlyWhenTheFleetStopsMeetingTheObjectives(t *testing.T) {
	pl := smallPlanner(t, func(f *planFlags) { f.scales = "1,1.5,2" })
	p, err := pl.growthPlan()
	require.NoError(t, err)
	require.Len(t, p.Quarters, 3)
	q := p.Quarters
	require.True(t, q[0].Met)
	for typ, n := range q[0].Add {
		require.Zero(t, n, "Q0 adds no %s", typ)
	}
	require.Equal(t, map[string]int{"big": 4, "small": 4}, q[0].Fleet)
	for i := 1; i < len(q); i++ {
		require.False(t, q[i].Met, "Q%d: the fleet before misses at demand ×%g", i, q[i].DemandScale)
		for typ, n := range q[i].Fleet {
			require.GreaterOrEqual(t, n, q[i-1].Fleet[typ], "Q%d never sells %s nodes", i, typ)
			require.Equal(t, n-q[i-1].Fleet[typ], q[i].Add[typ])
		}
		require.Greater(t, q[i].CostPerHour, q[i-1].CostPerHour)
	}
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

func TestPlanPricesSpotNodesAndModelsTheirInterruptions(t *testing.T) {
	pl := smallPlanner(t, func(f *planFlags) {
		f.spotShare, f.spotOff, f.spotMTBF = "50%", "60%", "2d"
	})
	// big: half at 10, half at 4 (60% off): 7 per node-hour.
	require.Equal(t, 7.0, pl.price["big"])
	require.InDelta(t, 3.15, pl.price["small"], 1e-12) // (4.5 + 1.8) / 2
	sc, err := pl.base.WithFleet(map[string]int{"big": 3, "small": 4}, pl.rule)
	require.NoError(t, err)
	sc, err = sc.WithSpotShare(pl.spot, pl.spotFail)
	require.NoError(t, err)
	fails := sc.Fleet.NodeFailures("big")
	require.Len(t, fails, 3)
	require.False(t, fails[0].Enabled(), "1 on-demand node never fails (the fleet has no failures)")
	require.Equal(t, 2*86400.0, fails[1].MTBF, "round(1.5) = 2 spot nodes")
	require.Equal(t, 3600.0, fails[2].Repair)
	r := simulateScenario(t, sc, 1, false)
	require.Positive(t, r.sum.NodeFailures, "spot nodes are interrupted")
}
