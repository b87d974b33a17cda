package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// twoTeamsWith is docs/examples/two-teams.yaml with text replaced, written
// to a temporary file.
func twoTeamsWith(t *testing.T, old, new string) string {
	t.Helper()
	src := mustRead(t, "../../docs/examples/two-teams.yaml")
	require.Contains(t, src, old)
	p := filepath.Join(t.TempDir(), "s.yaml")
	require.NoError(t, os.WriteFile(p, []byte(strings.Replace(src, old, new, 1)), 0o644))
	return p
}

func TestSimRejectsAMisspeltObjectivePathBeforeSimulating(t *testing.T) {
	p := twoTeamsWith(t, "sim: {", "objectives:\n  - \"jobs.unstarted_share <= 1%\"\n  - \"utilisation.p95_bucket >= 80%\"\nsim: {")
	code, out, errOut := cli("sim", p)
	require.Equal(t, 2, code)
	require.Empty(t, out, "nothing simulated, nothing printed")
	require.Equal(t, p+`:33: objectives[1]: objective "utilisation.p95_bucket >= 80%": "utilisation.p95_bucket" is not a number of the run summary (docs/summary.md); did you mean "utilization.p95_bucket"?`+"\n", errOut)
}

func TestPlanAndTuneCheckTheKeysTheirFlagsName(t *testing.T) {
	code, _, errOut := cli("plan", planSmall, "--vary", "big=0..2", "--objective", "wait_all_s.p59 <= 1h")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--objective: objective "wait_all_s.p59 <= 1h": "wait_all_s.p59" is not a number of the run summary (docs/summary.md); did you mean "wait_all_s.p50"?`)
	code, _, errOut = cli("tune", planSmall, "--param", "teams[a].weight=1..2", "--maximize", "utilisation.mean")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `--maximize: "utilisation.mean" is not a number of the run summary (docs/summary.md); did you mean "utilization.mean"?`)
}

// Compared under two policies, a scenario whose quota exceeds its fleet is
// warned of once, naming the team, the type and both figures.
func TestAQuotaBeyondTheFleetIsWarnedOfOnce(t *testing.T) {
	p := twoTeamsWith(t, "{name: prod, quota: {p5.48xlarge: 24}", "{name: prod, quota: {p5.48xlarge: 40}")
	code, _, errOut := cli("compare", p, "--policy", "fifo", "--policy", "quota", "--seeds", "1")
	require.Equal(t, 0, code, errOut)
	require.Equal(t, "warning: "+p+":7: teams[prod].quota.p5.48xlarge: team prod's quota of 40 p5.48xlarge accelerators is more than the fleet's 32 (4 nodes of 8): it can never be used in full\n", errOut)
}
