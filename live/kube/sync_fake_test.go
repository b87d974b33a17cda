package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"
)

// The decisions of one Sync, on client-go's fake clientset: no control
// plane, no Job controller, no scheduler, so each test says exactly which
// API writes a decision makes. The same rules on a real control plane
// are in controller_test.go.

// fakeNow is the fake clock's time: the controller's epoch, and when its
// writes say they were made.
var fakeNow = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

type fixedClock struct{ t time.Time }

func (c fixedClock) Now() time.Time { return c.t }

// fakeSync is a controller on a fake clientset holding one p5.48xlarge
// node of 8 GPUs, the policy ConfigMap (testPolicy's policy) and objs.
type fakeSync struct {
	t      *testing.T
	cs     *fake.Clientset
	ctrl   *Controller
	events *record.FakeRecorder
}

func newFakeSync(t *testing.T, policy string, objs ...runtime.Object) *fakeSync {
	t.Helper()
	gpus := corev1.ResourceList{ResourceNVIDIA: resource.MustParse("8")}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "p5.48xlarge-0", Labels: map[string]string{InstanceTypeLabel: "p5.48xlarge"}},
		Status: corev1.NodeStatus{Capacity: gpus, Allocatable: gpus, Conditions: []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue}}}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allot-policy", Namespace: "allot-system", ResourceVersion: "1"}, Data: map[string]string{PolicyKey: policy}}
	cs := fake.NewSimpleClientset(append([]runtime.Object{node, cm}, objs...)...)
	events := record.NewFakeRecorder(100)
	ctrl := &Controller{Client: cs, Namespace: "allot-system", ConfigMap: "allot-policy", Configure: testPolicy, Clock: fixedClock{fakeNow}, Events: events}
	return &fakeSync{t: t, cs: cs, ctrl: ctrl, events: events}
}

// sync runs one Sync and returns the API writes it made, each as
// "VERB RESOURCE[/SUBRESOURCE] NAMESPACE/NAME", in job order (a sync
// makes its jobs' writes side by side, so their order among jobs is not
// fixed), and the bodies of its patches by that key.
func (f *fakeSync) sync() (writes []string, patches map[string][]map[string]any) {
	f.t.Helper()
	f.cs.ClearActions()
	if _, err := f.ctrl.Sync(context.Background()); err != nil {
		f.t.Fatal(err)
	}
	patches = map[string][]map[string]any{}
	for _, a := range f.cs.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "get" {
			continue
		}
		key := a.GetVerb() + " " + a.GetResource().Resource
		if a.GetSubresource() != "" {
			key += "/" + a.GetSubresource()
		}
		if n, ok := a.(interface{ GetName() string }); ok {
			key += " " + a.GetNamespace() + "/" + n.GetName()
		}
		writes = append(writes, key)
		if p, ok := a.(k8stesting.PatchAction); ok {
			var body map[string]any
			if err := json.Unmarshal(p.GetPatch(), &body); err != nil {
				f.t.Fatal(err)
			}
			patches[key] = append(patches[key], body)
		}
	}
	slices.SortStableFunc(writes, func(a, b string) int {
		return strings.Compare(strings.Fields(a)[2], strings.Fields(b)[2])
	})
	return writes, patches
}

// reads are the API reads of a sync without an informer cache: the
// cluster listed, then the policy.
func (f *fakeSync) reads() []string {
	var out []string
	for _, a := range f.cs.Actions() {
		if a.GetVerb() == "list" || a.GetVerb() == "get" {
			out = append(out, a.GetVerb()+" "+a.GetResource().Resource)
		}
	}
	return out
}

func (f *fakeSync) job(ns, name string) *batchv1.Job {
	f.t.Helper()
	j, err := f.cs.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return j
}

// recorded drains the Events the sync recorded, "TYPE REASON MESSAGE".
func (f *fakeSync) recorded() []string {
	var out []string
	for {
		select {
		case e := <-f.events.Events:
			out = append(out, e)
		default:
			slices.Sort(out)
			return out
		}
	}
}

// pendingJob is a suspended job of one pod with gpus GPUs, submitted at
// fakeNow less ago, with a UID (the fake clientset sets none).
func pendingJob(ns, name, class string, gpus int, ago time.Duration) *batchv1.Job {
	j := newJob(ns, name, class, gpus, "")
	j.UID = types.UID(ns + "-" + name)
	j.ResourceVersion = "1"
	j.Annotations[AnnSubmitted] = fakeNow.Add(-ago).Format(time.RFC3339Nano)
	return j
}

// runningJob is a job admitted on p5.48xlarge at fakeNow less ago, and
// its pod running on the node.
func runningJob(ns, name, class string, gpus int, ago time.Duration) (*batchv1.Job, *corev1.Pod) {
	j := pendingJob(ns, name, class, gpus, ago+time.Second)
	at := fakeNow.Add(-ago).Format(time.RFC3339Nano)
	j.Spec.Suspend = ptr.To(false)
	j.Labels[LabelTeam] = ns
	for k, v := range map[string]string{AnnAdmitted: at, AnnStarted: at, AnnFlavor: "p5.48xlarge", AnnRuns: "1", AnnReason: "admitted on p5.48xlarge (run 1)"} {
		j.Annotations[k] = v
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name + "-pod", Namespace: ns, Labels: map[string]string{batchv1.ControllerUidLabel: string(j.UID)}},
		Spec: corev1.PodSpec{NodeName: "p5.48xlarge-0"}, Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	return j, pod
}

// admittedCondition is the Admitted condition a status patch sets.
func admittedCondition(status corev1.ConditionStatus, reason, msg string) map[string]any {
	at := metav1.NewTime(fakeNow)
	ts, _ := at.MarshalJSON()
	return map[string]any{"status": map[string]any{"conditions": []any{map[string]any{
		"type": string(ConditionAdmitted), "status": string(status), "reason": reason, "message": msg,
		"lastProbeTime": strings.Trim(string(ts), `"`), "lastTransitionTime": strings.Trim(string(ts), `"`)}}}}
}

func jsonOf(v any) string {
	b, _ := json.MarshalIndent(v, "", "  ")
	return string(b)
}

// checkPatches compares a sync's patches with want, by key.
func checkPatches(t *testing.T, got, want map[string][]map[string]any) {
	t.Helper()
	if g, w := jsonOf(got), jsonOf(want); g != w {
		t.Errorf("patches:\n%s\nwant:\n%s", g, w)
	}
}

func check(t *testing.T, what string, got, want any) {
	t.Helper()
	if g, w := fmt.Sprint(got), fmt.Sprint(want); g != w {
		t.Errorf("%s:\n got %s\nwant %s", what, g, w)
	}
}

// A pending job that fits is admitted with one merge patch (resourceVersion
// as listed: it must not have changed since) that un-suspends it, pins it
// to the instance type, stamps the admission and labels its team, and one
// status patch setting its Admitted condition; the sync reads the cluster
// and the policy first and writes nothing else.
func TestFakeSyncAdmitsAFittingJobWithOnePatchAndItsCondition(t *testing.T) {
	f := newFakeSync(t, "4 4", pendingJob("a", "first", "low", 6, time.Minute))
	writes, patches := f.sync()
	check(t, "reads", f.reads(), []string{"list nodes", "list jobs", "list pods", "list limitranges", "get configmaps"})
	check(t, "writes", writes, []string{"patch jobs a/first", "patch jobs/status a/first"})
	now := fakeNow.Format(time.RFC3339Nano)
	how := "admitted on p5.48xlarge (run 1), borrowing idle quota"
	checkPatches(t, patches, map[string][]map[string]any{
		"patch jobs a/first": {{
			"metadata": map[string]any{"resourceVersion": "1", "labels": map[string]any{LabelTeam: "a"},
				"annotations": map[string]any{AnnAdmitted: now, AnnStarted: now, AnnFlavor: "p5.48xlarge", AnnReason: how, AnnRuns: "1"}},
			"spec": map[string]any{"suspend": false, "template": map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{InstanceTypeLabel: "p5.48xlarge"}}}},
		}},
		"patch jobs/status a/first": {admittedCondition(corev1.ConditionTrue, "Admitted", how)},
	})
	j := f.job("a", "first")
	check(t, "suspended", *j.Spec.Suspend, false)
	check(t, "node selector", j.Spec.Template.Spec.NodeSelector, map[string]string{InstanceTypeLabel: "p5.48xlarge"})
	check(t, "events", f.recorded(), []string{"Normal Admitted " + how})
}

// A higher job of the same team takes a running lower one's room: the
// victim gets one merge patch that suspends it (the Job controller then
// deletes its pods; the controller deletes nothing) and says who it made
// room for, and its Admitted condition turns False with the preemption's
// reason. The preemptor is not admitted while the victim's pod still
// holds the GPUs, and says so; once the pod is gone it is admitted, and
// the victim, waiting now, says why.
func TestFakeSyncSuspendsALowerJobForAHigherOneAndAdmitsItOnceThePodsAreGone(t *testing.T) {
	low, pod := runningJob("a", "low", "low", 8, time.Minute)
	f := newFakeSync(t, "8 0", low, pod, pendingJob("a", "high", "high", 8, time.Second))
	writes, patches := f.sync()
	why, waits := "preempted (InClusterQueue) for a/high (run 1)", "waiting for preempted jobs to stop"
	check(t, "writes", writes, []string{"patch jobs a/high", "patch jobs/status a/high", "patch jobs a/low", "patch jobs/status a/low"})
	checkPatches(t, patches, map[string][]map[string]any{
		"patch jobs a/low": {{
			"metadata": map[string]any{"resourceVersion": "1", "annotations": map[string]any{AnnReason: why,
				AnnPreempted: fakeNow.Format(time.RFC3339Nano), AnnPreemptedBy: "a/high", AnnPreemptions: "1"}},
			"spec": map[string]any{"suspend": true},
		}},
		"patch jobs/status a/low": {admittedCondition(corev1.ConditionFalse, "InClusterQueue", why)},
		"patch jobs a/high": {{
			"metadata": map[string]any{"resourceVersion": "1", "labels": map[string]any{LabelTeam: "a"}, "annotations": map[string]any{AnnReason: waits}},
		}},
		"patch jobs/status a/high": {admittedCondition(corev1.ConditionFalse, "Pending", waits)},
	})
	check(t, "the victim suspended", *f.job("a", "low").Spec.Suspend, true)
	check(t, "events", f.recorded(), []string{"Normal InClusterQueue " + why, "Normal Pending " + waits})

	// The Job controller deletes the suspended job's pod.
	if err := f.cs.CoreV1().Pods("a").Delete(context.Background(), pod.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	writes, patches = f.sync()
	now := fakeNow.Format(time.RFC3339Nano)
	how, full := "admitted on p5.48xlarge (run 1)", "p5.48xlarge: not enough free and no running job may be preempted for it"
	check(t, "writes once the pod is gone", writes, []string{"patch jobs a/high", "patch jobs/status a/high", "patch jobs a/low", "patch jobs/status a/low"})
	checkPatches(t, patches, map[string][]map[string]any{
		"patch jobs a/high": {{
			"metadata": map[string]any{"resourceVersion": "1",
				"annotations": map[string]any{AnnAdmitted: now, AnnStarted: now, AnnFlavor: "p5.48xlarge", AnnReason: how, AnnRuns: "1"}},
			"spec": map[string]any{"suspend": false, "template": map[string]any{"spec": map[string]any{"nodeSelector": map[string]any{InstanceTypeLabel: "p5.48xlarge"}}}},
		}},
		"patch jobs/status a/high": {admittedCondition(corev1.ConditionTrue, "Admitted", how)},
		"patch jobs a/low": {{
			"metadata": map[string]any{"resourceVersion": "1", "annotations": map[string]any{AnnReason: full}},
		}},
		"patch jobs/status a/low": {admittedCondition(corev1.ConditionFalse, "Pending", full)},
	})
	check(t, "events once the pod is gone", f.recorded(), []string{"Normal Admitted " + how, "Normal Pending " + full})
	check(t, "the victim's preemptions", f.job("a", "low").Annotations[AnnPreemptions], "1")
}

// A job that does not fit and may preempt nothing (its team's own job of
// the same class holds the node) stays suspended: one merge patch puts
// the core's reason on it, and one status patch its Pending condition. A
// second sync with nothing changed writes nothing: the reason is already
// there.
func TestFakeSyncLeavesAJobThatCannotFitPendingWithItsReason(t *testing.T) {
	first, pod := runningJob("a", "first", "low", 8, time.Minute)
	f := newFakeSync(t, "8 0", first, pod, pendingJob("a", "second", "low", 4, time.Second))
	writes, patches := f.sync()
	check(t, "writes", writes, []string{"patch jobs a/second", "patch jobs/status a/second"})
	why := "p5.48xlarge: not enough free and no running job may be preempted for it"
	checkPatches(t, patches, map[string][]map[string]any{
		"patch jobs a/second": {{
			"metadata": map[string]any{"resourceVersion": "1", "labels": map[string]any{LabelTeam: "a"}, "annotations": map[string]any{AnnReason: why}},
		}},
		"patch jobs/status a/second": {admittedCondition(corev1.ConditionFalse, "Pending", why)},
	})
	check(t, "suspended", *f.job("a", "second").Spec.Suspend, true)
	check(t, "events", f.recorded(), []string{"Normal Pending " + why})

	writes, _ = f.sync()
	check(t, "writes of a second sync", writes, []string(nil))
	check(t, "events of a second sync", f.recorded(), []string(nil))
}
