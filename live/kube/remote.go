package kube

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// Remote is the live.Remote of a cluster: each call talks to the API
// server of its Target, with a client of its own. Its errors are the API
// server's as it gave them; IsInput tells the caller's from others.
type Remote struct {
	Target
	// Job is what Submit adds to a request.
	Job JobSpec
	// Configure reads the controller's policy (where names it in errors)
	// on the cluster's fleet, as the controller does; Top and Snapshot
	// need it.
	Configure func(where string) Configure
	// WriteSnapshot writes what Snapshot found as a snapshot file.
	WriteSnapshot SnapshotWriter
}

var _ live.Remote = (*Remote)(nil)

// Submit creates the job suspended in the team's namespace (or the
// Target's) and returns its id, namespace/name.
func (r *Remote) Submit(req *live.Request) (string, error) {
	cs, err := r.Client()
	if err != nil {
		return "", err
	}
	ns := r.Namespace
	if ns == "" {
		ns = req.Team
	}
	j, err := r.Job.Job(req, ns)
	if err != nil {
		return "", &InputError{err}
	}
	made, err := cs.BatchV1().Jobs(ns).Create(context.Background(), j, metav1.CreateOptions{})
	if err != nil {
		return "", err
	}
	return ID(made), nil
}

// Jobs lists the managed jobs (the Target's namespace, else all) in queue
// order; whose they are does not narrow it.
func (r *Remote) Jobs(bool) ([]live.View, error) {
	cs, err := r.Client()
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	ns := r.Namespace
	jobs, err := cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelTeam})
	if ns == "" && apierrors.IsForbidden(err) {
		// A team's user may list only in their namespace: the one their
		// kubeconfig's context names, as kubectl would use.
		if ns = r.ContextNamespace(); ns == "" {
			return nil, &InputError{fmt.Errorf("%w (give -n NAMESPACE, or set a namespace in the kubeconfig's context)", err)}
		}
		jobs, err = cs.BatchV1().Jobs(ns).List(ctx, metav1.ListOptions{LabelSelector: LabelTeam})
	}
	if err != nil {
		return nil, err
	}
	pods, err := cs.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel})
	if err != nil {
		return nil, err
	}
	alive := LivePods(pods.Items)
	out := []live.View{}
	for i := range jobs.Items {
		j := &jobs.Items[i]
		out = append(out, View(j, j.Labels[LabelTeam], alive[string(j.UID)]))
	}
	slices.SortStableFunc(out, func(a, b live.View) int { return a.Submitted.Compare(b.Submitted) })
	return out, nil
}

// clientJob is a client and the job id names.
func (r *Remote) clientJob(id string) (kubernetes.Interface, *batchv1.Job, error) {
	cs, err := r.Client()
	if err != nil {
		return nil, nil, err
	}
	ns, name, ok := strings.Cut(id, "/")
	if !ok {
		ns, name = r.Namespace, id
		if ns == "" {
			return nil, nil, &InputError{fmt.Errorf("job %q: give NAMESPACE/NAME, or -n NAMESPACE", id)}
		}
	}
	j, err := cs.BatchV1().Jobs(ns).Get(context.Background(), name, metav1.GetOptions{})
	if err != nil {
		return nil, nil, err
	}
	return cs, j, nil
}

// podsOf lists a job's pods.
func podsOf(ctx context.Context, cs kubernetes.Interface, j *batchv1.Job) (*corev1.PodList, error) {
	return cs.CoreV1().Pods(j.Namespace).List(ctx, metav1.ListOptions{LabelSelector: batchv1.ControllerUidLabel + "=" + string(j.UID)})
}

// Describe is a job's view and its Events, oldest first; the command is
// its first container's.
func (r *Remote) Describe(id string) (*live.Detail, error) {
	cs, j, err := r.clientJob(id)
	if err != nil {
		return nil, err
	}
	ctx := context.Background()
	pods, err := podsOf(ctx, cs, j)
	if err != nil {
		return nil, err
	}
	d := &live.Detail{Description: live.Description{View: View(j, j.Labels[LabelTeam], LivePods(pods.Items)[string(j.UID)])}}
	if len(j.Spec.Template.Spec.Containers) > 0 {
		d.Command = j.Spec.Template.Spec.Containers[0].Command
	}
	evs, err := cs.CoreV1().Events(j.Namespace).List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.name=" + j.Name})
	if err != nil {
		return nil, err
	}
	SortEvents(evs.Items)
	t0 := j.CreationTimestamp.Time
	for _, e := range evs.Items {
		if e.InvolvedObject.UID != j.UID {
			continue
		}
		d.History = append(d.History, live.Event{Time: EventTime(&e).Sub(t0).Seconds(), Job: ID(j), Kind: e.Reason, Detail: e.Message})
	}
	return d, nil
}

// Cancel stops a job for good: suspended (its pods deleted with their
// grace period) and marked cancelled, which the controller leaves alone.
func (r *Remote) Cancel(id string) error {
	cs, j, err := r.clientJob(id)
	if err != nil {
		return err
	}
	who := os.Getenv("USER")
	if who == "" {
		who = fmt.Sprintf("uid %d", os.Getuid())
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:%q,%q:%q,%q:"cancelled"}},"spec":{"suspend":true}}`,
		AnnCancelled, who, AnnCancelledAt, time.Now().UTC().Format(time.RFC3339Nano), AnnReason)
	_, err = cs.BatchV1().Jobs(j.Namespace).Patch(context.Background(), j.Name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	return err
}

// Logs copies the logs of the job's pods, oldest pod first, following
// the last one with follow; a pod whose node keeps no logs says so on
// stderr.
func (r *Remote) Logs(id string, follow bool, stdout, stderr io.Writer) error {
	cs, j, err := r.clientJob(id)
	if err != nil {
		return err
	}
	ctx := context.Background()
	pods, err := podsOf(ctx, cs, j)
	if err != nil {
		return err
	}
	if len(pods.Items) == 0 {
		return &InputError{fmt.Errorf("job %s has no pods now (%s)", ID(j), View(j, j.Labels[LabelTeam], 0).State)}
	}
	slices.SortFunc(pods.Items, func(a, b corev1.Pod) int { return a.CreationTimestamp.Compare(b.CreationTimestamp.Time) })
	for i, p := range pods.Items {
		if len(pods.Items) > 1 {
			fmt.Fprintf(stdout, "==> pod %s <==\n", p.Name)
		}
		st, err := cs.CoreV1().Pods(p.Namespace).GetLogs(p.Name, &corev1.PodLogOptions{Follow: follow && i == len(pods.Items)-1}).Stream(ctx)
		if err != nil {
			fmt.Fprintf(stderr, "allot: pod %s: no logs: %v\n", p.Name, err)
			continue
		}
		_, err = io.Copy(stdout, st)
		st.Close()
		if err != nil {
			return err
		}
	}
	return nil
}
