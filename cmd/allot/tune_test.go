package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/stretchr/testify/require"
)

func TestTuneFindsASettingAtLeastAsGoodAsTheShippedOneMeetingEveryConstraint(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "tuned.yaml")
	code, stdout, errOut := cli("tune", planSmall, "--maximize", "utilization.mean", "--param", "teams[b].weight=1..4",
		"--param", "teams[*].borrow_limit=0%..100%", "--seeds", "2", "--rounds", "4", "-o", out, "--json", "--out", filepath.Join(dir, "report"))
	require.Equal(t, 0, code, errOut)
	var r search.TuneResult
	require.NoError(t, json.Unmarshal([]byte(stdout), &r))
	require.True(t, r.Found)
	require.Equal(t, "teams[b].weight", r.Settings[0].Path)
	require.Equal(t, "4", r.Settings[0].Value)
	require.Equal(t, "88%", r.Settings[1].Value)
	require.GreaterOrEqual(t, r.Tuned.Value, r.Shipped.Value)
	for _, c := range r.Constraints {
		require.True(t, c.TunedMet, c.Objective)
	}
	require.Equal(t, "jobs.unstarted_share <= 1%", r.Constraints[len(r.Constraints)-1].Objective)
	require.Equal(t, 9, r.Candidates)
	require.Equal(t, 3, r.Rounds)
	require.Equal(t, 2*r.Candidates+4, r.Simulations, "every candidate on both seeds, then shipped and tuned again")
	for _, f := range []string{"tune.json", "comparison.json", "report.html"} {
		_, err := os.Stat(filepath.Join(dir, "report", f))
		require.NoError(t, err, f)
	}

	// The tuned file drives sim and compare as it is.
	code, stdout, errOut = cli("sim", planSmall, "--policy", out, "--json")
	require.Equal(t, 0, code, errOut)
	var sum map[string]any
	require.NoError(t, json.Unmarshal([]byte(stdout), &sum))
	code, _, errOut = cli("compare", planSmall, "--policy", out, "--seeds", "2")
	require.Equal(t, 0, code, errOut)
	data, err := os.ReadFile(out)
	require.NoError(t, err)
	require.Contains(t, string(data), "#   teams[b].weight = 4")
	require.NotContains(t, string(data), "workload:")
}

func TestTunedPolicyFileDrivesALiveDaemonAsItIs(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "tuned.yaml")
	code, _, errOut := cli("tune", planSmall, "--maximize", "utilization.mean", "--param", "teams[b].weight=1..2", "--seeds", "1", "--rounds", "1", "-o", out)
	require.Equal(t, 0, code, errOut)
	d := newDaemon(t, out)
	id := d.submit("b", "normal", 2, "STEPS=2")
	v := d.waitState(id, "succeeded", 30*time.Second)
	require.Equal(t, "b", v.Team)
}

func TestTuneExitsOneWhenNoCandidateMeetsTheConstraints(t *testing.T) {
	code, stdout, errOut := cli("tune", planSmall, "--maximize", "utilization.mean", "--param", "teams[b].weight=1..2",
		"--objective", "wait_all_s.p95 <= 1s", "--seeds", "1", "--rounds", "2")
	require.Equal(t, 1, code, errOut)
	require.Contains(t, stdout, "NO candidate meets every constraint")
	require.Contains(t, errOut, "no candidate meets every constraint on every seed")
}

func TestTuneRejectsBadFlagsNamingThem(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{"--param teams[b].weight=1..2", "give one of --maximize KEY or --minimize KEY"},
		{"--maximize goodput", "--param: name at least one setting"},
		{"--maximize goodput --param teams[b].weight", `--param "teams[b].weight": want PATH=MIN..MAX`},
		{"--maximize goodput --param teams[b].weight=4..1", "MAX is below MIN"},
		{"--maximize goodput --param teams[b].weight=1..2h", "MIN and MAX must be in the same units"},
		{"--maximize goodput --param teams[zz].weight=1..2", `no item of teams is named "zz"`},
		{"--maximize goodput --param teams[b].weight=-1..1", "testdata/plan-small.yaml:14: teams[b].weight: must be >= 0, got -1"},
		{"--maximize goodput --param policy.kind=quota|bogus", `testdata/plan-small.yaml:18: policy.kind: "bogus" is not one of fifo, priority, fairshare, quota`},
	} {
		args := append([]string{"tune", planSmall}, strings.Fields(c.args)...)
		code, _, errOut := cli(args...)
		require.Equal(t, 2, code, c.args)
		require.Contains(t, errOut, c.want, c.args)
	}
}
