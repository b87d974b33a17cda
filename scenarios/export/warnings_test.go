package export

import (
	"testing"

	"github.com/stretchr/testify/require"
)

// One line per kind: the teams it concerns listed in the order met, each
// once though met on several instance types; the rest in the order met.
func TestAWarningOfManyTeamsIsOneLineListingThem(t *testing.T) {
	var w warnings
	w.add("policy.kind quota: approximated")
	w.team("a", ".lending_limit: lends all")
	w.team("b", ": borrowing without limit")
	w.team("a", ".lending_limit: lends all")
	w.team("c", ".lending_limit: lends all")
	w.team("b", ".weight %g: exported as %d", 0.5, 1)
	w.add("policy.kind quota: approximated")
	require.Equal(t, []string{
		"policy.kind quota: approximated",
		"teams[a, c].lending_limit: lends all",
		"teams[b]: borrowing without limit",
		"teams[b].weight 0.5: exported as 1",
	}, w.lines())

	// 40 teams with lending limits on four instance types each: 160
	// warnings before, two lines now.
	h, err := ToHyperPod(load(t, "../bench/stress/s3-deep-cohorts.yaml"), arn)
	require.NoError(t, err)
	require.Len(t, h.Warnings, 2)
	require.Regexp(t, `^teams\[team-001, team-002, .*, team-040\]\.lending_limit: HyperPod lends all of a team's idle quota or none; it lends all$`, h.Warnings[0])
	require.Equal(t, "cohorts[div-1]: HyperPod puts every team in one cohort; the nesting is dropped", h.Warnings[1])
}
