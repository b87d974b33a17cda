package policies

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

type fairOrdering struct {
	c        *Core
	e        *entry
	byQueue  map[int]candSource // queue node -> candidates
	prunedQ  map[int]bool
	prunedC  map[int]bool
	ancestor map[int]bool
}

func (c *Core) newFairOrdering(e *entry, src map[int]candSource) *fairOrdering {
	o := &fairOrdering{c: c, e: e, byQueue: src, prunedQ: map[int]bool{}, prunedC: map[int]bool{}, ancestor: map[int]bool{}}
	for p := c.tree.nodes[e.qn].parent; p >= 0; p = c.tree.nodes[p].parent {
		o.ancestor[p] = true
	}
	return o
}

func (o *fairOrdering) has(qn int) bool {
	s, ok := o.byQueue[qn]
	return ok && s.peek() != nil
}

func (o *fairOrdering) head(qn int) *Workload { return o.byQueue[qn].peek() }
func (o *fairOrdering) pop(qn int) *Workload  { return o.byQueue[qn].pop() }

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
		if !o.has(qn) {
			o.prunedQ[qn] = true
			continue
		}
		d := c.shareOf(qn)
		if !d.borrowing && qn != o.e.qn {
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
		case k == 0 && c.candidateLess(o.head(qn), o.head(bestQ), o.e.q):
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
	src := map[int]candSource{}
	notClaimed := func(w *Workload) bool { return !(c.claimed[w] && w.state != stateEvicting) }
	if spec.WithinQueue != Never {
		src[e.qn] = c.newCandIter(e.q, e.q, func(w *Workload) bool {
			return usesAny(w, e.frsNeed) && satisfies(spec.WithinQueue, e.w, w) && notClaimed(w)
		})
	}
	if t.nodes[e.qn].parent >= 0 && spec.Reclaim != Never {
		root := t.rootOf[e.qn]
		for qi := range c.queues {
			qn := t.qNode[qi]
			if qn == e.qn || t.rootOf[qn] != root || !c.borrowingOn(qn, e.frsNeed) {
				continue
			}
			src[qn] = c.newCandIter(qi, e.q, func(w *Workload) bool {
				return usesAny(w, e.frsNeed) && satisfies(spec.Reclaim, e.w, w) && notClaimed(w)
			})
		}
	}
	any := false
	for _, s := range src {
		if s.peek() != nil {
			any = true
			break
		}
	}
	if !any {
		return nil
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
	// Only the first candidate of each team that failed the first rule
	// matters to the second, which takes one candidate per team.
	retry := map[int]candSource{}
	addRetry := func(qn int, w *Workload) {
		if _, ok := retry[qn]; !ok {
			retry[qn] = &single{w}
		}
	}
	ord := c.newFairOrdering(e, src)
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
			addRetry(qn, ord.pop(qn))
			for ord.has(qn) {
				ord.pop(qn)
			}
			continue
		}
		// Candidates with the same request give the same share once removed.
		type sig struct {
			s *shape
			f int
		}
		tried := map[sig]bool{}
		for ord.has(qn) {
			w := ord.pop(qn)
			if tried[sig{w.shape, w.Flavor()}] {
				addRetry(qn, w)
				continue
			}
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
			tried[sig{w.shape, w.Flavor()}] = true
			addRetry(qn, w)
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
