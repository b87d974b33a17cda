package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// promotedPolicy writes the base policy file with edits made to its text.
func promotedPolicy(t *testing.T, name string, edits ...string) string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", "promote-base.yaml"))
	require.NoError(t, err)
	text := string(data)
	for i := 0; i+1 < len(edits); i += 2 {
		require.Contains(t, text, edits[i])
		text = strings.Replace(text, edits[i], edits[i+1], 1)
	}
	path := filepath.Join(t.TempDir(), name)
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	return path
}

// A promotion swaps the daemon's policy under running jobs: the dry run
// says what one pass would decide under each policy, applying it restarts
// nothing by itself, and what the new policy then decides is carried out
// and recorded under its name.
func TestPromoteToTheDaemonShowsTheDryRunAndRestartsNoJob(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon and real jobs")
	}
	base, err := filepath.Abs(filepath.Join("testdata", "promote-base.yaml"))
	require.NoError(t, err)
	d := newDaemon(t, base)
	long := []string{"STEPS=100000", "STEP_S=0.05", "EVERY=1000"}
	r1 := d.submit("research", "low", 2, long...)
	d.waitState(r1, live.StateRunning, 10*time.Second)
	r2 := d.submit("research", "low", 2, long...)
	d.waitState(r2, live.StateRunning, 10*time.Second) // borrows prod's idle quota
	r3 := d.submit("research", "high", 2, long...)
	time.Sleep(300 * time.Millisecond)
	require.Equal(t, live.StatePending, d.jobs()[r3].State, "research may not preempt its own jobs")

	// 1. Weights and borrowing limits change; no decision does.
	calm := promotedPolicy(t, "calm.yaml", "{name: prod, quota: {local-gpu: 2}}", "{name: prod, quota: {local-gpu: 2}, weight: 3}")
	out, errOut, code := d.cli("promote", calm, "--to", "live", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "decides the same under both policies")
	require.Contains(t, out, "dry run: nothing changed")
	out, errOut, code = d.cli("promote", calm, "--to", "live")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "applied: the daemon now runs calm.yaml@")
	time.Sleep(300 * time.Millisecond)
	jobs := d.jobs()
	require.Len(t, jobs, 3, "no job lost")
	for _, id := range []string{r1, r2} {
		require.Equal(t, live.StateRunning, jobs[id].State, id)
		require.Equal(t, 0, jobs[id].Restarts, "job %s restarted", id)
	}
	require.Equal(t, live.StatePending, jobs[r3].State)
	for _, id := range []string{r1, r2} {
		require.Equal(t, 1, strings.Count(d.stdout(id), "resuming at step"), "job %s ran once", id)
	}
	desc, _, _ := d.cli("describe", r3)
	require.Contains(t, desc, "policy changed from promote-base.yaml@")

	// 2. Research may now preempt its own lower-priority jobs: the dry run
	// names the victim, and the daemon carries it out under the new
	// policy's name.
	eager := promotedPolicy(t, "eager.yaml", "preempt_within_team: never", "preempt_within_team: lower-priority")
	out, errOut, code = d.cli("promote", eager, "--to", "live", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "one scheduling pass now, where the policies differ:")
	require.Regexp(t, `(?m)^\s*`+r2+`\s+no change\s+preempted: InClusterQueue for job `+r3+`\s*$`, out,
		"the most recently admitted low job is the victim")
	require.Equal(t, live.StateRunning, d.jobs()[r2].State, "a dry run changes nothing")
	_, errOut, code = d.cli("promote", eager, "--to", "live")
	require.Equal(t, 0, code, errOut)
	d.waitState(r2, live.StatePreempted, 20*time.Second)
	v := d.waitState(r3, live.StateRunning, 20*time.Second)
	require.Equal(t, 0, v.Restarts)
	require.Equal(t, live.StateRunning, d.jobs()[r1].State)
	require.Equal(t, 0, d.jobs()[r1].Restarts, "the job the policy did not choose runs on")
	desc, _, _ = d.cli("describe", r2, "--json")
	require.Contains(t, desc, `"policy": "eager.yaml@`, "the preemption is recorded with the policy that made it")
}

func TestPromoteRefusesAPolicyForAnotherFleetOrWithoutTheTeams(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a daemon")
	}
	base, err := filepath.Abs(filepath.Join("testdata", "promote-base.yaml"))
	require.NoError(t, err)
	d := newDaemon(t, base)
	d.submit("prod", "high", 1, "STEPS=100000", "STEP_S=0.05")
	bigger := promotedPolicy(t, "bigger.yaml", "count: 1}", "count: 2}")
	_, errOut, code := d.cli("promote", bigger, "--to", "live")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "a promotion changes the policy, not the fleet")
	noProd := promotedPolicy(t, "noprod.yaml", "  - {name: prod, quota: {local-gpu: 2}}\n", "")
	_, errOut, code = d.cli("promote", noProd, "--to", "live")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, `team "prod" has jobs and is not in the new policy`)
	_, errOut, code = d.cli("promote", base, "--to", "kueue")
	require.Equal(t, 2, code)
	require.Contains(t, errOut, "--to kueue writes the export: give -o DIR")
	dir := t.TempDir()
	_, errOut, code = d.cli("promote", base, "--to", "kueue", "-o", dir)
	require.Equal(t, 2, code, "the local devices have no catalog vCPUs or memory to cover")
	require.Contains(t, errOut, "instance types local-gpu: the catalog gives no vCPUs or memory")
	out, errOut, code := d.cli("promote", base, "--to", "kueue", "-o", dir, "--accelerators-only")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "wrote the kueue export to "+dir)
	_, err = os.Stat(filepath.Join(dir, "objects.yaml"))
	require.NoError(t, err)
}

// On Kubernetes the dry run is made on snapshots of the cluster under each
// policy, and the promotion writes the policy ConfigMap the controller
// follows: its next decisions are the new policy's.
func TestPromoteToTheKubernetesControllerRewritesItsPolicyConfigMap(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel() // waits on a control plane: beside the other tests that do
	base, err := os.ReadFile("../../scenarios/live/kubernetes.yaml")
	require.NoError(t, err)
	never := strings.Replace(string(base), "{name: research, quota: {p5.48xlarge: 8}}", "{name: research, quota: {p5.48xlarge: 8}, preempt_within_team: never}", 1)
	require.NotEqual(t, string(base), never)
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 2)
	serveOn(t, c, writePolicy(t, never))
	cli := kubeCLI(c.Kubeconfig)
	tol := kubetest.FakeTaint.Key + "=" + kubetest.FakeTaint.Value + ":" + string(kubetest.FakeTaint.Effect)
	submit := func(team, class string) string {
		t.Helper()
		out, errs, code := cli("submit", "--team", team, "--priority", class, "--accelerators", "8", "--image", "train:1", "--toleration", tol, "--", "python", "train.py")
		require.Equal(t, 0, code, errs)
		return strings.TrimSpace(out)
	}
	r1 := submit("research", "low")
	waitKubeState(t, cli, r1, live.StateRunning)
	p1 := submit("prod", "low")
	waitKubeState(t, cli, p1, live.StateRunning)
	r2 := submit("research", "high")
	time.Sleep(time.Second)
	require.Equal(t, live.StatePending, kubeState(t, cli, r2).State, "research may not preempt its own jobs yet")

	eager := writePolicy(t, string(base))
	out, errs, code := cli("promote", eager, "--to", "live", "--dry-run")
	require.Equal(t, 0, code, errs)
	require.Regexp(t, `(?m)^\s*`+r1+`\s+no change\s+preempted: InClusterQueue\s*$`, out)
	require.Contains(t, out, "dry run: nothing changed")
	require.Equal(t, live.StateRunning, kubeState(t, cli, r1).State)

	out, errs, code = cli("promote", eager, "--to", "live")
	require.Equal(t, 0, code, errs)
	require.Contains(t, out, "applied: wrote "+eager+" to ConfigMap allot-system/allot-policy")
	cm, err := c.Client.CoreV1().ConfigMaps("allot-system").Get(context.Background(), "allot-policy", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, string(base), cm.Data[kube.PolicyKey])
	waitKubeState(t, cli, r1, live.StatePreempted)
	waitKubeState(t, cli, r2, live.StateRunning)
	require.Equal(t, live.StateRunning, kubeState(t, cli, p1).State, "prod's job runs on")
}

// --to kueue --apply server-side applies the export: a dry run lists what
// would be created or changed, field by field, and changes nothing; the
// apply then makes the cluster's objects the export's.
func TestPromoteToKueueAppliesTheExportServerSide(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a control plane")
	}
	t.Parallel() // waits on a control plane: beside the other tests that do
	c := kubetest.Start(t)
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases", export.KueueCRDs...)
	promote := func(path string, extra ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := run(append([]string{"promote", path, "--to", "kueue", "-o", t.TempDir(), "--apply", "--kubeconfig", c.Kubeconfig}, extra...), &o, &e)
		return o.String(), e.String(), code
	}
	out, errOut, code := promote("../../scenarios/amazon-search.yaml", "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "kueue: server-side apply (field manager allot), dry run:")
	require.Contains(t, out, "create  ClusterQueue ranking-prod")
	cqs := schema.GroupVersionResource{Group: "kueue.x-k8s.io", Version: "v1beta2", Resource: "clusterqueues"}
	dyn := dynamic.NewForConfigOrDie(c.AdminConfig())
	_, err := dyn.Resource(cqs).Get(context.Background(), "ranking-prod", metav1.GetOptions{})
	require.True(t, apierrors.IsNotFound(err), "a dry run creates nothing: %v", err)

	out, errOut, code = promote("../../scenarios/amazon-search.yaml")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "applied 33 objects")

	data, err := os.ReadFile("../../scenarios/amazon-search.yaml")
	require.NoError(t, err)
	smaller := strings.Replace(string(data), "{name: ranking-prod, quota: {p5.48xlarge: 64,", "{name: ranking-prod, quota: {p5.48xlarge: 32,", 1)
	path := filepath.Join(t.TempDir(), "amazon-search.yaml")
	require.NoError(t, os.WriteFile(path, []byte(smaller), 0o644))
	out, errOut, code = promote(path, "--dry-run")
	require.Equal(t, 0, code, errOut)
	require.Contains(t, out, "update  ClusterQueue ranking-prod: spec.resourceGroups[0].flavors[0].resources[0].nominalQuota 64 → 32")
	require.Contains(t, out, "update  Cohort default: spec.resourceGroups (none) → ", "the 32 GPUs no quota covers now are the root cohort's")
	require.Contains(t, out, "(31 objects unchanged)")
	out, errOut, code = promote(path)
	require.Equal(t, 0, code, errOut)
	cq, err := dyn.Resource(cqs).Get(context.Background(), "ranking-prod", metav1.GetOptions{})
	require.NoError(t, err)
	q, _, _ := unstructured.NestedSlice(cq.Object, "spec", "resourceGroups")
	require.Contains(t, fmt.Sprint(q), "nominalQuota:32")
}
