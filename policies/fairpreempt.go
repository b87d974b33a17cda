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
