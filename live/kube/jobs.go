package kube

import (
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/allot-sim/allot/live"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
)

// Labels and annotations on managed Jobs.
const (
	LabelTeam          = "scheduling.allot.dev/team"
	LabelPriorityClass = "scheduling.allot.dev/priority-class"
	// Set by the submitter.
	AnnInstanceType = "scheduling.allot.dev/instance-type" // the only type it may run on
	AnnSubmitted    = "scheduling.allot.dev/submitted"     // RFC 3339 with nanoseconds: its place in the queue
	AnnCancelled    = "scheduling.allot.dev/cancelled"     // allot cancel: stop it for good
	// Set by the controller.
	AnnAdmitted    = "scheduling.allot.dev/admitted"     // when this run was admitted
	AnnFlavor      = "scheduling.allot.dev/flavor"       // the instance type it was admitted on
	AnnPreempted   = "scheduling.allot.dev/preempted"    // when it was last preempted
	AnnPreemptedBy = "scheduling.allot.dev/preempted-by" // namespace/name of the job it made room for
	AnnPreemptions = "scheduling.allot.dev/preemptions"  // how many times
	AnnReason      = "scheduling.allot.dev/reason"       // why it waits, or the last decision
	AnnStarted     = "scheduling.allot.dev/started"      // its first admission
	AnnRuns        = "scheduling.allot.dev/runs"         // admissions so far
	AnnTimeouts    = "scheduling.allot.dev/placement-timeouts"
	AnnRetryAfter  = "scheduling.allot.dev/retry-after" // not admitted again before then (after a placement timeout)
)

// jobState is what a managed Job is to the core.
type jobState int

const (
	jsPending    jobState = iota // suspended, holding nothing
	jsAdmitted                   // un-suspended by the controller
	jsEvicting                   // suspended by the controller, pods still going
	jsUnadmitted                 // running without admission: to be suspended
	jsDone                       // finished or cancelled
)

// classify says what a job is, from its spec, annotations and live pods.
func classify(j *batchv1.Job, livePods int) jobState {
	if finished(j) != "" {
		return jsDone
	}
	suspended := j.Spec.Suspend != nil && *j.Spec.Suspend
	_, admitted := j.Annotations[AnnAdmitted]
	switch {
	case !suspended && admitted:
		return jsAdmitted
	case !suspended:
		return jsUnadmitted
	case livePods > 0 && admitted:
		return jsEvicting
	case j.Annotations[AnnCancelled] != "":
		return jsDone
	}
	return jsPending
}

// finished is "succeeded" or "failed" once the Job controller says so.
func finished(j *batchv1.Job) string {
	for _, c := range j.Status.Conditions {
		if c.Status != corev1.ConditionTrue {
			continue
		}
		switch c.Type {
		case batchv1.JobComplete:
			return live.StateSucceeded
		case batchv1.JobFailed:
			return live.StateFailed
		}
	}
	return ""
}

// submitted is the job's place in its queue: the submitter's stamp, else
// its creation (whole seconds).
func submitted(j *batchv1.Job) time.Time {
	if t, err := time.Parse(time.RFC3339Nano, j.Annotations[AnnSubmitted]); err == nil {
		return t
	}
	return j.CreationTimestamp.Time
}

func annTime(j *batchv1.Job, key string) (time.Time, bool) {
	t, err := time.Parse(time.RFC3339Nano, j.Annotations[key])
	return t, err == nil
}

func runs(j *batchv1.Job) int {
	n, _ := strconv.Atoi(j.Annotations[AnnRuns])
	return n
}

func preemptions(j *batchv1.Job) int {
	n, _ := strconv.Atoi(j.Annotations[AnnPreemptions])
	return n
}

// ID names a job to allot's commands: namespace/name.
func ID(j *batchv1.Job) string { return j.Namespace + "/" + j.Name }

// View is a job as `allot jobs` shows it (spec/cli.md's fields and states).
// Its accelerators are those its pod template asks for, without the
// namespace's LimitRange defaults (which seldom name accelerators).
func View(j *batchv1.Job, team string, livePods int) live.View {
	v := live.View{ID: ID(j), Name: j.Name, Team: team, PriorityClass: j.Labels[LabelPriorityClass], Accelerators: JobRequest(j, nil).Accelerators,
		InstanceType: j.Annotations[AnnInstanceType], Submitted: submitted(j).UTC(), Preemptions: preemptions(j),
		Reason: j.Annotations[AnnReason], Devices: []string{}, Restarts: preemptions(j)}
	if t, ok := annTime(j, AnnStarted); ok {
		t = t.UTC()
		v.Started = &t
	}
	if f := j.Annotations[AnnFlavor]; f != "" {
		v.InstanceType = f
	}
	switch st := classify(j, livePods); {
	case st == jsDone && finished(j) != "":
		v.State = finished(j)
		for _, c := range j.Status.Conditions {
			if c.Type == batchv1.JobFailed && c.Status == corev1.ConditionTrue {
				v.Reason = c.Reason + ": " + c.Message
			}
		}
	case st == jsDone:
		v.State, v.Reason = live.StateCancelled, "cancelled by "+j.Annotations[AnnCancelled]
	case st == jsAdmitted, st == jsEvicting:
		v.State = live.StateRunning
	case st == jsPending && j.Annotations[AnnPreempted] != "":
		v.State = live.StatePreempted
	default:
		v.State = live.StatePending
	}
	return v
}

// podDone says whether a pod has ended.
func podDone(p *corev1.Pod) bool {
	return p.Status.Phase == corev1.PodSucceeded || p.Status.Phase == corev1.PodFailed
}

// LivePods counts each job's pods that are not done, by job UID.
func LivePods(pods []corev1.Pod) map[string]int {
	out := map[string]int{}
	for i := range pods {
		p := &pods[i]
		if podDone(p) {
			continue
		}
		if uid := p.Labels[batchv1.ControllerUidLabel]; uid != "" {
			out[uid]++
		}
	}
	return out
}

// runningPods counts each job's pods that run and are not being deleted.
func runningPods(pods []corev1.Pod) map[string]int {
	out := map[string]int{}
	for _, p := range pods {
		if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
			out[p.Labels[batchv1.ControllerUidLabel]]++
		}
	}
	return out
}

// sortJobs orders jobs by their place in the queue, then name.
func sortJobs(jobs []batchv1.Job) {
	slices.SortFunc(jobs, func(a, b batchv1.Job) int {
		if c := submitted(&a).Compare(submitted(&b)); c != 0 {
			return c
		}
		return strings.Compare(ID(&a), ID(&b))
	})
}

// SnapJob is a managed job not yet done as the core sees it: its team,
// class value, place in the queue, request and, when admitted, where and
// since when (Flavor "": waiting).
type SnapJob struct {
	ID        string
	Team      int
	Priority  int32
	Submitted time.Time
	Request
	InstanceType string // the one it may run on ("": any)
	Flavor       string
	Admitted     time.Time
	Evicting     bool
}

// Snapshot lists the managed jobs not yet done, in queue order, as a sync
// would give them to the core (their requests under ranges, the cluster's
// LimitRanges); jobs of an unknown priority class are left out, as the
// controller leaves them.
func Snapshot(cfg *Config, jobs []batchv1.Job, pods []corev1.Pod, ranges []corev1.LimitRange) []SnapJob {
	alive := LivePods(pods)
	byNS := rangesByNamespace(ranges)
	jobs = slices.Clone(jobs)
	sortJobs(jobs)
	var out []SnapJob
	for i := range jobs {
		j := &jobs[i]
		q := teamOf(cfg, j)
		prio, ok := cfg.Priorities[j.Labels[LabelPriorityClass]]
		st := classify(j, alive[string(j.UID)])
		if q < 0 || !ok || st == jsDone || st == jsUnadmitted {
			continue
		}
		s := SnapJob{ID: ID(j), Team: q, Priority: prio, Submitted: submitted(j), Request: JobRequest(j, byNS[j.Namespace]), InstanceType: j.Annotations[AnnInstanceType]}
		if st == jsAdmitted || st == jsEvicting {
			s.Flavor, s.Evicting = j.Annotations[AnnFlavor], st == jsEvicting
			s.Admitted, _ = annTime(j, AnnAdmitted)
		}
		out = append(out, s)
	}
	return out
}
