package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/stretchr/testify/require"
)

// kueueWorkloadsYAML are two Workloads of amazon-search's teams: one
// admitted and finished, one pending. Their status goes in through the
// status subresource (kueueWorkloadStatus).
const kueueWorkloadsYAML = `apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: train-1, namespace: ranking-prod}
spec:
  queueName: ranking-prod
  priorityClassRef: {group: kueue.x-k8s.io, kind: WorkloadPriorityClass, name: production}
  priority: 100
  podSets:
  - name: main
    count: 2
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: trainer
          image: trainer:1
          resources: {requests: {nvidia.com/gpu: "8", cpu: "32"}}
---
apiVersion: kueue.x-k8s.io/v1beta2
kind: Workload
metadata: {name: sweep-1, namespace: ads-sweeps}
spec:
  queueName: ads-sweeps
  podSets:
  - name: main
    count: 1
    template:
      spec:
        restartPolicy: Never
        containers:
        - name: sweeper
          image: sweeper:1
          resources: {requests: {nvidia.com/gpu: "1"}}
`

var kueueWorkloadStatus = map[string]string{
	"ranking-prod/train-1": `{"status":{"admission":{"clusterQueue":"ranking-prod","podSetAssignments":[{"name":"main","count":2,` +
		`"flavors":{"nvidia.com/gpu":"p5.48xlarge"},"resourceUsage":{"nvidia.com/gpu":"16","cpu":"64"}}]},"conditions":[` +
		`{"type":"QuotaReserved","status":"True","reason":"QuotaReserved","message":"reserved","lastTransitionTime":"2026-03-02T10:00:05Z"},` +
		`{"type":"Admitted","status":"True","reason":"Admitted","message":"admitted","lastTransitionTime":"2026-03-02T10:00:05Z"},` +
		`{"type":"Finished","status":"True","reason":"Succeeded","message":"done","lastTransitionTime":"2026-03-02T12:00:05Z"}]}}`,
	"ads-sweeps/sweep-1": `{"status":{"conditions":[{"type":"QuotaReserved","status":"False","reason":"Pending","message":"waiting",` +
		`"lastTransitionTime":"2026-03-02T12:30:00Z"}]}}`,
}

// allot import kueue --kubeconfig reads a cluster (an export applied,
// Nodes, the manager's ConfigMap, Workloads) into what a file import of
// the same objects, as kubectl get -A -o yaml prints them, gives.
func TestImportKueueFromAClusterEqualsTheImportOfItsObjectsAsFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel() // waits on a control plane: beside the other tests that do
	c := kubetest.Start(t)
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases", append(export.KueueCRDs, "kueue.x-k8s.io_workloads")...)
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 2)
	c.Nodes("p4d.24xlarge", kube.ResourceNVIDIA, 8, 3)
	dir := t.TempDir()
	code, _, errs := cli("export", "kueue", "../../scenarios/amazon-search.yaml", "-o", filepath.Join(dir, "export"))
	require.Equal(t, exitOK, code, errs)
	c.Apply(filepath.Join(dir, "export", "objects.yaml"))
	cfg := "apiVersion: config.kueue.x-k8s.io/v1beta2\nkind: Configuration\n" + mustRead(t, filepath.Join(dir, "export", "kueue-config.yaml"))
	kubectl := func(stdin string, args ...string) string {
		cmd := exec.Command(filepath.Join(os.Getenv(kubetest.BinEnv), "kubectl"), append([]string{"--kubeconfig", c.Kubeconfig}, args...)...)
		cmd.Stdin = strings.NewReader(stdin)
		out, err := cmd.Output()
		require.NoError(t, err, "kubectl %v", args)
		return string(out)
	}
	kubectl("", "create", "namespace", export.ManagerConfigMap.Namespace)
	kubectl("", "create", "configmap", "-n", export.ManagerConfigMap.Namespace, export.ManagerConfigMap.Name, "--from-literal="+export.ManagerConfigMap.Key+"="+cfg)
	kubectl(kueueWorkloadsYAML, "create", "-f", "-")
	for wl, status := range kueueWorkloadStatus {
		ns, name, _ := strings.Cut(wl, "/")
		kubectl("", "patch", "workload", "-n", ns, name, "--subresource=status", "--type=merge", "-p", status)
	}

	live := filepath.Join(dir, "live", "cluster.yaml")
	code, _, errs = cli("import", "kueue", "--kubeconfig", c.Kubeconfig, "-o", live)
	require.Equal(t, exitOK, code, errs)
	objs := filepath.Join(dir, "objects.yaml")
	require.NoError(t, os.WriteFile(objs, []byte(kubectl("", "get", "resourceflavors,cohorts,clusterqueues,localqueues,workloadpriorityclasses,priorityclasses,workloads,nodes", "-A", "-o", "yaml")+
		"---\n"+kubectl("", "get", "configmap", "-n", export.ManagerConfigMap.Namespace, export.ManagerConfigMap.Name, "-o", "yaml")), 0o644))
	files := filepath.Join(dir, "files", "cluster.yaml")
	code, _, errs = cli("import", "kueue", objs, "-o", files)
	require.Equal(t, exitOK, code, errs)

	source := regexp.MustCompile(`(?m)^(# Written by allot import from|description:) .*$`)
	scenario := func(p string) string { return source.ReplaceAllString(mustRead(t, p), "$1 ...") }
	require.Equal(t, scenario(files), scenario(live))
	require.Equal(t, mustRead(t, filepath.Join(dir, "files", "warnings.txt")), mustRead(t, filepath.Join(dir, "live", "warnings.txt")))
	require.Equal(t, mustRead(t, filepath.Join(dir, "files", "cluster.parquet")), mustRead(t, filepath.Join(dir, "live", "cluster.parquet")))
	got := mustRead(t, live)
	for _, want := range []string{"- type: p5.48xlarge\n      count: 2", "- type: p4d.24xlarge\n      count: 3", "idle_allocation: fair-share",
		"- name: ranking-prod\n    quota:\n      p4d.24xlarge: 80\n      p5.48xlarge: 64\n    weight: 2"} {
		require.Contains(t, got, want)
	}
	require.Contains(t, mustRead(t, filepath.Join(dir, "live", "warnings.txt")), "Workloads: 1 pending (never admitted), so with no duration: left out of the trace")
}
