package policies

import "fmt"

// The shortcuts remember answers by the state they read. Every change to
// that state goes through one call, Core.changed: it moves the state
// version and hands the change to each memory's log, which keeps what its
// shortcut reads of it. A rule that changes usage, jobs, nodes or quotas
// without calling it leaves a memory stale; the allotcheck build catches
// that at the next answer (checkNoBypass).

// changeKind is what happened to the state the shortcuts read.
type changeKind uint8

const (
	// jobAdmitted: a job took quota (and nodes): its team's jobs, the
	// usage of its types, and its team grew by a job of its priority.
	jobAdmitted changeKind = iota
	// jobReleased: a job gave its quota back: its team and types changed,
	// and its cohort tree has capacity free.
	jobReleased
	// protectionEnded: a running job may be preempted from now on; to a
	// search that is the job admitted again, and capacity free besides.
	protectionEnded
	// evictionBegun: a job was told to stop; it still holds its quota.
	evictionBegun
	// nodesChanged: nodes of one type went down, came up or left the fleet.
	nodesChanged
	// capacityGrown: quotas changed or nodes came up: every memory is void.
	capacityGrown
)

// change is one state change: the job it is about, or the type.
type change struct {
	kind   changeKind
	w      *Workload
	flavor int
}

// subscriber is a shortcut memory's log, told of each change at version v
// and keeping what its shortcut reads of it.
type subscriber func(c *Core, ch change, v uint64)

// scheduleStart names the start of Schedule to checkNoBypass.
type scheduleStart struct{}

func (scheduleStart) String() string { return "the cycle's parked queues" }

// subscribers are every log a change must reach, with what it serves:
//   - logTeamsAndTypes (changeLog): kept-nomination, remembered-search,
//     own-limits, quick-none, fit-once's victims;
//   - logGrowth (growthLog): quick-none, which must look again at teams
//     that admitted since;
//   - logFreedCapacity (gen): parked sub-queues, woken when capacity frees
//     in their cohort tree.
//
// The settled cycle reads the version itself. A tree node's own version
// (flat-order's standings) moves with its usage inside the tree.
var subscribers = [...]subscriber{logTeamsAndTypes, logGrowth, logFreedCapacity}

// changed records a state change: the one place the versions move.
func (c *Core) changed(ch change) {
	c.stateVer++
	for _, s := range subscribers {
		s(c, ch, c.stateVer)
	}
	c.noteHooked()
}

func logTeamsAndTypes(c *Core, ch change, v uint64) {
	l := &c.changes
	switch ch.kind {
	case jobAdmitted, protectionEnded:
		w := ch.w
		c.usageMoved(w.Queue, w.usage, w.place.flavor, v)
		if !c.queues[w.Queue].noVictims { // read only by victim searches' memories
			l.noteAdmitted(w.Queue, w.Priority, flavorBits(w.usage, len(c.m.Resources), w.place.flavor), v)
		}
	case jobReleased:
		w := ch.w
		c.usageMoved(w.Queue, w.usage, w.place.flavor, v)
		l.released[w.Queue] = v
	case evictionBegun:
		l.note(ch.w.Queue, v)
	case nodesChanged:
		l.flavor[ch.flavor] = v
	case capacityGrown:
		l.void = v
	}
}

func logGrowth(c *Core, ch change, _ uint64) {
	switch ch.kind {
	case jobAdmitted, protectionEnded:
		c.grown.note(int32(ch.w.Queue))
	case capacityGrown:
		c.grown.note(-1) // every memory is void
	}
}

func logFreedCapacity(c *Core, ch change, _ uint64) {
	switch ch.kind {
	case jobReleased, protectionEnded:
		if c.tree != nil && len(c.tree.qNode) > 0 {
			c.gen[c.tree.rootOf[c.tree.qNode[ch.w.Queue]]]++
		}
	case capacityGrown:
		for i := range c.gen {
			c.gen[i]++
		}
	}
}

// bypassCheck is the allotcheck build's watch on the hook: a digest of
// the state the shortcuts read, taken at the first answer after each
// change. Any later answer that finds another digest saw the state move
// without Core.changed.
type bypassCheck struct {
	taken  bool // a digest was taken at version ver
	digest uint64
	ver    uint64
}

// noteHooked marks the digest out of date: the state has just changed
// through the hook.
func (c *Core) noteHooked() {
	if checking {
		c.bypass.taken = false
	}
}

// checkNoBypass panics if the state the shortcuts read changed since the
// last change that went through Core.changed. It runs as each Schedule
// starts (parked sub-queues answer there) and at each shortcut's answer;
// asker names which.
func (c *Core) checkNoBypass(asker fmt.Stringer) {
	b := &c.bypass
	d := c.stateDigest()
	if !b.taken {
		b.taken, b.digest, b.ver = true, d, c.stateVer
		return
	}
	if d != b.digest {
		panic(fmt.Sprintf("allotcheck: at t=%g, before %s answered, the state the shortcuts read changed after version %d without Core.changed (invalidate.go)",
			c.now, asker, c.stateVer))
	}
}

// stateDigest hashes what the shortcuts' logs describe: each team's
// running jobs and how many are being evicted, each type's nodes, and the
// quotas (by the tree's recomputes). The data structures keep the sums
// themselves, under checking only, so a change that skips the hook still
// moves them, and the check costs the teams and types, not the jobs.
// (Usage is left out: a cycle's reservations and a search's trials move
// it for a while, and it follows from the running jobs.)
func (c *Core) stateDigest() uint64 {
	h := uint64(14695981039346656037)
	mix := func(x uint64) {
		h ^= x
		h *= 1099511628211
	}
	for q := range c.queues {
		qs := &c.queues[q]
		mix(uint64(len(qs.admitted)))
		mix(qs.seqSum)
		mix(uint64(len(qs.victims.evicting)))
	}
	for f, p := range c.pools {
		mix(uint64(c.m.Flavors[f].Nodes))
		if p != nil {
			mix(uint64(p.healthy)<<32 | uint64(len(p.nodes)))
		}
	}
	if c.tree != nil {
		mix(c.tree.recomputed)
	}
	return h
}
