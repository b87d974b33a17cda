package policies

// fairTargets is fair-sharing preemption's victim search (Kueue's
// fair_preemptions): the shortcuts that know its answer first, then the
// search, which leaves the tree as it found it.
func (c *Core) fairTargets(e *entry) []target {
	strategies := c.m.FairSharing.Strategies
	if len(strategies) == 0 {
		strategies = defaultStrategies
	}
	c.took.start(e) // ends spent with no take, unless the search goes on
	if c.fairKnownNone(e, strategies) {
		return nil
	}
	return c.fairSearch(e, strategies)
}

// fairKnownNone says whether a shortcut knows the search takes nobody:
// the preemptor's own team's limits (first-test), or a quick test that
// ended the last search and still holds (quick-none).
func (c *Core) fairKnownNone(e *entry, strategies []FairStrategy) bool {
	if c.on(FirstTest) && c.tally(FirstTest, !c.ownTeamAllowsBorrowing(e)) {
		if checking {
			c.checkNoTargets(FirstTest, e)
		}
		// Its own team's limits leave no room whoever else gives some
		// back. Not a record of takes: its own team's growth could
		// change this answer.
		c.took.known = false
		c.ownStop = true
		return true
	}
	if c.on(QuickNone) && c.tally(QuickNone, c.quickSaysNone(e, strategies)) {
		if checking {
			c.checkNoTargets(QuickNone, e)
		}
		return true
	}
	return false
}

// fairRun is one fair-sharing search in progress: its candidates' teams,
// what it took, and the first candidate of each team that failed the
// first rule (the second rule takes one candidate per team).
type fairRun struct {
	c             *Core
	e             *entry
	w             *fairWork
	strategies    []FairStrategy
	live          []int // tree nodes that can have candidates, in order
	withinNominal bool  // the preemptor stays within its nominal quota
	flat          bool  // teams are siblings and flat-order is on
	targets       []target
	fit, anyRetry bool
}

// fairSearch runs the two rounds of the search over the preemptor's own
// team and the teams that borrow what it may reclaim.
func (c *Core) fairSearch(e *entry, strategies []FairStrategy) []target {
	t := c.tree
	spec := &c.m.Queues[e.q]
	w := c.fairWork()
	own := false
	if spec.WithinQueue != Never && c.queues[e.q].victims.mayHaveBelow(e.frsNeed, len(c.m.Resources), bound(spec.WithinQueue, e.w)) {
		it := c.candIterFor(e.q, e, spec.WithinQueue, filterFair)
		w.src[e.qn] = it
		own = it.peek() != nil
	}
	c.took.own = own
	var borrowers []int // queue nodes that may lend back
	if spec.Reclaim != Never {
		borrowers = c.borrowersOf(e, w.borrowers[:0])
	}
	defer func() { w.borrowers = borrowers[:0] }()
	if !own && len(borrowers) == 0 {
		return nil
	}
	r := fairRun{c: c, e: e, w: w, strategies: strategies, withinNominal: c.staysWithinNominal(e)}
	if !own && !r.withinNominal && !c.anyFairCandidatePossible(e, borrowers, strategies) {
		c.rememberNone(e)
		return nil
	}
	for _, qn := range borrowers {
		w.lazy[qn] = true
	}
	r.live = candidateTeams(e.qn, w.src[e.qn] != nil, borrowers, w.live[:0])
	w.live = r.live
	t.addAll(e.qn, e.usage) // the preemptor's shares include its own job
	r.targets = w.targets[:0]
	defer func() { w.targets = r.targets[:0] }()
	// Among sibling teams, read in falling share, a team whose share is
	// already below the preemptor's means every team after it is too: none
	// of them can lose a job by either rule, so the first round ends there
	// (the second may still take from teams read before). The preemptor's
	// own team, whose share is the preemptor's, would have been read first
	// had it any candidate left, so the preemptor's share no longer moves.
	r.flat = t.amongSiblings(e.qn) && c.on(FlatOrder)
	r.firstRound(spec.Reclaim)
	c.took.fitFirst = r.fit
	for _, qn := range borrowers {
		w.lazy[qn] = false // sources never made stay unmade
	}
	if !r.fit && len(strategies) > 1 && r.anyRetry {
		r.secondRound()
	}
	t.removeAll(e.qn, e.usage)
	c.took.record(r.targets, !r.fit)
	return c.settleTakes(e, r.targets, r.fit, nil)
}

// candidateTeams lists the tree nodes that can have candidates, in node
// order: the preemptor's team (qn, when it has candidates) and the
// borrowers.
func candidateTeams(qn int, ownHas bool, borrowers []int, live []int) []int {
	if ownHas && (len(borrowers) == 0 || qn < borrowers[0]) {
		live = append(live, qn)
	}
	for i, b := range borrowers {
		live = append(live, b)
		if ownHas && b < qn && (i+1 == len(borrowers) || qn < borrowers[i+1]) {
			live = append(live, qn)
		}
	}
	return live
}

// take makes x a victim for reason and asks whether the preemptor fits.
func (r *fairRun) take(x *Workload, reason string) {
	r.c.counts.Work.Tried++
	r.c.removeTarget(x)
	r.targets = append(r.targets, target{x, reason})
	r.fit = r.c.fitsOwnUsageIn(r.e)
}

// addRetry keeps x for the second round if it is its team's first.
func (r *fairRun) addRetry(qn int, x *Workload) {
	w := r.w
	if !w.inRetry[qn] {
		w.inRetry[qn] = true
		w.retry[qn] = single{x}
		w.retrySrc[qn] = &w.retry[qn]
		r.anyRetry = true
	}
}

// firstRound takes, team by team in the fair ordering, the preemptor's
// own candidates, reclaims within nominal quota, and the candidates
// whose loss passes the first strategy.
func (r *fairRun) firstRound(reclaim PreemptPolicy) {
	c, e := r.c, r.e
	ord := c.newFairOrdering(e, r.w.src, r.w)
	ord.live, ord.lazy, ord.reclaim = r.live, r.w.lazy, reclaim
	for qn := ord.next(); qn >= 0 && !r.fit; qn = ord.next() {
		c.took.lead(qn, c.shareOf(qn))
		switch {
		case qn == e.qn:
			r.take(ord.pop(qn), ReasonInClusterQueue)
		case r.withinNominal:
			r.take(ord.pop(qn), ReasonInCohortReclamation)
		case !r.fromBorrower(ord, qn):
			return
		}
	}
}

// fromBorrower tries team node qn's candidates against the first rule;
// false ends the round (flat order: no later team can lose a job).
func (r *fairRun) fromBorrower(ord *fairOrdering, qn int) bool {
	c, e, t := r.c, r.e, r.c.tree
	pa, ta := c.almostLCAs(e.qn, qn)
	pNew, tOld := c.shareOf(pa), c.shareOf(ta)
	team := t.nodes[qn].queue
	// k > 0 includes a borrowing zero-weight preemptor against any
	// team but another such: its share is above theirs.
	k := cmpDRS(pNew, tOld)
	if k > 0 || !passes(r.strategies[0], pNew, tOld, c.bestCaseShare(team, ta, e.frsNeed)) {
		// No candidate of this team can pass the first rule.
		if r.flat && k > 0 {
			return false
		}
		r.addRetry(qn, ord.pop(qn))
		r.w.src[qn] = nil
		return true
	}
	failed := r.w.failed[:0] // sizes known to fail: a larger job fails too
	for ord.has(qn) {
		x := ord.pop(qn)
		if q := usageOn(x, e.frsNeed); knownToFail(failed, q) {
			r.addRetry(qn, x)
			continue
		}
		tNew := c.shareAfterLosing(ta, x)
		if passes(r.strategies[0], pNew, tOld, tNew) {
			r.take(x, ReasonInCohortFairSharing)
			if ta == qn {
				c.shareIs(qn, tNew) // what the ordering reads next
			}
			break
		}
		q := usageOn(x, e.frsNeed)
		if q >= 0 {
			failed = append(failed, q)
		}
		r.addRetry(qn, x)
		if q >= 0 && c.queues[team].noSmaller(e.frsNeed[0], q) {
			break // every job left is at least this big: all would fail
		}
	}
	r.w.failed = failed[:0] // its room, for the next team
	return true
}

// secondRound takes, by the second strategy, one kept candidate per team
// whose share is still above the preemptor's.
func (r *fairRun) secondRound() {
	c, e := r.c, r.e
	ord := c.newFairOrdering(e, r.w.retrySrc, r.w)
	ord.live = r.live
	for qn := ord.next(); qn >= 0 && !r.fit; qn = ord.next() {
		pa, ta := c.almostLCAs(e.qn, qn)
		pNew, tOld := c.shareOf(pa), c.shareOf(ta)
		k := cmpDRS(pNew, tOld)
		if r.flat && k >= 0 {
			return // the teams after it have lower shares still
		}
		x := ord.pop(qn)
		if k < 0 {
			r.take(x, ReasonInCohortFairSharing)
		}
		r.w.prunedQ[qn] = true
	}
}
