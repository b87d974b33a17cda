package main

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// kubeCluster starts a control plane with two p5.48xlarge nodes of 8 GPUs
// and the controller (`allot live serve --backend kubernetes --config`,
// this test binary acting as allot) on scenarios/live/kubernetes.yaml.
func kubeCluster(t *testing.T) (*kubetest.Cluster, string, func(args ...string) (string, string, int)) {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 2)
	return c, serveOn(t, c, "../../scenarios/live/kubernetes.yaml"), kubeCLI(c.Kubeconfig)
}

// serveOn installs deploy/ as a user would (kubectl apply -k; no
// Deployment controller runs here to start its pods) and team access for
// research and prod, puts policy in the policy ConfigMap, and runs the
// controller, this test binary acting as allot, under deploy/'s
// ServiceAccount; it returns the controller's HTTP address.
func serveOn(t *testing.T, c *kubetest.Cluster, policy string) string {
	c.Apply("../../deploy", "../../deploy/teams/research.yaml", "../../deploy/teams/prod.yaml")
	data, err := os.ReadFile(policy)
	if err != nil {
		t.Fatal(err)
	}
	// As an administrator installs it (the controller may only read it).
	if err := kube.PutPolicy(context.Background(), c.Client, "allot-system", "allot-policy", data); err != nil {
		t.Fatal(err)
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	addr := freeAddr(t)
	serve := exec.Command(bin, "live", "serve", "--backend", "kubernetes", "--kubeconfig", c.ServiceAccountKubeconfig("allot-system", "allot-controller"), "--http", addr)
	serve.Env = append(os.Environ(), docCLIEnv+"=1")
	serve.Stdout, serve.Stderr = &log, &log
	if err := serve.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = serve.Process.Signal(syscall.SIGTERM)
		_ = serve.Wait()
		if t.Failed() {
			t.Logf("controller log:\n%s", log.String())
		}
	})
	return addr
}

// kubeCLI runs allot's commands with --backend kubernetes on kubeconfig.
func kubeCLI(kubeconfig string) func(args ...string) (string, string, int) {
	return func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := run(append(append([]string{args[0]}, "--backend", "kubernetes", "--kubeconfig", kubeconfig), args[1:]...), &o, &e)
		return o.String(), e.String(), code
	}
}

// Through allot's own commands on a real API server: submitted jobs are
// created suspended and admitted; prod's high job takes its quota back
// from research's second job, which borrowed it: that one is suspended,
// shows as preempted with who took its place, and is admitted again once
// prod's job is cancelled; `kubectl describe job` tells the same story,
// and the controller's dashboard renders the cluster's history.
func TestKubernetesJobsAreAdmittedPreemptedAndExplainedThroughTheCLI(t *testing.T) {
	// Not t.Parallel: its dashboard, a page that reloads itself, is read
	// in headless Chromium, and on two cores loaded by the tests that run
	// in parallel the reading once ran past its 90 s.
	c, addr, cli := kubeCluster(t)
	tol := kubetest.FakeTaint.Key + "=" + kubetest.FakeTaint.Value + ":" + string(kubetest.FakeTaint.Effect)
	submit := func(team, class string, gpus int) string {
		t.Helper()
		out, errs, code := cli("submit", "--team", team, "--priority", class, "--accelerators", strconv.Itoa(gpus), "--image", "train:1", "--toleration", tol, "--", "python", "train.py")
		if code != 0 {
			t.Fatalf("submit: exit %d: %s", code, errs)
		}
		return strings.TrimSpace(out)
	}
	waitState := func(id, want string) live.View { t.Helper(); return waitKubeState(t, cli, id, want) }
	start := time.Now()
	own := submit("research", "low", 8)
	if !strings.HasPrefix(own, "research/allot-") {
		t.Errorf("job id %q, want research/allot-...", own)
	}
	waitState(own, live.StateRunning)
	low := submit("research", "low", 8)
	v := waitState(low, live.StateRunning)
	if v.InstanceType != "p5.48xlarge" || !strings.Contains(v.Reason, "borrowing") || v.Started == nil {
		t.Errorf("running job: %+v", v)
	}
	high := submit("prod", "high", 8)
	v = waitState(low, live.StatePreempted)
	if out, ok := preemptedFor(cli, low, "InCohortReclamation", high); v.Preemptions != 1 || !ok {
		t.Errorf("preempted job: %+v\n%s", v, out)
	}
	waitState(high, live.StateRunning)
	wants := []string{
		`allot_team_allocated_accelerators{instance_type="p5.48xlarge",team="prod"} 8`,
		`allot_team_allocated_accelerators{instance_type="p5.48xlarge",team="research"} 8`,
		`allot_jobs{state="preempted",team="research"} 1`,
		`allot_preemptions_total{reason="InCohortReclamation",team="research"} 1`,
	}
	var metrics string
	waitFor(t, "the controller's /metrics", 10*time.Second, func() bool {
		resp, err := http.Get("http://" + addr + "/metrics")
		if err != nil {
			return false
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		metrics = string(body)
		return !slices.ContainsFunc(wants, func(w string) bool { return !strings.Contains(metrics, w) })
	})
	if out, errs, code := cli("top", "--once"); code != 0 || !strings.HasPrefix(out, "devices 16/16 in use (100%)") ||
		!regexp.MustCompile(`(?m)^research\s+8\s+8\s+0\s+0\s+0\s+1\s+1`).MatchString(out) {
		t.Errorf("top --once: exit %d %s\n%s", code, errs, out)
	}
	snap := filepath.Join(t.TempDir(), "now.yaml")
	var o, e bytes.Buffer
	if code := run([]string{"live", "snapshot", "--backend", "kubernetes", "--kubeconfig", c.Kubeconfig, "-o", snap}, &o, &e); code != 0 {
		t.Fatalf("live snapshot: exit %d %s", code, e.String())
	}
	o.Reset()
	if code := run([]string{"cycle", snap}, &o, &e); code != 0 || !strings.Contains(o.String(), low) {
		t.Errorf("allot cycle on the cluster's snapshot: exit %d %s\n%s", code, e.String(), o.String())
	}
	// A controller whose policy is elsewhere: --policy-configmap NS/NAME.
	policy, err := os.ReadFile("../../scenarios/live/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if err := kube.PutPolicy(context.Background(), c.Client, "prod", "elsewhere", policy); err != nil {
		t.Fatal(err)
	}
	for ref, want := range map[string]string{"prod/elsewhere": "", "prod/none": `configmaps "none" not found`} {
		o.Reset()
		e.Reset()
		code := run([]string{"live", "snapshot", "--backend", "kubernetes", "--kubeconfig", c.Kubeconfig, "--policy-configmap", ref}, &o, &e)
		if (want == "" && (code != 0 || !strings.Contains(o.String(), low))) || (want != "" && (code != exitBadInput || !strings.Contains(e.String(), want))) {
			t.Errorf("live snapshot --policy-configmap %s: exit %d %s", ref, code, e.String())
		}
	}
	// The charts need a few seconds of history to draw lines; the steps
	// above can take under one.
	time.Sleep(time.Until(start.Add(4 * time.Second)))
	t.Run("dashboard", func(t *testing.T) { // skips where there is no Chromium
		checkDashboard(t, "http://"+addr+"/", []string{"team research now", "team prod now", "pending / running / preempted now", "p5.48xlarge"})
	})
	out, _, code := cli("describe", low)
	for _, want := range []string{"Admitted", "InCohortReclamation", "preempted (InCohortReclamation) for " + high} {
		if code != 0 || !strings.Contains(out, want) {
			t.Errorf("describe %s: exit %d, no %q:\n%s", low, code, want, out)
		}
	}
	kubectl := exec.Command(filepath.Join(os.Getenv(kubetest.BinEnv), "kubectl"), "--kubeconfig", c.Kubeconfig, "describe", "job", "-n", "research", strings.TrimPrefix(low, "research/"))
	kd, err := kubectl.CombinedOutput()
	if err != nil || !strings.Contains(string(kd), "scheduling.allot.dev/preempted-by: "+high) || !strings.Contains(string(kd), "InCohortReclamation") {
		t.Errorf("kubectl describe job (%v):\n%s", err, kd)
	}
	if _, errs, code := cli("cancel", high); code != 0 {
		t.Fatalf("cancel: exit %d %s", code, errs)
	}
	waitState(high, live.StateCancelled)
	waitState(low, live.StateRunning)
	if v := kubeState(t, cli, own); v.State != live.StateRunning || v.Preemptions != 0 {
		t.Errorf("research's job within its quota: %+v", v)
	}
	if _, errs, code := cli("submit", "--team", "research", "--priority", "low", "--accelerators", "1", "--", "true"); code != exitBadInput || !strings.Contains(errs, "--image is required") {
		t.Errorf("submit without an image: exit %d %s", code, errs)
	}
}

// kubeState is a job as allot jobs --json lists it.
func kubeState(t *testing.T, cli func(args ...string) (string, string, int), id string) live.View {
	t.Helper()
	out, errs, code := cli("jobs", "--json")
	if code != 0 {
		t.Fatalf("jobs: exit %d: %s", code, errs)
	}
	var vs []live.View
	if err := json.Unmarshal([]byte(out), &vs); err != nil {
		t.Fatal(err)
	}
	for _, v := range vs {
		if v.ID == id {
			return v
		}
	}
	t.Fatalf("job %s not listed: %s", id, out)
	return live.View{}
}

// waitKubeState waits up to 30 s for a job to be in state want.
func waitKubeState(t *testing.T, cli func(args ...string) (string, string, int), id, want string) live.View {
	t.Helper()
	var v live.View
	waitFor(t, id+" "+want, 30*time.Second, func() bool { v = kubeState(t, cli, id); return v.State == want })
	return v
}

// preemptedFor says whether allot describe shows id preempted for reason
// by the job by, and returns what it printed. The job's reason is not
// asked: once its pods are gone it says why the job waits.
func preemptedFor(cli func(args ...string) (string, string, int), id, reason, by string) (string, bool) {
	out, errs, code := cli("describe", id)
	return out + errs, code == 0 && strings.Contains(out, "preempted ("+reason+") for "+by)
}

// kubeSubmit submits through allot submit --backend kubernetes and returns
// the job's id; the pods tolerate the fake nodes' taint.
func kubeSubmit(t *testing.T, cli func(args ...string) (string, string, int), team, class string, gpus, pods int, more ...string) string {
	t.Helper()
	tol := kubetest.FakeTaint.Key + "=" + kubetest.FakeTaint.Value + ":" + string(kubetest.FakeTaint.Effect)
	args := append([]string{"submit", "--team", team, "--priority", class, "--accelerators", strconv.Itoa(gpus), "--pods", strconv.Itoa(pods),
		"--image", "train:1", "--toleration", tol}, more...)
	out, errs, code := cli(append(args, "--", "python", "train.py")...)
	if code != 0 {
		t.Fatalf("submit: exit %d: %s", code, errs)
	}
	return strings.TrimSpace(out)
}

// podsOn counts a job's running pods per node's instance type.
func podsOn(t *testing.T, c *kubetest.Cluster, id string) map[string]int {
	t.Helper()
	ns, name, _ := strings.Cut(id, "/")
	ctx := context.Background()
	pods, err := c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=" + name})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.DeletionTimestamp != nil {
			continue
		}
		n, err := c.Client.CoreV1().Nodes().Get(ctx, p.Spec.NodeName, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		out[n.Labels[kube.InstanceTypeLabel]]++
	}
	return out
}

// writePolicy writes a policy file for serveOn.
func writePolicy(t *testing.T, policy string) string {
	path := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(path, []byte(policy), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// HyperPod's CLI walkthrough (../shared/reference/aws-parity-cases.md H2)
// on real Jobs and pods: teams A (research) and B (prod) each own one
// 4-GPU g5.12xlarge and may borrow all of the other's. A's 2-pod job
// borrows B's idle instance; B's 1-pod job takes it back (A's job is
// suspended); B's 2-pod experimentation job (80 > training's 70) preempts
// B's own training job and borrows A's idle instance, while A's job stays
// suspended.
func TestKubernetesBorrowReclaimAndPriorityPreemptionOnRealJobs(t *testing.T) {
	t.Parallel() // waits on a control plane: beside the other tests that do
	c := kubetest.Start(t)
	c.Nodes("g5.12xlarge", kube.ResourceNVIDIA, 4, 2)
	serveOn(t, c, writePolicy(t, `name: h2
teams:
  - {name: research, quota: {g5.12xlarge: 4}, borrow_limit: 100%, preempt_within_team: lower-priority}
  - {name: prod, quota: {g5.12xlarge: 4}, borrow_limit: 100%, preempt_within_team: lower-priority}
priority_classes:
  - {name: experimentation, value: 80}
  - {name: training, value: 70}
policy: {kind: quota, reclaim: any, preemption: {grace_period: 1s}}
`))
	cli := kubeCLI(c.Kubeconfig)
	running := func(id string, pods int) live.View {
		t.Helper()
		v := waitKubeState(t, cli, id, live.StateRunning)
		waitFor(t, id+"'s pods running", 30*time.Second, func() bool { return podsOn(t, c, id)["g5.12xlarge"] == pods })
		return v
	}
	suspended := func(id string) live.View {
		t.Helper()
		v := waitKubeState(t, cli, id, live.StatePreempted)
		waitFor(t, id+"'s pods gone", 30*time.Second, func() bool { return len(podsOn(t, c, id)) == 0 })
		return v
	}

	// 1. A's 2-node job runs, borrowing B's idle instance.
	a := kubeSubmit(t, cli, "research", "training", 8, 2)
	if v := running(a, 2); !strings.Contains(v.Reason, "borrowing") {
		t.Errorf("step 1: A's job %+v, want admitted borrowing", v)
	}
	// 2. B's 1-node job: A's job is suspended, B's runs.
	b1 := kubeSubmit(t, cli, "prod", "training", 4, 1)
	suspended(a)
	if out, ok := preemptedFor(cli, a, "InCohortReclamation", b1); !ok {
		t.Errorf("step 2: A's job, want preempted by %s to reclaim:\n%s", b1, out)
	}
	running(b1, 1)
	// 3. B's 2-node experimentation job: B's training job is suspended,
	// the experimentation job runs on both instances, A's stays suspended.
	b2 := kubeSubmit(t, cli, "prod", "experimentation", 8, 2)
	suspended(b1)
	if out, ok := preemptedFor(cli, b1, "InClusterQueue", b2); !ok {
		t.Errorf("step 3: B's training job, want preempted within its team by %s:\n%s", b2, out)
	}
	running(b2, 2)
	if v := kubeState(t, cli, a); v.State != live.StatePreempted || v.Preemptions != 1 {
		t.Errorf("step 3: A's job %+v, want still suspended, preempted once", v)
	}
}

// A job that does not fit on its team's first instance type is admitted
// on the next compatible one (node selector and pods there); a job pinned
// to the full type waits and says so.
func TestKubernetesJobFallsBackToAnotherInstanceTypeWhenOneIsFull(t *testing.T) {
	t.Parallel() // waits on a control plane: beside the other tests that do
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 1)
	c.Nodes("p4d.24xlarge", kube.ResourceNVIDIA, 8, 1)
	serveOn(t, c, writePolicy(t, `name: fallback
teams:
  - {name: research, quota: {p5.48xlarge: 8, p4d.24xlarge: 8}}
  - {name: prod}
priority_classes: [{name: low, value: 10}]
policy: {kind: quota, fallback: try-next-type}
`))
	cli := kubeCLI(c.Kubeconfig)
	first := kubeSubmit(t, cli, "research", "low", 8, 1)
	waitKubeState(t, cli, first, live.StateRunning)
	second := kubeSubmit(t, cli, "research", "low", 8, 1)
	waitKubeState(t, cli, second, live.StateRunning)
	waitFor(t, "both jobs' pods running", 30*time.Second, func() bool {
		return len(podsOn(t, c, first))+len(podsOn(t, c, second)) == 2
	})
	got := map[string]int{}
	for _, id := range []string{first, second} {
		for it, n := range podsOn(t, c, id) {
			got[it] += n
		}
		if v := kubeState(t, cli, id); len(podsOn(t, c, id)) != 1 || podsOn(t, c, id)[v.InstanceType] != 1 {
			t.Errorf("%s admitted on %s runs on %v", id, v.InstanceType, podsOn(t, c, id))
		}
	}
	if got["p5.48xlarge"] != 1 || got["p4d.24xlarge"] != 1 {
		t.Errorf("pods per instance type %v, want one on each", got)
	}
	pinned := kubeSubmit(t, cli, "research", "low", 8, 1, "--instance-type", "p5.48xlarge")
	var v live.View
	waitFor(t, "the pinned job's reason", 30*time.Second, func() bool { v = kubeState(t, cli, pinned); return v.Reason != "" })
	if v.State != live.StatePending || !strings.Contains(v.Reason, "p5.48xlarge") {
		t.Errorf("job pinned to the full type: %+v", v)
	}
}

// With deploy/teams/research.yaml, a research user submits, lists and
// cancels in namespace research, and is refused in prod's: the API server
// says who was refused what, and prod's job is untouched.
func TestKubernetesTeamUserIsRefusedInAnotherTeamsNamespace(t *testing.T) {
	t.Parallel() // waits on a control plane: beside the other tests that do
	c, _, admin := kubeCluster(t)
	alice := kubeCLI(c.As("research", "alice", "team:research"))
	mine := kubeSubmit(t, alice, "research", "low", 8, 1)
	waitKubeState(t, alice, mine, live.StateRunning)
	theirs := kubeSubmit(t, admin, "prod", "low", 8, 1)
	refused := func(what string, args ...string) {
		t.Helper()
		_, errs, code := alice(args...)
		if code == 0 || !strings.Contains(errs, `User "alice" cannot`) || !strings.Contains(errs, `namespace "prod"`) {
			t.Errorf("%s: exit %d, want refused for alice in prod: %s", what, code, errs)
		}
	}
	tol := kubetest.FakeTaint.Key + "=" + kubetest.FakeTaint.Value + ":" + string(kubetest.FakeTaint.Effect)
	refused("submit to prod", "submit", "--team", "prod", "--priority", "low", "--accelerators", "8", "--image", "x", "--toleration", tol, "--", "true")
	refused("list prod's jobs", "jobs", "-n", "prod")
	refused("cancel prod's job", "cancel", theirs)
	refused("read prod's job", "describe", theirs)
	// Her job labelled prod in research's namespace spends no one's quota.
	out, errs, code := alice("submit", "--team", "prod", "-n", "research", "--priority", "low", "--accelerators", "8", "--image", "x", "--toleration", tol, "--", "true")
	if code != 0 {
		t.Fatalf("submit labelled prod in research: exit %d %s", code, errs)
	}
	var v live.View
	waitFor(t, "the mislabelled job's reason", 30*time.Second, func() bool { v = kubeState(t, alice, strings.TrimSpace(out)); return v.Reason != "" })
	if v.State != live.StatePending || !strings.Contains(v.Reason, `labelled team "prod", but namespace research is team research's`) {
		t.Errorf("job labelled prod in research's namespace: %+v", v)
	}
	if v := kubeState(t, admin, theirs); v.State == live.StateCancelled {
		t.Errorf("prod's job was cancelled by alice: %+v", v)
	}
	if out, errs, code := alice("top", "--once", "-n", "research"); code != 0 || !strings.Contains(out, "research") {
		t.Errorf("alice's top of her namespace: exit %d %s\n%s", code, errs, out)
	}
	if _, errs, code := alice("cancel", mine); code != 0 {
		t.Errorf("alice cancelling her own job: exit %d %s", code, errs)
	}
	waitKubeState(t, admin, mine, live.StateCancelled)
}
