package kube

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/policies"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// teamsPolicy is n teams t0..t(n-1), each in its namespace with an equal
// share of the fleet's first instance type as quota.
func teamsPolicy(n int) Configure {
	return func(_ []byte, fleet []FleetType) (*Config, error) {
		t := fleet[0]
		each := policies.Qty(t.PerNode*len(t.Nodes)/n) * policies.Milli
		m := &policies.Model{Kind: policies.KindQuota, Resources: []string{t.Resource},
			Flavors: []policies.FlavorSpec{{Name: t.Name, NodeAccel: policies.Qty(t.PerNode) * policies.Milli, Nodes: len(t.Nodes), AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
			Cohorts: []policies.CohortSpec{{Name: "default", Parent: -1, Weight: 1}}}
		cfg := &Config{Config: &live.Config{Name: "bench", Policy: "quota", Model: m, Priorities: map[string]int32{"low": 10}, GracePeriod: time.Second, MaxRetries: -1},
			Types: fleet, PlacementTimeout: time.Hour}
		for i := range n {
			name := "t" + strconv.Itoa(i)
			m.Queues = append(m.Queues, policies.QueueSpec{Name: name, Cohort: 0, Weight: 1, WithinQueue: policies.LowerPriority, Reclaim: policies.Any, MaxPreemptions: -1,
				Groups: []policies.ResourceGroup{{Resources: []int{0}, Flavors: []policies.FlavorQuotas{{Flavor: 0, Quotas: map[int]policies.Quota{0: {Nominal: each}}}}}}})
			cfg.Teams, cfg.Namespaces = append(cfg.Teams, name), append(cfg.Namespaces, name)
			cfg.Quotas = append(cfg.Quotas, []int{int(each / policies.Milli)})
		}
		return cfg, nil
	}
}

// benchCluster is a control plane with 125 nodes of 8 GPUs, namespaces
// t0..t9, deploy/'s RBAC and a controller maker under its ServiceAccount.
func benchCluster(b *testing.B) (*kubetest.Cluster, func() (stop func())) {
	c := kubetest.Start(b)
	c.Nodes("p5.48xlarge", ResourceNVIDIA, 8, 125)
	c.Apply("../../deploy/namespace.yaml", "../../deploy/rbac.yaml", "../../deploy/usage.yaml")
	ctx := context.Background()
	for i := range 10 {
		if _, err := c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "t" + strconv.Itoa(i)}}, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "allot-policy", Namespace: "allot-system"}, Data: map[string]string{PolicyKey: "10 teams"}}
	if _, err := c.Client.CoreV1().ConfigMaps("allot-system").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	cs, err := NewClient(c.ServiceAccount("allot-system", "allot-controller"))
	if err != nil {
		b.Fatal(err)
	}
	return c, func() func() {
		rec, shutdown := Recorder(cs)
		ctrl := &Controller{Client: cs, Namespace: "allot-system", ConfigMap: "allot-policy", Configure: teamsPolicy(10), Clock: live.SystemClock{}, Events: rec}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		go func() { done <- ctrl.Run(ctx, Options{Identity: "bench"}); shutdown() }()
		return func() {
			cancel()
			if err := <-done; err != nil {
				b.Error(err)
			}
		}
	}
}

// countAdmitted counts the managed jobs with an admission.
func countAdmitted(b *testing.B, cs kubernetes.Interface) int {
	jobs, err := cs.BatchV1().Jobs("").List(context.Background(), metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	n := 0
	for _, j := range jobs.Items {
		if j.Annotations[AnnAdmitted] != "" {
			n++
		}
	}
	return n
}

// clear deletes every job of the teams and waits until their pods are gone.
func clearJobs(b *testing.B, c *kubetest.Cluster) {
	ctx := context.Background()
	for i := range 10 {
		ns := "t" + strconv.Itoa(i)
		if err := c.Client.BatchV1().Jobs(ns).DeleteCollection(ctx, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}, metav1.ListOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(500 * time.Millisecond) {
		pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
		jobs, err2 := c.Client.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
		if err == nil && err2 == nil && len(pods.Items) == 0 && len(jobs.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("jobs and pods not gone after 5 min")
		}
	}
}

// Admissions per second: 1,000 suspended one-GPU Jobs queued across 10
// teams (100 each, quota 100 GPUs each, 1,000 GPUs in the fleet), then the
// controller starts; timed from its start until every Job carries its
// admission. Kueue's own performance tests report about 43 admissions/s
// on a real API server.
func BenchmarkAdmissionsOf1000QueuedJobsAcross10Teams(b *testing.B) {
	c, controller := benchCluster(b)
	ctx := context.Background()
	var rates []float64
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		for i := range 1000 {
			j := newJob("t"+strconv.Itoa(i%10), fmt.Sprintf("job-%04d", i), "low", 1, "")
			if _, err := c.Client.BatchV1().Jobs(j.Namespace).Create(ctx, j, metav1.CreateOptions{}); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0 := time.Now()
		stop := controller()
		for deadline := t0.Add(10 * time.Minute); countAdmitted(b, c.Client) < 1000; time.Sleep(100 * time.Millisecond) {
			if time.Now().After(deadline) {
				b.Fatalf("%d of 1000 admitted after 10 min", countAdmitted(b, c.Client))
			}
		}
		rates = append(rates, 1000/time.Since(t0).Seconds())
		b.StopTimer()
		stop()
		clearJobs(b, c)
	}
	slices.Sort(rates)
	b.ReportMetric(rates[len(rates)/2], "admissions/s")
}

// Time from a Job's creation to its admission on an idle cluster: the
// controller runs, nothing else is queued; one Job is created and watched
// until it carries its admission.
func BenchmarkCreationToAdmissionOnAnIdleCluster(b *testing.B) {
	c, controller := benchCluster(b)
	defer controller()()
	ctx := context.Background()
	var lat []time.Duration
	time.Sleep(2 * time.Second) // the controller takes the Lease
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("idle-%04d", i)
		w, err := c.Client.BatchV1().Jobs("t0").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
		if err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if _, err := c.Client.BatchV1().Jobs("t0").Create(ctx, newJob("t0", name, "low", 1, ""), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		for ev := range w.ResultChan() {
			if j, ok := ev.Object.(interface{ GetAnnotations() map[string]string }); ok && ev.Type == watch.Modified && j.GetAnnotations()[AnnAdmitted] != "" {
				break
			}
		}
		lat = append(lat, time.Since(t0))
		w.Stop()
		b.StopTimer()
		if err := c.Client.BatchV1().Jobs("t0").Delete(ctx, name, metav1.DeleteOptions{PropagationPolicy: ptr.To(metav1.DeletePropagationBackground)}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "ms-median")
	b.ReportMetric(float64(lat[len(lat)*9/10].Microseconds())/1000, "ms-p90")
}
