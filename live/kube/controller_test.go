package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/policies"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// testPolicy is "QUOTA_A QUOTA_B [TIMEOUT_S [HALF_LIFE_S [MIN_RUNTIME_S]]]":
// teams a and b, each in its namespace, sharing the fleet's first instance
// type with these quotas; class high outranks low; a placement timeout of
// 30 s unless given; admission fair sharing with the half-life when given
// (0: off); jobs protected from preemption for the minimum runtime.
func testPolicy(policy []byte, fleet []FleetType) (*Config, error) {
	var qa, qb int64
	timeout, halfLife, minRuntime := 30, 0, 0
	if n, err := fmt.Sscanf(string(policy), "%d %d %d %d %d", &qa, &qb, &timeout, &halfLife, &minRuntime); n < 2 {
		return nil, fmt.Errorf("policy %q: want two quotas: %v", policy, err)
	}
	if len(fleet) == 0 {
		return nil, fmt.Errorf("no instance types in the fleet")
	}
	t := fleet[0]
	quota := func(n int64) []policies.ResourceGroup {
		return []policies.ResourceGroup{{Resources: []int{0}, Flavors: []policies.FlavorQuotas{{Flavor: 0, Quotas: map[int]policies.Quota{0: {Nominal: n * policies.Milli}}}}}}
	}
	m := &policies.Model{Kind: policies.KindQuota, Resources: []string{t.Resource},
		Flavors: []policies.FlavorSpec{{Name: t.Name, NodeAccel: policies.Qty(t.PerNode) * policies.Milli, Nodes: len(t.Nodes), AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []policies.CohortSpec{{Name: "default", Parent: -1, Weight: 1}},
		Queues: []policies.QueueSpec{
			{Name: "a", Cohort: 0, Weight: 1, WithinQueue: policies.LowerPriority, Reclaim: policies.Any, Groups: quota(qa), MaxPreemptions: -1},
			{Name: "b", Cohort: 0, Weight: 1, WithinQueue: policies.LowerPriority, Reclaim: policies.Any, Groups: quota(qb), MaxPreemptions: -1},
		}, AdmissionFairSharingHalfLife: float64(halfLife), MinRuntime: float64(minRuntime)}
	return &Config{Config: &live.Config{Name: "test", Policy: "quota", Model: m, Teams: []string{"a", "b"},
		Priorities: map[string]int32{"": 0, "low": 10, "high": 100}, GracePeriod: 5 * time.Second, MaxRetries: -1,
		Quotas: [][]int{{int(qa)}, {int(qb)}}},
		Namespaces: []string{"a", "b"}, Types: fleet, PlacementTimeout: time.Duration(timeout) * time.Second}, nil
}

type env struct {
	t      *testing.T
	c      *kubetest.Cluster
	cancel context.CancelFunc
	done   chan error
	resync time.Duration // the controller's resync period (1 s unless set before run)
	// configure makes the controller's Config (testPolicy unless set
	// before run).
	configure Configure
}

// start brings up a cluster with nodes of 8 GPUs, namespaces a, b and
// allot-system, the policy ConfigMap, and a controller.
func start(t *testing.T, policy string, nodes int) *env {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, nodes)
	e := &env{t: t, c: c}
	startWith(e, policy)
	return e
}

// startWith sets up e's cluster as start does and runs its controller.
func startWith(e *env, policy string) {
	t, c := e.t, e.c
	c.Apply("../../deploy/namespace.yaml", "../../deploy/rbac.yaml", "../../deploy/usage.yaml")
	for _, ns := range []string{"a", "b"} {
		if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allot-policy", Namespace: "allot-system"}, Data: map[string]string{PolicyKey: policy}}
	if _, err := c.Client.CoreV1().ConfigMaps("allot-system").Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.run()
}

// run starts a controller; stop ends it.
func (e *env) run() {
	e.cancel, e.done = e.replica("first")
	e.t.Cleanup(e.stop)
}

// replica starts a controller named identity; cancel stops it, and done
// gives what its Run returned.
func (e *env) replica(identity string) (cancel context.CancelFunc, done chan error) {
	// As deployed: under the ServiceAccount deploy/rbac.yaml grants.
	cs, err := NewClient(e.c.ServiceAccount("allot-system", "allot-controller"))
	if err != nil {
		e.t.Fatal(err)
	}
	rec, stop := Recorder(cs)
	configure := e.configure
	if configure == nil {
		configure = testPolicy
	}
	ctrl := &Controller{Client: cs, Namespace: "allot-system", ConfigMap: "allot-policy", Configure: configure, Clock: live.SystemClock{}, Events: rec}
	ctx, cancel := context.WithCancel(context.Background())
	done = make(chan error, 1)
	resync := e.resync
	if resync == 0 {
		resync = time.Second
	}
	go func() { done <- ctrl.Run(ctx, Options{Identity: identity, Resync: resync}); stop() }()
	return cancel, done
}

func (e *env) stop() {
	if e.cancel != nil {
		e.cancel()
		if err := <-e.done; err != nil {
			e.t.Errorf("controller: %v", err)
		}
		e.cancel = nil
	}
}

// holder is who holds the leader Lease.
func (e *env) holder() string {
	l, err := e.c.Client.CoordinationV1().Leases("allot-system").Get(context.Background(), "allot-controller", metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// job creates a suspended job of one pod with gpus GPUs in team ns;
// runFor ("" = until deleted) ends its pod that long after it runs.
func (e *env) job(ns, name, class string, gpus int, runFor string) {
	e.t.Helper()
	if _, err := e.c.Client.BatchV1().Jobs(ns).Create(context.Background(), newJob(ns, name, class, gpus, runFor), metav1.CreateOptions{}); err != nil {
		e.t.Fatal(err)
	}
}

// newJob is the suspended job env.job creates.
func newJob(ns, name, class string, gpus int, runFor string) *batchv1.Job {
	ann := map[string]string{"kwok-sim/graceful": "yes"}
	if runFor != "" {
		ann["kwok-sim/run-for"] = runFor
	}
	j := &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{LabelPriorityClass: class},
			Annotations: map[string]string{AnnSubmitted: time.Now().UTC().Format(time.RFC3339Nano)}},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), BackoffLimit: ptr.To(int32(0)), Template: corev1.PodTemplateSpec{
			ObjectMeta: metav1.ObjectMeta{Annotations: ann},
			Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: ptr.To(int64(1)),
				Tolerations: []corev1.Toleration{{Key: kubetest.FakeTaint.Key, Operator: corev1.TolerationOpEqual, Value: kubetest.FakeTaint.Value, Effect: kubetest.FakeTaint.Effect}},
				Containers: []corev1.Container{{Name: "train", Image: "train:latest",
					Resources: corev1.ResourceRequirements{Limits: corev1.ResourceList{ResourceNVIDIA: *resource.NewQuantity(int64(gpus), resource.DecimalSI)}}}}}}},
	}
	return j
}

func (e *env) get(ns, name string) *batchv1.Job {
	e.t.Helper()
	j, err := e.c.Client.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		e.t.Fatal(err)
	}
	return j
}

// wait polls until cond holds for the job, or fails after 20 s.
func (e *env) wait(ns, name, what string, cond func(j *batchv1.Job, running int) bool) *batchv1.Job {
	e.t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		j := e.get(ns, name)
		if cond(j, e.running(j)) {
			return j
		}
		if time.Now().After(deadline) {
			e.t.Fatalf("%s/%s: not %s after 20 s: suspend %v, annotations %v, status %+v", ns, name, what, *j.Spec.Suspend, j.Annotations, j.Status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (e *env) running(j *batchv1.Job) int {
	pods, err := e.c.Client.CoreV1().Pods(j.Namespace).List(context.Background(), metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
	if err != nil {
		e.t.Fatal(err)
	}
	return runningPods(pods.Items)[string(j.UID)]
}

// events are allot's Events about a job, "Reason: message" a line.
func (e *env) events(ns, name string) string {
	e.t.Helper()
	evs, err := e.c.Client.CoreV1().Events(ns).List(context.Background(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name})
	if err != nil {
		e.t.Fatal(err)
	}
	var b strings.Builder
	for _, ev := range evs.Items {
		if ev.Source.Component == "allot" {
			fmt.Fprintf(&b, "%s: %s\n", ev.Reason, ev.Message)
		}
	}
	return b.String()
}

func admitted(j *batchv1.Job, running int) bool { return !*j.Spec.Suspend && running > 0 }

func suspended(j *batchv1.Job, running int) bool { return *j.Spec.Suspend && running == 0 }

// Admission un-suspends a job with the chosen instance type as its node
// selector, and its pod runs there; a job over the free room waits,
// suspended, with the core's reason on it, in its Admitted condition and
// in its Events.
func TestAdmissionSetsTheInstanceTypeAndUnsuspends(t *testing.T) {
	e := start(t, "4 4", 1)
	e.job("a", "first", "low", 6, "")
	j := e.wait("a", "first", "admitted", admitted)
	if j.Labels[LabelTeam] != "a" {
		t.Errorf("the job of namespace a is labelled team %q, want a", j.Labels[LabelTeam])
	}
	if sel := j.Spec.Template.Spec.NodeSelector[InstanceTypeLabel]; sel != "p5.48xlarge" || j.Annotations[AnnFlavor] != "p5.48xlarge" {
		t.Errorf("admitted with node selector %q, flavor %q; want p5.48xlarge", sel, j.Annotations[AnnFlavor])
	}
	if !strings.Contains(j.Annotations[AnnReason], "borrowing idle quota") {
		t.Errorf("reason %q: 6 of a's 4 GPUs is borrowing", j.Annotations[AnnReason])
	}
	e.job("a", "second", "low", 4, "")
	j = e.wait("a", "second", "given a reason", func(j *batchv1.Job, _ int) bool { return j.Annotations[AnnReason] != "" })
	if !*j.Spec.Suspend || e.running(j) != 0 {
		t.Errorf("a's second 4-GPU job runs beside its 6 on an 8-GPU node")
	}
	if why := j.Annotations[AnnReason]; !strings.Contains(why, "p5.48xlarge") {
		t.Errorf("a's waiting job says %q", why)
	}
	for name, want := range map[string]string{"first": "True Admitted", "second": "False Pending"} {
		got := ""
		for _, c := range e.get("a", name).Status.Conditions {
			if c.Type == ConditionAdmitted {
				got = string(c.Status) + " " + c.Reason
			}
		}
		if got != want {
			t.Errorf("%s's Admitted condition is %q, want %q", name, got, want)
		}
	}
	if got := e.events("a", "first"); !strings.Contains(got, "Admitted: admitted on p5.48xlarge") {
		t.Errorf("allot's events of the admitted job: %s", got)
	}
	if got := e.events("a", "second"); !strings.Contains(got, "Pending: ") {
		t.Errorf("allot's events of the waiting job: %s", got)
	}
}

// A team taking back its quota suspends the borrower (its pods are
// deleted with their grace period); the borrower keeps its place and is
// admitted again when the room returns.
func TestReclaimSuspendsTheBorrowerWhichIsAdmittedAgainLater(t *testing.T) {
	e := start(t, "4 4", 1)
	e.job("a", "borrower", "low", 8, "")
	e.wait("a", "borrower", "admitted", admitted)
	e.job("b", "owner", "high", 4, "3s")
	j := e.wait("a", "borrower", "suspended", suspended)
	if j.Annotations[AnnPreemptedBy] != "b/owner" || j.Annotations[AnnPreemptions] != "1" {
		t.Errorf("borrower preempted by %q (%s times), want b/owner once", j.Annotations[AnnPreemptedBy], j.Annotations[AnnPreemptions])
	}
	e.wait("b", "owner", "admitted", admitted)
	e.wait("b", "owner", "complete", func(j *batchv1.Job, _ int) bool { return finished(j) == live.StateSucceeded })
	j = e.wait("a", "borrower", "admitted again", admitted)
	if n, _ := strconv.Atoi(j.Annotations[AnnPreemptions]); n != 1 {
		t.Errorf("preemptions %d after re-admission, want 1", n)
	}
}

// With a minimum runtime of 8 s, a running low job is preempted for a
// high one only when its protection ends, and the controller wakes for
// that itself: with a resync of 10 minutes, nothing else would make it
// look again.
func TestPreemptorIsAdmittedWhenTheVictimsProtectionEnds(t *testing.T) {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, 1)
	e := &env{t: t, c: c, resync: 10 * time.Minute}
	startWith(e, "8 0 30 0 8")
	e.job("a", "low", "low", 8, "")
	j := e.wait("a", "low", "admitted", admitted)
	admittedAt, err := time.Parse(time.RFC3339Nano, j.Annotations[AnnAdmitted])
	if err != nil {
		t.Fatalf("admitted annotation %q: %v", j.Annotations[AnnAdmitted], err)
	}
	e.job("a", "high", "high", 4, "")
	time.Sleep(3 * time.Second)
	if j := e.get("a", "low"); *j.Spec.Suspend {
		t.Fatalf("low suspended %v after its admission: it is protected for 8 s", time.Since(admittedAt))
	}
	j = e.wait("a", "low", "suspended", suspended)
	at := j.Annotations[AnnPreemptedBy]
	if at != "a/high" {
		t.Errorf("low preempted by %q, want a/high", at)
	}
	if d := time.Since(admittedAt); d < 8*time.Second || d > 60*time.Second {
		t.Errorf("low suspended %v after its admission, want soon after its 8 s protection ended", d)
	}
	e.wait("a", "high", "admitted", admitted)
}

// A controller stopped and started again rebuilds its core from the API
// server: what ran still runs, what waited still waits, nothing is
// admitted twice, and it goes on deciding.
func TestRestartedControllerRebuildsFromTheClusterAndAdmitsNothingTwice(t *testing.T) {
	e := start(t, "4 4", 1)
	e.job("a", "one", "low", 4, "")
	e.job("b", "two", "low", 4, "")
	e.wait("a", "one", "admitted", admitted)
	e.wait("b", "two", "admitted", admitted)
	e.job("a", "three", "low", 4, "")
	e.wait("a", "three", "given a reason", func(j *batchv1.Job, _ int) bool { return j.Annotations[AnnReason] != "" })
	// What the controller writes: annotations, suspend, its condition (the
	// Job controller's own status updates may go on meanwhile).
	decided := func(j *batchv1.Job) string {
		out := fmt.Sprint(j.Annotations, *j.Spec.Suspend)
		for _, c := range j.Status.Conditions {
			if c.Type == ConditionAdmitted {
				out += fmt.Sprint(c)
			}
		}
		return out
	}
	before := map[string]string{}
	for _, n := range []string{"one", "three"} {
		before[n] = decided(e.get("a", n))
	}
	e.stop()
	e.run()
	time.Sleep(3 * time.Second) // the new controller takes the lease and syncs
	for _, n := range []string{"one", "three"} {
		if got := decided(e.get("a", n)); got != before[n] {
			t.Errorf("job a/%s changed after the restart:\n%s\nwas\n%s", n, got, before[n])
		}
	}
	if err := e.c.Client.BatchV1().Jobs("a").Delete(context.Background(), "one", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	e.wait("a", "three", "admitted after one left", admitted)
}

// A new policy in the ConfigMap decides from the next sync on, with no
// restart: raising a's quota admits its waiting job.
func TestPolicyConfigMapChangeTakesEffectWithoutARestart(t *testing.T) {
	e := start(t, "4 4", 2)
	// Quotas of 4 and 4 make 8 GPUs of quota on 16: b's jobs fill it (its
	// 4 and a's idle 4), a's first job takes its 4 back, its second waits.
	for i := range 3 {
		e.job("b", "b"+strconv.Itoa(i), "low", 4, "")
	}
	e.job("a", "a0", "low", 4, "")
	e.job("a", "a1", "low", 4, "")
	e.wait("a", "a0", "admitted", admitted)
	e.wait("a", "a1", "given a reason", func(j *batchv1.Job, _ int) bool { return j.Annotations[AnnReason] != "" })
	cm, err := e.c.Client.CoreV1().ConfigMaps("allot-system").Get(context.Background(), "allot-policy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cm.Data[PolicyKey] = "8 8"
	if _, err := e.c.Client.CoreV1().ConfigMaps("allot-system").Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// a's quota of 8 reclaims from b, which borrowed 4 of it.
	e.wait("a", "a1", "admitted under the new policy", admitted)
}

// A cordoned node leaves the fleet: the job on it is requeued, as a node
// failure is in the simulator, and runs again on the node left.
func TestCordonedNodeLeavesTheFleetAndItsJobIsRequeued(t *testing.T) {
	e := start(t, "8 8", 2)
	e.job("a", "x", "low", 8, "")
	j := e.wait("a", "x", "admitted", admitted)
	pods, err := e.c.Client.CoreV1().Pods("a").List(context.Background(), metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
	if err != nil || len(pods.Items) != 1 {
		t.Fatalf("pods of x: %v %v", pods, err)
	}
	node := pods.Items[0].Spec.NodeName
	n, err := e.c.Client.CoreV1().Nodes().Get(context.Background(), node, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n.Spec.Unschedulable = true
	if _, err := e.c.Client.CoreV1().Nodes().Update(context.Background(), n, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	j = e.wait("a", "x", "requeued", func(j *batchv1.Job, _ int) bool { return strings.Contains(j.Annotations[AnnReason], "left the fleet") })
	if !strings.Contains(j.Annotations[AnnReason], node) {
		t.Errorf("reason %q does not name the cordoned node %s", j.Annotations[AnnReason], node)
	}
	e.wait("a", "x", "admitted again", admitted)
	pods, _ = e.c.Client.CoreV1().Pods("a").List(context.Background(), metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
	for _, p := range pods.Items {
		if p.Spec.NodeName == node && p.DeletionTimestamp == nil {
			t.Errorf("x runs again on the cordoned node %s", node)
		}
	}
}

// A gang admitted on quota whose pods the cluster cannot all place (3
// pods of 8 GPUs, 2 nodes of 8: a's quota of 24 is more than the nodes
// hold) is suspended and requeued when the placement timeout passes, as
// Kueue's waitForPodsReady does, though 2 of its pods run; it says why,
// and backs off before it is admitted again.
func TestGangNotAllRunningWithinThePlacementTimeoutIsRequeued(t *testing.T) {
	e := start(t, "24 0 2", 2)
	j := newJob("a", "wide", "low", 8, "")
	j.Spec.Parallelism, j.Spec.Completions = ptr.To(int32(3)), ptr.To(int32(3))
	if _, err := e.c.Client.BatchV1().Jobs("a").Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wait("a", "wide", "admitted on quota, 2 of 3 pods running", func(j *batchv1.Job, running int) bool { return !*j.Spec.Suspend && running == 2 })
	j = e.wait("a", "wide", "requeued", func(j *batchv1.Job, _ int) bool { return *j.Spec.Suspend })
	if !strings.Contains(j.Annotations[AnnReason], "placement_timeout") || j.Annotations[AnnTimeouts] != "1" || j.Annotations[AnnRetryAfter] == "" {
		t.Errorf("requeued with annotations %v, want the placement timeout, counted, and a time to retry", j.Annotations)
	}
}

// Two replicas run at once: only the one holding the Lease acts, so no
// job is admitted twice; when it stops, the other takes the Lease and
// goes on deciding.
func TestOnlyTheLeaderActsAndAStandbyTakesOver(t *testing.T) {
	e := start(t, "4 4", 1)
	waitHolder := func(want string) {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for e.holder() != want {
			if time.Now().After(deadline) {
				t.Fatalf("the Lease is held by %q, want %q", e.holder(), want)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	waitHolder("first")
	cancel, done := e.replica("second")
	defer func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("second controller: %v", err)
		}
	}()
	e.job("a", "one", "low", 4, "")
	e.job("b", "two", "low", 4, "")
	e.wait("a", "one", "admitted", admitted)
	e.wait("b", "two", "admitted", admitted)
	if got := e.events("a", "one"); strings.Count(got, "Admitted:") != 1 {
		t.Errorf("one was admitted more than once: %s", got)
	}
	if h := e.holder(); h != "first" {
		t.Errorf("the Lease moved to %q while first ran", h)
	}
	e.stop() // first lets the Lease go
	waitHolder("second")
	if err := e.c.Client.BatchV1().Jobs("a").Delete(context.Background(), "one", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	e.job("a", "three", "low", 4, "")
	e.wait("a", "three", "admitted by the second", admitted)
}

// A managed Job created running (not suspended) is suspended at once and
// then admitted by the policy like any other.
func TestJobRunningWithoutAdmissionIsSuspendedThenAdmitted(t *testing.T) {
	e := start(t, "4 4", 1)
	j := newJob("a", "eager", "low", 4, "")
	j.Spec.Suspend = ptr.To(false)
	if _, err := e.c.Client.BatchV1().Jobs("a").Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	e.wait("a", "eager", "admitted", func(j *batchv1.Job, running int) bool {
		return admitted(j, running) && j.Annotations[AnnAdmitted] != ""
	})
	got := e.events("a", "eager")
	if u, a := strings.Index(got, "Unadmitted: "), strings.Index(got, "Admitted: admitted on p5.48xlarge"); u < 0 || a < u {
		t.Errorf("allot's events, want Unadmitted then Admitted:\n%s", got)
	}
}

// Under admission fair sharing a user's finished jobs count against them
// (decayed) after the cluster has forgotten the jobs and the controller
// has restarted: the consumption is kept in the usage ConfigMap. u1 ran
// a job that finished; u1 then queues a job before u2 does, behind a
// blocker; the controller restarts; when the blocker ends, u2's job goes
// first.
func TestFinishedJobsConsumptionOutlivesThemAndARestart(t *testing.T) {
	e := start(t, "8 0 30 3600", 1)
	user := func(name, u, runFor string) {
		t.Helper()
		j := newJob("a", name, "low", 8, runFor)
		j.Labels[LabelUser] = u
		if _, err := e.c.Client.BatchV1().Jobs("a").Create(context.Background(), j, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	done := func(j *batchv1.Job, _ int) bool { return finished(j) == live.StateSucceeded }
	user("u1-first", "u1", "1s")
	e.wait("a", "u1-first", "complete", done)
	if err := e.c.Client.BatchV1().Jobs("a").Delete(context.Background(), "u1-first", metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
		t.Fatal(err)
	}
	user("blocker", "u0", "4s")
	e.wait("a", "blocker", "admitted", admitted)
	user("u1-again", "u1", "")
	user("u2-fresh", "u2", "")
	e.wait("a", "u2-fresh", "given a reason", func(j *batchv1.Job, _ int) bool { return j.Annotations[AnnReason] != "" })
	cm, err := e.c.Client.CoreV1().ConfigMaps("allot-system").Get(context.Background(), UsageConfigMap, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var doc usageDoc
	if err := json.Unmarshal([]byte(cm.Data[UsageKey]), &doc); err != nil || doc.Teams["a"]["u1"] <= 0 {
		t.Fatalf("usage ConfigMap %q (%v): want u1's consumption", cm.Data[UsageKey], err)
	}
	e.stop()
	e.run()
	e.wait("a", "u2-fresh", "admitted first", admitted)
	if j := e.get("a", "u1-again"); !*j.Spec.Suspend {
		t.Errorf("u1's job, queued first, was admitted before u2's: u1's finished job was forgotten")
	}
}

// A sync decides on jobs as it read them, and writes with that
// resourceVersion. The Job controller marks a new suspended job Suspended
// a moment after it is created; an admission decided before that must
// still land (it used to be dropped while the preemptions made for it
// went ahead, so the victim was admitted again next sync). A job that
// itself changed meanwhile is left to the next sync.
func TestWriteSurvivesAStatusChangeButNotAChangeToTheJob(t *testing.T) {
	c := kubetest.Start(t)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, 1)
	if _, err := c.Client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	rec, stop := Recorder(c.Client)
	defer stop()
	cfg, err := testPolicy([]byte("8 8"), []FleetType{{Name: "p5.48xlarge", Resource: ResourceNVIDIA, PerNode: 8, Nodes: []string{"p5.48xlarge-0"}}})
	if err != nil {
		t.Fatal(err)
	}
	ctrl := &Controller{Client: c.Client, Clock: live.SystemClock{}, Events: rec, cfg: cfg}
	e := &env{t: t, c: c}
	ctx := context.Background()
	statusWritten := func(name string) *batchv1.Job { // as the sync saw it: before the Job controller's write
		seen, err := c.Client.BatchV1().Jobs("a").Create(ctx, newJob("a", name, "low", 8, ""), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.wait("a", name, "marked Suspended by the Job controller", func(j *batchv1.Job, _ int) bool {
			return j.ResourceVersion != seen.ResourceVersion
		})
		return seen
	}

	seen := statusWritten("status-only")
	if !ctrl.admit(ctx, seen, "p5.48xlarge", false, time.Now()) {
		t.Fatal("admission dropped after a status-only change")
	}
	if j := e.get("a", "status-only"); *j.Spec.Suspend || j.Annotations[AnnFlavor] != "p5.48xlarge" {
		t.Errorf("after admission: suspend %v, flavor %q; want running on p5.48xlarge", *j.Spec.Suspend, j.Annotations[AnnFlavor])
	}

	seen = statusWritten("cancelled")
	j := e.get("a", "cancelled")
	j.Annotations[AnnCancelled] = "by the test"
	if _, err := c.Client.BatchV1().Jobs("a").Update(ctx, j, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if ctrl.admit(ctx, seen, "p5.48xlarge", false, time.Now()) {
		t.Error("admitted a job cancelled after the sync read it")
	}
	if j := e.get("a", "cancelled"); !*j.Spec.Suspend || j.Annotations[AnnAdmitted] != "" {
		t.Errorf("cancelled job: suspend %v, admitted %q; want left suspended", *j.Spec.Suspend, j.Annotations[AnnAdmitted])
	}
}
