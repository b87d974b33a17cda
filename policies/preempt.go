package policies

// Classical preemption (Kueue without fair sharing). Candidates are running
// jobs that use a flavor-resource the preemptor needs: lower-priority jobs
// of its own team (by the team's within-team policy), and jobs of teams that
// borrow (by the reclaim policy, and, while the preemptor itself borrows,
// by borrowWithinCohort). Candidates are tried in order until the preemptor
// fits; then the set is minimised by putting back every target it can do
// without, last-but-one first.

type variant uint8

const (
	vNever variant = iota
	vWithinQueue
	vHierarchical
	vReclaimWithoutBorrowing
	vReclaimWhileBorrowing
)

func (v variant) reason() string {
	switch v {
	case vWithinQueue:
		return ReasonInClusterQueue
	case vReclaimWhileBorrowing:
		return ReasonInCohortReclaimWhileBorrowing
	}
	return ReasonInCohortReclamation
}

func (c *Core) findTargets(e *entry) []target {
	c.counts.Work.Searches++
	c.arena.reset()
	c.took.known = false
	if c.m.FairSharing.Enabled {
		return c.fairTargets(e)
	}
	return c.classicalTargets(e)
}

func usesAny(w *Workload, frs []int) bool {
	for _, fr := range frs {
		if w.usesFR(fr) {
			return true
		}
	}
	return false
}

// mayTake is victim eligibility, the one rule every victim search
// applies first: w holds some of what e needs, no other preemptor has
// claimed it (unless it is already being evicted), policy p allows e to
// take it, and its minimum runtime does not protect it.
func (c *Core) mayTake(e *entry, w *Workload, p PreemptPolicy) bool {
	return usesAny(w, e.frsNeed) && !(c.isClaimed(w) && w.state != stateEvicting) && satisfies(p, e.w, w) && !c.protected(w)
}

// classify is how e may take w: never, within its own team, or from
// another team by the hierarchy or while borrowing or not.
func (c *Core) classify(e *entry, w *Workload, adv bool) variant {
	spec := &c.m.Queues[e.q]
	p := spec.Reclaim
	if w.Queue == e.q {
		p = spec.WithinQueue
	}
	if !c.mayTake(e, w, p) {
		return vNever
	}
	if w.Queue == e.q {
		return vWithinQueue
	}
	if adv {
		return vHierarchical
	}
	if w.Priority >= borrowBound(spec, e.w) {
		return vReclaimWithoutBorrowing
	}
	return vReclaimWhileBorrowing
}

// source is a team whose running jobs may be victims, with the cohort
// where its path meets the preemptor's.
type source struct {
	team, lca int
}

func (c *Core) collectSubtree(e *entry, cur, skip, lca int, out []source) []source {
	t := c.tree
	for _, ch := range t.nodes[cur].cohorts {
		if ch == skip || t.withinNominal(ch, e.frsNeed) {
			continue
		}
		out = c.collectSubtree(e, ch, skip, lca, out)
	}
	for _, q := range t.nodes[cur].queueIDs {
		if checking && t.overOnAny(q, e.frsNeed) == t.withinNominal(t.qNode[q], e.frsNeed) {
			panic("allotcheck: a team's over bits disagree with its usage")
		}
		if q == e.q || !t.overOnAny(q, e.frsNeed) { // within nominal
			continue
		}
		out = append(out, source{q, lca})
	}
	return out
}

// mergeIter yields the candidates of several teams in candidate order. A
// team whose remaining candidates can no longer be taken is dropped.
type mergeIter struct {
	c   *Core
	q   int
	its []*candIter
	lca []int
}

func (m *mergeIter) peekIdx() int {
	best := -1
	for i, it := range m.its {
		if it == nil {
			continue
		}
		w := it.peek()
		if w == nil {
			m.its[i] = nil
			continue
		}
		if best < 0 || m.c.candidateLess(w, m.its[best].peek(), m.q) {
			best = i
		}
	}
	return best
}

// merged walks the candidates of srcs, those being evicted or the others,
// stopping each team's walk at priority bnd (or its policy's bound, if
// lower).
func (c *Core) merged(m *mergeIter, e *entry, srcs []source, adv, evicting bool, bnd int32) *mergeIter {
	*m = mergeIter{c: c, q: e.q, its: m.its[:0], lca: m.lca[:0]}
	for _, s := range srcs {
		p := c.m.Queues[e.q].Reclaim
		if s.team == e.q {
			p = c.m.Queues[e.q].WithinQueue
		}
		b := min(bnd, bound(p, e.w))
		if b == minPrio {
			continue
		}
		read := uint8(readRunning)
		if evicting {
			read = readEvicting
		}
		it := c.newCandIter(s.team, e.q, e.frsNeed, b, read, newerOnly(p, e.w))
		it.f = candFilter{kind: filterClassical, e: e, adv: adv, evicting: evicting}
		m.its = append(m.its, it)
		m.lca = append(m.lca, s.lca)
	}
	return m
}

// anyCandidate says whether a team of srcs has a job its policy lets the
// preemptor take, being evicted or not (classify). It decides which passes
// a search makes, so it reads no further than the first such job.
func (c *Core) anyCandidate(e *entry, srcs []source) bool {
	spec := &c.m.Queues[e.q]
	nR := len(c.m.Resources)
	for _, s := range srcs {
		p := spec.Reclaim
		if s.team == e.q {
			p = spec.WithinQueue
		}
		b := bound(p, e.w)
		if !c.queues[s.team].victims.mayHaveBelow(e.frsNeed, nR, b) {
			continue
		}
		c.arena.reset()
		if c.candIterFor(s.team, e, p, filterFair).peek() != nil {
			return true
		}
	}
	return false
}

// sourcesOf are the teams a classical search may take from, by the
// preemptor's standing toward them: its own team, teams it has the
// hierarchical advantage over, and the other teams that borrow.
type sourcesOf struct {
	same, hier, prio []source
}

func (c *Core) classicalSources(e *entry, out *sourcesOf) {
	t := c.tree
	spec := &c.m.Queues[e.q]
	out.same, out.hier, out.prio = out.same[:0], out.hier[:0], out.prio[:0]
	if spec.WithinQueue != Never {
		out.same = append(out.same, source{e.q, -1})
	}
	if t.nodes[e.qn].parent < 0 || spec.Reclaim == Never {
		return
	}
	adv, rem := t.fitsInQuota(e.qn, e.usage, c.scratch.rem[:0])
	prev := -1
	for cur := t.nodes[e.qn].parent; cur >= 0; cur = t.nodes[cur].parent {
		if adv {
			out.hier = c.collectSubtree(e, cur, prev, cur, out.hier)
		} else {
			out.prio = c.collectSubtree(e, cur, prev, cur, out.prio)
		}
		var fits bool
		fits, rem = t.fitsInQuota(cur, rem, c.scratch.rem2[:0])
		c.scratch.rem, c.scratch.rem2 = rem, c.scratch.rem
		adv = adv || fits
		prev = cur
	}
}

// prioBound is the priority at which a pass stops taking from teams the
// preemptor has no advantage over: while it borrows, only what
// borrowWithinCohort allows (classify, candidateValid).
func (c *Core) prioBound(e *entry, allowBorrow bool) int32 {
	spec := &c.m.Queues[e.q]
	b := bound(spec.Reclaim, e.w)
	if !allowBorrow {
		return b
	}
	return min(b, borrowBound(spec, e.w))
}

func (c *Core) classicalTargets(e *entry) []target {
	src := &c.scratch.sources
	okBorrow, okNominal := c.sourcesAndFirstTest(e, src)
	same, hier, prio := src.same, src.hier, src.prio
	if !okBorrow && !okNominal {
		c.tally(FirstTest, true)
		if checking {
			c.checkNoTargets(FirstTest, e)
		}
		return nil
	}
	if c.on(FirstTest) {
		c.tally(FirstTest, false)
	}
	spec := &c.m.Queues[e.q]
	hasHier, hasPrio, hasSame := c.anyCandidate(e, hier), c.anyCandidate(e, prio), c.anyCandidate(e, same)
	if !hasHier && !hasPrio && !hasSame {
		return nil
	}
	noOther := !hasHier && !hasPrio
	bwcForbidden := spec.BorrowWithin == Never
	var passes []bool
	switch {
	case noOther || (bwcForbidden && !c.underNominal(e)):
		passes = []bool{true}
	case bwcForbidden && !hasHier:
		passes = []bool{false, true}
	default:
		passes = []bool{true, false}
	}
	for _, allowBorrow := range passes {
		if (allowBorrow && !okBorrow) || (!allowBorrow && !okNominal) {
			continue
		}
		targets := c.scratch.targets[:0]
		pb := c.prioBound(e, allowBorrow)
		// Jobs being evicted first, then the others; within each, teams
		// the preemptor has the advantage over, other teams, its own.
		for i := range 6 {
			m := &c.scratch.merges
			switch i {
			case 0, 3:
				c.merged(m, e, hier, true, i == 0, maxPrio)
			case 1, 4:
				c.merged(m, e, prio, false, i == 1, pb)
			default:
				c.merged(m, e, same, false, i == 2, maxPrio)
			}
			for j := m.peekIdx(); j >= 0; j = m.peekIdx() {
				w, lca := m.its[j].pop(), m.lca[j]
				v := c.classify(e, w, lca >= 0 && c.hasAdvantage(e, hier, w))
				if w.Queue != e.q && !c.stillBorrowing(w.Queue, lca, e.frsNeed) {
					// Takes only lower usage: the team's other jobs are
					// out of reach for the rest of the pass.
					m.its[j] = nil
					continue
				}
				if allowBorrow && v == vReclaimWithoutBorrowing && w.Queue != e.q {
					continue
				}
				c.counts.Work.Tried++
				c.removeTarget(w)
				targets = append(targets, target{w, v.reason()})
				if c.fits(e, allowBorrow) {
					targets = c.minimise(e, targets, allowBorrow)
					c.restoreTargets(targets)
					c.scratch.targets = targets[:0]
					return keepTargets(e.w, targets)
				}
			}
		}
		c.restoreTargets(targets)
		c.scratch.targets = targets[:0]
	}
	return nil
}

// hasAdvantage says whether a candidate's team was collected with the
// preemptor's hierarchical advantage.
func (c *Core) hasAdvantage(e *entry, hier []source, w *Workload) bool {
	for _, s := range hier {
		if s.team == w.Queue {
			return true
		}
	}
	return false
}

// underNominal: the preemptor's team uses strictly less than its quota on
// every flavor-resource that needs preemption.
func (c *Core) underNominal(e *entry) bool {
	nd := &c.tree.nodes[e.qn]
	for _, fr := range e.frsNeed {
		if cell := &nd.cells[fr]; cell.quota.Nominal <= cell.usage {
			return false
		}
	}
	return true
}

// stillBorrowing says whether team q's jobs may still be reclaimed by a
// preemptor whose path meets q's at cohort lca: q, and every cohort
// between it and lca, use more than their quota on one of frs.
func (c *Core) stillBorrowing(q, lca int, frs []int) bool {
	t := c.tree
	qn := t.qNode[q]
	if t.withinNominal(qn, frs) {
		return false
	}
	for n := t.nodes[qn].parent; n >= 0 && n != lca; n = t.nodes[n].parent {
		if t.withinNominal(n, frs) {
			return false
		}
	}
	return true
}

func (c *Core) minimise(e *entry, targets []target, allowBorrow bool) []target {
	for i := len(targets) - 2; i >= 0; i-- {
		if c.backLeavesTooFewNodes(e, targets[i].w) {
			if checking {
				c.restoreTarget(targets[i].w)
				if c.fits(e, allowBorrow) {
					panic("allotcheck: a victim put back left too few nodes by the pool's counts, yet the job fits")
				}
				c.removeTarget(targets[i].w)
			}
			continue // it stays a target: putting it back and taking it out again changes nothing
		}
		c.restoreTarget(targets[i].w)
		if c.fits(e, allowBorrow) {
			targets[i] = targets[len(targets)-1]
			targets = targets[:len(targets)-1]
		} else {
			c.removeTarget(targets[i].w)
		}
	}
	return targets
}

// backLeavesTooFewNodes says whether, with victim x back on its nodes, e's
// job would find too few whole nodes free: the answer fits would give
// after restoreTarget, read off the pool's counts without moving x.
func (c *Core) backLeavesTooFewNodes(e *entry, x *Workload) bool {
	pl := &x.place
	if e.flavor < 0 || !e.placeNeed.whole || pl.flavor != e.flavor || len(pl.nodes) == 0 {
		return false
	}
	p := c.pools[e.flavor]
	if p == nil {
		return false
	}
	return p.nWhole+p.trialWhole-p.trialEmptied(pl) < e.placeNeed.nodes
}

// removeTarget simulates a job's departure: quota and nodes.
func (c *Core) removeTarget(w *Workload) {
	c.tree.removeAll(c.tree.qNode[w.Queue], w.usage)
	if pl := &w.place; pl.flavor >= 0 && c.pools[pl.flavor] != nil && len(pl.nodes) > 0 {
		c.pools[pl.flavor].trialRelease(pl)
	}
}

func (c *Core) restoreTarget(w *Workload) {
	c.tree.addAll(c.tree.qNode[w.Queue], w.usage)
	if pl := &w.place; pl.flavor >= 0 && c.pools[pl.flavor] != nil && len(pl.nodes) > 0 {
		c.pools[pl.flavor].trialOccupy(pl)
	}
}

func (c *Core) restoreTargets(ts []target) {
	for _, t := range ts {
		c.restoreTarget(t.w)
	}
}

// treeRemove and treeRestore move targets' usage in the quota tree only,
// for questions about quota and shares that do not involve nodes.
func (c *Core) treeRemove(ts []target) {
	for _, t := range ts {
		c.tree.removeAll(c.tree.qNode[t.w.Queue], t.w.usage)
	}
}

func (c *Core) treeRestore(ts []target) {
	for _, t := range ts {
		c.tree.addAll(c.tree.qNode[t.w.Queue], t.w.usage)
	}
}
