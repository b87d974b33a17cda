package kube

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync/atomic"
	"time"

	"github.com/allot-sim/allot/live"
	"golang.org/x/sync/errgroup"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"
)

// PolicyKey is the key of the policy file in the policy ConfigMap.
const PolicyKey = "policy.yaml"

// Config is a policy on the cluster's fleet, as cmd/allot builds it.
type Config struct {
	*live.Config                   // quota-level Model, Teams, Priorities, GracePeriod
	Namespaces       []string      // by team: where its Jobs live
	Types            []FleetType   // by flavor of Model
	PlacementTimeout time.Duration // admitted but not all pods running by then: requeued
}

// Configure makes a Config of a policy file's contents on a fleet.
type Configure func(policy []byte, fleet []FleetType) (*Config, error)

// Controller admits and preempts the cluster's managed Jobs.
type Controller struct {
	Client    kubernetes.Interface
	Namespace string // of the policy ConfigMap (and the leader Lease)
	ConfigMap string
	Configure Configure
	Clock     live.Clock
	Events    record.EventRecorder

	g       gauges
	cfg     *Config
	cfgKey  string // ConfigMap resourceVersion and fleet the config was made for
	cfgErr  string // the last policy error reported
	started time.Time
	leading atomic.Bool
	cache   *cached // Run's informers (nil: each sync lists the API server)
	kept    usageState
	// warned holds the running jobs warned of a bad checkpoint interval
	// (by UID, with the value), so that each is warned once, not every sync.
	warned map[types.UID]string
}

// team is a job's team index, or -1 when it is not managed.
func (c *Controller) team(j *batchv1.Job) int { return teamOf(c.cfg, j) }

// teamOf is a job's team index under cfg: the team whose namespace it is
// in, else the team its label names; -1 when it is not managed. A job in
// one team's namespace labelled with another team is not managed: whoever
// may create Jobs in a namespace spends that team's quota, no other's.
func teamOf(cfg *Config, j *batchv1.Job) int {
	q, label := slices.Index(cfg.Namespaces, j.Namespace), j.Labels[LabelTeam]
	switch {
	case q >= 0 && (label == "" || label == cfg.Teams[q]):
		return q
	case q >= 0:
		return -1
	case label != "":
		return slices.Index(cfg.Teams, label)
	}
	return -1
}

// mislabelled says why a job in a team's namespace labelled with another
// team is left alone ("" when it is not).
func mislabelled(cfg *Config, j *batchv1.Job) string {
	q, label := slices.Index(cfg.Namespaces, j.Namespace), j.Labels[LabelTeam]
	if q < 0 || label == "" || label == cfg.Teams[q] {
		return ""
	}
	return fmt.Sprintf("not admitted: labelled team %q, but namespace %s is team %s's (a team's namespace holds only its own jobs)", label, j.Namespace, cfg.Teams[q])
}

// config is the policy in force, for readers outside the sync loop.
func (c *Controller) config() *Config {
	c.g.mu.Lock()
	defer c.g.mu.Unlock()
	return c.cfg
}

// waitingSince is when the job last joined its queue: submitted, or
// preempted.
func waitingSince(j *batchv1.Job) time.Time {
	if t, ok := annTime(j, AnnPreempted); ok {
		return t
	}
	return submitted(j)
}

// epoch is time 0 of the core: the controller's start.
func (c *Controller) epoch() time.Time {
	if c.started.IsZero() {
		c.started = c.Clock.Now()
	}
	return c.started
}

// lostNodes names, by job UID, a node outside the fleet that one of the
// job's live pods is bound to.
func lostNodes(pods []corev1.Pod, inFleet map[string]bool) map[string]string {
	out := map[string]string{}
	for i := range pods {
		p := &pods[i]
		if uid := p.Labels[batchv1.ControllerUidLabel]; uid != "" && p.Spec.NodeName != "" && !inFleet[p.Spec.NodeName] && !podDone(p) {
			if _, ok := out[uid]; !ok {
				out[uid] = p.Spec.NodeName
			}
		}
	}
	return out
}

func podCount(j *batchv1.Job) int {
	if j.Spec.Parallelism != nil {
		return int(*j.Spec.Parallelism)
	}
	return 1
}

// reconfigure reads the policy ConfigMap and makes a config of it on the
// fleet when either changed; a bad policy keeps the last good one and is
// reported as an Event on the ConfigMap.
func (c *Controller) reconfigure(ctx context.Context, fleet []FleetType) error {
	cm, err := c.policyMap(ctx)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("no policy: ConfigMap %s/%s not found", c.Namespace, c.ConfigMap)
	}
	if err != nil {
		return fmt.Errorf("get policy ConfigMap: %w", err)
	}
	fk, _ := json.Marshal(fleet)
	key := cm.ResourceVersion + " " + string(fk)
	if key == c.cfgKey {
		return nil
	}
	cfg, err := c.Configure([]byte(cm.Data[PolicyKey]), fleet)
	c.cfgKey = key
	if err != nil {
		if msg := err.Error(); msg != c.cfgErr {
			c.cfgErr = msg
			c.Events.Event(cm, corev1.EventTypeWarning, "BadPolicy", msg)
		}
		return nil
	}
	cfg.Model.NodesModelled = false // on Kubernetes placement is the scheduler's
	if c.cfg != nil {
		c.Events.Eventf(cm, corev1.EventTypeNormal, "PolicyApplied", "policy %s (resourceVersion %s) now decides", cfg.Name, cm.ResourceVersion)
	}
	c.g.mu.Lock()
	c.cfg, c.cfgErr = cfg, ""
	c.g.mu.Unlock()
	return nil
}

// admit un-suspends a job on an instance type.
func (c *Controller) admit(ctx context.Context, j *batchv1.Job, flavor string, borrowing bool, now time.Time) bool {
	run := runs(j) + 1
	// The run number keeps each admission's Event apart (the API server
	// folds repeated identical Events into one).
	how := fmt.Sprintf("admitted on %s (run %d)", flavor, run)
	if borrowing {
		how += ", borrowing idle quota"
	}
	ann := map[string]any{AnnAdmitted: now.UTC().Format(time.RFC3339Nano), AnnFlavor: flavor, AnnReason: how, AnnRuns: strconv.Itoa(run)}
	if _, ok := j.Annotations[AnnStarted]; !ok {
		ann[AnnStarted] = ann[AnnAdmitted]
	}
	patch := map[string]any{"metadata": map[string]any{"annotations": ann},
		"spec": map[string]any{"suspend": false, "template": map[string]any{"spec": map[string]any{"nodeSelector": map[string]string{InstanceTypeLabel: flavor}}}}}
	if !c.patch(ctx, j, patch) {
		return false
	}
	c.Events.Event(j, corev1.EventTypeNormal, "Admitted", how)
	c.condition(ctx, j, corev1.ConditionTrue, "Admitted", how)
	return true
}

// suspend stops a running job and requeues it: its pods are deleted with
// their grace period. by is the job it made room for (nil: none).
func (c *Controller) suspend(ctx context.Context, j *batchv1.Job, by *batchv1.Job, why, reason string) bool {
	return c.suspendWith(ctx, j, by, nil, why, reason)
}

// suspendWith is suspend that sets more annotations.
func (c *Controller) suspendWith(ctx context.Context, j *batchv1.Job, by *batchv1.Job, more map[string]any, why, reason string) bool {
	ann := map[string]any{AnnReason: why}
	for k, v := range more {
		ann[k] = v
	}
	if by != nil {
		ann[AnnPreempted] = c.Clock.Now().UTC().Format(time.RFC3339Nano)
		ann[AnnPreemptedBy] = ID(by)
		ann[AnnPreemptions] = strconv.Itoa(preemptions(j) + 1)
	}
	patch := map[string]any{"metadata": map[string]any{"annotations": ann}, "spec": map[string]any{"suspend": true}}
	if !c.patch(ctx, j, patch) {
		return false
	}
	c.Events.Event(j, corev1.EventTypeNormal, reason, why)
	c.condition(ctx, j, corev1.ConditionFalse, reason, why)
	return true
}

// setReason records why a job waits, when it changed.
func (c *Controller) setReason(ctx context.Context, j *batchv1.Job, why string) {
	if j.Annotations[AnnReason] == why {
		return
	}
	if c.patch(ctx, j, map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnReason: why}}}) {
		c.Events.Event(j, corev1.EventTypeNormal, "Pending", why)
		c.condition(ctx, j, corev1.ConditionFalse, "Pending", why)
	}
}

// note reports a problem with a job once (it is kept as its reason).
func (c *Controller) note(ctx context.Context, j *batchv1.Job, typ, reason, msg string) {
	if j.Annotations[AnnReason] == msg {
		return
	}
	if c.patch(ctx, j, map[string]any{"metadata": map[string]any{"annotations": map[string]any{AnnReason: msg}}}) {
		c.Events.Event(j, typ, reason, msg)
		c.condition(ctx, j, corev1.ConditionFalse, reason, msg)
	}
}

// ConditionAdmitted is the Job condition allot keeps: True while the job
// is admitted, False with the reason while it waits or is being stopped.
const ConditionAdmitted batchv1.JobConditionType = "Admitted"

// condition sets the job's Admitted condition (a strategic merge on its
// status, keyed by type, so the Job controller's own conditions stay).
func (c *Controller) condition(ctx context.Context, j *batchv1.Job, status corev1.ConditionStatus, reason, msg string) {
	now := metav1.NewTime(c.Clock.Now())
	cond := batchv1.JobCondition{Type: ConditionAdmitted, Status: status, Reason: reason, Message: msg, LastProbeTime: now, LastTransitionTime: now}
	data, _ := json.Marshal(map[string]any{"status": map[string]any{"conditions": []batchv1.JobCondition{cond}}})
	made, err := c.Client.BatchV1().Jobs(j.Namespace).Patch(ctx, j.Name, types.StrategicMergePatchType, data, metav1.PatchOptions{}, "status")
	if err == nil {
		c.wrote(made)
	}
	if err != nil && !apierrors.IsNotFound(err) {
		c.Events.Eventf(j, corev1.EventTypeWarning, "PatchFailed", "allot could not set the job's condition: %v", err)
	}
}

// patch merge-patches a job if it is still as the sync saw it (its
// resourceVersion is in the patch). A conflict with a write that changed
// nothing a decision reads, such as the Job controller setting the
// Suspended condition on a new job, is retried on the fresh job; dropping
// it would drop an admission whose preemptions went ahead. A job that did
// change, or is gone, is left to the next sync.
func (c *Controller) patch(ctx context.Context, j *batchv1.Job, p map[string]any) bool {
	meta := p["metadata"].(map[string]any)
	if q := c.team(j); q >= 0 && j.Labels[LabelTeam] == "" {
		// Managed for its namespace: labelled too, so that allot jobs and
		// kubectl -l find it.
		meta["labels"] = map[string]string{LabelTeam: c.cfg.Teams[q]}
	}
	for try := 0; ; try++ {
		meta["resourceVersion"] = j.ResourceVersion
		data, _ := json.Marshal(p)
		made, err := c.Client.BatchV1().Jobs(j.Namespace).Patch(ctx, j.Name, types.MergePatchType, data, metav1.PatchOptions{})
		switch {
		case apierrors.IsConflict(err) && try < conflictRetries:
			fresh, gerr := c.Client.BatchV1().Jobs(j.Namespace).Get(ctx, j.Name, metav1.GetOptions{})
			if gerr != nil || !sameDecisionInputs(j, fresh) {
				return false
			}
			j = fresh
			continue
		case apierrors.IsConflict(err), apierrors.IsNotFound(err):
			return false // changed or gone meanwhile: the next sync sees it as it is
		case err != nil:
			c.Events.Eventf(j, corev1.EventTypeWarning, "PatchFailed", "allot could not update the job: %v", err)
			return false
		}
		c.wrote(made)
		return true
	}
}

// conflictRetries bounds patch's retries of one write.
const conflictRetries = 3

// sameDecisionInputs says whether a job changed only where no decision of
// the controller looks: everything but its status, save whether it
// finished. (Its pods are read apart, from the pod cache.)
func sameDecisionInputs(seen, now *batchv1.Job) bool {
	return seen.UID == now.UID && now.DeletionTimestamp == nil && finished(seen) == finished(now) &&
		maps.Equal(seen.Labels, now.Labels) && maps.Equal(seen.Annotations, now.Annotations) &&
		equality.Semantic.DeepEqual(seen.Spec, now.Spec)
}

// writers is how many API writes a sync has in flight at once.
const writers = 16

// parallel runs f(0..n-1) on up to writers goroutines and returns what
// each returned.
func parallel(n int, f func(i int) bool) []bool {
	out := make([]bool, n)
	var g errgroup.Group
	g.SetLimit(writers)
	for i := range n {
		g.Go(func() error { out[i] = f(i); return nil })
	}
	_ = g.Wait() // f returns no error
	return out
}
