package export

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/stretchr/testify/require"
)

// kueueMapped are the fields an import maps (docs/import.md says onto
// what), by kind, as paths with list indices written []: a field set in a
// sample must be one of them (or under one), or be warned of.
var kueueMapped = map[string][]string{
	"ResourceFlavor": {"spec.nodeLabels.node.kubernetes.io/instance-type"},
	"ClusterQueue": {"spec.cohortName", "spec.resourceGroups[].coveredResources", "spec.resourceGroups[].flavors[].name",
		"spec.resourceGroups[].flavors[].resources[].name", "spec.resourceGroups[].flavors[].resources[].nominalQuota",
		"spec.resourceGroups[].flavors[].resources[].borrowingLimit", "spec.resourceGroups[].flavors[].resources[].lendingLimit",
		"spec.queueingStrategy", "spec.namespaceSelector", "spec.flavorFungibility", "spec.preemption", "spec.fairSharing.weight",
		"spec.admissionScope.admissionMode"},
	"Cohort": {"spec.parentName", "spec.resourceGroups[].coveredResources", "spec.resourceGroups[].flavors[].name",
		"spec.resourceGroups[].flavors[].resources[].name", "spec.resourceGroups[].flavors[].resources[].nominalQuota", "spec.fairSharing.weight"},
	"LocalQueue":            {"spec.clusterQueue", "spec.fairSharing.weight"},
	"WorkloadPriorityClass": {"value"},
	"PriorityClass":         {"value"},
	"Configuration": {"fairSharing.preemptionStrategies", "admissionFairSharing.usageHalfLifeTime", "admissionFairSharing.usageSamplingInterval",
		"waitForPodsReady.timeout", "resources.excludeResourcePrefixes"},
}

// kueueNotRead are fields that say nothing about scheduling, which an
// import reads nowhere (docs/import.md lists them): names and labels,
// free text, status, the manager's own plumbing, kube-scheduler's pod
// preemption.
var kueueNotRead = []string{"apiVersion", "kind", "metadata", "status", "description", "preemptionPolicy",
	"health", "metrics", "webhook", "leaderElection", "controller", "namespace", "internalCertManagement", "clientConnection",
	"integrations", "visibilityServer", "pprofBindAddress", "managedJobsNamespaceSelector"}

// kueueSamples are Kueue's documentation samples (testdata/kueue-samples,
// README.md names each one's source), alone or with the objects they need.
var kueueSamples = [][]string{
	{"single-clusterqueue-setup.yaml"}, {"shared-quota-setup.yaml"}, {"admission-fair-sharing-setup.yaml"},
	{"concurrent-admission-setup.yaml"}, {"tas-gpu-queues.yaml"}, {"provisioning-setup.yaml"},
	{"cluster-queue-resource-groups.yaml"}, {"cluster-queue-borrowing.yaml"}, {"cohorts.yaml"},
	{"single-clusterqueue-setup.yaml", "priority-classes.yaml"},
}

func importSample(t *testing.T, files ...string) (*KueueObjects, *Imported) {
	t.Helper()
	var paths []string
	for _, f := range files {
		paths = append(paths, filepath.Join("testdata", "kueue-samples", f))
	}
	o, err := ReadKueueFiles(paths)
	require.NoError(t, err)
	imp, err := ImportKueue(o, KueueImportOptions{})
	require.NoError(t, err)
	data, err := scenfile.Marshal(imp.File, "")
	require.NoError(t, err)
	_, err = scenarios.ParsePolicy("imported.yaml", data, nil)
	require.NoError(t, err, "the import loads:\n%s", data)
	return o, imp
}

// Every field set in Kueue's own samples is mapped onto the scenario or
// named in a warning, and the scenario loads.
func TestKueueSamplesImportWithEveryFieldMappedOrWarned(t *testing.T) {
	for _, files := range kueueSamples {
		t.Run(strings.Join(files, "+"), func(t *testing.T) {
			o, imp := importSample(t, files...)
			objs := map[string]any{}
			add := func(kind, name string, v any) { objs[kind+" "+name] = v }
			for _, x := range o.Flavors {
				add("ResourceFlavor", x.Name, x)
			}
			for _, x := range o.ClusterQueues {
				add("ClusterQueue", x.Name, x)
			}
			for _, x := range o.Cohorts {
				add("Cohort", x.Name, x)
			}
			for _, x := range o.LocalQueues {
				add("LocalQueue", x.Namespace+"/"+x.Name, x)
			}
			for _, x := range o.WorkloadPriorityClasses {
				add("WorkloadPriorityClass", x.Name, x)
			}
			for _, x := range o.PriorityClasses {
				add("PriorityClass", x.Name, x)
			}
			if o.Config != nil {
				objs["Configuration"] = o.Config
			}
			require.NotEmpty(t, objs)
			for object, v := range objs {
				kind, _, _ := strings.Cut(object, " ")
				for _, field := range setFields(t, v) {
					if !coveredField(kind, object, field, imp.Warnings) {
						t.Errorf("%s: %s is set, neither mapped nor warned of; warnings:\n%s", object, field, strings.Join(imp.Warnings, "\n"))
					}
				}
			}
		})
	}
}

// setFields are the paths of the fields set in an object (its leaves),
// list indices written [].
func setFields(t *testing.T, v any) []string {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	var out []string
	var walk func(x any, path string)
	walk = func(x any, path string) {
		switch y := x.(type) {
		case map[string]any:
			for k, val := range y {
				p := k
				if path != "" {
					p = path + "." + k
				}
				if path == "" && slices.Contains(kueueNotRead, k) {
					continue
				}
				walk(val, p)
			}
		case []any:
			for _, val := range y {
				walk(val, path+"[]")
			}
		default:
			if !empty(x) && !slices.Contains(out, path) {
				out = append(out, path)
			}
		}
	}
	walk(m, "")
	return out
}

var listIndex = regexp.MustCompile(`\[[^\]]*\]`)

// coveredField says a field is mapped, or a warning about object names it
// or a field above it.
func coveredField(kind, object, field string, warnings []string) bool {
	for _, m := range kueueMapped[kind] {
		if field == m || strings.HasPrefix(field, m+".") || strings.HasPrefix(field, m+"[") {
			return true
		}
	}
	for _, w := range warnings {
		rest, ok := strings.CutPrefix(w, object+": ")
		if !ok {
			continue
		}
		wf, _, _ := strings.Cut(rest, ": ")
		wf = listIndex.ReplaceAllString(wf, "[]")
		if field == wf || strings.HasPrefix(field, wf+".") || strings.HasPrefix(field, wf+"[") {
			return true
		}
	}
	return false
}

// The single-ClusterQueue sample: a flavor with no Nodes and no catalog
// name is a CPU-only custom type of one node holding the quota; a
// ClusterQueue in no cohort neither lends nor borrows; the namespace is
// its LocalQueue's.
func TestKueueSingleClusterQueueSampleIsOneCPUOnlyTeamThatSharesNothing(t *testing.T) {
	_, imp := importSample(t, "single-clusterqueue-setup.yaml")
	f := imp.File
	require.Equal(t, []scenfile.InstanceType{{Name: "default-flavor", Accelerator: "generic", VCPUs: scenfile.Ptr(9.0), MemoryGiB: scenfile.Ptr(36.0)}}, f.Fleet.InstanceTypes)
	require.Equal(t, []scenfile.NodeGroup{{Type: "default-flavor", Count: 1}}, f.Fleet.Nodes)
	require.Equal(t, []scenfile.Team{{Name: "cluster-queue", Quota: map[string]scenfile.Quota{"default-flavor": {VCPUs: scenfile.Ptr(9.0), MemoryGiB: scenfile.Ptr(36.0)}},
		Lend: scenfile.Ptr(false), Borrow: scenfile.Ptr(false), Namespace: "default", PreemptWithinTeam: "never"}}, f.Teams)
	require.Equal(t, "borrow-first", f.Policy.Fallback, "Kueue's default flavorFungibility")
	require.Equal(t, "first-come", f.Policy.IdleAllocation, "no Configuration: no fair sharing")
	require.Equal(t, []string{
		`ResourceFlavor default-flavor: "default-flavor" is not a catalog instance type (allot catalog): a custom type, its figures from its Nodes or else its quotas`,
		"Nodes: none read: the fleet is sized from the flavors' quotas (the sum of every ClusterQueue's and Cohort's nominal quota, in whole nodes)",
		"ResourceFlavor default-flavor: no Nodes: instance type default-flavor assumed to be one node holding all its quota (0 accelerators, 9 vCPUs, 36 GiB)",
		"ClusterQueue cluster-queue: spec.namespaceSelector: selects no single namespace by kubernetes.io/metadata.name: the namespace of its LocalQueue, default, assumed",
		"policy.preemption: a preempted job's grace period, checkpoint and restore times are the jobs' own, not Kueue's: allot's defaults assumed (grace_period 30s, Kubernetes' terminationGracePeriodSeconds default; checkpoint_save 2m; restore 5m)",
		"policy: what Kueue does, which its objects do not say: admission task-ranking (priority, then creation), no backfill, preemption.max_retries -1 (requeued without limit), min_runtime 0s (no protection after a start), no prefer_least_lost_work",
		"Configuration: not read: Kueue's defaults assumed (no fair sharing: idle_allocation first-come; no admission fair sharing; no waitForPodsReady)",
	}, imp.Warnings)
}

// The borrowing sample: a borrowingLimit of 1 CPU on a quota of 9 is a
// borrow_limit of 1/9; settings allot holds once for every team take
// the most common value, the others warned of.
func TestKueueBorrowingSampleIsABorrowLimitAndOnePolicyForBothTeams(t *testing.T) {
	_, imp := importSample(t, "cluster-queue-borrowing.yaml")
	f := imp.File
	require.Equal(t, "team-a-cq", f.Teams[0].Name)
	require.Equal(t, "team-ab", f.Teams[0].Cohort)
	require.Equal(t, "11.11111111111111%", f.Teams[0].BorrowLimit)
	require.Empty(t, f.Teams[0].PreemptWithinTeam, "LowerPriority is allot's default")
	require.Equal(t, "never", f.Teams[1].PreemptWithinTeam, "no preemption: Kueue's Never")
	require.Equal(t, []scenfile.Cohort{{Name: "team-ab"}}, f.Cohorts, "Kueue made the cohort; allot needs it declared")
	require.Equal(t, "any", f.Policy.Reclaim)
	require.Equal(t, "preempt-first", f.Policy.Fallback, "whenCanPreempt Preempt (v1beta1) is MayStopSearch")
	for _, w := range []string{
		"ClusterQueue team-a-cq: spec.stopPolicy: Hold: the replay admits its jobs as if it were open",
		"ClusterQueue team-b-cq: spec.flavorFungibility: borrow-first, but allot has one policy.fallback for every team: preempt-first assumed (the most common value)",
		"ClusterQueue team-b-cq: spec.preemption.reclaimWithinCohort: never, but allot has one policy.reclaim for every team: any assumed (the most common value)",
	} {
		require.Contains(t, imp.Warnings, w)
	}
}

// The hierarchical cohorts sample: cohorts keep their parents, weights
// and own quota (two roots: no idle pool is implied).
func TestKueueCohortSampleKeepsTheTreeWeightsAndOwnQuota(t *testing.T) {
	_, imp := importSample(t, "cohorts.yaml")
	require.Equal(t, []scenfile.Cohort{
		{Name: "hello-cohort", Quota: map[string]scenfile.Quota{"default-flavor": {VCPUs: scenfile.Ptr(12.0)}}},
		{Name: "root-cohort"},
		{Name: "important-org", Parent: "root-cohort", Weight: scenfile.Ptr(0.75)},
		{Name: "regular-org", Parent: "root-cohort", Weight: scenfile.Ptr(0.25)},
	}, imp.File.Cohorts)
	require.Equal(t, "hello-cohort", imp.File.Teams[0].Cohort)
	require.Nil(t, imp.File.Teams[0].Quota, "a quota of 0: it only borrows")
}

// Kinds and fields the import does not know are warnings with their
// place: a kind not read, a field newer than Kueue v0.17, a resource
// allot does not model.
func TestKueueSampleKindsAndFieldsNotReadAreWarnings(t *testing.T) {
	_, imp := importSample(t, "provisioning-setup.yaml")
	require.Contains(t, imp.Warnings, "testdata/kueue-samples/provisioning-setup.yaml: document 4 (line 37): kueue.x-k8s.io/v1beta1 AdmissionCheck: not a kind the import reads; ignored")
	require.Contains(t, imp.Warnings, "ClusterQueue cluster-queue: spec.admissionChecksStrategy: admission checks are not modelled: a job is admitted once it has quota")
	_, imp = importSample(t, "concurrent-admission-setup.yaml")
	require.Contains(t, imp.Warnings, "ClusterQueue team-cluster-queue: spec.concurrentAdmissionPolicy: not a field of Kueue v0.17's API (kueue.x-k8s.io/v1beta2): ignored")
	_, imp = importSample(t, "shared-quota-setup.yaml")
	require.Contains(t, imp.Warnings, "ClusterQueue team-cluster-queue: spec.resourceGroups[1].flavors[0].resources[cpu_credits]: allot models accelerators, cpu and memory only: dropped")
	require.Contains(t, imp.Warnings, "Configuration: resources.transformations: not modelled: quotas count the resources as requested")
}

// The admission fair sharing sample: usage_half_life from the
// Configuration, StrictFIFO queueing.
func TestKueueAdmissionFairSharingSampleIsAUsageHalfLife(t *testing.T) {
	_, imp := importSample(t, "admission-fair-sharing-setup.yaml")
	p := imp.File.Policy
	require.Equal(t, "7d", p.UsageHalfLife)
	require.Equal(t, "strict-fifo", p.Queueing)
	require.Contains(t, imp.Warnings, "Configuration: admissionFairSharing.resourceWeights: not modelled: usage counts accelerators")
}

func ExampleKueueObjects() {
	o, _ := ReadKueueFiles([]string{"testdata/kueue-samples/tas-gpu-queues.yaml"})
	fmt.Println(len(o.Flavors), len(o.ClusterQueues), len(o.LocalQueues))
	// Output: 1 1 1
}
