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
//     (classify, keep); it notes when it turned a candidate away;
//   - each admission files the instant its protection ends;
//   - at the start of each Schedule, protections that ended void every
//     remembered answer and unpark every head (capacityFreedAll), as a
//     change of quotas does, once any protection has turned a candidate
//     away (before that, no answer read one);
//   - Plan.WakeAt asks the shell to call Schedule again when the next
//     protection ends, once one has turned candidates away.
// A search's first tests and bounds count protected jobs as takeable:
// they only ever say "cannot", so counting more keeps them true.

// protected says whether w may not be preempted now, and remembers that
// the answer turned a candidate away.
func (c *Core) protected(w *Workload) bool {
	if c.m.MinRuntime <= 0 || w.state == stateEvicting || c.now >= w.startedAt+c.m.MinRuntime {
		return false
	}
	c.protection.turnedAway = true
	return true
}

// protections are the instants running jobs' protection ends, earliest
// first. An entry whose job has since stopped or restarted is stale and is
// dropped when reached.
type protections struct {
	h protHeap
	// turnedAway: a protection has turned a candidate away. It stays set:
	// a remembered answer can outlive the void of one expiry (a search
	// kept whole is not asked again) and still rest on another job's
	// protection, so every later expiry voids.
	turnedAway bool
}

type protEntry struct {
	until float64
	w     *Workload
	start float64 // the job's startedAt when filed: a restart makes it stale
}

type protHeap []protEntry

func (h protHeap) Len() int           { return len(h) }
func (h protHeap) Less(i, j int) bool { return h[i].until < h[j].until }
func (h protHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *protHeap) Push(x any)        { *h = append(*h, x.(protEntry)) }
func (h *protHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	old[len(old)-1] = protEntry{}
	*h = old[:len(old)-1]
	return x
}

// protect files w's protection from its start.
func (c *Core) protect(w *Workload, started float64) {
	w.startedAt = started
	if c.m.MinRuntime > 0 {
		heap.Push(&c.protection.h, protEntry{until: started + c.m.MinRuntime, w: w, start: started})
	}
}

func (p *protEntry) live() bool {
	return p.w.state == stateAdmitted && p.w.startedAt == p.start
}

// expireProtections drops the protections ended by now; if one of them may
// have turned a candidate away, every remembered answer is void.
func (c *Core) expireProtections(now float64) {
	h := &c.protection.h
	ended := false
	for h.Len() > 0 && (*h)[0].until <= now {
		if (*h)[0].live() {
			ended = true
		}
		heap.Pop(h)
	}
	if ended && c.protection.turnedAway {
		c.capacityFreedAll()
	}
}

// nextExpiry is when the next live protection ends, if one is turning
// candidates away.
func (c *Core) nextExpiry() (float64, bool) {
	h := &c.protection.h
	if !c.protection.turnedAway {
		return 0, false
	}
	for h.Len() > 0 && !(*h)[0].live() {
		heap.Pop(h)
	}
	if h.Len() == 0 {
		return 0, false
	}
	return (*h)[0].until, true
}

// SetStarted tells the core when a running job last (re)started, where the
// shell knows better than the admission time (a Kubernetes job's pods
// start after it is admitted; a snapshot's running[].started).
func (c *Core) SetStarted(w *Workload, started float64) {
	if w.state != stateAdmitted || w.startedAt == started {
		return
	}
	c.protect(w, started)
}
