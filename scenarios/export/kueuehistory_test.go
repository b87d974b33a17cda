package export

import (
	"path/filepath"
	"testing"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	"github.com/stretchr/testify/require"
)

func importHistory(t *testing.T, opt KueueImportOptions) *Imported {
	t.Helper()
	dir := filepath.Join("testdata", "kueue-history")
	o, err := ReadKueueFiles([]string{filepath.Join(dir, "cluster.yaml"), filepath.Join(dir, "workloads.yaml")})
	require.NoError(t, err)
	imp, err := ImportKueue(o, opt)
	require.NoError(t, err)
	return imp
}

// Workloads become jobs: submitted at creation (seconds from the
// earliest), charged to their LocalQueue's ClusterQueue, their requests
// summed over pod sets and pods, running from their last admission to
// Finished, on the flavor Kueue admitted them to first; evictions and
// requeues counted; one still running censored at the newest time read;
// one pending, one with no LocalQueue left out.
func TestKueueWorkloadsBecomeJobsFromTheirConditions(t *testing.T) {
	imp := importHistory(t, KueueImportOptions{})
	p5, p4d := "p5.48xlarge", "p4d.24xlarge"
	require.Equal(t, []workload.Job{
		{ID: "prod/job-train-1-a1b2c", Submit: 0, Team: "prod", PriorityClass: "production", Accelerators: 16, VCPUs: 64, MemoryGiB: 512,
			Duration: 7200, InstanceTypes: []string{p5, p4d}, User: "prod/training", OrigStart: 5, OrigEnd: 7205, OrigStatus: "completed", Extra: []string{"0", "0"}},
		{ID: "research/job-sweep-1-d3e4f", Submit: 300, Team: "research", PriorityClass: "research", Accelerators: 4, VCPUs: 16, MemoryGiB: 128,
			Duration: 1800, InstanceTypes: []string{p4d, p5}, User: "research/experiments", OrigStart: 3600, OrigEnd: 5400, OrigStatus: "completed", Extra: []string{"2", "2"}},
		{ID: "prod/job-train-2-m9n0p", Submit: 1800, Team: "prod", PriorityClass: "urgent-pods", Accelerators: 8, VCPUs: 34, MemoryGiB: 264,
			Duration: 900, InstanceTypes: []string{p5, p4d}, User: "prod/training", OrigStart: 1802, OrigEnd: 2702, OrigStatus: "failed", Extra: []string{"0", "0"}},
		{ID: "research/job-eval-1-g5h6i", Submit: 10740, Team: "research", PriorityClass: "research", Accelerators: 4, VCPUs: 12, MemoryGiB: 64,
			Duration: 3600, InstanceTypes: []string{p4d, p5}, User: "research/experiments", OrigStart: 10800, OrigEnd: 14400, OrigStatus: "running", Extra: []string{"0", "0"}},
	}, imp.Jobs)
	require.Equal(t, []string{"evictions", "requeues"}, imp.Columns)
	require.Equal(t, 14400.0, imp.End, "the newest time read: the pending Workload's creation")
	for _, w := range []string{
		"Workloads: 1 still running at the newest time read (2026-03-02T14:00:00Z): each one's duration is censored there (orig_status running); the replay treats it as running at least that long",
		"Workloads: 1 pending (never admitted), so with no duration: left out of the trace",
		"Workloads: 1 with no LocalQueue or ClusterQueue read: left out of the trace",
		"PriorityClass unused-pods: value: no Workload read names it: not made a priority class (Kueue orders by WorkloadPriorityClasses)",
	} {
		require.Contains(t, imp.Warnings, w)
	}
	require.Equal(t, []scenfile.PriorityClass{{Name: "production", Value: 100}, {Name: "research", Value: 50}, {Name: "urgent-pods", Value: 1000}},
		imp.File.PriorityClasses, "the WorkloadPriorityClasses, then the PriorityClass a Workload names")
}

// The cluster's objects: Nodes count per instance type, the manager's
// ConfigMap gives fair sharing and waitForPodsReady.
func TestKueueNodesAndTheManagersConfigMapMakeTheFleetAndPolicy(t *testing.T) {
	imp := importHistory(t, KueueImportOptions{})
	require.Equal(t, []scenfile.NodeGroup{{Type: "p5.48xlarge", Count: 2}, {Type: "p4d.24xlarge", Count: 2}}, imp.File.Fleet.Nodes)
	require.Empty(t, imp.File.Fleet.InstanceTypes, "catalog types as they are")
	p := imp.File.Policy
	require.Equal(t, "fair-share", p.IdleAllocation)
	require.Empty(t, p.FairSharingStrategies, "Kueue's default order is allot's")
	require.Equal(t, "10m", p.PlacementTimeout)
	require.Equal(t, scenfile.Ptr(2.0), imp.File.Teams[0].Weight)
	require.Equal(t, map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 16}, "p4d.24xlarge": {Accelerators: 8}}, imp.File.Teams[0].Quota)
}

// --since keeps the Workloads created within it before the newest one
// (14:00): from 10:30, the failed and the running job, submitted from
// the earlier; from 11:00, the running one alone.
func TestKueueSinceKeepsTheWorkloadsCreatedWithinItOfTheNewest(t *testing.T) {
	for _, tc := range []struct {
		since  float64
		ids    []string
		submit []float64
	}{
		{3.5 * 3600, []string{"prod/job-train-2-m9n0p", "research/job-eval-1-g5h6i"}, []float64{0, 8940}},
		{3 * 3600, []string{"research/job-eval-1-g5h6i"}, []float64{0}},
	} {
		imp := importHistory(t, KueueImportOptions{Since: tc.since})
		var ids []string
		var submit []float64
		for _, j := range imp.Jobs {
			ids, submit = append(ids, j.ID), append(submit, j.Submit)
		}
		require.Equal(t, tc.ids, ids, "since %gs", tc.since)
		require.Equal(t, tc.submit, submit, "since %gs", tc.since)
	}
}
