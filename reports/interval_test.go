package reports

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestEveryKeyHasTheBoundsOfItsQuantity(t *testing.T) {
	inf := math.Inf(1)
	for path, want := range map[string]Bounds{
		"wait_all_s.p95": {0, inf},
		"by_priority_class.production.wait_s.mean": {0, inf},
		"utilization.p95_bucket":                   {0, 1},
		"utilization.by_type.p5.48xlarge":          {0, 1},
		"jobs.unstarted_share":                     {0, 1},
		"goodput":                                  {0, 1},
		"fairness.jain":                            {0, 1},
		"by_team.*.usage_vs_entitled":              {0, inf},
		"preemptions":                              {0, inf},
		"cost.usd":                                 {0, inf},
		"fidelity.wait_s.mean_relative_error":      {-1, inf},
	} {
		assert.Equal(t, want, BoundsOf(path), path)
	}
	assert.Equal(t, Bounds{-1, 1}, BoundsOf("goodput").Diff(), "a difference of two shares")
}

// Three seeds of a p95 wait, one long: Student's t alone reaches below 0 s
// (-3,963 s .. 6,363 s); three seeds of a utilisation near its top reach
// above 100% (91.4% .. 104.6%).
func TestConfidenceIntervalsStopAtTheBoundsOfTheirQuantity(t *testing.T) {
	const t2 = 4.302652729911275 // Student's t, 97.5%, 2 degrees of freedom
	m, ci := MeanCI95(BoundsOf("wait_all_s.p95"), []float64{0, 0, 3600})
	assert.Equal(t, 1200.0, m)
	require.NotNil(t, ci)
	assert.Equal(t, 0.0, ci[0], "no wait is below 0 s")
	assert.InDelta(t, 1200+t2*1200, ci[1], 1e-6) // sd/sqrt(3) = 1200 s; gonum's t to 1e-10

	m, ci = MeanCI95(BoundsOf("utilization.p95_bucket"), []float64{0.99, 1.0, 0.95})
	assert.InDelta(t, 0.98, m, 1e-12)
	half := t2 * math.Sqrt(0.0007) / math.Sqrt(3)
	assert.InDelta(t, 0.98-half, ci[0], 1e-9)
	assert.InDelta(t, 0.914276, ci[0], 1e-6)
	assert.Equal(t, 1.0, ci[1], "no utilisation is above 100%")

	// Two seeds: Student's t alone gives 55% ± 63.5% (-8.5% .. 118.5%).
	_, ci = MeanCI95(BoundsOf("utilization.mean"), []float64{0.5, 0.6})
	assert.Equal(t, [2]float64{0, 1}, *ci, "cut at both ends")

	_, ci = MeanCI95(BoundsOf("wait_s.p95"), []float64{60})
	assert.Nil(t, ci, "one seed has no interval")
}

func TestAnIntervalCutAtABoundShowsBothEnds(t *testing.T) {
	cutWait := Stat{Mean: 1200, Lo: 0, Hi: 1200 + 4.302652729911275*1200}
	assert.Equal(t, "20.0 min (0.0 min .. 106.1 min)", FormatStat(cutWait, "wait_all_s.p95"))
	assert.Equal(t, "98.0% (91.4% .. 100.0%)", FormatStat(Stat{Mean: 0.98, Lo: 0.914276, Hi: 1}, "utilization.p95_bucket"))
	assert.Equal(t, "3.4 h ± 4.0 h", FormatStat(Stat{Mean: 3.4 * 3600, Lo: -0.6 * 3600, Hi: 7.4 * 3600}, "wait_all_s.p95"), "uncut: mean ± half")
	assert.Equal(t, "41.3% ± 2.3%", FormatStat(Stat{Mean: 0.413, Lo: 0.39, Hi: 0.436}, "utilization.p95_bucket"))
	assert.Equal(t, "−19.2 d ± 0.9 d", FormatDiff(Stat{Mean: -19.2 * 86400, Lo: -20.1 * 86400, Hi: -18.3 * 86400}, "wait_all_s.mean"))
	assert.Equal(t, "+52.2 pp (49.0 pp .. 100.0 pp)", FormatDiff(Stat{Mean: 0.522, Lo: 0.49, Hi: 1}, "utilization.p95_bucket"))
}

func TestAComparisonsIntervalsStayWithinTheirBounds(t *testing.T) {
	// A variant whose production wait is 0 s on two seeds and 3 h on the
	// third: its interval starts at 0 s, and its difference to another
	// variant is not cut (a difference of waits may take any sign).
	sum := func(seed uint64, wait, util float64) *Summary {
		return &Summary{Seed: seed, WaitAllS: WaitAllStats{P95: wait}, Utilization: Utilization{P95Bucket: util}}
	}
	c := &Comparison{Variants: []*VariantResult{
		{Name: "a", Summaries: []*Summary{sum(1, 100, 0.5), sum(2, 100, 0.5), sum(3, 100, 0.5)}},
		{Name: "b", Summaries: []*Summary{sum(1, 0, 0.99), sum(2, 0, 1), sum(3, 3*3600, 0.95)}},
	}}
	row, err := c.kpiRow("wait_all_s.p95", "wait", false)
	require.NoError(t, err)
	assert.Equal(t, 3600.0, row.Values[1].Mean)
	assert.Equal(t, 0.0, row.Values[1].Lo)
	assert.InDelta(t, 3600+4.302652729911275*3600, row.Values[1].Hi, 1e-6)
	assert.Less(t, row.Diffs[1].Lo, 0.0, "a difference may be negative")
	row, err = c.kpiRow("utilization.p95_bucket", "peak", true)
	require.NoError(t, err)
	assert.Equal(t, 1.0, row.Values[1].Hi)
}
