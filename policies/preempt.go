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

type cand struct {
	w   *Workload
	lca int
	v   variant
}

func (c *Core) findTargets(e *entry) []target {
	c.arena.reset()
	c.took.known = false
	if c.m.FairSharing.Enabled {
		return c.fairTargets(e)
	}
	return c.classicalTargets(e)
}

// satisfies says whether policy p lets preemptor a preempt b.
func satisfies(p PreemptPolicy, a, b *Workload) bool {
	switch p {
	case LowerPriority:
		return b.Priority < a.Priority
	case LowerOrNewerEqualPriority:
		return b.Priority < a.Priority || (b.Priority == a.Priority && a.Order < b.Order)
	case Any:
		return true
	}
	return false
}

func usesAny(w *Workload, frs []int) bool {
	for _, fr := range frs {
		if w.usesFR(fr) {
			return true
		}
	}
	return false
}

// candidateLess is Kueue's CandidatesOrdering, plus least lost work.
func (c *Core) candidateLess(a, b *Workload, q int) bool {
	ae, be := a.state == stateEvicting, b.state == stateEvicting
	if ae != be {
		return ae
	}
	ao, bo := a.Queue != q, b.Queue != q
	if ao != bo {
		return ao
	}
	if c.afs != nil && a.Queue == b.Queue && a.User != b.User {
		sa, sb := c.afs.score(a.Queue, a.User, c.now), c.afs.score(b.Queue, b.User, c.now)
		if sa != sb {
			return sa > sb
		}
	}
	if a.Priority != b.Priority {
		return a.Priority < b.Priority
	}
	if c.m.PreferLeastLostWork {
		la, lb := a.LostWork(c.now), b.LostWork(c.now)
		if la != lb {
			return la < lb
		}
	}
	return admissionCmp(a, b) < 0
}

func (c *Core) classify(e *entry, w *Workload, adv bool) variant {
	if !usesAny(w, e.frsNeed) || c.isClaimed(w) && w.state != stateEvicting {
		return vNever
	}
	spec := &c.m.Queues[e.q]
	p := spec.Reclaim
	if w.Queue == e.q {
		p = spec.WithinQueue
	}
	if !satisfies(p, e.w, w) {
		return vNever
	}
	if w.Queue == e.q {
		return vWithinQueue
	}
	if adv {
		return vHierarchical
	}
	if spec.BorrowWithin == Never {
		return vReclaimWithoutBorrowing
	}
	if w.Priority >= e.w.Priority || (spec.HasBorrowThreshold && w.Priority > spec.BorrowThreshold) {
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
	for _, qn := range t.nodes[cur].queues {
		if qn == e.qn || t.withinNominal(qn, e.frsNeed) {
			continue
		}
		out = append(out, source{t.nodes[qn].queue, lca})
	}
	return out
}

// mergeIter yields the candidates of several teams in candidate order.
type mergeIter struct {
	c   *Core
	q   int
	its []*candIter
	lca []int
}

func (m *mergeIter) peekIdx() int {
	best := -1
	for i, it := range m.its {
		w := it.peek()
		if w == nil {
			continue
		}
		if best < 0 || m.c.candidateLess(w, m.its[best].peek(), m.q) {
			best = i
		}
	}
	return best
}

func (m *mergeIter) pop() (*Workload, int) {
	i := m.peekIdx()
	if i < 0 {
		return nil, -1
	}
	return m.its[i].pop(), m.lca[i]
}

func (c *Core) merged(e *entry, srcs []source, adv, evicting bool) *mergeIter {
	m := &mergeIter{c: c, q: e.q}
	for _, s := range srcs {
		filter := func(w *Workload) bool {
			return (w.state == stateEvicting) == evicting && c.classify(e, w, adv) != vNever
		}
		p := c.m.Queues[e.q].Reclaim
		if s.team == e.q {
			p = c.m.Queues[e.q].WithinQueue
		}
		m.its = append(m.its, c.newCandIter(s.team, e.q, e.frsNeed, bound(p, e.w), filter))
		m.lca = append(m.lca, s.lca)
	}
	return m
}

func (c *Core) classicalTargets(e *entry) []target {
	t := c.tree
	spec := &c.m.Queues[e.q]
	var same, hier, prio []source
	if spec.WithinQueue != Never {
		same = []source{{e.q, -1}}
	}
	if t.nodes[e.qn].parent >= 0 && spec.Reclaim != Never {
		adv, rem := t.fitsInQuota(e.qn, e.usage, c.scratch.rem[:0])
		prev := -1
		for cur := t.nodes[e.qn].parent; cur >= 0; cur = t.nodes[cur].parent {
			if adv {
				hier = c.collectSubtree(e, cur, prev, cur, hier)
			} else {
				prio = c.collectSubtree(e, cur, prev, cur, prio)
			}
			var fits bool
			fits, rem = t.fitsInQuota(cur, rem, c.scratch.rem2[:0])
			c.scratch.rem, c.scratch.rem2 = rem, c.scratch.rem
			adv = adv || fits
			prev = cur
		}
	}
	chain := func() []*mergeIter {
		return []*mergeIter{
			c.merged(e, hier, true, true), c.merged(e, prio, false, true), c.merged(e, same, false, true),
			c.merged(e, hier, true, false), c.merged(e, prio, false, false), c.merged(e, same, false, false),
		}
	}
	probe := chain()
	hasHier := probe[0].peekIdx() >= 0 || probe[3].peekIdx() >= 0
	hasPrio := probe[1].peekIdx() >= 0 || probe[4].peekIdx() >= 0
	hasSame := probe[2].peekIdx() >= 0 || probe[5].peekIdx() >= 0
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
		targets := c.scratch.targets[:0]
		for _, m := range chain() {
			for w, lca := m.pop(); w != nil; w, lca = m.pop() {
				v := c.classify(e, w, lca >= 0 && c.hasAdvantage(e, hier, w))
				if !c.candidateValid(e, cand{w, lca, v}, allowBorrow) {
					continue
				}
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

func (c *Core) candidateValid(e *entry, cd cand, allowBorrow bool) bool {
	if cd.w.Queue == e.q {
		return true
	}
	if allowBorrow && cd.v == vReclaimWithoutBorrowing {
		return false
	}
	t := c.tree
	qn := t.qNode[cd.w.Queue]
	if t.withinNominal(qn, e.frsNeed) {
		return false
	}
	for n := t.nodes[qn].parent; n >= 0 && n != cd.lca; n = t.nodes[n].parent {
		if t.withinNominal(n, e.frsNeed) {
			return false
		}
	}
	return true
}

// fits says whether the entry's job fits the team's quota (within nominal
// when borrowing is not allowed) and, where modelled, on nodes.
func (c *Core) fits(e *entry, allowBorrow bool) bool {
	t := c.tree
	for _, u := range e.usage {
		if !allowBorrow && t.borrowingWith(e.qn, u.fr, u.q) {
			return false
		}
		if u.q > t.queueAvailable(e.qn, u.fr) {
			return false
		}
	}
	if e.flavor >= 0 {
		if p := c.pools[e.flavor]; p != nil && !p.fits(e.placeNeed) {
			return false
		}
	}
	return true
}

// fitsOwnUsageIn is fits(e, true) asked while e's own usage is in the tree.
func (c *Core) fitsOwnUsageIn(e *entry) bool {
	for _, u := range e.usage {
		if u.q > max(0, c.tree.availableLess(e.qn, u.fr, u.q)) {
			return false
		}
	}
	if e.flavor >= 0 {
		if p := c.pools[e.flavor]; p != nil && !p.fits(e.placeNeed) {
			return false
		}
	}
	return true
}

func (c *Core) minimise(e *entry, targets []target, allowBorrow bool) []target {
	for i := len(targets) - 2; i >= 0; i-- {
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
