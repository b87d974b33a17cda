package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	"github.com/stretchr/testify/require"
)

// The Batch examples (docs/examples/aws-batch, README.md there) are
// responses in the shapes of the AWS Batch API reference, as the AWS CLI
// prints them: a queue with a fair-share policy and two compute
// environments, describe-jobs output and two list-jobs pages. Times are
// from 2026-01-01T00:00:00Z (createdAt of the first job).
const batchExamples = "../../docs/examples/aws-batch/"

func batchExampleFiles() BatchFiles {
	return BatchFiles{
		Jobs:                []string{batchExamples + "describe-jobs.json", batchExamples + "list-jobs-page1.json", batchExamples + "list-jobs-page2.json"},
		SchedulingPolicy:    batchExamples + "scheduling-policy.json",
		JobQueue:            batchExamples + "job-queue.json",
		ComputeEnvironments: []string{batchExamples + "compute-environments.json"},
	}
}

func importBatchExample(t *testing.T) *Imported {
	t.Helper()
	imp, err := FromBatch(batchExampleFiles())
	require.NoError(t, err)
	return imp
}

func traceJob(t *testing.T, imp *Imported, id string) workload.Job {
	t.Helper()
	for _, j := range imp.Jobs {
		if j.ID == id {
			return j
		}
	}
	t.Fatalf("no job %s in the trace", id)
	return workload.Job{}
}

func TestBatchJobsBecomeTraceJobsWithTheirRecordedTimes(t *testing.T) {
	imp := importBatchExample(t)
	j := traceJob(t, imp, "6c4b3e0a-0001")
	require.Equal(t, workload.Job{ID: "6c4b3e0a-0001", Submit: 0, Team: "ranking", PriorityClass: "priority-50", Accelerators: 8, VCPUs: 90,
		MemoryGiB: 480, Duration: 3600, OrigStart: 600, OrigEnd: 4200, OrigStatus: "completed", Extra: []string{"1"}}, j)
	ecs := traceJob(t, imp, "6c4b3e0a-0004")
	require.Equal(t, 2.0, ecs.Accelerators, "the ECS task's containers: 2 GPUs and a sidecar with none")
	require.Equal(t, 17.0, ecs.VCPUs)
	require.Equal(t, "research-vision", ecs.Team)
	require.Equal(t, "", ecs.PriorityClass, "no schedulingPriority: no class")
	require.Equal(t, []string{"attempts"}, imp.Columns)
	require.Equal(t, 11400.0, imp.End, "the newest time in the files: the multi-node job's stop at 3h10m")
	var ids []string
	for _, j := range imp.Jobs {
		ids = append(ids, j.ID)
	}
	require.Equal(t, []string{"6c4b3e0a-0001", "6c4b3e0a-0008:0", "6c4b3e0a-0008:1", "6c4b3e0a-0002", "6c4b3e0a-0003", "6c4b3e0a-0004", "6c4b3e0a-0005"}, ids, "in submit order")
}

func TestBatchMultiNodeJobsHoldEveryNodesGPUs(t *testing.T) {
	imp := importBatchExample(t)
	j := traceJob(t, imp, "6c4b3e0a-0003")
	require.Equal(t, 24.0, j.Accelerators, "node 0 with 8 GPUs, nodes 1: (1 and 2 of numNodes 3) with 8 each")
	require.Equal(t, 288.0, j.VCPUs)
	require.Equal(t, []string{"p4d.24xlarge"}, j.InstanceTypes, "the range's instance type, in the fleet")
	require.Equal(t, 7200.0, j.Duration)
	require.Contains(t, imp.Warnings, "jobs: nodeDetails: 1 nodes of multi-node jobs (JOB#N) are in the files: counted in their parent job, not as jobs")
}

func TestBatchAttemptsAddUpToOneJobCountedInTheAttemptsColumn(t *testing.T) {
	j := traceJob(t, importBatchExample(t), "6c4b3e0a-0002")
	require.Equal(t, 600.0+3600, j.Duration, "10 minutes failed, then an hour")
	require.Equal(t, 2400.0, j.OrigStart, "the first attempt's start")
	require.Equal(t, 7200.0, j.OrigEnd)
	require.Equal(t, []string{"2"}, j.Extra)
}

func TestBatchRunningJobsAreCensoredAtTheNewestTime(t *testing.T) {
	imp := importBatchExample(t)
	j := traceJob(t, imp, "6c4b3e0a-0005")
	require.Equal(t, "running", j.OrigStatus)
	require.Equal(t, 11400.0-6600, j.Duration, "started at 1h50m, still running at 3h10m")
	require.Equal(t, 11400.0, j.OrigEnd)
	require.Equal(t, 1.0, j.Accelerators, "the EKS container's nvidia.com/gpu")
	require.Equal(t, 32.0, j.MemoryGiB)
	require.Contains(t, imp.Warnings, "jobs: stoppedAt: 1 jobs had not ended by the newest time in the files: their duration is censored there (orig_status running; they ran at least that long)")
}

func TestBatchJobsThatNeverStartedAreLeftOutAndCounted(t *testing.T) {
	imp := importBatchExample(t)
	require.Len(t, imp.Jobs, 7)
	require.Contains(t, imp.Warnings, "jobs: startedAt: 2 jobs never started (FAILED 1, RUNNABLE 1): left out")
	require.Contains(t, imp.Warnings, "jobs: resourceRequirements: 1 jobs request no GPU: left out (allot schedules accelerators)")
}

func TestBatchListJobsPagesAreMergedAndDeduplicated(t *testing.T) {
	imp := importBatchExample(t)
	require.Contains(t, imp.Warnings, "jobs: jobId: 1 jobs are in more than one file or page: kept once", "6c4b3e0a-0002 on both pages")
	require.Contains(t, imp.Warnings, "jobs: jobId: 2 jobs are both in list-jobs pages and describe-jobs output: describe-jobs' details kept")
	require.Contains(t, imp.Warnings, "jobs: jobSummaryList: 1 jobs are only in list-jobs pages, which give no resource requirements: left out (describe-jobs gives them)")
	// The pages alone: every job a summary, none with resources.
	files := batchExampleFiles()
	files.Jobs = files.Jobs[1:]
	only, err := FromBatch(files)
	require.NoError(t, err)
	require.Empty(t, only.Jobs)
	require.Contains(t, only.Warnings, "jobs: jobSummaryList: 3 jobs are only in list-jobs pages, which give no resource requirements: left out (describe-jobs gives them)")
}

func TestBatchArrayJobsAreTheirChildren(t *testing.T) {
	imp := importBatchExample(t)
	first, second := traceJob(t, imp, "6c4b3e0a-0008:0"), traceJob(t, imp, "6c4b3e0a-0008:1")
	require.Equal(t, "sweeps", first.Team, "the parent's share identifier, which the child lacks")
	require.Equal(t, "priority-10", first.PriorityClass)
	require.Equal(t, 1800.0, first.Duration)
	require.Equal(t, 3480.0, second.Duration)
	require.Equal(t, 300.0, second.Submit)
}

func TestBatchSchedulingPrioritiesBecomeClassesNamedByValue(t *testing.T) {
	imp := importBatchExample(t)
	require.Equal(t, []scenfile.PriorityClass{{Name: "priority-90", Value: 90}, {Name: "priority-50", Value: 50}, {Name: "priority-10", Value: 10}}, imp.File.PriorityClasses)
	require.Contains(t, imp.Warnings, "jobs: schedulingPriority: Batch names no priority classes: one class per value, named after it (priority-90, priority-50, priority-10)")
}

func TestBatchFairShareWeightIsTheInverseOfWeightFactor(t *testing.T) {
	imp := importBatchExample(t)
	p := imp.File.Policy
	require.Equal(t, "fairshare", p.Kind)
	require.Equal(t, "1h", p.ShareDecay)
	require.Equal(t, "25%", p.ComputeReservation)
	weights := map[string]float64{}
	for _, tm := range imp.File.Teams {
		weights[tm.Name] = *tm.Weight
	}
	require.Equal(t, map[string]float64{"ranking": 2, "sweeps": 0.25, "research-nlp": 0.8, "research-vision": 0.8}, weights,
		"weightFactor 0.5, 4 and the prefix research* 1.25")
	require.Contains(t, imp.Warnings, "schedulingPolicies[gpu-fairshare]: fairsharePolicy.shareDistribution[research*]: a prefix: its weight given to research-nlp, research-vision")
	// float32 weightFactors come back as the weights they were written from.
	for _, w := range []float64{3, 7, 0.3, 2.5, 1000} {
		require.Equal(t, w, batchWeight(float32(batchWeightFactor(w))), "weight %g", w)
	}
}

func TestBatchComputeEnvironmentsBecomeNodesByMaxvCpus(t *testing.T) {
	imp := importBatchExample(t)
	require.Equal(t, &scenfile.Fleet{Nodes: []scenfile.NodeGroup{{Type: "p4d.24xlarge", Count: 4}, {Type: "p5.48xlarge", Count: 4}}}, imp.File.Fleet,
		"384 vCPUs of 96-vCPU p4d, 768 of 192-vCPU p5")
	require.Contains(t, imp.Warnings, "computeEnvironments[p5-spot]: computeResources.instanceTypes[p5]: an instance family: taken as p5.48xlarge, its one GPU size known")
	require.Contains(t, imp.Warnings, "computeEnvironments[p5-spot]: computeResources.type: SPOT: interruptions are not modelled (give the node group a failure model to model them)")
	require.Contains(t, imp.Warnings, "computeEnvironments[cpu-optimal]: not in the job queue's computeEnvironmentOrder: left out")
}

// writeJSON writes a test document into a temporary file.
func writeJSON(t *testing.T, name, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	return p
}

func TestBatchComputeEnvironmentTypesSplitMaxvCpusEvenly(t *testing.T) {
	ce := writeJSON(t, "ce.json", `{"computeEnvironments": [{"computeEnvironmentName": "mixed", "type": "MANAGED", "state": "ENABLED",
		"computeResources": {"type": "EC2", "minvCpus": 0, "maxvCpus": 1152, "instanceTypes": ["p4d.24xlarge", "p5.48xlarge", "g5", "optimal"]}}]}`)
	imp, err := FromBatch(BatchFiles{ComputeEnvironments: []string{ce}})
	require.NoError(t, err)
	require.Equal(t, []scenfile.NodeGroup{{Type: "p4d.24xlarge", Count: 6}, {Type: "p5.48xlarge", Count: 3}}, imp.File.Fleet.Nodes, "576 vCPUs each")
	require.Contains(t, imp.Warnings, "computeEnvironments[mixed]: computeResources.instanceTypes[g5]: g5: an instance family (or optimal), of which Batch picks sizes by demand; 8 GPU sizes are known (g5.12xlarge, g5.16xlarge, g5.24xlarge, g5.2xlarge, g5.48xlarge, g5.4xlarge, g5.8xlarge, g5.xlarge): left out; name the types")
	require.Contains(t, imp.Warnings, "computeEnvironments[mixed]: computeResources.instanceTypes: maxvCpus 1152 split evenly among 2 types (6 p4d.24xlarge, 3 p5.48xlarge): Batch launches any mix")
	require.Contains(t, imp.Warnings, "computeEnvironments[mixed]: computeResources.instanceTypes[optimal]: optimal: an instance family (or optimal), of which Batch picks sizes by demand; 0 GPU sizes are known (): left out; name the types")
	require.Equal(t, []scenfile.Team{{Name: "aws-batch"}}, imp.File.Teams, "no policy, queue or jobs: one team")
	require.Equal(t, "fifo", imp.File.Policy.Kind)
}

func TestBatchQuotaSharesBecomeTeamQuotasAndSharing(t *testing.T) {
	// list-quota-shares output (API_ListQuotaShares), two pages.
	page1 := writeJSON(t, "qs1.json", `{"quotaShares": [
	  {"quotaShareName": "prod", "quotaShareArn": "arn:aws:batch:us-east-1:123456789012:job-queue/train/quota-share/prod",
	   "jobQueueArn": "arn:aws:batch:us-east-1:123456789012:job-queue/train",
	   "capacityLimits": [{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 2}, {"capacityUnit": "ml.g5.12xlarge", "maxCapacity": 3}],
	   "resourceSharingConfiguration": {"strategy": "LEND_AND_BORROW", "borrowLimit": 200},
	   "preemptionConfiguration": {"inSharePreemption": "ENABLED"}, "state": "ENABLED", "status": "VALID"},
	  {"quotaShareName": "research", "capacityLimits": [{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 1}],
	   "resourceSharingConfiguration": {"strategy": "LEND"}, "preemptionConfiguration": {"inSharePreemption": "DISABLED"}, "state": "ENABLED"}],
	 "nextToken": "t1"}`)
	page2 := writeJSON(t, "qs2.json", `{"quotaShares": [
	  {"quotaShareName": "sweeps", "capacityLimits": [{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 1}],
	   "resourceSharingConfiguration": {"strategy": "LEND_AND_BORROW", "borrowLimit": -1}, "preemptionConfiguration": {"inSharePreemption": "ENABLED"}, "state": "ENABLED"},
	  {"quotaShareName": "old", "capacityLimits": [{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 1}],
	   "resourceSharingConfiguration": {"strategy": "RESERVE"}, "preemptionConfiguration": {"inSharePreemption": "ENABLED"}, "state": "DISABLED"},
	  {"quotaShareName": "research", "capacityLimits": [{"capacityUnit": "ml.p5.48xlarge", "maxCapacity": 1}],
	   "resourceSharingConfiguration": {"strategy": "LEND"}, "preemptionConfiguration": {"inSharePreemption": "DISABLED"}, "state": "ENABLED"}]}`)
	policy := writeJSON(t, "sp.json", `{"schedulingPolicies": [{"name": "train", "arn": "arn:aws:batch:us-east-1:123456789012:scheduling-policy/train",
	  "quotaSharePolicy": {"idleResourceAssignmentStrategy": "FIFO"}}]}`)
	imp, err := FromBatch(BatchFiles{SchedulingPolicy: policy, QuotaShares: []string{page1, page2}})
	require.NoError(t, err)
	require.Equal(t, "fairshare", imp.File.Policy.Kind)
	require.True(t, imp.File.Policy.QuotaShares)
	yes, no := scenfile.Ptr(true), scenfile.Ptr(false)
	require.Equal(t, []scenfile.Team{
		{Name: "prod", Quota: map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 16}, "ml.g5.12xlarge": {Accelerators: 12}},
			Lend: yes, Borrow: yes, BorrowLimit: "200%", PreemptWithinTeam: "lower-priority"},
		{Name: "research", Quota: map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 8}}, Lend: yes, Borrow: no, PreemptWithinTeam: "never"},
		{Name: "sweeps", Quota: map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 8}}, Lend: yes, Borrow: yes, PreemptWithinTeam: "lower-priority"},
	}, imp.File.Teams, "borrowLimit -1 is unlimited: no borrow_limit")
	require.Equal(t, []scenfile.NodeGroup{{Type: "ml.g5.12xlarge", Count: 3}, {Type: "p5.48xlarge", Count: 4}}, imp.File.Fleet.Nodes)
	require.Equal(t, []scenfile.InstanceType{{Name: "ml.g5.12xlarge", Accelerator: "a10g", Accelerators: 4, VCPUs: scenfile.Ptr(48.0), MemoryGiB: scenfile.Ptr(192.0)}},
		imp.File.Fleet.InstanceTypes)
	require.Contains(t, imp.Warnings, "quotaShares[research]: in more than one file or page: kept once")
	require.Contains(t, imp.Warnings, "quotaShares[old]: state: DISABLED: left out")
	require.Contains(t, imp.Warnings, "fleet: nodes: sized from the quota shares' capacity limits (3 ml.g5.12xlarge, 4 p5.48xlarge): the service environment's capacity is not read; edit fleet.nodes")
}

func TestBatchFleetWithoutComputeEnvironmentsHoldsTheRecordsPeak(t *testing.T) {
	files := batchExampleFiles()
	files.ComputeEnvironments = nil
	imp, err := FromBatch(files)
	require.NoError(t, err)
	require.Equal(t, []scenfile.NodeGroup{{Type: "batch-gpu", Count: 2}, {Type: "p4d.24xlarge", Count: 3}}, imp.File.Fleet.Nodes,
		"at most 13 GPUs at once of jobs that do not say their type (8 + 4 + 1); the multi-node job's 24 on p4d.24xlarge")
	require.Contains(t, imp.Warnings, "fleet: nodes: no compute environments given (--compute-environments): sized for the most GPUs the jobs held at once (2 batch-gpu, 3 p4d.24xlarge); edit fleet.nodes")
}

func TestBatchJobsWithoutAShareAreChargedToTheirQueue(t *testing.T) {
	jobs := writeJSON(t, "jobs.json", `{"jobs": [{"jobId": "j1", "jobName": "a", "jobQueue": "arn:aws:batch:us-east-1:123456789012:job-queue/nightly",
	  "status": "SUCCEEDED", "createdAt": 1000, "startedAt": 61000, "stoppedAt": 121000, "jobDefinition": "d",
	  "container": {"resourceRequirements": [{"type": "GPU", "value": "1"}]}}]}`)
	imp, err := FromBatch(BatchFiles{Jobs: []string{jobs}})
	require.NoError(t, err)
	require.Equal(t, "nightly", imp.Jobs[0].Team)
	require.Equal(t, 60.0, imp.Jobs[0].Duration)
	require.Equal(t, 60.0, imp.Jobs[0].OrigStart)
	require.Contains(t, imp.Warnings, "jobs: shareIdentifier: 1 jobs have no share identifier: charged to a team named after their job queue")
	require.Contains(t, imp.Warnings, "policy: no job queue or scheduling policy given: first in, first out (a Batch queue without a scheduling policy)")
}

func TestBatchBadInputNamesFileAndPath(t *testing.T) {
	for _, c := range []struct {
		name, body, err string
	}{
		{"syntax.json", "{\n  \"jobs\": [\n    {\"jobId\": }\n  ]\n}", "syntax.json: line 3: not JSON: invalid character '}' looking for beginning of value"},
		{"other.json", `{"computeEnvironments": []}`, `other.json: neither describe-jobs output ({"jobs": [...]}) nor a list-jobs page ({"jobSummaryList": [...]}); it has computeEnvironments`},
		{"created.json", `{"jobs": [{"jobId": "a", "createdAt": 5}, {"jobId": "b", "createdAt": "yesterday"}]}`, `created.json: jobs[1].createdAt: want a whole number (int64), got the string "yesterday"`},
		{"gpu.json", `{"jobs": [{"jobId": "a", "container": {"resourceRequirements": [{"type": "GPU", "value": "eight"}]}}]}`, `gpu.json: jobs[0].container.resourceRequirements[0].value: want a number >= 0, got "eight"`},
		{"nodes.json", `{"jobs": [{"jobId": "a", "nodeProperties": {"numNodes": 2, "nodeRangeProperties": [{"targetNodes": "0:5", "container": {}}]}}]}`,
			`nodes.json: jobs[0].nodeProperties.nodeRangeProperties[0].targetNodes: want N, N:M, :M or N: (node indices below numNodes 2), got "0:5"`},
		{"noid.json", `{"jobSummaryList": [{"jobName": "x"}]}`, `noid.json: jobSummaryList[0].jobId: required`},
		{"stopped.json", `{"jobs": [{"jobId": "a", "startedAt": 10, "stoppedAt": 5}]}`, `stopped.json: jobs[0].stoppedAt: 5 is before its startedAt 10`},
		{"attempt.json", `{"jobs": [{"jobId": "a", "attempts": [{"startedAt": 10, "stoppedAt": 5}]}]}`, `attempt.json: jobs[0].attempts[0].stoppedAt: 5 is before its startedAt 10`},
	} {
		p := writeJSON(t, c.name, c.body)
		_, err := FromBatch(BatchFiles{Jobs: []string{p}})
		require.Error(t, err, c.name)
		require.Equal(t, c.err, errIn(err, p), c.name)
	}
	qs := writeJSON(t, "qs.json", `{"quotaShares": [{"quotaShareName": "a", "capacityLimits": [], "resourceSharingConfiguration": {"strategy": "SHARE"}}]}`)
	_, err := FromBatch(BatchFiles{QuotaShares: []string{qs}})
	require.Equal(t, `qs.json: quotaShares[0]: resourceSharingConfiguration.strategy: want LEND_AND_BORROW, LEND, RESERVE, got "SHARE"`, errIn(err, qs))
	_, err = FromBatch(BatchFiles{})
	require.EqualError(t, err, "no fleet: give the compute environments (--compute-environments: aws batch describe-compute-environments), quota shares or jobs that ran on GPUs")
}

// errIn is an error's text with the directory of path left out.
func errIn(err error, path string) string {
	return strings.ReplaceAll(err.Error(), filepath.Dir(path)+string(filepath.Separator), "")
}
