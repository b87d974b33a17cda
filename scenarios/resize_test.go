package scenarios

import (
	"strings"
	"testing"

	"github.com/allot-sim/allot/hardware"
	"github.com/stretchr/testify/require"
)

const resizeBase = `name: resize
fleet:
  nodes:
    - {type: p5.48xlarge, count: 6}
    - {type: p5.48xlarge, count: 2}
    - {type: p4d.24xlarge, count: 4}
cohorts:
  - {name: org, quota: {p4d.24xlarge: 8}}
teams:
  - {name: a, cohort: org, quota: {p5.48xlarge: 40, p4d.24xlarge: 12}}
  - {name: b, cohort: org, quota: {p5.48xlarge: 24}}
priority_classes:
  - {name: normal, value: 1}
policy: {kind: quota}
workload:
  synthetic:
    count: 1000
    classes:
      - {name: a-jobs, team: a, priority_class: normal, arrival: {rate_per_hour: 2}, duration: {dist: fixed, value: 1h}, accelerators: 8, instance_types: [p5.48xlarge, p4d.24xlarge]}
      - {name: b-jobs, team: b, priority_class: normal, arrival: {rate_per_hour: 3}, duration: {dist: fixed, value: 1h}, accelerators: 8, instance_types: [p4d.24xlarge]}
sim: {horizon: 2d}
`

func TestResizedFleetScalesQuotasWithTheirType(t *testing.T) {
	s, err := Parse("resize.yaml", []byte(resizeBase))
	require.NoError(t, err)
	r, err := s.WithFleet(map[string]int{"p5.48xlarge": 4}, QuotasScale)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"p5.48xlarge": 4, "p4d.24xlarge": 4}, r.NodeCounts())
	// Half the P5 nodes: half of each P5 quota; P4d untouched.
	require.Equal(t, 20.0, r.Teams[0].Quota["p5.48xlarge"].Accelerators)
	require.Equal(t, 12.0, r.Teams[1].Quota["p5.48xlarge"].Accelerators)
	require.Equal(t, 12.0, r.Teams[0].Quota["p4d.24xlarge"].Accelerators)
	require.Equal(t, 8.0, r.Cohorts[0].Quota["p4d.24xlarge"].Accelerators)

	r, err = s.WithFleet(map[string]int{"p5.48xlarge": 11, "p4d.24xlarge": 3}, QuotasScale)
	require.NoError(t, err)
	require.Equal(t, []hardware.NodeGroup{{Type: "p5.48xlarge", Count: 6}, {Type: "p5.48xlarge", Count: 5}, {Type: "p4d.24xlarge", Count: 3}}, r.Fleet.Groups,
		"the last group of a type takes the difference")
	require.Equal(t, 55.0, r.Teams[0].Quota["p5.48xlarge"].Accelerators, "40 x 11/8")
	require.Equal(t, 9.0, r.Teams[0].Quota["p4d.24xlarge"].Accelerators, "12 x 3/4")
	require.Equal(t, 6.0, r.Cohorts[0].Quota["p4d.24xlarge"].Accelerators, "8 x 3/4")

	r, err = s.WithFleet(map[string]int{"p5.48xlarge": 4}, QuotasKeep)
	require.NoError(t, err)
	require.Equal(t, 40.0, r.Teams[0].Quota["p5.48xlarge"].Accelerators)
}

func TestAFleetWithoutATypeDropsItsQuotasAndMentions(t *testing.T) {
	s, err := Parse("resize.yaml", []byte(resizeBase))
	require.NoError(t, err)
	r, err := s.WithFleet(map[string]int{"p5.48xlarge": 0}, QuotasScale)
	require.NoError(t, err)
	require.Equal(t, map[string]int{"p4d.24xlarge": 4}, r.NodeCounts())
	require.NotContains(t, r.Teams[0].Quota, "p5.48xlarge")
	require.Equal(t, []string{"p4d.24xlarge"}, r.Synthetic.Classes[0].InstanceTypes)

	_, err = s.WithFleet(map[string]int{"p4d.24xlarge": 0}, QuotasScale)
	require.ErrorIs(t, err, ErrFleetTooSmall)
	require.ErrorContains(t, err, "workload class b-jobs runs only on p4d.24xlarge, and the fleet has none")
}

func TestScaledDemandMultipliesRatesAndCount(t *testing.T) {
	s, err := Parse("resize.yaml", []byte(resizeBase))
	require.NoError(t, err)
	r, err := s.WithDemandScale(1.5)
	require.NoError(t, err)
	require.Equal(t, 3.0, r.Synthetic.Classes[0].Arrival.RatePerHour)
	require.Equal(t, 4.5, r.Synthetic.Classes[1].Arrival.RatePerHour)
	require.Equal(t, 1500, r.Synthetic.Count)
	require.Equal(t, 2.0, s.Synthetic.Classes[0].Arrival.RatePerHour, "the original is untouched")
	_, err = s.WithDemandScale(0)
	require.EqualError(t, err, "demand scale must be > 0, got 0")
}

func TestSpotShareIsAGroupOfEachTypeWithItsOwnInterruptions(t *testing.T) {
	s, err := Parse("resize.yaml", []byte(resizeBase))
	require.NoError(t, err)
	spot := hardware.Failures{MTBF: 10 * 86400, Repair: 3600}
	r, err := s.WithSpotShare(0.25, spot)
	require.NoError(t, err)
	require.Equal(t, []hardware.NodeGroup{{Type: "p5.48xlarge", Count: 6}, {Type: "p4d.24xlarge", Count: 3},
		{Type: "p5.48xlarge", Count: 2, Failures: &spot}, {Type: "p4d.24xlarge", Count: 1, Failures: &spot}}, r.Fleet.Groups)
	require.Equal(t, map[string]int{"p5.48xlarge": 8, "p4d.24xlarge": 4}, r.NodeCounts())
	nf := r.Fleet.NodeFailures("p5.48xlarge")
	require.Len(t, nf, 8)
	require.False(t, nf[5].Enabled())
	require.Equal(t, spot, nf[6])
	require.Nil(t, s.Fleet.NodeFailures("p5.48xlarge"), "no group has its own model")
	_, err = s.WithSpotShare(0.25, hardware.Failures{})
	require.ErrorContains(t, err, "needs an interruption rate")
}

func TestNodeGroupFailuresNeedBothKeys(t *testing.T) {
	for _, c := range []struct{ group, path string }{
		{"{type: p4d.24xlarge, count: 4, failures: {repair_time: 1h}}", "fleet.nodes[2].failures.node_mtbf"},
		{"{type: p4d.24xlarge, count: 4, failures: {node_mtbf: 20d}}", "fleet.nodes[2].failures.repair_time"},
	} {
		data := []byte(replaceOnce(resizeBase, "{type: p4d.24xlarge, count: 4}", c.group))
		_, err := Parse("resize.yaml", data)
		require.ErrorContains(t, err, "resize.yaml:6: "+c.path+": required with failures")
	}
	data := []byte(replaceOnce(resizeBase, "{type: p4d.24xlarge, count: 4}", "{type: p4d.24xlarge, count: 4, failures: {node_mtbf: 20d, repair_time: 1h}}"))
	s, err := Parse("resize.yaml", data)
	require.NoError(t, err)
	require.Equal(t, &hardware.Failures{MTBF: 20 * 86400, Repair: 3600}, s.Fleet.Groups[2].Failures)
}

func replaceOnce(s, old, new string) string { return strings.Replace(s, old, new, 1) }
