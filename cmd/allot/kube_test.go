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

// The cluster's instance types become the policy's fleet: a type the
// catalog knows with its accelerators is the catalog's, another is
// declared from its nodes; the teams' namespaces and the placement
// timeout come from the policy file.
func TestKubernetesPolicyIsReadOnTheClustersFleet(t *testing.T) {
	data, err := os.ReadFile("../../scenarios/live/kubernetes.yaml")
	if err != nil {
		t.Fatal(err)
	}
	fleet := []kube.FleetType{
		{Name: "p5.48xlarge", Resource: kube.ResourceNVIDIA, PerNode: 8, Nodes: []string{"n1", "n2"}},
		{Name: "trn1.32xlarge", Resource: kube.ResourceNeuron, PerNode: 16, Nodes: []string{"t1"}},
	}
	cfg, err := kubeConfigure("ConfigMap allot-system/allot-policy")(data, fleet)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(cfg.Namespaces, ","); got != "research,prod" {
		t.Errorf("namespaces %s, want research,prod", got)
	}
	if cfg.PlacementTimeout.Minutes() != 2 {
		t.Errorf("placement timeout %v, want 2m", cfg.PlacementTimeout)
	}
	var names []string
	for f, fl := range cfg.Model.Flavors {
		names = append(names, fl.Name)
		if cfg.Types[f].Name != fl.Name {
			t.Errorf("flavor %d is %s, its fleet type %s", f, fl.Name, cfg.Types[f].Name)
		}
	}
	if got := strings.Join(names, ","); got != "p5.48xlarge,trn1.32xlarge" {
		t.Errorf("flavors %s", got)
	}
	if n := cfg.Model.Flavors[0].Nodes; n != 2 {
		t.Errorf("p5.48xlarge has %d nodes, want the cluster's 2", n)
	}
	withFleet := append([]byte("fleet: {nodes: [{type: p5.48xlarge, count: 1}]}\n"), data...)
	if _, err := kubeConfigure("ConfigMap allot-system/allot-policy")(withFleet, fleet); err == nil || !strings.Contains(err.Error(), "ConfigMap allot-system/allot-policy:1: fleet: the fleet comes from the cluster's nodes") {
		t.Errorf("a policy with its own fleet: %v", err)
	}
}

// kubeCluster starts a control plane with two p5.48xlarge nodes of 8 GPUs
// and the controller (`allot live serve --backend kubernetes --config`,
// this test binary acting as allot) on scenarios/live/kubernetes.yaml.
func kubeCluster(t *testing.T) (*kubetest.Cluster, string, func(args ...string) (string, string, int)) {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", kube.ResourceNVIDIA, 8, 2)
	for _, ns := range []string{"research", "prod", "allot-system"} {
		if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	bin, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	addr := freeAddr(t)
	serve := exec.Command(bin, "live", "serve", "--backend", "kubernetes", "--kubeconfig", c.Kubeconfig, "--config", "../../scenarios/live/kubernetes.yaml", "--http", addr)
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
	cli := func(args ...string) (string, string, int) {
		var o, e bytes.Buffer
		code := run(append(append([]string{args[0]}, "--backend", "kubernetes", "--kubeconfig", c.Kubeconfig), args[1:]...), &o, &e)
		return o.String(), e.String(), code
	}
	return c, addr, cli
}

// Through allot's own commands on a real API server: submitted jobs are
// created suspended and admitted; prod's high job takes its quota back
// from research's second job, which borrowed it: that one is suspended,
// shows as preempted with who took its place, and is admitted again once
// prod's job is cancelled; `kubectl describe job` tells the same story,
// and the controller's dashboard renders the cluster's history.
func TestKubernetesJobsAreAdmittedPreemptedAndExplainedThroughTheCLI(t *testing.T) {
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
	state := func(id string) live.View {
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
	waitState := func(id, want string) live.View {
		t.Helper()
		var v live.View
		waitFor(t, id+" "+want, 30*time.Second, func() bool { v = state(id); return v.State == want })
		return v
	}
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
	if v.Preemptions != 1 || !strings.Contains(v.Reason, "InCohortReclamation") || !strings.Contains(v.Reason, high) {
		t.Errorf("preempted job: %+v", v)
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
	if v := state(own); v.State != live.StateRunning || v.Preemptions != 0 {
		t.Errorf("research's job within its quota: %+v", v)
	}
	if _, errs, code := cli("submit", "--team", "research", "--priority", "low", "--accelerators", "1", "--", "true"); code != exitBadInput || !strings.Contains(errs, "--image is required") {
		t.Errorf("submit without an image: exit %d %s", code, errs)
	}
}
