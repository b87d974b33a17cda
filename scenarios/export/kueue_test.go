package export

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios"
	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
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
	// cpu and memory in the accelerators' share of a node: 64 of
	// p5.48xlarge's 8 GPUs a node, 192 vCPUs and 2,048 GiB; 80 of
	// p4d.24xlarge's 8, 96 vCPUs and 1,152 GiB.
	require.Equal(t, "1536", g.Flavors[0].Resources[1].NominalQuota.String())
	require.Equal(t, "16Ti", g.Flavors[0].Resources[2].NominalQuota.String())
	require.Equal(t, "80", g.Flavors[1].Resources[0].NominalQuota.String())
	require.Equal(t, "960", g.Flavors[1].Resources[1].NominalQuota.String())
	require.Equal(t, "11520Gi", g.Flavors[1].Resources[2].NominalQuota.String())
	require.Equal(t, kueue.ClusterQueueReference("ranking-prod"), k.LocalQueues[0].Spec.ClusterQueue)
	require.Equal(t, "ranking-prod", k.LocalQueues[0].Namespace)

	require.NotNil(t, k.Config.FairSharing)
	require.Equal(t, []string{"policy.preemption.grace_period 2m0s: set the Jobs' pod terminationGracePeriodSeconds; Kueue does not carry it"}, k.Warnings)
}

func TestHyperPodLimitsBecomeBorrowingLimitsAndThePoolARootQuota(t *testing.T) {
	k, err := ToKueue(load(t, "../hyperpod-teams.yaml"), KueueOptions{})
	require.NoError(t, err)
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
