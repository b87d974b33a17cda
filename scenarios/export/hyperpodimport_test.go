package export

import (
	"testing"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/stretchr/testify/require"
)

// The HyperPod examples (docs/examples/hyperpod, README.md there) are
// responses in the shapes of the SageMaker API reference, as the AWS CLI
// prints them: describe-cluster-scheduler-config output and two
// list-compute-quotas pages.
const hpExamples = "../../docs/examples/hyperpod/"

func importHyperPodExample(t *testing.T) *Imported {
	t.Helper()
	imp, err := FromHyperPod(HyperPodFiles{SchedulerConfig: hpExamples + "scheduler-config.json",
		ComputeQuotas: []string{hpExamples + "compute-quotas.json", hpExamples + "compute-quotas-page2.json"}})
	require.NoError(t, err)
	return imp
}

func TestHyperPodComputeQuotasBecomeTeams(t *testing.T) {
	imp := importHyperPodExample(t)
	yes, no := scenfile.Ptr(true), scenfile.Ptr(false)
	require.Equal(t, []scenfile.Team{
		{Name: "team-a", Quota: map[string]scenfile.Quota{"ml.g5.8xlarge": {Accelerators: 2}}, Weight: scenfile.Ptr(10.0),
			Lend: yes, Borrow: yes, BorrowLimit: "50%", PreemptWithinTeam: "lower-priority"},
		{Name: "team-b", Quota: map[string]scenfile.Quota{"ml.g5.8xlarge": {Accelerators: 2}}, Weight: scenfile.Ptr(20.0),
			Lend: yes, Borrow: no, PreemptWithinTeam: "never"},
		{Name: "team-d", Quota: map[string]scenfile.Quota{"ml.g5.8xlarge": {Accelerators: 1}}, Weight: scenfile.Ptr(0.0),
			Lend: yes, Borrow: yes, BorrowLimit: "50%", PreemptWithinTeam: "lower-priority"},
	}, imp.File.Teams, "Count 2 of a 1-GPU type; Accelerators 2; team-c is disabled; team-d takes the documented defaults")
	require.Contains(t, imp.Warnings, "ComputeQuotas[team-b-quota]: in more than one file or page: kept once")
	require.Contains(t, imp.Warnings, "ComputeQuotas[team-c-quota]: ActivationState: Disabled: left out")
	require.Contains(t, imp.Warnings, "ComputeQuotas[team-d-quota]: ComputeQuotaTarget.FairShareWeight: not given: HyperPod's default 0")
	require.Contains(t, imp.Warnings, "ComputeQuotas[team-d-quota]: ComputeQuotaConfig.ResourceSharingConfig: not given: HyperPod's default LendAndBorrow with a 50% borrow limit")
	require.Contains(t, imp.Warnings, "ComputeQuotas[team-d-quota]: ComputeQuotaConfig.PreemptTeamTasks: not given: HyperPod's default LowerPriority")
}

func TestHyperPodSchedulerConfigBecomesClassesAndFairShare(t *testing.T) {
	imp := importHyperPodExample(t)
	require.Equal(t, "example-policy", imp.File.Name)
	require.Equal(t, []scenfile.PriorityClass{{Name: "inference", Value: 90}, {Name: "experimentation", Value: 80}, {Name: "training", Value: 70},
		{Name: "fine-tuning", Value: 50}}, imp.File.PriorityClasses)
	require.Equal(t, scenfile.Policy{Kind: "quota", IdleAllocation: "fair-share"}, imp.File.Policy)
	require.Nil(t, imp.Jobs, "no history: a policy file")
}

func TestHyperPodFleetIsSizedToTheQuotas(t *testing.T) {
	imp := importHyperPodExample(t)
	require.Equal(t, []scenfile.NodeGroup{{Type: "ml.g5.8xlarge", Count: 5}}, imp.File.Fleet.Nodes, "5 GPUs of 1-GPU nodes")
	require.Equal(t, []scenfile.InstanceType{{Name: "ml.g5.8xlarge", Accelerator: "a10g", Accelerators: 1, VCPUs: scenfile.Ptr(32.0), MemoryGiB: scenfile.Ptr(128.0)}},
		imp.File.Fleet.InstanceTypes, "the catalog lacks it: the table of G5 sizes")
	require.Contains(t, imp.Warnings, "fleet: nodes: HyperPod's task governance does not say the cluster's instances: sized to the quotas' sum (5 ml.g5.8xlarge); edit fleet.nodes to the cluster's instance groups")
}

func TestHyperPodSharingStrategiesAndLimitsMapBothWays(t *testing.T) {
	sc := writeJSON(t, "sc.json", `{"Name": "p", "SchedulerConfig": {"FairShare": "Disabled", "IdleResourceSharing": "Disabled"}}`)
	q := writeJSON(t, "q.json", `{"ComputeQuotaSummaries": [
	  {"Name": "a", "ComputeQuotaId": "1", "ComputeQuotaTarget": {"TeamName": "a", "FairShareWeight": 5},
	   "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p4d.24xlarge", "Accelerators": 4, "VCpu": 48, "MemoryInGiB": 576}],
	     "ResourceSharingConfig": {"Strategy": "DontLend"}}},
	  {"Name": "b", "ComputeQuotaId": "2", "ComputeQuotaTarget": {"TeamName": "b", "FairShareWeight": 5},
	   "ComputeQuotaConfig": {"ComputeQuotaResources": [{"InstanceType": "ml.p4d.24xlarge", "Count": 1}],
	     "ResourceSharingConfig": {"Strategy": "LendAndBorrow", "BorrowLimit": 120, "AbsoluteBorrowLimits": [{"InstanceType": "ml.p4d.24xlarge", "Accelerators": 6}]}}}]}`)
	imp, err := FromHyperPod(HyperPodFiles{SchedulerConfig: sc, ComputeQuotas: []string{q}})
	require.NoError(t, err)
	require.Equal(t, "first-come", imp.File.Policy.IdleAllocation)
	a, b := imp.File.Teams[0], imp.File.Teams[1]
	require.Equal(t, scenfile.Quota{Accelerators: 4, VCPUs: scenfile.Ptr(48.0), MemoryGiB: scenfile.Ptr(576.0)}, a.Quota["p4d.24xlarge"], "ml.p4d.24xlarge is the catalog's p4d.24xlarge")
	require.Equal(t, scenfile.Quota{Accelerators: 8}, b.Quota["p4d.24xlarge"], "Count 1 of 8 GPUs")
	require.Equal(t, [2]bool{false, false}, [2]bool{*a.Lend, *a.Borrow}, "DontLend")
	require.Equal(t, "6", b.BorrowLimit, "the absolute limit on its one type, in accelerators")
	require.Contains(t, imp.Warnings, "SchedulerConfig: IdleResourceSharing: Disabled: allot lends capacity no quota covers to every team; the fleet written here is the quotas' sum, which leaves none")
	require.Contains(t, imp.Warnings, "ComputeQuotas[b]: ComputeQuotaConfig.ResourceSharingConfig.AbsoluteBorrowLimits: borrow_limit 6 accelerators in all (allot's limit is one figure for the team)")
	// Every strategy and preemption setting maps back to itself.
	for _, e := range hpStrategies {
		s, ok := hpStrategies.toAllot(e.engine)
		require.True(t, ok)
		back, _ := hpStrategies.toEngine(s)
		require.Equal(t, e.engine, back)
	}
	for _, e := range hpPreemptTeamTasks {
		p, _ := hpPreemptTeamTasks.toAllot(e.engine)
		back, _ := hpPreemptTeamTasks.toEngine(p)
		require.Equal(t, e.engine, back)
	}
}

func TestHyperPodBadInputNamesFileAndPath(t *testing.T) {
	good := writeJSON(t, "sc.json", `{"Name": "p", "SchedulerConfig": {}}`)
	for _, c := range []struct {
		name, body, err string
		asQuota         bool
	}{
		{"list.json", `{"ClusterSchedulerConfigSummaries": []}`, "list.json: list-cluster-scheduler-configs output holds no SchedulerConfig: give describe-cluster-scheduler-config's output", false},
		{"weight.json", `{"Name": "p", "SchedulerConfig": {"PriorityClasses": [{"Name": "a", "Weight": "high"}]}}`, `weight.json: SchedulerConfig.PriorityClasses[0].Weight: want a whole number (int32), got the string "high"`, false},
		{"team.json", `{"ComputeQuotaSummaries": [{"Name": "q", "ComputeQuotaTarget": {}}]}`, "team.json: ComputeQuotaSummaries[0]: ComputeQuotaTarget.TeamName: required", true},
		{"strategy.json", `{"ComputeQuotaSummaries": [{"Name": "q", "ComputeQuotaTarget": {"TeamName": "a"}, "ComputeQuotaConfig": {"ResourceSharingConfig": {"Strategy": "Share"}}}]}`,
			`strategy.json: ComputeQuotaSummaries[0]: ComputeQuotaConfig.ResourceSharingConfig.Strategy: want LendAndBorrow, Lend, DontLend, got "Share"`, true},
		{"preempt.json", `{"ComputeQuotaConfig": {"PreemptTeamTasks": "Always"}, "ComputeQuotaTarget": {"TeamName": "a"}}`,
			`preempt.json: ComputeQuotaConfig.PreemptTeamTasks: want Never, LowerPriority, got "Always"`, true},
	} {
		p := writeJSON(t, c.name, c.body)
		in := HyperPodFiles{SchedulerConfig: p, ComputeQuotas: []string{good}}
		if c.asQuota {
			in = HyperPodFiles{SchedulerConfig: good, ComputeQuotas: []string{p}}
		}
		_, err := FromHyperPod(in)
		require.Error(t, err, c.name)
		require.Equal(t, c.err, errIn(err, p), c.name)
	}
}
