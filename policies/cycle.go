package policies

import (
	mbits "math/bits"
	"slices"
)

// One scheduling cycle of the quota policy (Kueue's scheduler loop): every
// team offers its head; each head gets a flavor assignment against the same
// state; the heads are ordered (by borrowing level, priority and age, or by
// a fair-sharing tournament); then each is admitted, preempts, or is set
// aside, seeing the admissions made before it in the cycle. Schedule repeats
// cycles at one instant until one changes nothing.

func (c *Core) parked(q int, s *subQueue) bool { return s.parkedAt(c.rootGen(q)) }

// rootGen is the capacity generation of queue q's tree root.
func (c *Core) rootGen(q int) int64 { return c.gen[c.tree.rootOf[c.tree.qNode[q]]] }

// parkedAt says whether s was parked at generation gen (and so still is).
func (s *subQueue) parkedAt(gen int64) bool { return s.parked >= 0 && s.parked == gen }

func (c *Core) park(w *Workload) {
	if s := w.sub; s != nil {
		s.parked = c.rootGen(w.Queue)
	}
}

// queueBefore orders two heads of sub-queues of one team.
func (c *Core) queueBefore(q int, a, b *Workload) bool {
	if c.afs != nil && a.User != b.User {
		sa, sb := c.afs.score(q, a.User, c.now), c.afs.score(q, b.User, c.now)
		if sa != sb {
			return sa < sb
		}
	}
	return waitsBefore(a, b, c.m.Queues[q].FirstCome)
}

func (c *Core) head(q int) *Workload {
	qs := &c.queues[q]
	if qs.sticky != nil && qs.sticky.state == statePending && qs.sticky.waiting {
		return qs.sticky
	}
	strict := c.m.Queues[q].Strategy == StrictFIFO
	gen := c.rootGen(q) // read once for every sub-queue
	var best *Workload
	for _, s := range qs.filled { // in any order: Seq is unique, so queueBefore orders every pair
		if !strict && s.parkedAt(gen) {
			continue
		}
		if top := s.h[0]; best == nil || c.queueBefore(q, top, best) {
			best = top
		}
	}
	return best
}

func (c *Core) quotaCycle(now float64) bool {
	entries := c.entryBuf[:0]
	defer func() { c.entryBuf = entries[:0] }()
	heads := c.headBuf[:0]
	for wi, bits := range c.withPending {
		for ; bits != 0; bits &= bits - 1 {
			q := wi<<6 | mbits.TrailingZeros64(bits)
			if h := c.head(q); h != nil {
				heads = append(heads, h)
			}
		}
	}
	c.headBuf = heads
	if len(heads) == 0 {
		return false
	}
	c.cycles++
	c.addedThisCycle = false
	reuse := !c.orderMovesWithTime() // a kept nomination rests on the candidate order
	if reuse && c.repeatsSettled(heads) {
		return false
	}
	// A head's entry is its kept nomination when it was looked at in the
	// same state (the same answer); else a fresh one, nominated, which
	// then becomes the kept one. Processing only reads entries.
	for _, w := range heads {
		kept := w.kept()
		if reuse && kept != nil && (w.memo.nomVer == c.stateVer || c.on(KeptNomination) && c.tally(KeptNomination, c.stillHolds(w))) {
			if checking {
				c.checkNomination(w)
			}
			w.memo.nomVer = c.stateVer // as good as made now
			entries = append(entries, kept)
			continue
		}
		// Kept out by its own team's limits: the same outcome, not the
		// same nomination, so it keeps the version it was made at.
		if reuse && kept != nil && kept.ownLimited && c.ownLimitsHold(w) {
			if checking {
				c.checkOwnLimits(w)
			}
			entries = append(entries, kept)
			continue
		}
		e := c.spareEntry()
		*e = entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue]}
		c.nominate(e)
		c.counts.Work.Nominations++
		e.ownLimited = c.ownLimitedNomination(e)
		entries = append(entries, e)
		if reuse {
			m := c.memoOf(w)
			if m.nom != nil {
				c.spareEntries = append(c.spareEntries, m.nom)
			}
			m.nom, m.nomVer = e, c.stateVer
		}
	}
	if !reuse { // entries kept by nobody go back after the cycle
		defer func() {
			c.spareEntries = append(c.spareEntries, entries...)
		}()
	}
	progress := false
	if c.m.FairSharing.Enabled {
		progress = c.processFair(entries, now)
	} else {
		order := append(c.orderBuf[:0], entries...)
		slices.SortStableFunc(order, func(a, b *entry) int {
			if c.classicalBefore(a, b) {
				return -1
			}
			if c.classicalBefore(b, a) {
				return 1
			}
			return 0
		})
		for _, e := range order {
			if c.process(e, now) {
				progress = true
			}
		}
		c.orderBuf = order
	}
	for _, r := range c.reserved {
		c.tree.removeAll(r.node, r.usage)
	}
	c.reserved = c.reserved[:0]
	c.claimed = c.claimed[:0]
	c.settle(heads, progress)
	return progress
}

// A cycle that changed nothing is remembered by the state it saw and its
// heads. Another cycle with the same state and heads would keep every
// nomination and process them in the same order to the same outcomes, so
// it is known to change nothing without being run: an arrival behind a
// queue's head, for one, leaves both alone.
type settledCycle struct {
	valid bool
	ver   uint64
	heads []*Workload
}

func (c *Core) settle(heads []*Workload, progress bool) {
	s := &c.settled
	s.valid = !progress
	if progress {
		return
	}
	s.ver = c.stateVer
	s.heads = append(s.heads[:0], heads...)
}

func (c *Core) repeatsSettled(heads []*Workload) bool {
	s := &c.settled
	if !c.on(SettledCycle) {
		return false
	}
	return c.tally(SettledCycle, s.valid && s.ver == c.stateVer && slices.Equal(s.heads, heads))
}

// spareEntry returns an entry no one keeps, to be overwritten.
func (c *Core) spareEntry() *entry {
	if n := len(c.spareEntries); n > 0 {
		e := c.spareEntries[n-1]
		c.spareEntries = c.spareEntries[:n-1]
		return e
	}
	return new(entry)
}

func (c *Core) classicalBefore(a, b *entry) bool {
	if a.borrowing != b.borrowing {
		return a.borrowing < b.borrowing
	}
	return waitsBefore(a.w, b.w, c.m.IdleFirstCome)
}

// process carries out one nominated head; it reports whether anything changed.
func (c *Core) process(e *entry, now float64) bool {
	w := e.w
	strict := c.m.Queues[e.q].Strategy == StrictFIFO
	setAside := func(reason string) bool {
		w.lastReason = reason
		if w.aside == nil {
			w.aside = &setAside{}
		}
		// Only the reasons in use: the rest of the array is never read,
		// and a parked head is set aside again after every release.
		a := w.aside
		a.n, a.mode = e.nWhy, e.mode
		copy(a.whys[:e.nWhy], e.whys[:e.nWhy])
		w.waiting = false
		if c.queues[e.q].sticky == w {
			c.queues[e.q].sticky = nil
		}
		if strict {
			return false
		}
		c.park(w)
		return true
	}
	switch e.mode {
	case modeNoFit:
		return setAside("")
	case modeNoCandidates:
		if c.m.Queues[e.q].Reclaim != Any {
			c.reserve(e)
		}
		return setAside("")
	case modePreempt, modeReclaim:
		overlap := false
		for _, t := range e.targets {
			if c.isClaimed(t.w) {
				overlap = true
			}
		}
		if overlap {
			c.counts.Work.Claimed++
			if c.fitsWithVictimsOut(e, func(e *entry) bool { return c.fits(e, true) }, nil) {
				c.reserveFull(e)
				w.waiting = true
				c.queues[e.q].sticky = w
				w.lastReason = "waiting for jobs preempted by another job to stop"
				return false
			}
			w.lastReason = "its preemption targets were taken by another job this cycle"
			return false
		}
		// A nomination with victims fits once they are gone: its search
		// checked that against the state the cycle started from. Only
		// usage that heads processed before it added can change that.
		skip := c.on(FitOnce) && c.tally(FitOnce, !c.addedThisCycle)
		if checking && skip {
			c.checkFitsWithVictimsOut(e)
		}
		if !skip && !c.fitsWithVictimsOut(e, c.quotaFitsOnly, e.targets) {
			w.lastReason = "no longer fits after other admissions this cycle"
			return false
		}
		c.reserveFull(e)
		issued := false
		for _, t := range e.targets {
			if !c.isClaimed(t.w) {
				c.claim(t.w)
			}
			if t.w.state == stateEvicting {
				continue
			}
			t.w.state = stateEvicting
			c.queues[t.w.Queue].victims.markEvicting(t.w)
			c.changed(change{kind: evictionBegun, w: t.w})
			c.plan.Preempted = append(c.plan.Preempted, Preemption{W: t.w, By: w, Reason: t.reason})
			issued = true
		}
		w.waiting = true
		c.queues[e.q].sticky = w
		w.lastReason = "waiting for preempted jobs to stop"
		return issued
	}
	// Fit.
	ok := c.fitsWithVictimsOut(e, c.quotaFitsOnly, nil)
	var pl placement
	if ok && e.flavor >= 0 && c.pools[e.flavor] != nil {
		pl.nodes = w.place.nodes[:0]
		ok = c.pools[e.flavor].place(e.flavor, e.placeNeed, &pl)
	} else {
		pl.flavor = -1
	}
	if !ok {
		w.lastReason = "another job took the capacity it was about to use"
		return false
	}
	c.admit(w, e, pl, now)
	return true
}

func (c *Core) admit(w *Workload, e *entry, pl placement, now float64) {
	c.addedThisCycle = true
	c.dequeue(w)
	w.waiting = false
	w.lastReason, w.aside = "", nil
	c.commit(w, e.assignment, e.usage, pl, now)
	c.plan.Admitted = append(c.plan.Admitted, Admission{W: w, Borrowing: e.borrowing > 0})
}

// claimedUsage is the usage of the jobs claimed as victims this cycle, by
// team and flavor-resource, summed: taking a sum out of the tree moves it
// as taking out each job's usage would.
type claimedUsage struct {
	node, fr int
	q        Qty
}

// claim marks w as claimed as a victim this cycle and adds up its usage.
func (c *Core) claim(w *Workload) {
	w.claimedIn = c.cycles
	n := c.tree.qNode[w.Queue]
	for _, u := range w.usage {
		i := slices.IndexFunc(c.claimed, func(x claimedUsage) bool { return x.node == n && x.fr == u.fr })
		if i < 0 {
			c.claimed = append(c.claimed, claimedUsage{n, u.fr, u.q})
		} else {
			c.claimed[i].q += u.q
		}
	}
}

// removeClaimedQuota takes out of the tree, for a question about e's quota,
// the usage of the jobs claimed as victims this cycle on e's
// flavor-resources: what e's fit reads (quota, per flavor-resource, and
// nodes, which claimed jobs keep).
func (c *Core) removeClaimedQuota(e *entry) {
	for _, x := range c.claimed {
		if usesFR(e.usage, x.fr) {
			c.tree.removeUsage(x.node, x.fr, x.q)
		}
	}
}

func (c *Core) restoreClaimedQuota(e *entry) {
	for _, x := range c.claimed {
		if usesFR(e.usage, x.fr) {
			c.tree.addUsage(x.node, x.fr, x.q)
		}
	}
}

func usesFR(usage []frQty, fr int) bool {
	for _, u := range usage {
		if u.fr == fr {
			return true
		}
	}
	return false
}

func (c *Core) removeTargetsQuota(ts []target) {
	for _, t := range ts {
		if !c.isClaimed(t.w) {
			c.tree.removeAll(c.tree.qNode[t.w.Queue], t.w.usage)
		}
	}
}

func (c *Core) restoreTargetsQuota(ts []target) {
	for _, t := range ts {
		if !c.isClaimed(t.w) {
			c.tree.addAll(c.tree.qNode[t.w.Queue], t.w.usage)
		}
	}
}

func (c *Core) reserveFull(e *entry) {
	c.addedThisCycle = true
	c.tree.addAll(e.qn, e.usage) // a nomination's usage is never written: no copy
	c.reserved = append(c.reserved, reservation{e.qn, e.usage})
}

// reserve holds quota for a head that needs preemption but found no victims
// and cannot count on reclaiming later, so that lower-ranked heads cannot
// borrow what it is entitled to (Kueue reserveCapacityForUnreclaimablePreempt).
func (c *Core) reserve(e *entry) {
	t := c.tree
	nd := &t.nodes[e.qn]
	var u []frQty
	for _, x := range e.usage {
		q := nd.cells[x.fr].quota
		var r Qty
		if e.borrowing > 0 {
			if q.HasBorrow {
				r = min(x.q, q.Nominal+q.BorrowLimit-nd.cells[x.fr].usage)
			} else {
				r = x.q
			}
		} else {
			r = max(0, min(x.q, q.Nominal-nd.cells[x.fr].usage))
		}
		if r > 0 {
			u = append(u, frQty{x.fr, r})
		}
	}
	t.addAll(e.qn, u)
	c.addedThisCycle = c.addedThisCycle || len(u) > 0
	c.reserved = append(c.reserved, reservation{e.qn, u})
}
