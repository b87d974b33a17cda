// Package kueuehistory records a history under the real Kueue v0.17 on
// the test control plane, for allot import kueue to read back: the
// cluster of history.yaml (its nodes, as kwok's fake nodes; its policy
// exported to Kueue and applied; Kueue's manager running), and its
// synthetic workload submitted in real time as batch/v1 Jobs that kwok
// runs to completion. cmd/allot's tests and make dev-cluster KUEUE=1 use
// it. It lives under scripts/ because it joins what live/ may not
// (scenarios and their export) with the control plane of live/kube/kubetest.
package kueuehistory

import (
	"cmp"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// ScenarioFile is history.yaml's path in the repository, the name its
// errors and the export's header give it.
const ScenarioFile = "scripts/k8s/kueuehistory/history.yaml"

//go:embed history.yaml
var scenarioYAML []byte

// Within is how long Run waits for the workload to finish: it takes
// under four minutes on two loaded cores.
const Within = 10 * time.Minute

// History is the cluster a history is recorded on, and what it is fed.
type History struct {
	Cluster  *kubetest.Cluster
	Scenario *scenarios.Scenario
	Kueue    *export.Kueue
	Jobs     []kubetest.TimedJob
	// Took is from the first Job's creation to the last's completion
	// (after Run).
	Took time.Duration
}

// Scenario is history.yaml, loaded.
func Scenario() (*scenarios.Scenario, error) {
	return scenarios.Parse(ScenarioFile, scenarioYAML)
}

// Start starts a control plane with the scenario's nodes, applies
// Kueue's CRDs and the scenario's export to Kueue, and runs Kueue's
// manager (the binary at kueueBin) until every ClusterQueue is active.
// Everything stops when tb's cleanups run.
func Start(tb kubetest.TB, kueueBin string) *History {
	tb.Helper()
	s, err := Scenario()
	if err != nil {
		tb.Fatal(err)
	}
	k, err := export.ToKueue(s, export.KueueOptions{})
	if err != nil {
		tb.Fatal(err)
	}
	jobs, err := Jobs(s, k)
	if err != nil {
		tb.Fatal(err)
	}
	began := time.Now()
	c := kubetest.Start(tb)
	tb.Logf("control plane up in %v", time.Since(began).Round(time.Second))
	for _, g := range s.Fleet.Groups {
		it, _ := s.Fleet.Catalog.Lookup(g.Type)
		c.Nodes(g.Type, it.Resource, it.Accelerators, g.Count)
	}
	c.ApplyCRDs("sigs.k8s.io/kueue", "config/components/crd/bases") // all of Kueue's CRDs
	objs, err := k.ObjectsYAML()
	if err != nil {
		tb.Fatal(err)
	}
	dir, err := os.MkdirTemp("", "kueue-history")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.WriteFile(filepath.Join(dir, "objects.yaml"), objs, 0o644); err != nil {
		tb.Fatal(err)
	}
	c.Apply(filepath.Join(dir, "objects.yaml"))
	conf, err := k.ConfigYAML()
	if err != nil {
		tb.Fatal(err)
	}
	c.StartKueue(kueueBin, conf, len(k.ClusterQueues))
	tb.Logf("Kueue running with %d ClusterQueues, %v from the start", len(k.ClusterQueues), time.Since(began).Round(time.Second))
	return &History{Cluster: c, Scenario: s, Kueue: k, Jobs: jobs}
}

// Run submits the Jobs in real time and waits until all have completed
// (at most Within), then until Kueue has marked every Workload Finished:
// a Job completes a moment before its Workload says so.
func (h *History) Run(ctx context.Context) error {
	took, err := h.Cluster.RunTimedJobs(ctx, h.Jobs, Within)
	h.Took = took
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(h.Cluster.AdminConfig())
	if err != nil {
		return err
	}
	deadline := time.Now().Add(time.Minute)
	for {
		ws, err := Workloads(ctx, dyn)
		if err != nil {
			return err
		}
		finished := 0
		for _, w := range ws {
			if meta.IsStatusConditionTrue(w.Status.Conditions, kueue.WorkloadFinished) {
				finished++
			}
		}
		if finished == len(h.Jobs) {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%d of %d Workloads Finished a minute after their Jobs completed", finished, len(h.Jobs))
		}
		time.Sleep(250 * time.Millisecond)
	}
}

// WorkloadsGVR is Kueue's Workload resource.
var WorkloadsGVR = schema.GroupVersionResource{Group: kueue.GroupVersion.Group, Version: kueue.GroupVersion.Version, Resource: "workloads"}

// Workloads lists every Workload of the cluster.
func Workloads(ctx context.Context, dyn dynamic.Interface) ([]kueue.Workload, error) {
	l, err := dyn.Resource(WorkloadsGVR).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	out := make([]kueue.Workload, len(l.Items))
	for i, u := range l.Items {
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &out[i]); err != nil {
			return nil, fmt.Errorf("workload %s/%s: %w", u.GetNamespace(), u.GetName(), err)
		}
	}
	return out, nil
}

// Jobs is the scenario's synthetic workload (for its seed) as Jobs: each
// created in its team's namespace, queued to the team's LocalQueue with
// its WorkloadPriorityClass, one pod per node's worth of accelerators,
// running its duration rounded to whole seconds (at least one). A Job is
// created half a second into the second of its submit time, or into the
// next second its team has not used: a record keeps creation times in
// whole seconds, and Kueue orders a queue by them, so two Jobs of a team
// created in one second would leave their order to chance.
func Jobs(s *scenarios.Scenario, k *export.Kueue) ([]kubetest.TimedJob, error) {
	if s.Synthetic == nil {
		return nil, errors.New(s.Path + ": the workload must be synthetic")
	}
	queue, class := map[string]int{}, map[string]string{}
	for i, t := range s.Teams {
		queue[t.Name] = i
	}
	for i, p := range s.Priority {
		class[p.Name] = k.PriorityClasses[i].Name
	}
	last := map[string]float64{} // each team's last second used
	src := s.Synthetic.Source(s.Seed)
	defer src.Close()
	var out []kubetest.TimedJob
	for {
		j, err := src.Next()
		if err == io.EOF {
			slices.SortStableFunc(out, func(a, b kubetest.TimedJob) int { return cmp.Compare(a.At, b.At) })
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		if len(j.InstanceTypes) != 1 {
			return nil, fmt.Errorf("%s: class %s: name one instance type, the one its jobs run on", s.Path, j.Class)
		}
		it, _ := s.Fleet.Catalog.Lookup(j.InstanceTypes[0])
		pods := j.Accelerators / float64(it.Accelerators)
		if pods != math.Trunc(pods) || pods < 1 {
			return nil, fmt.Errorf("%s: class %s: %g accelerators is not a whole number of %s nodes", s.Path, j.Class, j.Accelerators, it.Name)
		}
		lq := k.LocalQueues[queue[j.Team]]
		labels := map[string]string{"kueue.x-k8s.io/queue-name": lq.Name}
		if j.PriorityClass != "" {
			labels["kueue.x-k8s.io/priority-class"] = class[j.PriorityClass]
		}
		sec := math.Floor(j.Submit)
		if l, ok := last[j.Team]; ok && sec <= l {
			sec = l + 1
		}
		last[j.Team] = sec
		out = append(out, kubetest.TimedJob{
			Namespace: lq.Namespace, Name: fmt.Sprintf("%s-%03d", strings.ToLower(j.Team), len(out)), Labels: labels,
			At: time.Duration((sec + 0.5) * float64(time.Second)), Pods: int(pods), Resource: it.Resource, PerPod: it.Accelerators,
			RunFor: time.Duration(max(1, math.Round(j.Duration))) * time.Second,
		})
	}
}
