package live

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/allot-sim/allot/policies"
)

// ErrCannotRun, wrapped in a backend's Start error, says the run cannot be
// started on a retry either (the job's user has no account, say): the job
// fails. Any other start error holds the job back and tries again.
var ErrCannotRun = errors.New("cannot run")

// startRetry is the wait after the first failed start; it doubles up to
// startRetryMax.
const (
	startRetry    = 5 * time.Second
	startRetryMax = 5 * time.Minute
)

// settle marks a job done for good at controller time t (its history
// event then): state, reason and exit code. The core is told by release.
func (c *Controller) settle(j *Job, state, reason string, code *int, t float64) {
	j.State, j.Reason, j.ExitCode = state, reason, code
	end := c.wall(t)
	j.Ended = &end
	j.Devices, j.DeviceEnv, j.Nodes, j.Stopping, j.KillAt, j.RetryAt = nil, nil, nil, "", 0, 0
	c.eventAt(j, t, state, reason)
}

// release tells the core a settled job is gone.
func (c *Controller) release(r *rt, now float64) {
	if r.w != nil && !r.held {
		c.core.Finish(r.w, now)
	}
	delete(c.byW, r.w)
	r.w, r.held = nil, false
}

func (c *Controller) requeue(r *rt, state, reason string, now float64) {
	j := r.j
	c.core.Requeue(r.w, now)
	j.State, j.Reason, j.PendingSince = state, reason, now
	j.Devices, j.DeviceEnv, j.Nodes, j.Stopping, j.KillAt, j.Flavor = nil, nil, nil, "", 0, -1
	c.dirty[j] = true
}

// signal asks the backend to stop a run, recording a failure to.
func (c *Controller) signal(j *Job, kill bool) {
	if err := c.be.Signal(j, kill); err != nil {
		c.event(j, "signal-error", err.Error())
		c.log.Warn("signal failed", "job", j.ID, "kill", kill, "err", err)
	}
}

// schedule asks the core for a plan at the wall clock and carries it out:
// decisions are written first, then acted on.
func (c *Controller) schedule() {
	if c.broken != nil {
		return
	}
	now := c.now()
	plan := c.core.Schedule(now)
	c.coreWake = math.Inf(1)
	if plan.Wake { // a running job's protection from preemption ends then
		c.coreWake = plan.WakeAt
	}
	var starts, stops []*rt
	var waits []float64
	for _, a := range plan.Admitted {
		r := c.byW[a.W]
		j := r.j
		j.Flavor = a.W.Flavor()
		j.Nodes = append([]int32(nil), a.W.Nodes()...)
		j.Devices = c.devicesFor(j, a.W)
		j.DeviceEnv = c.cfg.Flavors[j.Flavor].DeviceEnv(j.Devices)
		j.AdmittedAt, j.RunStart = now, now
		a.W.RunStart = now
		j.Run++
		j.Attempt = max(j.Attempt, j.Run-1) + 1
		j.State, j.Reason, j.Stopping = StateRunning, "", ""
		t := c.wall(now)
		j.RunAdmitted = &t
		if j.Started == nil {
			j.Started = &t
		}
		how := fmt.Sprintf("run %d on %s devices [%s]", j.Run, c.cfg.Flavors[j.Flavor].Name, strings.Join(j.Devices, ","))
		if a.Borrowing {
			how += ", borrowing idle quota"
		}
		c.event(j, "admitted", how)
		starts = append(starts, r)
		waits = append(waits, now-j.PendingSince)
	}
	for _, p := range plan.Preempted {
		r := c.byW[p.W]
		j := r.j
		by := ""
		if br := c.byW[p.By]; br != nil {
			by = br.j.ID
		}
		j.Stopping, j.PreemptBy = stopPreempted, by
		j.KillAt = now + c.cfg.GracePeriod.Seconds()
		j.Reason = fmt.Sprintf("preempting (%s) for job %s", p.Reason, by)
		c.event(j, "preempted", fmt.Sprintf("%s: for job %s; SIGTERM, SIGKILL after %s", p.Reason, by, c.cfg.GracePeriod))
		stops = append(stops, r)
	}
	if len(starts) == 0 && len(stops) == 0 {
		return
	}
	if !c.commit() {
		return
	}
	failpoint("decided")
	if len(stops) > 0 {
		failpoint("stop-decided")
	}
	if c.obs != nil {
		for i, r := range starts {
			c.obs.Admitted(r.j.Team, waits[i])
		}
		for _, p := range plan.Preempted {
			c.obs.Preempted(c.byW[p.W].j.Team, p.Reason)
		}
	}
	freed := false
	for _, r := range starts {
		if err := c.be.Start(r.j); err != nil {
			freed = true
			c.startFailed(r, err, now)
		}
	}
	for _, r := range stops {
		c.signal(r.j, false)
	}
	if freed && c.commit() {
		c.schedule()
	}
}

// startFailed settles a run the backend could not start: the job fails
// when no retry can help, else waits and is admitted again later.
func (c *Controller) startFailed(r *rt, err error, now float64) {
	j := r.j
	c.log.Warn("start failed", "job", j.ID, "run", j.Run, "err", err)
	if errors.Is(err, ErrCannotRun) {
		c.settle(j, StateFailed, "could not start: "+err.Error(), nil, now)
		c.release(r, now)
		return
	}
	j.StartFailures++
	wait := min(startRetry<<min(j.StartFailures-1, 10), startRetryMax)
	c.core.Finish(r.w, now)
	j.Run--
	j.State, j.Stopping, j.Flavor = StatePending, "", -1
	j.Devices, j.DeviceEnv, j.Nodes = nil, nil, nil
	j.RetryAt, j.PendingSince = now+wait.Seconds(), now
	j.Reason = fmt.Sprintf("could not start (%d times): %v; trying again at %s", j.StartFailures, err, c.wall(j.RetryAt).Format(time.RFC3339))
	r.held = true
	c.event(j, "requeued", j.Reason)
}

// devicesFor picks a job's devices on the nodes the core gave it: all of a
// whole node's, else the lowest free ones of its node.
func (c *Controller) devicesFor(j *Job, w *policies.Workload) []string {
	fd := c.cfg.Flavors[j.Flavor]
	if j.Accelerators == 0 || fd.PerNode == 0 {
		return nil
	}
	var out []string
	if w.Held() >= policies.Qty(fd.PerNode)*policies.Milli && j.Accelerators >= fd.PerNode {
		for _, n := range j.Nodes {
			out = append(out, fd.Devices[int(n)*fd.PerNode:(int(n)+1)*fd.PerNode]...)
		}
		return out[:min(len(out), j.Accelerators)]
	}
	used := map[string]bool{}
	for _, o := range c.jobs {
		if o.j != j && o.j.State == StateRunning && o.j.Flavor == j.Flavor {
			for _, d := range o.j.Devices {
				used[d] = true
			}
		}
	}
	n := int(j.Nodes[0])
	for _, d := range fd.Devices[n*fd.PerNode : (n+1)*fd.PerNode] {
		if len(out) == j.Accelerators {
			break
		}
		if !used[d] {
			out = append(out, d)
		}
	}
	return out
}

// Tick learns which runs ended, kills runs past their grace period or
// time limit, queues jobs whose retry is due, and schedules again if
// anything changed. It returns when it next wants to be called at the
// latest, and an error only when the daemon must stop.
func (c *Controller) Tick() (time.Time, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return time.Time{}, c.broken
	}
	now := c.now()
	changed := false
	wake := math.Inf(1)
	var limited []*rt
	for _, r := range c.jobs {
		j := r.j
		if r.held {
			if j.RetryAt <= now {
				if err := c.unhold(r); err != nil {
					return time.Time{}, err
				}
				changed = true
			} else {
				wake = min(wake, j.RetryAt)
			}
			continue
		}
		if j.State != StateRunning {
			continue
		}
		ex, err := c.be.Exited(j)
		if err != nil {
			c.log.Error("cannot tell how a run is doing", "job", j.ID, "run", j.Run, "err", err)
			continue
		}
		if ex != nil {
			c.ended(r, ex, now)
			changed = true
			continue
		}
		if j.Stopping == "" && j.TimeLimit > 0 {
			if end := j.RunStart + j.TimeLimit; now >= end {
				j.Stopping = stopTimeLimit
				j.KillAt = now + c.cfg.GracePeriod.Seconds()
				c.event(j, "time-limit", fmt.Sprintf("ran past its time limit of %gs: SIGTERM", j.TimeLimit))
				limited = append(limited, r)
			} else {
				wake = min(wake, end)
			}
		}
		if j.Stopping != "" && !slices.Contains(limited, r) {
			if now >= j.KillAt {
				c.signal(j, true)
			} else {
				wake = min(wake, j.KillAt)
			}
		}
	}
	if len(limited) > 0 {
		if !c.commit() {
			return c.next(now, wake), c.broken
		}
		failpoint("stop-recorded")
		for _, r := range limited {
			c.signal(r.j, false)
			wake = min(wake, r.j.KillAt)
		}
	}
	if c.opts.Retention > 0 && now-c.pruned >= 60 {
		c.pruned = now
		c.prune(now)
	}
	if now >= c.coreWake || c.replan {
		changed = true // the core asked to be asked again now, or a plan was not written
	}
	c.replan = false
	if changed {
		c.schedule()
	}
	wake = min(wake, c.coreWake)
	c.commit()
	return c.next(now, wake), c.broken
}

// next is controller time wake on the wall clock (zero: no deadline).
func (c *Controller) next(now, wake float64) time.Time {
	if math.IsInf(wake, 1) {
		return time.Time{}
	}
	return c.epoch.Add(time.Duration(max(wake, now) * 1e9))
}

// unhold queues again a job held back after a failed start.
func (c *Controller) unhold(r *rt) error {
	w, err := c.workload(r.j)
	if err != nil {
		return fmt.Errorf("job %s: %w", r.j.ID, err)
	}
	delete(c.byW, r.w)
	r.w, r.held = w, false
	c.byW[w] = r
	r.j.RetryAt = 0
	c.dirty[r.j] = true
	return c.core.Submit(w)
}

// ended settles a run that exited, or whose supervisor was lost. A run
// that ended while the daemon was away ends, in its history, when its
// supervisor recorded it.
func (c *Controller) ended(r *rt, ex *Exit, now float64) {
	j := r.j
	t := now
	if !ex.Ended.IsZero() {
		t = max(j.RunStart, min(now, ex.Ended.Sub(c.epoch).Seconds()))
	}
	var code *int
	how := fmt.Sprintf("run %d exited with code %d", j.Run, ex.Code)
	switch {
	case ex.Lost && ex.NeverStarted:
		c.eventAt(j, t, "requeued", fmt.Sprintf("run %d was decided but its supervisor ended before starting it", j.Run))
		if j.Stopping == "" {
			j.Run-- // it never ran: the next start is the same run
			c.requeue(r, StatePending, "requeued: it had not started when its supervisor ended", now)
			return
		}
	case ex.Lost:
		c.eventAt(j, t, "lost", fmt.Sprintf("run %d ended with no record of how (its supervisor died); what was left of it was killed", j.Run))
		if j.Stopping == "" {
			c.requeue(r, StatePending, "requeued: its supervisor was lost", now)
			return
		}
	default:
		code = &ex.Code
		if ex.Signal != "" {
			how = fmt.Sprintf("run %d killed by %s", j.Run, ex.Signal)
		}
		if ex.Error != "" {
			how += ": " + ex.Error
		}
		c.eventAt(j, t, "exited", how)
	}
	switch j.Stopping {
	case stopPreempted:
		j.Preemptions++
		if mr := c.cfg.MaxRetries; mr >= 0 && j.Preemptions > mr {
			c.settle(j, StateFailed, fmt.Sprintf("preempted %d times (max_retries %d)", j.Preemptions, mr), code, t)
			c.release(r, now)
			return
		}
		c.requeue(r, StatePreempted, fmt.Sprintf("preempted for job %s; waits to be restarted from its checkpoint", j.PreemptBy), now)
		c.eventAt(j, t, "requeued", "back in its queue at its old place")
	case stopCancelled:
		c.settle(j, StateCancelled, "cancelled while running", code, t)
		c.release(r, now)
	case stopTimeLimit:
		c.settle(j, StateFailed, fmt.Sprintf("killed at its time limit (%gs)", j.TimeLimit), code, t)
		c.release(r, now)
	default:
		if code != nil && *code == 0 && ex.Signal == "" {
			c.settle(j, StateSucceeded, "", code, t)
		} else {
			c.settle(j, StateFailed, how, code, t)
		}
		c.release(r, now)
	}
}

// Loop calls Tick until stop is closed, every poll interval or sooner when
// a deadline falls due. It returns Tick's error: the store can no longer
// be read.
func (c *Controller) Loop(stop <-chan struct{}, poll time.Duration) error {
	for {
		next, err := c.Tick()
		if err != nil {
			return err
		}
		d := poll
		if !next.IsZero() {
			d = min(d, max(time.Until(next), time.Millisecond))
		}
		select {
		case <-stop:
			return nil
		case <-time.After(d):
		}
	}
}
