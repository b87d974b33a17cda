package kube

import (
	"context"
	"fmt"
	"strconv"
	"sync"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apimachinery/pkg/types"
	listersbatchv1 "k8s.io/client-go/listers/batch/v1"
	listerscorev1 "k8s.io/client-go/listers/core/v1"
)

// cached is what Run's informers hold. A sync reads it instead of listing
// the API server; without it (Sync called on its own) it lists: the plain
// path. It is as fresh as the watch, and no fresher than the controller's
// own last writes: those are kept until the watch brings them back, so a
// sync never decides on a job as it was before the controller changed it
// (deciding on a job it just admitted as if it waited would admit another
// job into the room it holds).
type cached struct {
	nodes listerscorev1.NodeLister
	jobs  listersbatchv1.JobLister
	pods  listerscorev1.PodLister
	cms   listerscorev1.ConfigMapNamespaceLister
	// ranges: the LimitRanges, whose defaults count toward a Job's request.
	ranges listerscorev1.LimitRangeLister

	mu    sync.Mutex
	wrote map[types.UID]*batchv1.Job // the controller's writes, newer than the cache
}

// wrote records a job as a write of the controller returned it.
func (c *Controller) wrote(j *batchv1.Job) {
	if c.cache == nil || j == nil {
		return
	}
	c.cache.mu.Lock()
	defer c.cache.mu.Unlock()
	if old := c.cache.wrote[j.UID]; old == nil || newer(j, old) {
		c.cache.wrote[j.UID] = j
	}
}

// newer says whether a's resourceVersion is after b's. They are etcd
// revisions; one that is not a number is never newer (the cache wins).
func newer(a, b *batchv1.Job) bool {
	ra, ea := strconv.ParseUint(a.ResourceVersion, 10, 64)
	rb, eb := strconv.ParseUint(b.ResourceVersion, 10, 64)
	return ea == nil && eb == nil && ra > rb
}

// withControlledPods selects the pods of Jobs.
var withControlledPods = func() labels.Selector {
	r, err := labels.NewRequirement(batchv1.ControllerUidLabel, selection.Exists, nil)
	if err != nil {
		panic(err)
	}
	return labels.NewSelector().Add(*r)
}()

// cluster is what a sync decides on: nodes, jobs and the pods of jobs.
func (c *Controller) cluster(ctx context.Context) ([]corev1.Node, []batchv1.Job, []corev1.Pod, error) {
	if c.cache == nil {
		return c.list(ctx)
	}
	ns, err := c.cache.nodes.List(labels.Everything())
	if err != nil {
		return nil, nil, nil, err
	}
	js, err := c.cache.jobs.List(labels.Everything())
	if err != nil {
		return nil, nil, nil, err
	}
	ps, err := c.cache.pods.List(withControlledPods)
	if err != nil {
		return nil, nil, nil, err
	}
	nodes, jobs, pods := make([]corev1.Node, len(ns)), make([]batchv1.Job, len(js)), make([]corev1.Pod, len(ps))
	for i, n := range ns {
		nodes[i] = *n
	}
	c.cache.mu.Lock()
	seen := make(map[types.UID]bool, len(js))
	for i, j := range js {
		seen[j.UID] = true
		if w := c.cache.wrote[j.UID]; w != nil && newer(w, j) {
			j = w
		} else if w != nil {
			delete(c.cache.wrote, j.UID) // the watch caught up
		}
		jobs[i] = *j
	}
	for uid := range c.cache.wrote {
		if !seen[uid] {
			delete(c.cache.wrote, uid) // gone
		}
	}
	c.cache.mu.Unlock()
	for i, p := range ps {
		pods[i] = *p
	}
	return nodes, jobs, pods, nil
}

// list reads nodes, jobs and the pods of jobs from the API server.
func (c *Controller) list(ctx context.Context) ([]corev1.Node, []batchv1.Job, []corev1.Pod, error) {
	nodes, err := c.Client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list nodes: %w", err)
	}
	jobs, err := c.Client.BatchV1().Jobs("").List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list jobs: %w", err)
	}
	pods, err := c.Client.CoreV1().Pods("").List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel})
	if err != nil {
		return nil, nil, nil, fmt.Errorf("list pods: %w", err)
	}
	return nodes.Items, jobs.Items, pods.Items, nil
}

// limitRanges are the cluster's LimitRanges, from the cache when there is
// one.
func (c *Controller) limitRanges(ctx context.Context) ([]corev1.LimitRange, error) {
	if c.cache == nil {
		l, err := c.Client.CoreV1().LimitRanges("").List(ctx, metav1.ListOptions{})
		if err != nil {
			return nil, fmt.Errorf("list limitranges: %w", err)
		}
		return l.Items, nil
	}
	rs, err := c.cache.ranges.List(labels.Everything())
	if err != nil {
		return nil, err
	}
	out := make([]corev1.LimitRange, len(rs))
	for i, r := range rs {
		out[i] = *r
	}
	return out, nil
}

// policyMap is the policy ConfigMap, from the cache when there is one.
func (c *Controller) policyMap(ctx context.Context) (*corev1.ConfigMap, error) {
	if c.cache != nil {
		return c.cache.cms.Get(c.ConfigMap)
	}
	return c.Client.CoreV1().ConfigMaps(c.Namespace).Get(ctx, c.ConfigMap, metav1.GetOptions{})
}
