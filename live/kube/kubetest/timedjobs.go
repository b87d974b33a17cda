package kubetest

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strconv"
	"sync"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"
)

// TimedJob is a suspended batch/v1 Job created At after a workload
// begins: Pods pods, each asking PerPod of Resource (nothing else), that
// kwok runs for RunFor once they are running, then ends as Succeeded.
// Whatever admits it (Kueue, allot's controller) unsuspends it.
type TimedJob struct {
	Namespace, Name string
	Labels          map[string]string
	At              time.Duration
	Pods            int
	Resource        string
	PerPod          int
	RunFor          time.Duration
}

// Job is the batch/v1 Job of j: RunFor as kwok's kwok-sim/run-for, the
// fake nodes' taint tolerated.
func (j *TimedJob) Job() *batchv1.Job {
	req := corev1.ResourceList{corev1.ResourceName(j.Resource): *resource.NewQuantity(int64(j.PerPod), resource.DecimalSI)}
	n := int32(j.Pods)
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Name: j.Name, Namespace: j.Namespace, Labels: j.Labels},
		Spec: batchv1.JobSpec{Suspend: ptr.To(true), Parallelism: &n, Completions: &n, BackoffLimit: ptr.To(int32(0)),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{"kwok-sim/run-for": j.RunFor.String()}},
				Spec: corev1.PodSpec{RestartPolicy: corev1.RestartPolicyNever, TerminationGracePeriodSeconds: ptr.To(int64(0)),
					Tolerations: []corev1.Toleration{{Key: FakeTaint.Key, Operator: corev1.TolerationOpEqual, Value: FakeTaint.Value, Effect: FakeTaint.Effect}},
					Containers:  []corev1.Container{{Name: "work", Image: "work:latest", Resources: corev1.ResourceRequirements{Requests: req, Limits: req}}}}}},
	}
}

// RunTimedJobs creates each job at its time from now (jobs sorted by At)
// and waits until every one has completed, or within has passed, or ctx
// is done. A Job that fails is an error. It returns when the last
// completed, from the start.
func (c *Cluster) RunTimedJobs(ctx context.Context, jobs []TimedJob, within time.Duration) (time.Duration, error) {
	if len(jobs) == 0 {
		return 0, nil
	}
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	w := &completions{left: map[string]bool{}, done: make(chan struct{})}
	for _, j := range jobs {
		w.left[j.Namespace+"/"+j.Name] = true
	}
	f := informers.NewSharedInformerFactory(c.Client, 0)
	inf := f.Batch().V1().Jobs().Informer()
	if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(o any) { w.saw(o.(*batchv1.Job)) },
		UpdateFunc: func(_, o any) { w.saw(o.(*batchv1.Job)) },
	}); err != nil {
		return 0, err
	}
	f.Start(ctx.Done())
	defer func() {
		cancel() // first: Shutdown waits for the informers, which stop with ctx
		f.Shutdown()
	}()
	f.WaitForCacheSync(ctx.Done())
	start := time.Now()
	for _, j := range slices.SortedStableFunc(slices.Values(jobs), func(a, b TimedJob) int { return cmp.Compare(a.At, b.At) }) {
		select {
		case <-time.After(time.Until(start.Add(j.At))):
		case <-ctx.Done():
			return 0, fmt.Errorf("creating job %s/%s at %v: %w", j.Namespace, j.Name, j.At, ctx.Err())
		}
		if _, err := c.Client.BatchV1().Jobs(j.Namespace).Create(ctx, j.Job(), metav1.CreateOptions{}); err != nil {
			return 0, fmt.Errorf("job %s/%s: %w", j.Namespace, j.Name, err)
		}
	}
	select {
	case <-w.done:
		if w.err != nil {
			return 0, w.err
		}
		return time.Since(start), nil
	case <-ctx.Done():
		return 0, fmt.Errorf("%s of %d jobs not completed after %v: %w", w.count(), len(jobs), time.Since(start).Round(time.Second), ctx.Err())
	}
}

// completions follows Jobs until those left have all completed or one
// has failed.
type completions struct {
	mu   sync.Mutex
	left map[string]bool
	err  error
	done chan struct{}
}

func (w *completions) saw(j *batchv1.Job) {
	w.mu.Lock()
	defer w.mu.Unlock()
	key := j.Namespace + "/" + j.Name
	if !w.left[key] || w.err != nil {
		return
	}
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			delete(w.left, key)
			if len(w.left) == 0 {
				close(w.done)
			}
			return
		case batchv1.JobFailed:
			w.err = fmt.Errorf("job %s failed: %s", key, c.Message)
			close(w.done)
			return
		}
	}
}

func (w *completions) count() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return strconv.Itoa(len(w.left))
}
