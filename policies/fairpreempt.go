package policies

import (
	mbits "math/bits"
	"slices"
)

// Fair-sharing preemption (Kueue fairSharing.preemptionStrategies). Target
// teams are visited from the root, always descending into the child with
// the highest dominant resource share; a candidate of another team is taken
// only if the preemptor's share after admission stays at or below the
// target's share after losing it (LessThanOrEqualToFinalShare), or, in a
// second round, below the target's current share (LessThanInitialShare).
// A preemptor within its own quota reclaims unconditionally.

// candSource yields one team's candidates in order.
type candSource interface {
	peek() *Workload
	pop() *Workload
}

// single is a source of at most one candidate.
type single struct{ w *Workload }

func (s *single) peek() *Workload { return s.w }
func (s *single) pop() *Workload {
	w := s.w
	s.w = nil
	return w
}

// fairWork is scratch space reused by every fair-sharing search.
type fairWork struct {
	src       []candSource // by tree node
	prunedQ   []bool
	prunedC   []bool
	ancestor  []bool
	retry     []single
	inRetry   []bool
	retrySrc  []candSource
	live      []int
	lazy      []bool
	borrowers []int
	byShare   []teamShare
	targets   []target // grows during a search; the result is copied out
	failed    []Qty    // a team's sizes known to fail, during its turn
}

func (c *Core) fairWork() *fairWork {
	n := len(c.tree.nodes)
	w := c.fw
	if w == nil || len(w.src) != n {
		w = &fairWork{src: make([]candSource, n), prunedQ: make([]bool, n), prunedC: make([]bool, n),
			ancestor: make([]bool, n), retry: make([]single, n), inRetry: make([]bool, n), retrySrc: make([]candSource, n),
			lazy: make([]bool, n)}
		c.fw = w
	}
	clear(w.src)
	clear(w.inRetry)
	clear(w.retrySrc)
	return w
}

// almostLCAs returns the children of the lowest common ancestor of the
// preemptor's queue node and a target queue node, on each side.
func (c *Core) almostLCAs(a, b int) (int, int) {
	t := c.tree
	if t.nodes[a].parent == t.nodes[b].parent { // siblings: the common case
		return a, b
	}
	depth := func(n int) int {
		d := 0
		for ; t.nodes[n].parent >= 0; n = t.nodes[n].parent {
			d++
		}
		return d
	}
	da, db := depth(a), depth(b)
	for da > db {
		a, da = t.nodes[a].parent, da-1
	}
	for db > da {
		b, db = t.nodes[b].parent, db-1
	}
	for t.nodes[a].parent != t.nodes[b].parent {
		a, b = t.nodes[a].parent, t.nodes[b].parent
	}
	return a, b
}

// passes applies the first fair-sharing rule.
func passes(first FairStrategy, pNew, tOld, tNew drs) bool {
	if first == LessThanOrEqualToFinalShare {
		return cmpDRS(pNew, tNew) <= 0
	}
	return cmpDRS(pNew, tOld) < 0
}

// bestCaseShare is the lowest share a target team could fall to by losing
// any one of its jobs on the needed resources: the share after removing the
// smallest usage of each flavor-resource. If even that fails the first
// rule, every candidate of the team fails it.
//
// With several needed flavor-resources no bound is computed and the
// current share is returned (which any removal can only lower or keep).
func (c *Core) bestCaseShare(team, ta int, frs []int) drs {
	t := c.tree
	if len(frs) != 1 {
		return c.shareOf(ta)
	}
	var sz []sizeCount
	if all := c.queues[team].sizes; frs[0] < len(all) {
		sz = all[frs[0]]
	}
	if len(sz) == 0 || sz[0].q <= 0 {
		return c.shareOf(ta)
	}
	m := sz[0].q
	qn := t.qNode[team]
	if ta == qn {
		nd := &t.nodes[qn]
		if nd.bestVer != nd.ver || nd.bestFR != frs[0] || nd.bestSize != m {
			nd.bestVal = c.shareWithout(ta, []frQty{{frs[0], m}})
			nd.bestVer, nd.bestFR, nd.bestSize = nd.ver, frs[0], m
		}
		return nd.bestVal
	}
	t.removeUsage(qn, frs[0], m)
	d := c.shareOf(ta)
	t.addUsage(qn, frs[0], m)
	return d
}

// shareAfterLosing is the share of ta (x's team or a cohort above it) once
// x is gone. Shares depend on quota usage alone: the nodes are left be.
func (c *Core) shareAfterLosing(ta int, x *Workload) drs {
	t := c.tree
	xn := t.qNode[x.Queue]
	if ta == xn {
		return c.shareWithout(ta, x.usage)
	}
	t.removeAll(xn, x.usage)
	d := c.shareOf(ta)
	t.addAll(xn, x.usage)
	return d
}

func (c *Core) fairTargets(e *entry) []target {
	t := c.tree
	spec := &c.m.Queues[e.q]
	strategies := c.m.FairSharing.Strategies
	if len(strategies) == 0 {
		strategies = defaultStrategies
	}
	c.took.start(e) // ends spent with no take, unless the search goes on
	if c.on(FirstTest) && c.tally(FirstTest, !c.ownTeamAllowsBorrowing(e)) {
		if checking {
			c.checkNoTargets(FirstTest, e)
		}
		// Its own team's limits leave no room whoever else gives some
		// back. Not a record of takes: its own team's growth could
		// change this answer.
		c.took.known = false
		c.ownStop = true
		return nil
	}
	if c.on(QuickNone) && c.tally(QuickNone, c.quickSaysNone(e, strategies)) {
		if checking {
			c.checkNoTargets(QuickNone, e)
		}
		return nil
	}
	w := c.fairWork()
	src := w.src
	own := false
	if spec.WithinQueue != Never && c.queues[e.q].victims.mayHaveBelow(e.frsNeed, len(c.m.Resources), bound(spec.WithinQueue, e.w)) {
		it := c.candIterFor(e.q, e, spec.WithinQueue, filterFair)
		src[e.qn] = it
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
	withinNominal := c.staysWithinNominal(e)
	if !own && !withinNominal && !c.anyFairCandidatePossible(e, borrowers, strategies) {
		c.rememberNone(e)
		return nil
	}
	for _, qn := range borrowers {
		w.lazy[qn] = true
	}
	// Only the preemptor's team and the borrowers can have candidates.
	live := w.live[:0]
	if src[e.qn] != nil && (len(borrowers) == 0 || e.qn < borrowers[0]) {
		live = append(live, e.qn)
	}
	for i, qn := range borrowers {
		live = append(live, qn)
		if src[e.qn] != nil && qn < e.qn && (i+1 == len(borrowers) || e.qn < borrowers[i+1]) {
			live = append(live, e.qn)
		}
	}
	w.live = live
	t.addAll(e.qn, e.usage) // the preemptor's shares include its own job
	targets := w.targets[:0]
	defer func() { w.targets = targets[:0] }()
	fit := false
	// Only the first candidate of each team that failed the first rule
	// matters to the second, which takes one candidate per team.
	anyRetry := false
	addRetry := func(qn int, x *Workload) {
		if !w.inRetry[qn] {
			w.inRetry[qn] = true
			w.retry[qn] = single{x}
			w.retrySrc[qn] = &w.retry[qn]
			anyRetry = true
		}
	}
	ord := c.newFairOrdering(e, src, w)
	ord.live, ord.lazy, ord.reclaim = live, w.lazy, spec.Reclaim
	take := func(x *Workload, reason string) {
		c.counts.Work.Tried++
		c.removeTarget(x)
		targets = append(targets, target{x, reason})
		fit = c.fitsOwnUsageIn(e)
	}
	// Among sibling teams, read in falling share, a team whose share is
	// already below the preemptor's means every team after it is too: none
	// of them can lose a job by either rule, so the first round ends there
	// (the second may still take from teams read before). The preemptor's
	// own team, whose share is the preemptor's, would have been read first
	// had it any candidate left, so the preemptor's share no longer moves.
	flat := t.amongSiblings(e.qn) && c.on(FlatOrder)
	for qn := ord.next(); qn >= 0 && !fit; qn = ord.next() {
		c.took.lead(qn, c.shareOf(qn))
		if qn == e.qn {
			take(ord.pop(qn), ReasonInClusterQueue)
			continue
		}
		if withinNominal {
			take(ord.pop(qn), ReasonInCohortReclamation)
			continue
		}
		pa, ta := c.almostLCAs(e.qn, qn)
		pNew, tOld := c.shareOf(pa), c.shareOf(ta)
		team := t.nodes[qn].queue
		// k > 0 includes a borrowing zero-weight preemptor against any
		// team but another such: its share is above theirs.
		k := cmpDRS(pNew, tOld)
		if k > 0 || !passes(strategies[0], pNew, tOld, c.bestCaseShare(team, ta, e.frsNeed)) {
			// No candidate of this team can pass the first rule.
			if flat && k > 0 {
				break
			}
			addRetry(qn, ord.pop(qn))
			src[qn] = nil
			continue
		}
		failed := w.failed[:0] // sizes known to fail: a larger job fails too
		for ord.has(qn) {
			x := ord.pop(qn)
			if q := usageOn(x, e.frsNeed); knownToFail(failed, q) {
				addRetry(qn, x)
				continue
			}
			tNew := c.shareAfterLosing(ta, x)
			if passes(strategies[0], pNew, tOld, tNew) {
				take(x, ReasonInCohortFairSharing)
				if ta == qn {
					c.shareIs(qn, tNew) // what the ordering reads next
				}
				break
			}
			q := usageOn(x, e.frsNeed)
			if q >= 0 {
				failed = append(failed, q)
			}
			addRetry(qn, x)
			if q >= 0 && c.queues[team].noSmaller(e.frsNeed[0], q) {
				break // every job left is at least this big: all would fail
			}
		}
		w.failed = failed[:0] // its room, for the next team
	}
	c.took.fitFirst = fit
	for _, qn := range borrowers {
		w.lazy[qn] = false // sources never made stay unmade
	}
	if !fit && len(strategies) > 1 && anyRetry {
		ord2 := c.newFairOrdering(e, w.retrySrc, w)
		ord2.live = live
		for qn := ord2.next(); qn >= 0 && !fit; qn = ord2.next() {
			pa, ta := c.almostLCAs(e.qn, qn)
			pNew, tOld := c.shareOf(pa), c.shareOf(ta)
			k := cmpDRS(pNew, tOld)
			if flat && k >= 0 {
				break // the teams after it have lower shares still
			}
			x := ord2.pop(qn)
			if k < 0 {
				take(x, ReasonInCohortFairSharing)
			}
			w.prunedQ[qn] = true
		}
	}
	t.removeAll(e.qn, e.usage)
	c.took.record(targets, !fit)
	return c.settleTakes(e, targets, fit, nil)
}

// settleTakes ends a search whose takes are out of the tree (and the
// preemptor's usage no longer in): nobody unless they made it fit, else
// the fewest of them that still do, as prev when equal to it. The tree is
// left as it was.
func (c *Core) settleTakes(e *entry, targets []target, fit bool, prev []target) []target {
	if !fit {
		c.restoreTargets(targets)
		return nil
	}
	targets = c.minimise(e, targets, true)
	c.restoreTargets(targets)
	if len(prev) > 0 && slices.Equal(prev, targets) {
		return prev
	}
	return keepTargets(e.w, targets)
}

// staysWithinNominal says whether e's job stays within its team's quota of the
// flavor-resources it needs once admitted (its whole usage lands on its
// own node): then it reclaims from borrowing teams without fair-sharing
// rules.
func (c *Core) staysWithinNominal(e *entry) bool {
	for _, fr := range e.frsNeed {
		if c.tree.borrowingWith(e.qn, fr, accUsage(e.usage).get(fr)) {
			return false
		}
	}
	return true
}

// borrowersOf appends to out the queue nodes of e's root, other than e's,
// that use more than their quota of a flavor-resource e needs, ascending.
func (c *Core) borrowersOf(e *entry, out []int) []int {
	t := c.tree
	if t.nodes[e.qn].parent < 0 || len(e.frsNeed) == 0 {
		return out
	}
	root := t.rootOf[e.qn]
	for wi := range t.over[e.frsNeed[0]] {
		var bits uint64
		for _, fr := range e.frsNeed {
			bits |= t.over[fr][wi]
		}
		for ; bits != 0; bits &= bits - 1 {
			qn := t.qNode[wi<<6|mbits.TrailingZeros64(bits)]
			if qn != e.qn && t.rootOf[qn] == root {
				out = append(out, qn)
			}
		}
	}
	return out
}

var defaultStrategies = []FairStrategy{LessThanOrEqualToFinalShare, LessThanInitialShare}

// anyFairCandidatePossible is a quick test, with the preemptor's usage
// added, of whether any borrowing team could pass either rule with any one
// of its jobs. Shares only move when a victim is taken, so if none can pass
// now, the search would take nobody.
func (c *Core) anyFairCandidatePossible(e *entry, borrowers []int, strategies []FairStrategy) bool {
	t := c.tree
	// Borrowers share the preemptor's root; under a root without child
	// cohorts every team is a sibling of every other.
	siblings := t.amongSiblings(e.qn)
	if !siblings {
		siblings = true
		for _, qn := range borrowers {
			siblings = siblings && t.nodes[qn].parent == t.nodes[e.qn].parent
		}
	}
	// With every borrower a sibling, the preemptor's share after admission
	// is read off its own node: the tree (and the shares cached on it) is
	// left as it is. Otherwise the usage is added for the question.
	var pSib drs
	if siblings {
		pSib = c.shareWith(e.qn, e.usage, 1)
	} else {
		t.addAll(e.qn, e.usage)
		defer t.removeAll(e.qn, e.usage)
	}
	for _, qn := range borrowers {
		pa, ta := c.almostLCAs(e.qn, qn)
		pNew, tOld := pSib, c.shareOf(ta)
		if !siblings {
			pNew = c.shareOf(pa)
		}
		if c.mayLose(e, qn, ta, pNew, tOld, strategies) {
			return true
		}
	}
	return false
}

// mayLose says whether borrowing team qn (or ta, the cohort above it under
// the preemptor's common ancestor), at share tOld, could lose one of its
// jobs to a preemptor whose share would be pNew, by either rule.
func (c *Core) mayLose(e *entry, qn, ta int, pNew, tOld drs, strategies []FairStrategy) bool {
	k := cmpDRS(pNew, tOld)
	if k > 0 {
		return false // losing a job only lowers a share: no rule can pass
	}
	if k < 0 && len(strategies) > 1 {
		return true // the second rule passes (asked first: it is cheaper)
	}
	return passes(strategies[0], pNew, tOld, c.bestCaseShare(c.tree.nodes[qn].queue, ta, e.frsNeed))
}

// usageOn is a job's usage of the one needed flavor-resource it uses, or -1
// when it uses several (then no size shortcut applies).
func usageOn(w *Workload, frs []int) Qty {
	if len(frs) != 1 || len(w.usage) != 1 || w.usage[0].fr != frs[0] {
		return -1
	}
	return w.usage[0].q
}

func knownToFail(failed []Qty, q Qty) bool {
	if q < 0 {
		return false
	}
	for _, f := range failed {
		if q >= f {
			return true
		}
	}
	return false
}
