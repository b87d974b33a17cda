package main

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"go.yaml.in/yaml/v3"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/dynamic"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// kueueStalled names a pending Workload that Kueue's own rules would
// admit at once, found once Kueue is quiet: in a BestEffortFIFO
// ClusterQueue, it fits what the queue leaves of its nominal quota, in
// every resource it asks for, on a flavor it may use, and either the
// nodes have the GPUs free and no other ClusterQueue borrows any of that
// flavor, or its queue reclaims from any priority and the free GPUs and
// what others borrow cover it. A working Kueue leaves none; "" when there
// is none.
func kueueStalled(ctx context.Context, t *testing.T, c *kubetest.Cluster, k *export.Kueue, nodes map[string]int) string {
	dyn, err := dynamic.NewForConfig(c.AdminConfig())
	if err != nil {
		t.Fatal(err)
	}
	l, err := dyn.Resource(workloadsGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wls := make([]*kueue.Workload, len(l.Items))
	for i, u := range l.Items {
		wls[i] = &kueue.Workload{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, wls[i]); err != nil {
			t.Fatal(err)
		}
	}
	ranges, err := c.Client.CoreV1().LimitRanges("").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return stalledIn(wls, ranges.Items, k, nodes)
}

// amounts is resources by name, as Kueue counts them: cpu in thousandths,
// the rest in units (bytes of memory).
type amounts map[corev1.ResourceName]int64

func (a amounts) add(rl corev1.ResourceList) {
	for n, q := range rl {
		if n == corev1.ResourceCPU {
			a[n] += q.MilliValue()
		} else {
			a[n] += q.Value()
		}
	}
}

// asked is what a pending Workload asks for, all its pods together: as
// Kueue last counted it (status.resourceRequests, after LimitRange
// defaults), else, where Kueue has not written it (a workload it set
// aside as equivalent to one it had tried), its pod template counted as
// Kueue counts it under ranges, its namespace's LimitRanges.
func asked(w *kueue.Workload, ranges []corev1.LimitRange) amounts {
	out := amounts{}
	if len(w.Status.ResourceRequests) > 0 {
		for _, r := range w.Status.ResourceRequests {
			out.add(r.Resources)
		}
		return out
	}
	for _, ps := range w.Spec.PodSets {
		per := amounts{}
		per.add(kube.PodRequests(&ps.Template.Spec, ranges))
		for n, v := range per {
			out[n] += v * int64(ps.Count)
		}
	}
	return out
}

// stalledIn is kueueStalled's rule over a list of Workloads, under the
// cluster's LimitRanges.
func stalledIn(wls []*kueue.Workload, ranges []corev1.LimitRange, k *export.Kueue, nodes map[string]int) string {
	byNS := map[string][]corev1.LimitRange{}
	for _, lr := range ranges {
		byNS[lr.Namespace] = append(byNS[lr.Namespace], lr)
	}
	used := map[string]map[string]amounts{} // ClusterQueue -> flavor -> held
	total := map[string]int64{}             // flavor -> GPUs held
	var pending []*kueue.Workload
	for _, w := range wls {
		switch {
		case isTrue(w.Status.Conditions, kueue.WorkloadFinished):
		case isTrue(w.Status.Conditions, kueue.WorkloadQuotaReserved) && w.Status.Admission != nil:
			cq := string(w.Status.Admission.ClusterQueue)
			if used[cq] == nil {
				used[cq] = map[string]amounts{}
			}
			for _, a := range w.Status.Admission.PodSetAssignments {
				f := string(a.Flavors[kube.ResourceNVIDIA])
				if used[cq][f] == nil {
					used[cq][f] = amounts{}
				}
				used[cq][f].add(a.ResourceUsage)
				g := a.ResourceUsage[kube.ResourceNVIDIA]
				total[f] += g.Value()
			}
		default:
			pending = append(pending, w)
		}
	}
	lq := map[string]string{} // namespace/LocalQueue -> ClusterQueue
	for _, q := range k.LocalQueues {
		lq[q.Namespace+"/"+q.Name] = string(q.Spec.ClusterQueue)
	}
	capacity := map[string]int64{} // flavor -> GPUs on its nodes
	typeOf := map[string]string{}
	for _, f := range k.Flavors {
		typeOf[f.Name] = f.Spec.NodeLabels[export.InstanceTypeLabel]
		capacity[f.Name] = int64(nodes[typeOf[f.Name]] * 8)
	}
	spec := map[string]*kueue.ClusterQueue{}
	nominal := map[string]map[string]amounts{}  // ClusterQueue -> flavor -> nominal quota
	borrowed := map[string]map[string]amounts{} // ClusterQueue -> flavor -> held over its nominal quota
	for _, cq := range k.ClusterQueues {
		spec[cq.Name] = cq
		nominal[cq.Name] = map[string]amounts{}
		borrowed[cq.Name] = map[string]amounts{}
		for _, g := range cq.Spec.ResourceGroups {
			for _, f := range g.Flavors {
				fl := string(f.Name)
				nominal[cq.Name][fl], borrowed[cq.Name][fl] = amounts{}, amounts{}
				for _, r := range f.Resources {
					nominal[cq.Name][fl].add(corev1.ResourceList{r.Name: r.NominalQuota})
					borrowed[cq.Name][fl][r.Name] = max(0, used[cq.Name][fl][r.Name]-nominal[cq.Name][fl][r.Name])
				}
			}
		}
	}
	for _, w := range pending {
		cq := lq[w.Namespace+"/"+string(w.Spec.QueueName)]
		q := spec[cq]
		if q == nil || q.Spec.QueueingStrategy != kueue.BestEffortFIFO || len(w.Spec.PodSets) != 1 {
			continue
		}
		req := asked(w, byNS[w.Namespace])
		gpus := req[kube.ResourceNVIDIA]
		pin := w.Spec.PodSets[0].Template.Spec.NodeSelector[export.InstanceTypeLabel]
		reclaimAny := q.Spec.Preemption != nil && q.Spec.Preemption.ReclaimWithinCohort == kueue.PreemptionPolicyAny
	flavors:
		for _, f := range slices.Sorted(maps.Keys(nominal[cq])) {
			if pin != "" && typeOf[f] != pin {
				continue
			}
			for r, v := range req {
				if nom, ok := nominal[cq][f][r]; !ok || used[cq][f][r]+v > nom {
					continue flavors
				}
			}
			free, others, othersAny := capacity[f]-total[f], int64(0), false
			for q := range borrowed {
				if q != cq {
					others += borrowed[q][f][kube.ResourceNVIDIA]
					for _, v := range borrowed[q][f] {
						othersAny = othersAny || v > 0
					}
				}
			}
			if !othersAny && free >= gpus || reclaimAny && free+others >= gpus {
				return fmt.Sprintf("Kueue left %s/%s pending: its %d GPUs (and %v in all) fit ClusterQueue %s's nominal quota of %s (%d of %d GPUs used); %d GPUs are free and other ClusterQueues borrow %d it may reclaim",
					w.Namespace, w.Name, gpus, req, cq, f, used[cq][f][kube.ResourceNVIDIA], nominal[cq][f][kube.ResourceNVIDIA], free, others)
			}
		}
	}
	return ""
}

// The stall rule, on the states borrow-reclaim's Kueue run ended step 5
// in. Stalled (as Kueue v0.17 once left it): team a runs 40 GPUs, 8 of
// them borrowed from b, whose 8-GPU job waits with b at 24 of its 32; b
// reclaims from any priority, so Kueue's rules take a's borrowed job for
// it. Stalled too: b at 24 with 8 GPUs free and nobody borrowing. Not
// stalled: a and b at their 32, a's borrowers and b's fifth job waiting.
func TestAKueueThatLeavesAFittingJobPendingIsFoundStalled(t *testing.T) {
	data, err := os.ReadFile("testdata/kueuediff/borrow-reclaim.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var w diffWorkload
	if err := yaml.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	fleet := []kube.FleetType{{Name: "p5.48xlarge", Resource: kube.ResourceNVIDIA, PerNode: 8, Nodes: []string{"n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"}}}
	s, err := scenarios.ParseLiveOnFleet("borrow-reclaim.yaml", []byte(w.Policy), liveconf.FleetYAML(fleet))
	if err != nil {
		t.Fatal(err)
	}
	k, err := export.ToKueue(s, export.KueueOptions{})
	if err != nil {
		t.Fatal(err)
	}
	flavor := k.Flavors[0].Name
	queue := map[string]string{}
	cq := map[string]string{}
	for _, q := range k.LocalQueues {
		queue[q.Namespace], cq[q.Namespace] = q.Name, string(q.Spec.ClusterQueue)
	}
	n := 0
	job := func(ns, state string) *kueue.Workload {
		n++
		gpus := corev1.ResourceList{kube.ResourceNVIDIA: *resource.NewQuantity(8, resource.DecimalSI)}
		wl := &kueue.Workload{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("job-%d", n)},
			Spec: kueue.WorkloadSpec{QueueName: kueue.LocalQueueName(queue[ns]), PodSets: []kueue.PodSet{{Name: "main", Count: 1,
				Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "train", Resources: corev1.ResourceRequirements{Requests: gpus}}}}}}}}}
		if state == "pending" {
			return wl
		}
		wl.Status.Conditions = []metav1.Condition{{Type: kueue.WorkloadQuotaReserved, Status: metav1.ConditionTrue}}
		if state == "finished" {
			wl.Status.Conditions = append(wl.Status.Conditions, metav1.Condition{Type: kueue.WorkloadFinished, Status: metav1.ConditionTrue})
		}
		wl.Status.Admission = &kueue.Admission{ClusterQueue: kueue.ClusterQueueReference(cq[ns]), PodSetAssignments: []kueue.PodSetAssignment{{
			Name: "main", Flavors: map[corev1.ResourceName]kueue.ResourceFlavorReference{kube.ResourceNVIDIA: kueue.ResourceFlavorReference(flavor)}, ResourceUsage: gpus}}}
		return wl
	}
	state := func(a, b, bPending, aPending int) []*kueue.Workload {
		var out []*kueue.Workload
		for range a {
			out = append(out, job("a", "running"))
		}
		for range b {
			out = append(out, job("b", "running"))
		}
		for range 4 {
			out = append(out, job("b", "finished"))
		}
		for range bPending {
			out = append(out, job("b", "pending"))
		}
		for range aPending {
			out = append(out, job("a", "pending"))
		}
		return out
	}
	for _, tc := range []struct {
		name               string
		a, b, bWait, aWait int
		stalled            bool
	}{
		{"a borrows b's room while b waits", 5, 3, 2, 6, true},
		{"b's room free while b waits", 4, 3, 2, 6, true},
		{"both at their quota", 4, 4, 1, 6, false},
	} {
		got := stalledIn(state(tc.a, tc.b, tc.bWait, tc.aWait), nil, k, w.Nodes)
		if (got != "") != tc.stalled || tc.stalled && !strings.Contains(got, "Kueue left b/") {
			t.Errorf("%s: %q, want stalled %v", tc.name, got, tc.stalled)
		}
	}
	// With b's room free, b's waiting jobs as Kueue last counted them
	// (status.resourceRequests), or, where it has not written that, as
	// their template asks under b's LimitRange: asking 8 GPUs and b's
	// whole cpu quota (32 GPUs' share of p5.48xlarge's 192 vCPUs a node:
	// 768), Kueue should have admitted one; asking a vCPU more, it
	// rightly waits.
	for _, tc := range []struct {
		cpu      string
		viaRange bool
		stalled  bool
	}{{"768", false, true}, {"769", false, false}, {"768", true, true}, {"769", true, false}} {
		wls := state(4, 3, 2, 6)
		var ranges []corev1.LimitRange
		if tc.viaRange {
			ranges = []corev1.LimitRange{{ObjectMeta: metav1.ObjectMeta{Namespace: "b", Name: "defaults"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{
				{Type: corev1.LimitTypeContainer, DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(tc.cpu)}}}}}}
		}
		for _, wl := range wls {
			if wl.Namespace == "b" && wl.Status.Admission == nil && !tc.viaRange {
				wl.Status.ResourceRequests = []kueue.PodSetRequest{{Name: "main", Resources: corev1.ResourceList{
					kube.ResourceNVIDIA: resource.MustParse("8"), corev1.ResourceCPU: resource.MustParse(tc.cpu)}}}
			}
		}
		if got := stalledIn(wls, ranges, k, w.Nodes); (got != "") != tc.stalled {
			t.Errorf("b's jobs asking %s vCPUs (by their LimitRange: %v): %q, want stalled %v", tc.cpu, tc.viaRange, got, tc.stalled)
		}
	}
}

// An admission reclaimed within a second, in its step, is a transient
// pair: the comparison may leave both out (Kueue's requeue race); one
// reclaimed later, or preempted for another reason, is not.
func TestAnAdmissionReclaimedAtOnceIsATransientPair(t *testing.T) {
	r := newRecorder()
	r.step = 5
	r.add("s1-a-low-8g-6", "admit p5.48xlarge", "")
	r.add("s1-a-low-8g-6", "preempt InCohortReclamation", "")
	r.add("s1-a-low-8g-7", "admit p5.48xlarge", "")
	r.add("s1-a-low-8g-7", "preempt InClusterQueue", "")
	r.add("s1-a-low-8g-3", "admit p5.48xlarge", "")
	r.admitted["s1-a-low-8g-3"] = admittedAt{step: 5, at: time.Now().Add(-2 * time.Second), ev: "s1-a-low-8g admit p5.48xlarge"}
	r.add("s1-a-low-8g-3", "preempt InCohortReclamation", "")
	want := []reclaimedAtOnce{{admit: "s1-a-low-8g admit p5.48xlarge", reclaim: "s1-a-low-8g preempt InCohortReclamation"}}
	if got := r.transient[5]; !slices.Equal(got, want) {
		t.Fatalf("transient pairs %v, want %v", got, want)
	}
	ev := slices.Sorted(slices.Values(r.events[5]))
	if got := without(ev, []string{want[0].admit, want[0].reclaim}); len(got) != 4 {
		t.Errorf("events less the pair: %v, want the other four", got)
	}
}

// Which releases one cycle sees is timing, on either side: two rooms freed
// together let a borrower in ahead of the owner's requeued job, which then
// reclaims it. A step that differs only by such pairs, Kueue's or allot's,
// is explained; one that differs otherwise is not.
func TestATransientPairOnEitherSideExplainsAStepAndNothingElseDoes(t *testing.T) {
	rep := func(n int, ev string) []string { return slices.Repeat([]string{ev}, n) }
	step5 := slices.Concat(rep(3, "s2-b-low-8g admit p5.48xlarge"), rep(3, "s2-b-low-8g preempt InClusterQueue"),
		rep(1, "s3-b-low-8g admit p5.48xlarge"), rep(1, "s3-b-low-8g preempt InClusterQueue"), rep(4, "s5-b-high-8g-4s admit p5.48xlarge"))
	pair := reclaimedAtOnce{admit: "s1-a-low-8g admit p5.48xlarge", reclaim: "s1-a-low-8g preempt InCohortReclamation"}
	withPair := slices.Sorted(slices.Values(append(slices.Clone(step5), pair.admit, pair.reclaim)))
	other := slices.Sorted(slices.Values(append(slices.Clone(step5), "s1-a-low-8g admit p5.48xlarge")))
	slices.Sort(step5)
	for _, tc := range []struct {
		name                   string
		kueue, allot           []string
		kueuePairs, allotPairs []reclaimedAtOnce
		want                   string
	}{
		{"Kueue's pair", withPair, step5, []reclaimedAtOnce{pair}, nil,
			"Kueue admitted and at once reclaimed [1× s1-a-low-8g admit p5.48xlarge] (a requeue race)"},
		{"allot's pair", step5, withPair, nil, []reclaimedAtOnce{pair},
			"allot admitted and at once reclaimed [1× s1-a-low-8g admit p5.48xlarge] (a requeue race)"},
		{"a pair on each side", withPair, withPair, []reclaimedAtOnce{pair}, []reclaimedAtOnce{pair},
			"Kueue admitted and at once reclaimed [1× s1-a-low-8g admit p5.48xlarge]; allot admitted and at once reclaimed [1× s1-a-low-8g admit p5.48xlarge] (a requeue race)"},
		{"a difference the pair does not cover", other, withPair, nil, []reclaimedAtOnce{pair}, ""},
		{"no pair", other, step5, nil, nil, ""},
	} {
		if got := transientExplains(tc.kueue, tc.allot, tc.kueuePairs, tc.allotPairs); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}
