package policies

// Fair-sharing preemption (Kueue fairSharing.preemptionStrategies). Target
// teams are visited from the root, always descending into the child with
// the highest dominant resource share; a candidate of another team is taken
// only if the preemptor's share after admission stays at or below the
// target's share after losing it (LessThanOrEqualToFinalShare), or, in a
// second round, below the target's current share (LessThanInitialShare).
// A preemptor within its own quota reclaims unconditionally.

type fairOrdering struct {
	c        *Core
	e        *entry
	byQueue  map[int][]*Workload // queue node -> remaining candidates, ordered
	prunedQ  map[int]bool
	prunedC  map[int]bool
	ancestor map[int]bool
}

func (c *Core) newFairOrdering(e *entry, cands []*Workload) *fairOrdering {
	o := &fairOrdering{c: c, e: e, byQueue: map[int][]*Workload{}, prunedQ: map[int]bool{}, prunedC: map[int]bool{}, ancestor: map[int]bool{}}
	for p := c.tree.nodes[e.qn].parent; p >= 0; p = c.tree.nodes[p].parent {
		o.ancestor[p] = true
	}
	for _, w := range cands {
		qn := c.tree.qNode[w.Queue]
		o.byQueue[qn] = append(o.byQueue[qn], w)
	}
	return o
}

func (o *fairOrdering) has(qn int) bool { return len(o.byQueue[qn]) > 0 }

func (o *fairOrdering) pop(qn int) *Workload {
	w := o.byQueue[qn][0]
	o.byQueue[qn] = o.byQueue[qn][1:]
	return w
}

// next returns the next target queue node, or -1 when none is left.
func (o *fairOrdering) next() int {
	t := o.c.tree
	if t.nodes[o.e.qn].parent < 0 {
		if o.has(o.e.qn) {
			return o.e.qn
		}
		return -1
	}
	root := t.rootOf[o.e.qn]
	for !o.prunedC[root] {
		if qn := o.nextIn(root); qn >= 0 {
			return qn
		}
	}
	return -1
}

func (o *fairOrdering) nextIn(cohort int) int {
	c, t := o.c, o.c.tree
	bestQ, bestC := -1, -1
	var bestQD, bestCD drs
	for _, qn := range t.nodes[cohort].queues {
		if o.prunedQ[qn] {
			continue
		}
		d := c.shareOf(qn)
		if (!d.borrowing && qn != o.e.qn) || !o.has(qn) {
			o.prunedQ[qn] = true
			continue
		}
		if bestQ < 0 {
			bestQ, bestQD = qn, d
			continue
		}
		switch k := cmpDRS(d, bestQD); {
		case k > 0:
			bestQ, bestQD = qn, d
		case k == 0 && c.candidateLess(o.byQueue[qn][0], o.byQueue[bestQ][0], o.e.q):
			bestQ, bestQD = qn, d
		}
	}
	for _, cn := range t.nodes[cohort].cohorts {
		if o.prunedC[cn] {
			continue
		}
		d := c.shareOf(cn)
		if !d.borrowing && !o.ancestor[cn] {
			o.prunedC[cn] = true
			continue
		}
		if bestC < 0 || cmpDRS(d, bestCD) > 0 {
			bestC, bestCD = cn, d
		}
	}
	if bestQ < 0 && bestC < 0 {
		o.prunedC[cohort] = true
		return -1
	}
	if bestC >= 0 && (bestQ < 0 || cmpDRS(bestCD, bestQD) >= 0) {
		return o.nextIn(bestC)
	}
	return bestQ
}

// almostLCAs returns the children of the lowest common ancestor of the
// preemptor's queue node and a target queue node, on each side.
func (c *Core) almostLCAs(a, b int) (int, int) {
	t := c.tree
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

func (c *Core) fairTargets(e *entry) []target {
	t := c.tree
	spec := &c.m.Queues[e.q]
	var cands []*Workload
	if spec.WithinQueue != Never {
		for _, w := range c.queues[e.q].admitted {
			if usesAny(w, e.frsNeed) && satisfies(spec.WithinQueue, e.w, w) && !(c.claimed[w] && w.state != stateEvicting) {
				cands = append(cands, w)
			}
		}
	}
	if t.nodes[e.qn].parent >= 0 && spec.Reclaim != Never {
		root := t.rootOf[e.qn]
		for qi := range c.queues {
			qn := t.qNode[qi]
			if qn == e.qn || t.rootOf[qn] != root || !c.borrowingOn(qn, e.frsNeed) {
				continue
			}
			for _, w := range c.queues[qi].admitted {
				if usesAny(w, e.frsNeed) && satisfies(spec.Reclaim, e.w, w) && !(c.claimed[w] && w.state != stateEvicting) {
					cands = append(cands, w)
				}
			}
		}
	}
	if len(cands) == 0 {
		return nil
	}
	cs := make([]cand, len(cands))
	for i, w := range cands {
		cs[i] = cand{w: w}
	}
	c.sortCands(cs, e.q)
	for i := range cs {
		cands[i] = cs[i].w
	}
	t.addAll(e.qn, e.usage) // the preemptor's shares include its own job
	var targets []target
	fit := false
	check := func() bool {
		t.removeAll(e.qn, e.usage)
		ok := c.fits(e, true)
		t.addAll(e.qn, e.usage)
		return ok
	}
	strategies := c.m.FairSharing.Strategies
	if len(strategies) == 0 {
		strategies = []FairStrategy{LessThanOrEqualToFinalShare, LessThanInitialShare}
	}
	withinNominal := true
	for _, fr := range e.frsNeed {
		if t.nodes[e.qn].usage[fr] > t.nodes[e.qn].subtree[fr] {
			withinNominal = false
		}
	}
	var retry []*Workload
	ord := c.newFairOrdering(e, cands)
	take := func(w *Workload, reason string) {
		c.removeTarget(w)
		targets = append(targets, target{w, reason})
		fit = check()
	}
	for qn := ord.next(); qn >= 0 && !fit; qn = ord.next() {
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
		if pNew.borrowing && pNew.weight == 0 && !(tOld.borrowing && tOld.weight == 0) {
			for ord.has(qn) {
				retry = append(retry, ord.pop(qn))
			}
			continue
		}
		for ord.has(qn) {
			w := ord.pop(qn)
			c.removeTarget(w)
			tNew := c.shareOf(ta)
			c.restoreTarget(w)
			var pass bool
			if strategies[0] == LessThanOrEqualToFinalShare {
				pass = cmpDRS(pNew, tNew) <= 0
			} else {
				pass = cmpDRS(pNew, tOld) < 0
			}
			if pass {
				take(w, ReasonInCohortFairSharing)
				break
			}
			retry = append(retry, w)
		}
	}
	if !fit && len(strategies) > 1 && len(retry) > 0 {
		ord2 := c.newFairOrdering(e, retry)
		for qn := ord2.next(); qn >= 0 && !fit; qn = ord2.next() {
			pa, ta := c.almostLCAs(e.qn, qn)
			pNew, tOld := c.shareOf(pa), c.shareOf(ta)
			w := ord2.pop(qn)
			if cmpDRS(pNew, tOld) < 0 {
				take(w, ReasonInCohortFairSharing)
			}
			ord2.prunedQ[qn] = true
		}
	}
	t.removeAll(e.qn, e.usage)
	if !fit {
		c.restoreTargets(targets)
		return nil
	}
	targets = c.minimise(e, targets, true)
	c.restoreTargets(targets)
	return targets
}

// borrowingOn says whether a queue node uses more than its quota on any fr.
func (c *Core) borrowingOn(qn int, frs []int) bool {
	nd := &c.tree.nodes[qn]
	if nd.parent < 0 {
		return false
	}
	for _, fr := range frs {
		if nd.usage[fr] > nd.subtree[fr] {
			return true
		}
	}
	return false
}
