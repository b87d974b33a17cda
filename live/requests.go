package live

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// RequestChecker is a backend that checks what it alone can tell of a
// request: that the job's user can run it, its working directory, say.
type RequestChecker interface {
	CheckJob(req *Request, uid int) error
}

// Validate checks a request against the configuration.
func (c *Controller) Validate(req *Request) error {
	if !slices.Contains(c.cfg.Teams, req.Team) {
		return &RequestError{fmt.Sprintf("unknown team %q (teams: %s)", req.Team, strings.Join(c.cfg.Teams, ", "))}
	}
	if _, ok := c.cfg.Priorities[req.PriorityClass]; !ok || req.PriorityClass == "" && len(c.cfg.Priorities) > 1 {
		var names []string
		for n := range c.cfg.Priorities {
			if n != "" {
				names = append(names, n)
			}
		}
		slices.Sort(names)
		if req.PriorityClass == "" {
			return &RequestError{fmt.Sprintf("no priority class given (classes: %s)", strings.Join(names, ", "))}
		}
		return &RequestError{fmt.Sprintf("unknown priority class %q (classes: %s)", req.PriorityClass, strings.Join(names, ", "))}
	}
	if len(req.Command) == 0 {
		return &RequestError{"no command to run (give it after --)"}
	}
	if err := CheckRequest(req); err != nil {
		return err
	}
	if req.Accelerators < 0 {
		return &RequestError{fmt.Sprintf("accelerators %d: must be 0 or more", req.Accelerators)}
	}
	if req.TimeLimit < 0 || req.CheckpointInterval < 0 {
		return &RequestError{"time limit and checkpoint interval must be positive"}
	}
	flavors := make([]int, 0, len(c.cfg.Flavors))
	if req.InstanceType != "" {
		f := c.cfg.Model.FlavorIndex(req.InstanceType)
		if f < 0 {
			var names []string
			for _, fd := range c.cfg.Flavors {
				names = append(names, fd.Name)
			}
			return &RequestError{fmt.Sprintf("unknown instance type %q (this machine has: %s)", req.InstanceType, strings.Join(names, ", "))}
		}
		flavors = append(flavors, f)
	} else {
		for f := range c.cfg.Flavors {
			flavors = append(flavors, f)
		}
	}
	return c.checkFits(req.Accelerators, flavors)
}

// checkFits refuses a job no instance type can hold, or one that would
// only fit by taking whole nodes it did not ask for: the core gives a job
// larger than a node whole nodes, and charges it for all their devices.
func (c *Controller) checkFits(acc int, flavors []int) error {
	most, exact := 0, false
	var sizes []string
	for _, f := range flavors {
		fd := c.cfg.Flavors[f]
		most = max(most, c.maxAcc[f])
		if acc <= c.maxAcc[f] && (acc <= fd.PerNode || fd.PerNode > 0 && acc%fd.PerNode == 0) {
			exact = true
		}
		if fd.PerNode > 0 {
			sizes = append(sizes, fmt.Sprintf("%s: up to %d, or a multiple of %d up to %d", fd.Name, fd.PerNode, fd.PerNode, c.maxAcc[f]))
		}
	}
	switch {
	case acc > most:
		return &RequestError{fmt.Sprintf("%d accelerators requested, but this machine has %d", acc, most)}
	case !exact:
		return &RequestError{fmt.Sprintf("%d accelerators span nodes and would take whole nodes (%s): ask for a size that fills them",
			acc, strings.Join(sizes, "; "))}
	}
	return nil
}

func requestKey(uid int, id string) string { return strconv.Itoa(uid) + "/" + id }

// Submit validates and queues a job; uid is the submitter's. The job is
// written before anything else happens: an error means there is no job.
// A request id seen before from the same user returns that job again.
func (c *Controller) Submit(req *Request, uid int) (*Job, error) {
	if err := c.Validate(req); err != nil {
		return nil, err
	}
	if rc, ok := c.be.(RequestChecker); ok {
		if err := rc.CheckJob(req, uid); err != nil {
			return nil, &RequestError{err.Error()}
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return nil, c.broken
	}
	if req.RequestID != "" {
		if r := c.byReq[requestKey(uid, req.RequestID)]; r != nil {
			cp := *r.j
			return &cp, nil
		}
	}
	now := c.now()
	seq := c.nextSeq
	j := &Job{ID: strconv.FormatInt(seq, 10), Seq: seq, Name: req.Name, Team: req.Team, PriorityClass: req.PriorityClass,
		Accelerators: req.Accelerators, InstanceType: req.InstanceType, Command: req.Command, Dir: req.Dir, Env: req.Env,
		RequestID: req.RequestID, UID: uid, TimeLimit: req.TimeLimit, CheckpointInterval: req.CheckpointInterval,
		State: StatePending, PendingSince: now, Submitted: c.clock.Now().UTC(), Order: now, Flavor: -1}
	if j.Name == "" {
		j.Name = "job-" + j.ID
	}
	w, err := c.workload(j)
	if err != nil {
		return nil, &RequestError{err.Error()}
	}
	// The command line is not in the history: others may read it.
	c.event(j, "submitted", fmt.Sprintf("team %s, class %q, %d accelerators, by uid %d", j.Team, j.PriorityClass, j.Accelerators, uid))
	if err := c.flush(); err != nil {
		return nil, err
	}
	c.nextSeq++
	r := &rt{j: j, w: w}
	c.jobs = append(c.jobs, r)
	c.byID[j.ID] = r
	c.byW[w] = r
	if j.RequestID != "" {
		c.byReq[requestKey(uid, j.RequestID)] = r
	}
	if err := c.core.Submit(w); err != nil {
		return nil, err
	}
	c.schedule() // the job is in: what follows is the controller's own
	cp := *j
	return &cp, nil
}

// Cancel ends a job: a queued one at once, a running one through its
// grace period. It is written before it is carried out; an error means
// nothing changed.
func (c *Controller) Cancel(id string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.broken != nil {
		return c.broken
	}
	r, ok := c.byID[id]
	if !ok {
		return &NotFoundError{id}
	}
	j := r.j
	was := *j
	switch {
	case j.Final():
		return &RequestError{fmt.Sprintf("job %s already %s", id, j.State)}
	case j.State == StateRunning:
		if j.Stopping == stopCancelled {
			return nil
		}
		j.Stopping = stopCancelled
		j.KillAt = c.now() + c.cfg.GracePeriod.Seconds()
		c.event(j, "cancel", "stopping: SIGTERM, then SIGKILL after the grace period")
		if err := c.flush(); err != nil {
			*j = was
			return err
		}
		failpoint("stop-recorded")
		c.signal(j, false)
		return nil
	default:
		c.settle(j, StateCancelled, "cancelled while "+j.State, nil, c.now())
		if err := c.flush(); err != nil {
			*j = was
			return err
		}
		c.release(r, c.now())
		c.schedule()
		return nil
	}
}
