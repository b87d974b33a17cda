package kube

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/policies"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// syncPass is one Sync: the cluster as listed, the core rebuilt from it,
// and what the pass learns on the way.
type syncPass struct {
	jobs    []batchv1.Job
	byNS    map[string][]corev1.LimitRange
	alive   map[string]int    // live pods by job UID
	running map[string]int    // running pods by job UID
	lost    map[string]string // by job UID: a node outside the fleet one of its pods is on

	core *policies.Core
	now  time.Time
	at   func(time.Time) float64 // seconds since the core's epoch
	us   *users                  // numbers the users under admission fair sharing (nil: off)
	// admitted is, for the usage, which jobs hold quota.
	admitted []string
	byW      map[*policies.Workload]*batchv1.Job
	// wake is when the next sync is due at the latest (+Inf: only when
	// something changes).
	wake    float64
	waiting []*policies.Workload
	// warned is the running jobs with a bad checkpoint interval, and its
	// value.
	warned map[types.UID]string
}

// Sync lists the cluster, rebuilds the core from it, schedules once and
// carries out the plan. It returns when it next wants to run at the
// latest (zero: only when something changes).
func (c *Controller) Sync(ctx context.Context) (time.Time, error) {
	p, err := c.observe(ctx)
	if err != nil || p == nil {
		return time.Time{}, err // nil pass: no usable policy yet, nothing is admitted
	}
	if err := c.rebuild(ctx, p); err != nil {
		return time.Time{}, err
	}
	plan := p.core.Schedule(p.at(p.now))
	if plan.Wake { // a running job's protection from preemption ends then
		p.wake = min(p.wake, plan.WakeAt)
	}
	c.carryOut(ctx, p, plan)
	if math.IsInf(p.wake, 1) {
		return time.Time{}, nil
	}
	return c.epoch().Add(time.Duration(p.wake * float64(time.Second))), nil
}

// observe lists the cluster and brings the policy up to date with its
// fleet. It returns no pass while there is no usable policy.
func (c *Controller) observe(ctx context.Context) (*syncPass, error) {
	nodes, jobs, pods, err := c.cluster(ctx)
	if err != nil {
		return nil, err
	}
	ranges, err := c.limitRanges(ctx)
	if err != nil {
		return nil, err
	}
	byNS := rangesByNamespace(ranges)
	fleet, _ := FleetOf(nodes)
	inFleet := map[string]bool{}
	for _, t := range fleet {
		for _, n := range t.Nodes {
			inFleet[n] = true
		}
	}
	if err := c.reconfigure(ctx, fleet); err != nil {
		return nil, err
	}
	if c.cfg == nil {
		return nil, nil
	}
	p := &syncPass{jobs: jobs, byNS: byNS, alive: LivePods(pods), running: runningPods(pods), lost: lostNodes(pods, inFleet)}
	sortJobs(p.jobs)
	return p, nil
}

// rebuild makes a core of the policy and puts every managed job into it,
// in queue order, with the users' decayed usage under admission fair
// sharing.
func (c *Controller) rebuild(ctx context.Context, p *syncPass) error {
	core, err := policies.NewCore(c.cfg.Model)
	if err != nil {
		return err
	}
	p.core, p.now = core, c.Clock.Now()
	p.at = func(t time.Time) float64 { return t.Sub(c.epoch()).Seconds() }
	if c.cfg.Model.AdmissionFairSharingHalfLife > 0 {
		p.us = newUsers(len(c.cfg.Teams))
		c.loadUsage(ctx)
	}
	p.byW, p.wake = map[*policies.Workload]*batchv1.Job{}, math.Inf(1)
	p.warned = map[types.UID]string{}
	defer func() { c.warned = p.warned }()
	for i := range p.jobs {
		if err := c.addJob(ctx, p, i); err != nil {
			return err
		}
	}
	if p.us != nil {
		return c.restoreUsage(core, p.us, p.at)
	}
	return nil
}

// addJob puts the i-th job into the core: waiting, or holding quota on
// its flavor. A job not managed, finished, unreadable or backing off is
// left out, with a word on it where it needs one; one running without
// admission is suspended.
func (c *Controller) addJob(ctx context.Context, p *syncPass, i int) error {
	j := &p.jobs[i]
	q := c.team(j)
	if q < 0 {
		if why := mislabelled(c.cfg, j); why != "" && finished(j) == "" {
			c.note(ctx, j, corev1.EventTypeWarning, "WrongTeam", why)
		}
		return nil
	}
	st := classify(j, p.alive[string(j.UID)])
	if st == jsDone {
		return nil
	}
	if st == jsUnadmitted {
		c.suspend(ctx, j, nil, "suspended: it was running without admission", "Unadmitted")
		return nil
	}
	w, ok, err := c.workloadOf(ctx, p, j, q, i, st)
	if err != nil || !ok {
		return err
	}
	p.byW[w] = j
	if retry, ok := annTime(j, AnnRetryAfter); st == jsPending && ok && p.now.Before(retry) {
		// Backing off after a placement timeout: out of the queue till then.
		p.wake = min(p.wake, p.at(retry))
		return nil
	}
	if st == jsPending {
		if err := p.core.Submit(w); err != nil {
			return fmt.Errorf("job %s: %w", ID(j), err)
		}
		p.waiting = append(p.waiting, w)
		return nil
	}
	return c.addHolding(ctx, p, j, w, st)
}

// workloadOf is a managed job as the core's workload; ok is false when
// it is left out. A pending job whose checkpoint interval does not parse,
// or any job of a priority class or instance type the policy lacks, is
// noted on the job and left out.
func (c *Controller) workloadOf(ctx context.Context, p *syncPass, j *batchv1.Job, q, i int, st jobState) (w *policies.Workload, ok bool, err error) {
	spec, err := specOf(c.cfg, j, p.byNS[j.Namespace], q, int64(i), p.at, p.us)
	if err != nil {
		msg := fmt.Sprintf("job %s: %v", ID(j), err)
		if st == jsPending {
			c.note(ctx, j, corev1.EventTypeWarning, "BadCheckpointInterval", "not admitted: "+msg)
			return nil, false, nil
		}
		// It holds quota: it stays in the core, as a job that does not
		// say how often it checkpoints.
		if p.warned[j.UID] = j.Annotations[AnnCheckpointInterval]; c.warned[j.UID] != p.warned[j.UID] {
			c.Events.Event(j, corev1.EventTypeWarning, "BadCheckpointInterval", msg+"; taken as not given")
		}
	}
	w, err = c.cfg.Workload(spec)
	var unknown *live.UnknownError
	switch {
	case errors.As(err, &unknown) && unknown.What == live.UnknownPriorityClass:
		c.note(ctx, j, corev1.EventTypeWarning, "UnknownPriorityClass", fmt.Sprintf("priority class %q is not in the policy", unknown.Name))
		return nil, false, nil
	case errors.As(err, &unknown) && unknown.What == live.UnknownInstanceType:
		c.note(ctx, j, corev1.EventTypeWarning, "UnknownInstanceType", fmt.Sprintf("instance type %q is not in the fleet", unknown.Name))
		return nil, false, nil
	case err != nil:
		return nil, false, fmt.Errorf("job %s: %w", ID(j), err)
	}
	return w, true, nil
}

// addHolding puts an admitted or evicting job on its flavor, where it
// holds quota. One whose instance type or node left the fleet is
// requeued, as a node failure in the simulator; one whose pods are not
// all running by the placement timeout too.
func (c *Controller) addHolding(ctx context.Context, p *syncPass, j *batchv1.Job, w *policies.Workload, st jobState) error {
	f := c.cfg.Model.FlavorIndex(j.Annotations[AnnFlavor])
	adm, _ := annTime(j, AnnAdmitted)
	if f < 0 { // its instance type left the fleet: as a node failure
		if st == jsAdmitted {
			c.suspend(ctx, j, nil, fmt.Sprintf("requeued: instance type %q left the fleet", j.Annotations[AnnFlavor]), "NodeLost")
		}
		return nil
	}
	evicting := st == jsEvicting
	if lost := p.lost[string(j.UID)]; st == jsAdmitted && lost != "" {
		// As a node failure in the simulator: requeued, its pods
		// holding their quota until they are gone.
		c.suspend(ctx, j, nil, fmt.Sprintf("requeued: node %s left the fleet (cordoned or not Ready)", lost), "NodeLost")
		st, evicting = jsEvicting, true
	}
	if st == jsAdmitted && p.running[string(j.UID)] < podCount(j) && c.placementTimedOut(ctx, p, j, adm) {
		evicting = true
	}
	if err := p.core.AddPlaced(w, f, nil, p.at(adm), evicting); err != nil {
		return fmt.Errorf("job %s: %w", ID(j), err)
	}
	if p.us != nil {
		p.admitted = append(p.admitted, ID(j))
	}
	return nil
}

// placementTimedOut requeues an admitted job whose pods are not all
// running placement_timeout after its admission, and says so; until then
// it has the sync wake at the deadline. Its pods hold their quota until
// they are gone; it is not admitted again for a while, longer each time
// (Kueue's requeuing backoff), so it does not hold quota it cannot use.
func (c *Controller) placementTimedOut(ctx context.Context, p *syncPass, j *batchv1.Job, adm time.Time) bool {
	due := adm.Add(c.cfg.PlacementTimeout)
	if p.now.Before(due) {
		p.wake = min(p.wake, p.at(due))
		return false
	}
	n, _ := strconv.Atoi(j.Annotations[AnnTimeouts])
	back := min(c.cfg.PlacementTimeout<<min(n, 10), time.Hour)
	c.suspendWith(ctx, j, nil, map[string]any{AnnTimeouts: strconv.Itoa(n + 1), AnnRetryAfter: p.now.Add(back).UTC().Format(time.RFC3339Nano)},
		fmt.Sprintf("requeued: not all pods running %s after admission (placement_timeout); not admitted again for %s", c.cfg.PlacementTimeout, back), "PlacementTimeout")
	return true
}

// carryOut makes the plan's writes, admissions then preemptions, and
// then keeps what the pass saw: the gauges, the usage, and why each job
// still waits.
func (c *Controller) carryOut(ctx context.Context, p *syncPass, plan *policies.Plan) {
	obs := c.observer()
	admittedOK := c.admitAll(ctx, p, plan, obs)
	c.preemptAll(ctx, p, plan, obs)
	c.tally(p.jobs, p.alive)
	if p.us != nil {
		for i, a := range plan.Admitted {
			if admittedOK[i] {
				p.admitted = append(p.admitted, ID(p.byW[a.W]))
			}
		}
		c.keepUsage(ctx, p.core, p.us, p.now, p.at(p.now), p.admitted)
	}
	c.updateReasons(ctx, p, plan)
}

// admitAll admits the plan's jobs and says which admissions were made.
// Each job's writes are its own: a plan's are made side by side, as one
// API round trip after another would cap admissions at a few dozen a
// second.
func (c *Controller) admitAll(ctx context.Context, p *syncPass, plan *policies.Plan, obs live.Observer) []bool {
	admittedOK := parallel(len(plan.Admitted), func(i int) bool {
		a := plan.Admitted[i]
		return c.admit(ctx, p.byW[a.W], c.cfg.Model.Flavors[a.W.Flavor()].Name, a.Borrowing, p.now)
	})
	for i, a := range plan.Admitted {
		if admittedOK[i] && obs != nil {
			obs.Admitted(c.cfg.Teams[a.W.Queue], p.now.Sub(waitingSince(p.byW[a.W])).Seconds())
		}
	}
	return admittedOK
}

// preemptAll suspends the plan's victims, side by side, each naming the
// job it made room for.
func (c *Controller) preemptAll(ctx context.Context, p *syncPass, plan *policies.Plan, obs live.Observer) {
	ok := parallel(len(plan.Preempted), func(i int) bool {
		pr := plan.Preempted[i]
		v := p.byW[pr.W]
		return c.suspend(ctx, v, p.byW[pr.By], fmt.Sprintf("preempted (%s) for %s (run %d)", pr.Reason, ID(p.byW[pr.By]), runs(v)), pr.Reason)
	})
	for i, pr := range plan.Preempted {
		if ok[i] && obs != nil {
			obs.Preempted(c.cfg.Teams[pr.W.Queue], pr.Reason)
		}
	}
}

// updateReasons records, on each job still waiting, why it waits, where
// that changed.
func (c *Controller) updateReasons(ctx context.Context, p *syncPass, plan *policies.Plan) {
	var stale []*batchv1.Job // waiting jobs whose reason changed
	var reasons []string
	for _, w := range p.waiting {
		if slices.ContainsFunc(plan.Admitted, func(a policies.Admission) bool { return a.W == w }) {
			continue
		}
		if _, why := p.core.Why(w); why != "" && p.byW[w].Annotations[AnnReason] != why {
			stale, reasons = append(stale, p.byW[w]), append(reasons, why)
		}
	}
	parallel(len(stale), func(i int) bool { c.setReason(ctx, stale[i], reasons[i]); return true })
}
