package export

import (
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	"github.com/stretchr/testify/require"
)

// testdata/slurm holds the outputs of Slurm's commands in the formats
// their manuals give (see testdata/slurm/README.md): one cluster with
// the awkward parts.
var (
	slurmAll     = SlurmFiles{Sacct: "testdata/slurm/sacct.txt", Nodes: "testdata/slurm/nodes.txt", Shares: "testdata/slurm/sshare.txt", Assoc: "testdata/slurm/assoc.txt", QOS: "testdata/slurm/qos.txt"}
	slurmShares  = SlurmFiles{Sacct: "testdata/slurm/sacct.txt", Nodes: "testdata/slurm/nodes.txt", Shares: "testdata/slurm/sshare.txt", QOS: "testdata/slurm/qos.txt"}
	slurmJobOnly = SlurmFiles{Sacct: "testdata/slurm/sacct.txt"}
)

func importSlurm(t *testing.T, in SlurmFiles) *Imported {
	t.Helper()
	imp, err := ImportSlurm(in)
	require.NoError(t, err)
	return imp
}

// jobByID is the trace job of an ID, ok false when there is none.
func jobByID(imp *Imported, id string) (workload.Job, bool) {
	for _, j := range imp.Jobs {
		if j.ID == id {
			return j, true
		}
	}
	return workload.Job{}, false
}

func mustJob(t *testing.T, imp *Imported, id string) workload.Job {
	t.Helper()
	j, ok := jobByID(imp, id)
	require.True(t, ok, "job %s is in the trace", id)
	return j
}

// Times are seconds from job 100's submit, 2024-03-01T10:00:00.
func TestSacctArrayJobsExpandIntoOneJobPerTask(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	require.Equal(t, workload.Job{ID: "103_1", Submit: 1800, Team: "vision", PriorityClass: "low", VCPUs: 4, MemoryGiB: 16,
		Duration: 600, InstanceTypes: []string{"slurm-cpu-64c"}, User: "alice", OrigStart: 1805, OrigEnd: 2405,
		OrigStatus: "completed", Extra: []string{"cpu", "0", "arr", "1800", "50"}}, mustJob(t, imp, "103_1"))
	require.Equal(t, 900.0, mustJob(t, imp, "103_2").Duration)
	for _, id := range []string{"103_3", "103_4", "103_5", "103_[3-5%2]"} {
		_, ok := jobByID(imp, id)
		require.False(t, ok, "pending task %s never ran", id)
	}
	// 103_[3-5%2] is three tasks: with 101 (cancelled) and 113, five.
	require.Contains(t, imp.Warnings, "sacct: Start: 5 jobs never started (Start Unknown; last state CANCELLED 1, PENDING 4): left out, a job that never ran has no duration")
	require.Contains(t, imp.Warnings, "sacct: JobID: array throttles (%N in 103_[3-5%2] and others: tasks running at once) are not modelled")
}

func TestSacctRequeuedRunsAreOneJobFromTheFirstSubmit(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	// Two records (sacct --duplicates): 30 min cut short by a requeue at
	// 11:30:10, then 2 h from 11:40.
	require.Equal(t, workload.Job{ID: "104", Submit: 3600, Team: "nlp", PriorityClass: "normal", Accelerators: 8, VCPUs: 64, MemoryGiB: 1024,
		Duration: 7200, InstanceTypes: []string{"p5.48xlarge"}, User: "carol", OrigStart: 3610, OrigEnd: 13200,
		OrigStatus: "completed", Extra: []string{"h100", "1", "long", "172800", "500"}}, mustJob(t, imp, "104"))
	// One record, REQUEUED: waiting again when sacct ran.
	j := mustJob(t, imp, "114")
	require.Equal(t, "requeued", j.OrigStatus)
	require.Equal(t, []float64{14400, 1800, 14700, 16500}, []float64{j.Submit, j.Duration, j.OrigStart, j.OrigEnd})
	require.Equal(t, "1", j.Extra[1], "requeues")
	require.Contains(t, imp.Warnings, "sacct: State: 2 jobs requeued (104 first; 2 runs cut short by a requeue or preemption, 30m0s of running in them): each is one job from its first Submit, lasting its last run's Elapsed; column requeues counts its cut runs, and the replay preempts by its own policy")
	require.Contains(t, imp.Warnings, "sacct: State: 1 job waiting again after a requeue when sacct ran: orig_status requeued, the duration the last run's Elapsed (a lower bound)")
}

func TestSacctUnknownStartsAreLeftOut(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	// 101: CANCELLED before it started; 113: PENDING with the start
	// sacct expects (a Start that is not a start).
	for _, id := range []string{"101", "113"} {
		_, ok := jobByID(imp, id)
		require.False(t, ok, id)
	}
	require.Len(t, imp.Jobs, 14)
}

func TestSacctRunningJobIsCensoredAtItsElapsedSoFar(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	j := mustJob(t, imp, "106")
	require.Equal(t, "running", j.OrigStatus)
	require.Equal(t, []float64{179400, 10800, 180000, 190800}, []float64{j.Submit, j.Duration, j.OrigStart, j.OrigEnd})
	require.Equal(t, 190800.0, imp.End, "the record ends when sacct ran: 106's start plus its Elapsed")
	require.Contains(t, imp.Warnings, "sacct: State: 1 job still RUNNING (or SUSPENDED) when sacct ran, at 2024-03-03T15:00:00: orig_status running, the duration censored at the Elapsed so far (a lower bound)")
}

func TestSacctPreemptedJobLastsWhatItRanBeforeThePreemption(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	j := mustJob(t, imp, "105")
	require.Equal(t, "preempted", j.OrigStatus)
	require.Equal(t, []float64{3600, 900, 4200, 5100}, []float64{j.Submit, j.Duration, j.OrigStart, j.OrigEnd})
	require.Contains(t, imp.Warnings, "sacct: State: 1 job ended PREEMPTED (105 first; preempted and not requeued): the duration is how long it ran until then, a lower bound of what it needed")
}

func TestSacctStatesBecomeOrigStatus(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	for id, want := range map[string]string{"100": "completed", "102": "failed", "110": "timeout", "111": "out_of_memory", "112": "node_fail"} {
		require.Equal(t, want, mustJob(t, imp, id).OrigStatus, id)
	}
	require.Equal(t, 172800.0, mustJob(t, imp, "110").Duration, "Elapsed 2-00:00:00")
}

func TestTRESWithSeveralGPUTypesMayRunOnEachOfThem(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	j := mustJob(t, imp, "107")
	require.Equal(t, 8.0, j.Accelerators, "gres/gpu=8, not the typed counts added to it")
	require.Equal(t, []string{"slurm-a100-8gpu", "p5.48xlarge"}, j.InstanceTypes)
	require.Contains(t, imp.Warnings, "sacct: AllocTRES: 1 job ran on several GPU types at once (107: billing=64,cpu=64,gres/gpu:a100=4,gres/gpu:h100=4,gres/gpu=8,mem=256G,node=2): allot runs a job on one type; it may use any of them, the most used first")
	require.Contains(t, imp.Warnings, "sacct: AllocTRES: billing not mapped: a trace job has accelerators (gres/gpu), vcpus (cpu) and memory_gib (mem) only")
}

func TestSacctStepsAreLeftOutAndHeterogeneousComponentsAreJobs(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	_, ok := jobByID(imp, "100.batch")
	require.False(t, ok)
	cpu, gpu := mustJob(t, imp, "108+0"), mustJob(t, imp, "108+1")
	require.Equal(t, []float64{0, 4}, []float64{cpu.Accelerators, cpu.VCPUs})
	require.Equal(t, []string{"slurm-cpu-64c"}, cpu.InstanceTypes)
	require.Equal(t, []float64{1, 8}, []float64{gpu.Accelerators, gpu.VCPUs})
	require.Contains(t, imp.Warnings, "sacct: JobID: 1 job step record (100.batch first) left out: a job's own record holds its allocation (sacct --allocations lists only those)")
	require.Contains(t, imp.Warnings, "sacct: JobID: 2 components of heterogeneous jobs (108+0 first): each is a job of its own; the replay does not start a job's components together")
}

func TestSacctColumnsWithoutATraceColumnAreKeptAsExtraColumns(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	require.Equal(t, []string{"partition", "requeues", "job_name", "timelimit_s", "slurm_priority"}, imp.Columns)
	require.Equal(t, []string{"h100", "0", "eval", "", "9000"}, mustJob(t, imp, "102").Extra, "Timelimit UNLIMITED: empty")
}

func TestNodesGroupByGPUModelIntoCatalogOrCustomTypes(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	require.Equal(t, &scenfile.Fleet{
		InstanceTypes: []scenfile.InstanceType{
			// 128 CPUs do not fit p4d.24xlarge's 96: the A100's kind and speed.
			{Name: "slurm-a100-8gpu", Accelerator: "a100-40g", Accelerators: 8, VCPUs: scenfile.Ptr(128.0), MemoryGiB: scenfile.Ptr(1031000.0 / 1024), Speed: scenfile.Ptr(1.0)},
			{Name: "slurm-cpu-64c", Accelerator: "cpu", VCPUs: scenfile.Ptr(64.0), MemoryGiB: scenfile.Ptr(257000.0 / 1024)},
			{Name: "slurm-v100-4gpu", Accelerator: "v100", Accelerators: 4, VCPUs: scenfile.Ptr(40.0), MemoryGiB: scenfile.Ptr(380000.0 / 1024)},
		},
		// h100 nodes (192 CPUs, 2 TiB) are p5.48xlarge exactly.
		Nodes: []scenfile.NodeGroup{{Type: "slurm-a100-8gpu", Count: 3}, {Type: "p5.48xlarge", Count: 4}, {Type: "slurm-cpu-64c", Count: 2}, {Type: "slurm-v100-4gpu", Count: 1}},
	}, imp.File.Fleet)
	for _, want := range []string{
		`nodes a100-01, a100-02, a100-03: Gres: GPU type "a100" may be a100-40g or a100-80g: a100-40g assumed`,
		"nodes a100-01, a100-02, a100-03: CPUTot: 8 GPUs, 128 CPUs, 1006.8359375 GiB do not fit p4d.24xlarge (8, 96, 1152): a custom type slurm-a100-8gpu with its GPU's speed, unpriced",
		`nodes v100-01: Gres: GPU type "v100" is not one the catalog has: a custom type slurm-v100-4gpu, speed 1.0 (the A100 reference) assumed, unpriced`,
		"nodes: Gres: mps (on v100-01 and others) is not mapped: only GPUs are",
		"nodes: State: 1 node down, draining or reserved when listed (a100-03 (DOWN+DRAIN)): counted in the fleet as healthy",
	} {
		require.Contains(t, imp.Warnings, want)
	}
	// Partitions narrow a job's types: 100 ran in a100 on gres/gpu:a100.
	require.Equal(t, []string{"slurm-a100-8gpu"}, mustJob(t, imp, "100").InstanceTypes)
}

func TestWithoutNodesTheFleetIsSizedFromTheJobsPeak(t *testing.T) {
	imp := importSlurm(t, slurmJobOnly)
	// A100 jobs hold at most 9 GPUs at once (107's 8 and 111's 1), H100
	// jobs 11 (102, 104, 105): two nodes each. 103_1 and 103_2 hold 8
	// CPUs on 4-CPU nodes.
	require.Equal(t, []scenfile.NodeGroup{{Type: "p4d.24xlarge", Count: 2}, {Type: "p5.48xlarge", Count: 2}, {Type: "slurm-v100-8gpu", Count: 1}, {Type: "slurm-cpu-4c", Count: 2}}, imp.File.Fleet.Nodes)
	require.Contains(t, imp.Warnings, "fleet: ASSUMED (no --nodes): 2 p4d.24xlarge, 2 p5.48xlarge, 1 slurm-v100-8gpu, 2 slurm-cpu-4c, enough for the most GPUs (or CPUs) the recorded jobs held at once")
	require.Equal(t, []string{"slurm-cpu-4c"}, mustJob(t, imp, "103_1").InstanceTypes)
}

func TestSshareNestingBecomesCohortsAndCompoundedWeights(t *testing.T) {
	imp := importSlurm(t, slurmShares)
	f := imp.File
	require.Equal(t, []scenfile.Cohort{{Name: "root"}, {Name: "research", Parent: "root", Weight: scenfile.Ptr(2.0)}}, f.Cohorts)
	// fairshare is flat: vision's 3 of research's 5, research being all
	// of root (ops counts at root: RawShares parent).
	require.Equal(t, []scenfile.Team{
		{Name: "vision", Cohort: "research", Weight: scenfile.Ptr(0.6)},
		{Name: "nlp", Cohort: "research", Weight: scenfile.Ptr(0.4)},
		{Name: "ops", Cohort: "root"},
	}, f.Teams)
	require.Equal(t, scenfile.Policy{Kind: "fairshare", ShareDecay: "7d"}, f.Policy)
	require.Contains(t, imp.Warnings, "assoc: RawShares: parent (ops): their usage counts at the parent account in Slurm; here teams of weight 1")
	require.Contains(t, imp.Warnings, "qos: Preempt: QOS preemption is not modelled: policy kind fairshare never preempts (GraceTime, PreemptExemptTime, PreemptMode unused)")
}

func TestAssocGrpTRESBecomeQuotas(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	f := imp.File
	require.Equal(t, []scenfile.Team{
		// gres/gpu:h100=8 caps H100s only: the other types stay open.
		{Name: "vision", Cohort: "research", Quota: map[string]scenfile.Quota{"p5.48xlarge": {Accelerators: 8}}, Weight: scenfile.Ptr(3.0)},
		// gres/gpu=15 caps all types together: 15 on each, at most its GPUs.
		{Name: "nlp", Cohort: "research", Quota: map[string]scenfile.Quota{"slurm-a100-8gpu": {Accelerators: 15}, "p5.48xlarge": {Accelerators: 15}, "slurm-v100-4gpu": {Accelerators: 4}},
			Weight: scenfile.Ptr(2.0), Borrow: scenfile.Ptr(false)},
		{Name: "ops", Cohort: "root"},
	}, f.Teams)
	require.Equal(t, []scenfile.Cohort{{Name: "root", Weight: scenfile.Ptr(1.0)}, {Name: "research", Parent: "root", Weight: scenfile.Ptr(2.0)}}, f.Cohorts)
	require.Equal(t, "quota", f.Policy.Kind)
	require.Equal(t, "never", f.Policy.Reclaim)
	require.Equal(t, "fair-share", f.Policy.IdleAllocation)
	for _, want := range []string{
		"assoc vision: GrpTRES: gres/gpu:h100=8 limits some GPU types only: quota there, borrowing kept so the others stay open, so the limit is not a cap here",
		"assoc research: GrpTRES: gres/gpu=16 caps its sub-accounts together: not expressible (a cohort's quota is capacity it owns, not a cap); left out",
		"assoc nlp: GrpTRES: cpu=256,gres/gpu=15: only gres/gpu is mapped (a quota of GPUs)",
		"assoc nlp: GrpTRES: gres/gpu caps 15 GPUs of slurm-a100-8gpu, p5.48xlarge, slurm-v100-4gpu together: here each has a quota of 15 (at most its GPUs), a cap per type, looser than Slurm's",
		"assoc: GrpTRES: limits of user associations (alice in vision: gres/gpu=4, and others) are not mapped: allot's quotas are per team",
		"assoc: GrpJobs: set on nlp: not mapped (allot has no such limit)",
		"assoc: MaxWall: set on dave in ops: not mapped (allot has no such limit)",
	} {
		require.Contains(t, imp.Warnings, want)
	}
}

func TestQOSBecomePriorityClassesAndPreemption(t *testing.T) {
	imp := importSlurm(t, slurmAll)
	f := imp.File
	require.Equal(t, []scenfile.PriorityClass{{Name: "normal", Value: 100}, {Name: "high", Value: 1000}, {Name: "low", Value: 10}}, f.PriorityClasses)
	// low and normal may be preempted: low's GraceTime (2m) and
	// PreemptExemptTime (10m), the longest, for both.
	require.Equal(t, &scenfile.Preemption{GracePeriod: "2m", MinRuntime: "10m"}, f.Policy.Preemption)
	require.Equal(t, "lower-priority", f.Policy.PreemptWhileBorrowing)
	for _, want := range []string{
		`qos normal: PreemptMode: "cluster": the mode is slurm.conf's PreemptMode, not read: requeue assumed`,
		"qos: GraceTime: differs between the QOS that may be preempted: the longest, 2m0s, for all",
		"qos: PreemptExemptTime: differs between the QOS that may be preempted: the longest, 10m0s, for all",
		"qos high: MaxTRESPU: gres/gpu=8 not mapped (allot has no such setting)",
		"qos low: UsageFactor: 0.500000 not mapped: usage is charged at its actual size",
	} {
		require.Contains(t, imp.Warnings, want)
	}
}

func TestPolicyKindFollowsWhatTheClusterSets(t *testing.T) {
	for _, c := range []struct {
		in   SlurmFiles
		kind string
	}{{slurmAll, "quota"}, {slurmShares, "fairshare"}, {slurmJobOnly, "priority"}} {
		imp := importSlurm(t, c.in)
		require.Equal(t, c.kind, imp.File.Policy.Kind)
		require.Contains(t, imp.File.Description, "Policy "+c.kind+": ")
		found := false
		for _, w := range imp.Warnings {
			found = found || strings.HasPrefix(w, "policy: kind: "+c.kind+": ")
		}
		require.True(t, found, "warnings.txt says why %s", c.kind)
	}
	imp := importSlurm(t, slurmJobOnly)
	require.Equal(t, scenfile.Policy{Kind: "priority", Backfill: true}, imp.File.Policy)
	require.Equal(t, []scenfile.PriorityClass{{Name: "normal"}, {Name: "high"}, {Name: "low"}}, imp.File.PriorityClasses)
	require.Contains(t, imp.Warnings, "qos: Priority: no --qos: the jobs' QOS (normal, high, low) are priority classes of value 0, all equal")
}

func TestAnAccountWithJobsAndSubAccountsIsATeamInItsOwnCohort(t *testing.T) {
	sacct := writeFile(t, "sacct.txt", sacctHeader+goodRow+strings.Replace(strings.Replace(goodRow, "7|", "8|", 1), "|a|", "|org|", 1))
	shares := writeFile(t, "sshare.txt", "Account|User|RawShares\nroot||\n org||2\n  org|ann|1\n  a||1\n   a|u|1\n")
	assoc := writeFile(t, "assoc.txt", "Cluster|Account|User|Share|GrpTRES|Par Name\nc|org||2|gres/gpu=4|root\n")
	imp, err := ImportSlurm(SlurmFiles{Sacct: sacct, Shares: shares, Assoc: assoc})
	require.NoError(t, err)
	require.Equal(t, []scenfile.Cohort{{Name: "root"}, {Name: "org", Parent: "root", Weight: scenfile.Ptr(2.0)}}, imp.File.Cohorts)
	require.Equal(t, []scenfile.Team{{Name: "org", Cohort: "org", Weight: scenfile.Ptr(1.0)}, {Name: "a", Cohort: "org", Weight: scenfile.Ptr(1.0)}}, imp.File.Teams)
	require.Equal(t, "fairshare", imp.File.Policy.Kind, "org's limit is on a cohort: no quota, so no quota policy")
	require.Contains(t, imp.Warnings, "assoc org: GrpTRES: gres/gpu=4 caps its sub-accounts together: not expressible (a cohort's quota is capacity it owns, not a cap); left out")
}

// Every field sacct alone leaves unmapped, or maps by assumption, is a
// line of warnings.txt, and nothing else is.
func TestSacctAloneWarnsOfEverythingItAssumes(t *testing.T) {
	imp := importSlurm(t, slurmJobOnly)
	require.Equal(t, []string{
		"sacct: JobID: array throttles (%N in 103_[3-5%2] and others: tasks running at once) are not modelled",
		"sacct: JobID: 1 job step record (100.batch first) left out: a job's own record holds its allocation (sacct --allocations lists only those)",
		"sacct: Start: 5 jobs never started (Start Unknown; last state CANCELLED 1, PENDING 4): left out, a job that never ran has no duration",
		"sacct: State: 1 job still RUNNING (or SUSPENDED) when sacct ran, at 2024-03-03T15:00:00: orig_status running, the duration censored at the Elapsed so far (a lower bound)",
		"sacct: State: 2 jobs requeued (104 first; 2 runs cut short by a requeue or preemption, 30m0s of running in them): each is one job from its first Submit, lasting its last run's Elapsed; column requeues counts its cut runs, and the replay preempts by its own policy",
		"sacct: State: 1 job waiting again after a requeue when sacct ran: orig_status requeued, the duration the last run's Elapsed (a lower bound)",
		"sacct: State: 1 job ended PREEMPTED (105 first; preempted and not requeued): the duration is how long it ran until then, a lower bound of what it needed",
		"sacct: AllocTRES: 1 job ran on several GPU types at once (107: billing=64,cpu=64,gres/gpu:a100=4,gres/gpu:h100=4,gres/gpu=8,mem=256G,node=2): allot runs a job on one type; it may use any of them, the most used first",
		"sacct: JobID: 2 components of heterogeneous jobs (108+0 first): each is a job of its own; the replay does not start a job's components together",
		"sacct: AllocTRES: billing not mapped: a trace job has accelerators (gres/gpu), vcpus (cpu) and memory_gib (mem) only",
		"sacct: Timelimit: kept in column timelimit_s (empty: UNLIMITED or Partition_Limit); backfill estimates a runtime from the duration (policy.runtime_estimate), not from the limit",
		"sacct: Priority: kept in column slurm_priority: the multifactor priority at the end of the job, not replayed; the order comes from the policy and the QOS classes",
		"sacct: AllocTRES: GPU type \"a100\" may be a100-40g or a100-80g: a100-40g assumed",
		"sacct: AllocTRES: GPU type \"v100\" is not one the catalog has: a custom type slurm-v100-8gpu, 8 per node, 96 vCPUs, 1152 GiB, speed 1.0 (the A100 reference), unpriced",
		"fleet: ASSUMED (no --nodes): 2 p4d.24xlarge, 2 p5.48xlarge, 1 slurm-v100-8gpu, 2 slurm-cpu-4c, enough for the most GPUs (or CPUs) the recorded jobs held at once",
		"qos: Priority: no --qos: the jobs' QOS (normal, high, low) are priority classes of value 0, all equal",
		"assoc: RawShares: no shares given (--shares, or Share in --assoc): every team weight 1",
		"policy: kind: priority: one queue in QOS priority order, then submit time, with backfill (sched/backfill, Slurm's default; slurm.conf is not read); no shares or GPU limits were given",
	}, imp.Warnings)
}
