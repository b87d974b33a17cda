package reports

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestObjectivesReadInTheirOwnUnits(t *testing.T) {
	cases := []struct {
		r    ObjectiveResult
		want string
	}{
		{ObjectiveResult{Path: "by_priority_class.production.wait_all_s.p95", Op: "<=", Target: 6 * 3600, Value: 7454, Met: true},
			"production p95 wait (all jobs) 2.1 h ≤ 6 h: met"},
		{ObjectiveResult{Path: "utilization.p95_bucket", Op: ">=", Target: 0.8, Value: 0.918, Met: true},
			"peak utilisation 91.8% ≥ 80%: met"},
		{ObjectiveResult{Path: "jobs.unstarted_share", Op: "<=", Target: 0.01, Value: 0.6913, Met: false},
			"share of jobs never started 69.1% ≤ 1%: NOT met"},
		{ObjectiveResult{Path: "wait_all_s.unstarted", Op: "<", Target: 10, Value: 2500, Met: false},
			"jobs never started 2,500 < 10: NOT met"},
		{ObjectiveResult{Path: "by_team.*.usage_vs_entitled", Op: ">=", Target: 0.8, Value: 0.35, At: "by_team.sweeps.usage_vs_entitled"},
			"every team's usage vs entitled 0.35 ≥ 0.8: NOT met (worst: by_team.sweeps.usage_vs_entitled)"},
		{ObjectiveResult{Path: "cost.usd", Op: "<=", Target: 1e6, Value: 7554494.4},
			"cost $7,554,494.40 ≤ $1,000,000.00: NOT met"},
		{ObjectiveResult{Path: "wait_s.p95", Op: "<=", Target: 60, Error: "wait_s.p95: no key"},
			"p95 wait ≤ 60 s: NOT met (wait_s.p95: no key)"},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, FormatObjective(c.r))
	}
}

func TestNumbersReadAsAPersonWritesThem(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 999: "999", 1000: "1,000", -1234567.5: "-1,234,568", 38645: "38,645"} {
		assert.Equal(t, want, Thousands(x, 0))
	}
	for s, want := range map[float64]string{0: "0 s", 64.04: "64 s", 119: "119 s", 750: "12.5 min", 3600: "1 h", 5400: "1.5 h", 7454: "2.1 h", 6 * 3600: "6 h",
		3033521.9: "35.1 d", 400 * 86400: "400 d", 4000 * 86400: "4,000 d"} {
		assert.Equal(t, want, HumanDuration(s), "%g s", s)
	}
}

func TestWildcardPathsMatchEveryKeyThatHasTheRest(t *testing.T) {
	lo, hi := 0.5, 1.2
	s := &Summary{ByTeam: map[string]TeamStats{"x": {UsageVsEntitled: &lo}, "y": {UsageVsEntitled: &hi}, "z": {}}}
	vs, err := LookupAll(s, "by_team.*.usage_vs_entitled")
	require.NoError(t, err)
	assert.Equal(t, []PathValue{{"by_team.x.usage_vs_entitled", 0.5}, {"by_team.y.usage_vs_entitled", 1.2}}, vs, "z has none: skipped")
	assert.Equal(t, vs[0], Worst(vs, ">="))
	assert.Equal(t, vs[1], Worst(vs, "<="))

	_, err = LookupAll(s, "by_team.z.usage_vs_entitled")
	assert.ErrorContains(t, err, `no key "usage_vs_entitled"`, "a plain path must exist")
	_, err = LookupAll(s, "by_team.*.no_such_key")
	assert.ErrorContains(t, err, "no key of the run summary matches")
	_, err = Lookup(s, "by_team.*.usage_vs_entitled")
	assert.ErrorContains(t, err, "wildcard")
}

func TestAnObjectiveMetOnSomeSeedsNamesTheSeedsItMissed(t *testing.T) {
	for _, c := range []struct {
		o    VariantObjective
		n    int
		want string
	}{
		{VariantObjective{Met: true, MetSeeds: 5}, 5, "met"},
		{VariantObjective{MetSeeds: 4, MissedSeeds: []uint64{3}}, 5, "met on 4 of 5 seeds; not met on seed 3"},
		{VariantObjective{MetSeeds: 3, MissedSeeds: []uint64{2, 5}}, 5, "met on 3 of 5 seeds; not met on seeds 2 and 5"},
		{VariantObjective{MetSeeds: 2, MissedSeeds: []uint64{1, 2, 5}}, 5, "met on 2 of 5 seeds; not met on seeds 1, 2 and 5"},
		{VariantObjective{MissedSeeds: []uint64{1, 2, 3, 4, 5}}, 5, "not met on any of 5 seeds"},
		{VariantObjective{MissedSeeds: []uint64{1}}, 1, "not met"},
	} {
		assert.Equal(t, c.want, c.o.Verdict(c.n))
	}
}
