package policies

// The first test of a victim search (the first-test shortcut): whether any
// set of victims could make room at all, asked before a candidate is read.
// Each team's victim index keeps, per (flavor, priority) level, the usage
// and the largest job filed there (victims.go), so a test moves the usage
// a search could take out of the tree in a few steps per team and asks
// whether the job would then fit. A search takes only some of those jobs,
// and less usage never leaves less room, so a failed test means no set of
// victims can: it changes no decision. It costs the teams asked times the
// resources, not the jobs running; at a cohort's capacity it ends nearly
// every search.

// sourcesAndFirstTest lists the teams a classical search may take from
// and says whether the job could fit with all they may give gone,
// borrowing and within nominal (each a pass of the search). The job's own
// team decides most searches: its limits do not move with other teams'
// usage, so when they leave no room the other teams are not even listed.
func (c *Core) sourcesAndFirstTest(e *entry, src *sourcesOf) (borrowing, nominal bool) {
	if !c.on(FirstTest) {
		c.classicalSources(e, src)
		return true, true
	}
	borrowing, nominal = c.ownLimitsAllow(e)
	if !borrowing && !nominal {
		src.same, src.hier, src.prio = src.same[:0], src.hier[:0], src.prio[:0]
		c.ownStop = true
		return false, false
	}
	c.classicalSources(e, src)
	return c.othersCouldGive(e, src.hier, src.prio, borrowing, nominal)
}

// othersCouldGive is the second part of the classical first test: with
// the job's own takeable jobs and every other source team's gone, would
// the job fit (borrowing, if its own limits allow it; within nominal, if
// they allow that)? The pass within nominal may take more from teams the
// job has no advantage over, so that removal comes on top of the other.
func (c *Core) othersCouldGive(e *entry, hier, prio []source, borrowing, nominal bool) (bool, bool) {
	spec := &c.m.Queues[e.q]
	removed := c.takeOwn(e)
	for _, s := range hier {
		removed = c.takeFreeable(e, s.team, minPrio, bound(spec.Reclaim, e.w), removed)
	}
	pb := c.prioBound(e, true)
	for _, s := range prio {
		removed = c.takeFreeable(e, s.team, minPrio, pb, removed)
	}
	borrowing = borrowing && c.quotaAdmits(e, true)
	if nominal {
		for _, s := range prio {
			removed = c.takeFreeable(e, s.team, pb, bound(spec.Reclaim, e.w), removed)
		}
		nominal = c.quotaAdmits(e, false)
	}
	c.untake(removed)
	return borrowing, nominal
}

// ownTeamAllowsBorrowing is the first test of a fair-sharing search, which
// always may borrow: with every job of its own team it may take gone,
// would the job fit its team's borrowing limit?
func (c *Core) ownTeamAllowsBorrowing(e *entry) bool {
	borrowing, _ := c.ownLimitsAllow(e)
	return borrowing
}

// ownLimitsAllow says whether the job would fit its own team's limits
// (borrowing, and within nominal) with every job of its team it may take
// gone (takeOwn): no other team's jobs change the team's nominal quota or
// its borrowing limit. Both limits read the team's node alone, so what
// those jobs free is subtracted here rather than moved out of the tree,
// which would bump the versions of the team and its cohorts.
func (c *Core) ownLimitsAllow(e *entry) (borrowing, nominal bool) {
	nd := &c.tree.nodes[e.qn]
	v := &c.queues[e.q].victims
	nR := len(c.m.Resources)
	to := bound(c.m.Queues[e.q].WithinQueue, e.w)
	borrowing, nominal = true, true
	for _, u := range e.usage {
		cell := &nd.cells[u.fr]
		sum, _ := v.freeable(u.fr, nR, minPrio, to)
		left := cell.usage - min(sum, cell.usage) // takeFreeable's take from the job's own team
		nominal = nominal && left+u.q <= cell.subtree
		borrowing = borrowing && u.q <= ownLimitWith(nd, cell, left)
	}
	if checking {
		c.checkOwnLimitsInPlace(e, borrowing, nominal)
	}
	return borrowing, nominal
}

// checkOwnLimitsInPlace panics unless the own-limits test gives what it gives
// with the team's takeable usage moved out of the tree.
func (c *Core) checkOwnLimitsInPlace(e *entry, borrowing, nominal bool) {
	t := c.tree
	removed := c.takeOwn(e)
	b, n := true, true
	for _, u := range e.usage {
		n = n && !t.borrowingWith(e.qn, u.fr, u.q)
		b = b && u.q <= t.ownLimit(e.qn, u.fr)
	}
	c.untake(removed)
	if b != borrowing || n != nominal {
		panic("allotcheck: the own-limits test differs from the one on the tree with the team's jobs out")
	}
}

// takeOwn moves out of the tree the usage of every job of e's team that
// the within-team policy lets e take.
func (c *Core) takeOwn(e *entry) []boundTake {
	return c.takeFreeable(e, e.q, minPrio, bound(c.m.Queues[e.q].WithinQueue, e.w), c.scratch.bound[:0])
}

// takeFreeable moves out of the tree what team's jobs of priorities in
// [from, to) hold of every flavor-resource e asks for (a victim frees all
// it holds, not only what lacks room), and appends it to removed. Another
// team's jobs are taken only while it borrows (stillBorrowing), so with
// one flavor-resource lacking room no more than its excess and one more
// job of it can go.
func (c *Core) takeFreeable(e *entry, team int, from, to int32, removed []boundTake) []boundTake {
	t := c.tree
	qn := t.qNode[team]
	v := &c.queues[team].victims
	nR := len(c.m.Resources)
	for _, u := range e.usage {
		cell := &t.nodes[qn].cells[u.fr]
		sum, peak := v.freeable(u.fr, nR, from, to)
		q := min(sum, cell.usage)
		if team != e.q && len(e.frsNeed) == 1 && u.fr == e.frsNeed[0] {
			q = min(q, max(0, cell.usage-cell.subtree)+peak)
		}
		if q > 0 {
			t.removeUsage(qn, u.fr, q)
			removed = append(removed, boundTake{qn, frQty{u.fr, q}})
		}
	}
	return removed
}

// untake puts back what a first test removed, last first.
func (c *Core) untake(removed []boundTake) {
	for i := len(removed) - 1; i >= 0; i-- {
		c.tree.addUsage(removed[i].qn, removed[i].fr, removed[i].q)
	}
	c.scratch.bound = removed[:0]
}

// boundTake is one usage a first test moved out of the tree.
type boundTake struct {
	qn int
	frQty
}
