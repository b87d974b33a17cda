package policies

import "container/heap"

// The minimum runtime rule (policy.preemption.min_runtime; Slurm's
// PreemptExemptTime, which Kueue lacks): a running job cannot be preempted
// until it has run Model.MinRuntime since its last start. A job being
// evicted is already leaving and is not protected.
//
// Protection is the one input of a search that moves with the time alone,
// so the rule is kept in this file with what it needs of the rest:
//   - protected is the rule itself, asked by every candidate filter
//     (classify, keep) after the preemption policy;
//   - each start files the instant its protection ends;
//   - at the start of each Schedule, every protection that ended on a
//     job still running is recorded as the shortcuts record an admission
//     of that job, and unparks the heads of its cohort tree that wait for
//     victims (protectionEnded). Every one, not only those that turned a
//     search away: which searches read a job depends on the shortcuts,
//     and unparking changes decisions, so it must not;
//   - Plan.WakeAt asks the shell to call Schedule again when the next
//     protection ends, while jobs wait.
// A search's first tests and bounds count protected jobs as takeable:
// they only ever say "cannot", so counting more keeps them true.

// protected says whether w may not be preempted now.
func (c *Core) protected(w *Workload) bool {
	return c.m.MinRuntime > 0 && w.state != stateEvicting && c.now < w.startedAt+c.m.MinRuntime
}

// protections are the instants running jobs' protection ends, earliest
// first. An entry whose job has since stopped or restarted is stale and is
// dropped when reached.
type protections []protEntry

type protEntry struct {
	until float64
	w     *Workload
	start float64 // the job's startedAt when filed: a restart makes it stale
}

func (h protections) Len() int           { return len(h) }
func (h protections) Less(i, j int) bool { return h[i].until < h[j].until }
func (h protections) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *protections) Push(x any)        { *h = append(*h, x.(protEntry)) }
func (h *protections) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = protEntry{}
	*h = old[:len(old)-1]
	return x
}

// protect files w's protection from started (a new run, or a start the
// shell knows better).
func (c *Core) protect(w *Workload, started float64) {
	w.startedAt = started
	if c.m.MinRuntime > 0 {
		heap.Push(&c.protection, protEntry{until: started + c.m.MinRuntime, w: w, start: started})
	}
}

func (p *protEntry) live() bool {
	return p.w.state == stateAdmitted && p.w.startedAt == p.start
}

// expireProtections drops the protections ended by now; each that still
// held a running job is recorded as a change of its team.
func (c *Core) expireProtections(now float64) {
	h := &c.protection
	for h.Len() > 0 && (*h)[0].until <= now {
		if p := (*h)[0]; p.live() {
			c.protectionEnded(p.w)
		}
		heap.Pop(h)
	}
}

// walkStart is where a walk over a level begins: its newest job, or, when
// the level's jobs lose their protection in the order they are filed, the
// newest whose protection has ended, past the protected ones the
// candidate filters would turn away one by one.
func (c *Core) walkStart(l *admLevel) *Workload {
	if c.m.MinRuntime > 0 && c.protOrdered {
		return l.unprot
	}
	return l.tail
}

// protectionEnded records that w may be preempted from now on. To what a
// search reads, that is w admitted again: its team and type changed, its
// team grew by a job of its priority (owngrowth.go), and the heads of its
// cohort tree waiting for victims are looked at again.
func (c *Core) protectionEnded(w *Workload) {
	if w.inLevel {
		l := c.queues[w.Queue].victims.level(int(w.vflavor), w.Priority)
		if l.unprot == nil || admissionCmp(w, l.unprot) < 0 {
			l.unprot = w
		}
	}
	c.changed(change{kind: protectionEnded, w: w})
}

// nextExpiry is when the next protection of a running job ends.
func (c *Core) nextExpiry() (float64, bool) {
	h := &c.protection
	for h.Len() > 0 && !(*h)[0].live() {
		heap.Pop(h)
	}
	if h.Len() == 0 {
		return 0, false
	}
	return (*h)[0].until, true
}

// protectedOn counts the running jobs on flavor f still protected now, and
// how long the first protection to end has left: what a pending job's
// reason says when no job may be preempted for it.
func (c *Core) protectedOn(f int) (n int, left float64) {
	if c.m.MinRuntime <= 0 || f < 0 {
		return 0, 0
	}
	for _, p := range c.protection {
		if p.live() && p.until > c.now && p.w.Flavor() == f {
			if n == 0 || p.until-c.now < left {
				left = p.until - c.now
			}
			n++
		}
	}
	return n, left
}

// SetStarted tells the core when a running job last (re)started, where the
// shell knows better than the admission time (a snapshot's
// running[].started).
func (c *Core) SetStarted(w *Workload, started float64) {
	if w.state != stateAdmitted || w.startedAt == started {
		return
	}
	c.protOrdered = false // a level's jobs may now lose protection out of order
	c.protect(w, started)
}
