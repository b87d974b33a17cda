package export

import (
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
	sigsyaml "sigs.k8s.io/yaml"
)

func load(t *testing.T, path string) *scenarios.Scenario {
	t.Helper()
	s, err := Load(path)
	require.NoError(t, err)
	return s
}

func TestAmazonSearchBecomesAClusterQueuePerTeamInOneCohort(t *testing.T) {
	k, err := ToKueue(load(t, "../amazon-search.yaml"), KueueOptions{})
	require.NoError(t, err)
	require.Len(t, k.Namespaces, 9)
	require.Len(t, k.ClusterQueues, 9)
	require.Len(t, k.LocalQueues, 9)
	require.Len(t, k.Cohorts, 1)
	require.Equal(t, "default", k.Cohorts[0].Name)
	require.Equal(t, map[string]string{InstanceTypeLabel: "p5.48xlarge"}, k.Flavors[0].Spec.NodeLabels)
	require.Equal(t, int32(100), k.PriorityClasses[0].Value)

	cq := k.ClusterQueues[0]
	require.Equal(t, "ranking-prod", cq.Name)
	require.Equal(t, kueue.CohortReference("default"), cq.Spec.CohortName)
	require.Equal(t, kueue.BestEffortFIFO, cq.Spec.QueueingStrategy)
	require.Equal(t, "2", cq.Spec.FairSharing.Weight.String())
	require.Equal(t, kueue.PreemptionPolicyAny, cq.Spec.Preemption.ReclaimWithinCohort)
	require.Equal(t, kueue.PreemptionPolicyLowerPriority, cq.Spec.Preemption.WithinClusterQueue)
	require.Equal(t, kueue.BorrowWithinCohortPolicyNever, cq.Spec.Preemption.BorrowWithinCohort.Policy)
	require.Equal(t, kueue.TryNextFlavor, cq.Spec.FlavorFungibility.WhenCanBorrow, "fallback: try-next-type")
	require.Equal(t, kueue.TryNextFlavor, cq.Spec.FlavorFungibility.WhenCanPreempt)
	g := cq.Spec.ResourceGroups[0]
	require.Equal(t, []corev1.ResourceName{"nvidia.com/gpu", "cpu", "memory"}, g.CoveredResources)
	require.Equal(t, kueue.ResourceFlavorReference("p5.48xlarge"), g.Flavors[0].Name, "H100 first")
	require.Equal(t, "64", g.Flavors[0].Resources[0].NominalQuota.String())
	require.Nil(t, g.Flavors[0].Resources[0].BorrowingLimit, "borrowing unlimited")
	require.Equal(t, kueue.ClusterQueueReference("ranking-prod"), k.LocalQueues[0].Spec.ClusterQueue)
	require.Equal(t, "ranking-prod", k.LocalQueues[0].Namespace)

	require.NotNil(t, k.Config.FairSharing)
	require.Equal(t, []string{"policy.preemption.grace_period 2m0s: set the Jobs' pod terminationGracePeriodSeconds (Kubernetes' default is 30s); Kueue does not carry it"}, k.Warnings)
}

func TestHyperPodLimitsBecomeBorrowingLimitsAndThePoolARootQuota(t *testing.T) {
	k, err := ToKueue(load(t, "../hyperpod-teams.yaml"), KueueOptions{})
	require.NoError(t, err)
	for _, w := range k.Warnings {
		require.NotContains(t, w, "grace_period", "30s is a pod's own default: nothing to say")
	}
	for _, cq := range k.ClusterQueues {
		for _, f := range cq.Spec.ResourceGroups[0].Flavors {
			for _, r := range f.Resources {
				if r.Name == "nvidia.com/gpu" {
					require.NotNil(t, r.BorrowingLimit, "%s: the 50%% borrow limit", cq.Name)
					require.Equal(t, r.NominalQuota.Value()/2, r.BorrowingLimit.Value(), cq.Name)
				}
			}
		}
	}
}

// shippedScenarios is every shipped scenario and policy file with a fleet.
func shippedScenarios(t *testing.T) []string {
	var out []string
	require.NoError(t, filepath.WalkDir("..", func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || d.Name() == "export") {
			return filepath.SkipDir
		}
		if strings.HasSuffix(p, ".yaml") {
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			if strings.Contains(string(data), "\nfleet:") || strings.HasPrefix(string(data), "fleet:") {
				out = append(out, p)
			}
		}
		return nil
	}))
	require.Greater(t, len(out), 15)
	return out
}

// Every shipped scenario's export applies to a real API server with
// Kueue v0.17's CRDs: the schema and its validation rules accept it.
func TestKueueExportOfEveryShippedScenarioIsAcceptedByTheAPIServer(t *testing.T) {
	c := kubetest.Start(t)
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases", KueueCRDs...)
	kubectl := filepath.Join(os.Getenv(kubetest.BinEnv), "kubectl")
	// One apply of every scenario's objects (names shared between
	// scenarios are the same objects, updated); a failure is then pinned
	// to its scenario.
	var all []byte
	perScenario := map[string]string{}
	for _, p := range shippedScenarios(t) {
		s := load(t, p)
		opt := KueueOptions{}
		if unknown := s.NodeResourcesUnknown(); len(unknown) > 0 {
			// Types the catalog gives no vCPUs or memory for (local
			// devices): the default export refuses, naming them; the
			// accelerators-only one is applied.
			_, err := ToKueue(s, opt)
			require.ErrorContains(t, err, "instance types "+strings.Join(unknown, ", ")+": the catalog gives no vCPUs or memory", p)
			opt.AcceleratorsOnly = true
		}
		k, err := ToKueue(s, opt)
		require.NoError(t, err, p)
		objs, err := k.ObjectsYAML()
		require.NoError(t, err, p)
		f := filepath.Join(t.TempDir(), "objects.yaml")
		require.NoError(t, os.WriteFile(f, objs, 0o644))
		perScenario[p] = f
		all = append(append(all, objs...), "---\n"...)
	}
	f := filepath.Join(t.TempDir(), "all.yaml")
	require.NoError(t, os.WriteFile(f, all, 0o644))
	if out, err := exec.Command(kubectl, "--kubeconfig", c.Kubeconfig, "apply", "-f", f).CombinedOutput(); err != nil {
		for p, f := range perScenario {
			out, err := exec.Command(kubectl, "--kubeconfig", c.Kubeconfig, "apply", "-f", f).CombinedOutput()
			require.NoError(t, err, "%s:\n%s", p, out)
		}
		t.Fatalf("every scenario applies alone, not together:\n%s", out)
	}
}

// A real Job requests cpu and memory: each quota covers them in its share
// of the type's accelerators (p5.48xlarge: 8 GPUs, 192 vCPUs, 2048 GiB;
// p4d.24xlarge: 8, 96, 1152), limits included.
func TestClusterQueuesCoverCPUAndMemoryInTheAcceleratorsShare(t *testing.T) {
	k, err := ToKueue(load(t, "../amazon-search.yaml"), KueueOptions{})
	require.NoError(t, err)
	quotas := func(f kueue.FlavorQuotas) map[corev1.ResourceName]string {
		out := map[corev1.ResourceName]string{}
		for _, r := range f.Resources {
			out[r.Name] = r.NominalQuota.String()
		}
		return out
	}
	fl := k.ClusterQueues[0].Spec.ResourceGroups[0].Flavors
	require.Equal(t, map[corev1.ResourceName]string{"nvidia.com/gpu": "64", "cpu": "1536", "memory": "16Ti"}, quotas(fl[0]), "ranking-prod on p5.48xlarge")
	require.Equal(t, map[corev1.ResourceName]string{"nvidia.com/gpu": "80", "cpu": "960", "memory": "11520Gi"}, quotas(fl[1]), "ranking-prod on p4d.24xlarge")
	require.Equal(t, &config.Resources{ExcludeResourcePrefixes: []string{"ephemeral-storage"}}, k.Config.Resources)

	hp, err := ToKueue(load(t, "../hyperpod-teams.yaml"), KueueOptions{})
	require.NoError(t, err)
	for _, cq := range hp.ClusterQueues {
		for _, f := range cq.Spec.ResourceGroups[0].Flavors {
			for _, r := range f.Resources {
				require.NotNil(t, r.BorrowingLimit, "%s %s %s", cq.Name, f.Name, r.Name)
				require.Equal(t, r.NominalQuota.MilliValue()/2, r.BorrowingLimit.MilliValue(), "%s %s %s: the 50%% borrow limit on every resource", cq.Name, f.Name, r.Name)
			}
		}
	}
}

// --accelerators-only leaves cpu and memory out of the queues and has
// Kueue ignore them: never neither covered nor excluded.
func TestAcceleratorsOnlyHasKueueExcludeCPUAndMemory(t *testing.T) {
	k, err := ToKueue(load(t, "../amazon-search.yaml"), KueueOptions{AcceleratorsOnly: true})
	require.NoError(t, err)
	require.Equal(t, []corev1.ResourceName{"nvidia.com/gpu"}, k.ClusterQueues[0].Spec.ResourceGroups[0].CoveredResources)
	require.Equal(t, []string{"cpu", "memory", "ephemeral-storage"}, k.Config.Resources.ExcludeResourcePrefixes)
}

// An instance type without catalog vCPUs or memory cannot be covered:
// the error names it and both ways out.
func TestExportNamesTheTypesWithoutVCPUsOrMemory(t *testing.T) {
	_, err := ToKueue(load(t, "../replay/philly.yaml"), KueueOptions{})
	require.EqualError(t, err, "instance types philly-v100: the catalog gives no vCPUs or memory, so the ClusterQueues cannot cover the cpu and memory a Job requests; "+
		"give vcpus and memory_gib for them (fleet.types, or a catalog), or export with --accelerators-only to have Kueue ignore cpu and memory")
}

// kueue-config.yaml is a fragment to merge: only the fields the policy
// sets, each commented; waitForPodsReady only with placement_timeout.
func TestKueueConfigIsACommentedFragmentOfTheFieldsThePolicySets(t *testing.T) {
	data, err := os.ReadFile("../amazon-search.yaml")
	require.NoError(t, err)
	k, err := ToKueue(load(t, "../amazon-search.yaml"), KueueOptions{})
	require.NoError(t, err)
	conf, err := k.ConfigYAML()
	require.NoError(t, err)
	var fields map[string]any
	require.NoError(t, sigsyaml.Unmarshal(conf, &fields))
	require.ElementsMatch(t, []string{"fairSharing", "resources"}, slices.Collect(maps.Keys(fields)), "no waitForPodsReady the scenario did not ask for:\n%s", conf)
	require.Contains(t, string(conf), "# fair sharing between the teams' ClusterQueues by weight (policy.idle_allocation fair-share)\nfairSharing:\n")
	require.Contains(t, string(conf), "  # the order of the rules by which a preemption may even out shares (policy.fair_sharing_strategies)\n  preemptionStrategies:\n")

	timed := strings.Replace(string(data), "policy:\n", "policy:\n  placement_timeout: 10m\n", 1)
	path := filepath.Join(t.TempDir(), "timed.yaml")
	require.NoError(t, os.WriteFile(path, []byte(timed), 0o644))
	k, err = ToKueue(load(t, path), KueueOptions{})
	require.NoError(t, err)
	conf, err = k.ConfigYAML()
	require.NoError(t, err)
	require.Contains(t, string(conf), "# requeue a job admitted but not running in time (policy.placement_timeout)\nwaitForPodsReady:\n  # policy.placement_timeout\n  timeout: 10m0s\n")
}

// An apply's plan names each leaf that changes, old → new, and a list
// whose length changed as a whole.
func TestApplyDiffNamesEachChangedLeaf(t *testing.T) {
	a := map[string]any{"q": []any{map[string]any{"n": "64", "b": nil}}, "w": "1"}
	b := map[string]any{"q": []any{map[string]any{"n": "32", "b": "8"}}, "w": "1"}
	require.Equal(t, []string{"spec.q[0].b (none) → 8", "spec.q[0].n 64 → 32"}, diffPaths("spec", a, b))
	require.Equal(t, []string{"spec.q [a] → [a b]"}, diffPaths("spec", map[string]any{"q": []any{"a"}}, map[string]any{"q": []any{"a", "b"}}))
	require.Nil(t, diffPaths("spec", a, a))
}
