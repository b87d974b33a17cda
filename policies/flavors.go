package policies

// Choosing an instance type (flavor) for one podset and resource group:
// each flavor in the job's order is rated against quota and nodes
// (rateFlavor), those that need preemption get a victim search
// (searchFlavor), and the best by Kueue's preference wins (better).

// chooseFlavor returns the best flavor for podset pi in group g, or one
// with f = -1 and mode modeNoFit when no flavor applies; the reasons each
// flavor gave are added to e. The choice lives in scratch space: it holds
// until the next call.
func (c *Core) chooseFlavor(e *entry, pi int, g *ResourceGroup, acc accUsage) *flavorChoice {
	w := e.w
	spec := &c.m.Queues[e.q]
	pob := spec.Fungibility.PreemptionOverBorrowing
	var best *flavorChoice // nil until a flavor is folded in; never copied
	fold := func(ch *flavorChoice) {
		e.addWhy(ch.why)
		if better(ch, best, pob) {
			best = ch
		}
	}
	// A flavor that needs preemption cannot beat one where the job
	// fits (unless preemption is preferred to borrowing), nor one
	// that reclaims without borrowing: whatever its search found,
	// better() would keep the best so far.
	skipSearch := func() bool {
		return best != nil && ((best.mode == modeFit && !pob) || (best.mode == modeReclaim && best.borrow == 0))
	}
	// Against a best that reclaims at some borrowing level, a flavor can
	// only win by reclaiming at a lower one (a tie keeps the earlier
	// flavor): searchFlavor skips one that cannot.
	tieSkipped := false
	reclaimBar := func() int {
		if best != nil && !pob && best.mode == modeReclaim && c.on(TieSkip) {
			c.tally(TieSkip, true)
			tieSkipped = true
			return best.borrow
		}
		return -1
	}
	// Unless a found victim ends the search over flavors, searches
	// wait until every flavor is rated: a later flavor where the job
	// fits makes them moot.
	lazy := !spec.Fungibility.WhenCanPreemptStop
	seen := c.scratch.rated[:0] // chooseFlavor never runs inside itself
	slots := &c.scratch.slots   // the flavor rated now and the best so far, when not lazy
	for _, f := range c.flavorOrder(w, g) {
		if !forcedAllows(w, g, f) {
			continue
		}
		var r *ratedFlavor
		if lazy {
			seen = append(seen, ratedFlavor{})
			r = &seen[len(seen)-1]
		} else if r = &slots[0]; best == &r.ch {
			r = &slots[1]
		}
		r.search = c.rateFlavor(&r.ch, e, pi, g, f, acc)
		ch, search := &r.ch, r.search
		if search && !lazy {
			c.searchFlavor(e, pi, g, acc, ch, skipSearch(), reclaimBar())
		}
		if !lazy {
			fold(ch)
		}
		if search {
			if !lazy && (ch.mode == modePreempt || ch.mode == modeReclaim) {
				break // the first flavor with victims ends the search
			}
			continue
		}
		if ch.mode == modeFit && (ch.borrow == 0 || !spec.Fungibility.WhenCanBorrowTryNext) {
			break
		}
	}
	c.scratch.rated = seen[:0] // seen's array is left as it is: best may point into it
	if lazy {
		moot := false
		for i := range seen {
			if ch := &seen[i].ch; !seen[i].search && ch.mode == modeFit && (!pob || ch.borrow == 0) {
				moot = true
			}
		}
		for i := range seen {
			if seen[i].search {
				if moot {
					continue
				}
				c.searchFlavor(e, pi, g, acc, &seen[i].ch, skipSearch(), reclaimBar())
			}
			fold(&seen[i].ch)
		}
	}
	if best == nil {
		best = &slots[0].ch
		*best = flavorChoice{f: -1, mode: modeNoFit}
		e.addWhy(why{code: whyNoType, f: -1, r: -1})
	}
	if checking && tieSkipped {
		return c.checkChoice(e, pi, g, acc, best)
	}
	return best
}

// ratedFlavor is a flavor's rating, and whether it still needs a search.
type ratedFlavor struct {
	ch     flavorChoice
	search bool
}

// rateFlavor classifies one flavor for one podset short of looking for
// victims; it reports whether the flavor needs preemption, so that
// searchFlavor must finish it.
func (c *Core) rateFlavor(ch *flavorChoice, e *entry, pi int, g *ResourceGroup, f int, acc accUsage) bool {
	w := e.w
	t := c.tree
	nR := len(c.m.Resources)
	*ch = flavorChoice{f: f, mode: modeFit}
	n := c.need(w.shape, f)
	if !n.ok {
		*ch = flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNotPlaceable, f: f, r: -1}}
		return false
	}
	qnode := &t.nodes[e.qn]
	preemptPossible := true
	frs := c.scratch.frs[:0] // needed flavor-resources; copied out if kept
	for _, r := range g.Resources {
		req := n.podsets[pi][r]
		if req <= 0 {
			continue
		}
		fr := f*nR + r
		if !qnode.declared[fr] {
			*ch = flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNoQuota, f: f, r: r}}
			return false
		}
		val := acc.get(fr) + req
		if pa := t.potentialAvailable(e.qn, fr); val > pa {
			*ch = flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNeverFits, f: f, r: r, val: val, avail: pa}}
			return false
		}
		if val <= t.queueAvailable(e.qn, fr) {
			ch.borrow = max(ch.borrow, t.lowestSubtreeHeightThatFits(e.qn, fr, val))
			continue
		}
		frs = append(frs, fr)
		if !(val <= qnode.cells[fr].quota.Nominal || c.mayReclaimInHierarchy(e.qn, fr, val) || c.canPreemptWhileBorrowing(e.q)) {
			preemptPossible = false
			e.othersMatter = true
			ch.why = why{code: whyNoPreemption, f: f, r: r, val: val, avail: t.queueAvailable(e.qn, fr)}
		}
		if ch.mode == modeFit {
			ch.mode = modePreempt
		}
	}
	// Room on nodes, where they are modelled.
	if p := c.pools[f]; p != nil && ch.mode == modeFit && !p.fits(n.place) {
		ch.mode = modePreempt
		if fs := &c.m.Flavors[f]; fs.AccelResource >= 0 {
			frs = append(frs, f*nR+fs.AccelResource)
		}
	}
	c.scratch.frs = frs[:0]
	if ch.mode == modeFit {
		return false
	}
	ch.frsNeed = c.keepFRs(w.kept(), frs)
	if !preemptPossible {
		ch.mode = modeNoFit
		return false
	}
	return true
}

// searchFlavor finishes rating a flavor that needs preemption: it looks for
// victims (single-podset jobs; others get targets for their whole
// assignment later). With skip, the flavor is reported as having none
// without looking (the caller already has a better choice); so it is when
// victims in other teams would leave the job borrowing at level bar or
// above (bar < 0: no such bar).
func (c *Core) searchFlavor(e *entry, pi int, g *ResourceGroup, acc accUsage, ch *flavorChoice, skip bool, bar int) {
	w, f := e.w, ch.f
	if skip {
		ch.mode = modeNoCandidates
		return
	}
	if w.shape.generic || len(e.w.shape.req.PodSets) == 1 {
		// The search for one flavor, in a reused entry that never outlives
		// the call. A search reads only these fields, so only they are set:
		// clearing the whole entry cost more than the search's prelude.
		sub := &c.sub
		sub.w, sub.q, sub.qn, sub.frsNeed, sub.flavor = w, e.q, e.qn, ch.frsNeed, f
		sub.placeNeed = placeNeed{}
		if u := c.need(w.shape, f).soleUsage; len(acc) == 0 && u != nil && c.wholeGroup(g) {
			sub.usage = u // what usageFor would build: shared, never written
		} else {
			sub.usage = c.usageFor(w, pi, g, f, acc, c.scratch.subUsage[:0])
			c.scratch.subUsage = sub.usage[:0]
		}
		if bar >= 0 && c.reclaimBorrowAtLeast(e, sub.usage, bar) {
			ch.mode = modeNoCandidates
			ch.borrow = c.borrowAfter(e, sub.usage, nil) // as a search finding none reports it
			return
		}
		if p := c.pools[f]; p != nil {
			sub.placeNeed = c.need(w.shape, f).place
		}
		c.ownStop = false
		ch.targets = c.targetsOn(e, sub, f)
		if len(ch.targets) > 0 || !c.ownStop {
			e.othersMatter = true
		}
		if len(ch.targets) == 0 {
			ch.mode = modeNoCandidates
			ch.why = why{code: whyNoCandidates, f: f, r: -1}
			// Its borrowing as things are (Kueue's borrowing after the
			// preemptions it could not find): a head that would borrow
			// goes after one within its quota.
			ch.borrow = c.borrowAfter(e, sub.usage, nil)
			return
		}
		ch.mode = modeReclaim
		for _, tg := range ch.targets {
			if tg.w.Queue == e.q {
				ch.mode = modePreempt
			}
		}
		ch.borrow = c.borrowAfter(e, sub.usage, ch.targets)
		return
	}
	e.othersMatter = true // victims are found for the whole assignment later
}

// borrowAfter is the borrowing level of usage in e's queue once targets are
// gone. Under a root cohort it reads the queue's own usage less its own
// targets (the level is 0 or the root's height, whatever the root holds);
// deeper trees move the targets out of the tree for the question.
func (c *Core) borrowAfter(e *entry, usage []frQty, targets []target) int {
	if c.tree.underRoot(e.qn) {
		return c.borrowAfterUnderRoot(e, usage, targets)
	}
	return c.borrowAfterInTree(e, usage, targets)
}

// reclaimBorrowAtLeast says whether usage, admitted once victims in other
// teams are gone, would borrow at level bar or above. Under a root cohort
// such victims leave the queue's own usage, and so its level, as it is;
// deeper, they could free room in a cohort between, so no answer is given.
func (c *Core) reclaimBorrowAtLeast(e *entry, usage []frQty, bar int) bool {
	if !c.tree.underRoot(e.qn) {
		return false
	}
	return c.borrowAfterUnderRoot(e, usage, nil) >= bar
}

func (c *Core) borrowAfterUnderRoot(e *entry, usage []frQty, targets []target) int {
	t := c.tree
	nd, root := &t.nodes[e.qn], &t.nodes[t.nodes[e.qn].parent]
	b := 0
	for _, u := range usage {
		own := Qty(0)
		for _, tg := range targets {
			if tg.w.Queue == e.q {
				own += accUsage(tg.w.usage).get(u.fr)
			}
		}
		if cell := &nd.cells[u.fr]; cell.usage-own+u.q > cell.subtree {
			b = max(b, root.height)
		}
	}
	return b
}

func (c *Core) borrowAfterInTree(e *entry, usage []frQty, targets []target) int {
	t := c.tree
	b := 0
	c.treeRemove(targets)
	for _, u := range usage {
		b = max(b, t.lowestSubtreeHeightThatFits(e.qn, u.fr, u.q))
	}
	c.treeRestore(targets)
	return b
}

// better reports whether a is preferred to b (Kueue isPreferred).
func better(a, b *flavorChoice, pob bool) bool {
	if b == nil {
		return true
	}
	if a.mode == modeNoFit || b.mode == modeNoFit || a.mode == modeNoCandidates || b.mode == modeNoCandidates {
		return a.mode > b.mode
	}
	if pob {
		if a.borrow != b.borrow {
			return a.borrow < b.borrow
		}
		return a.mode > b.mode
	}
	if a.mode != b.mode {
		return a.mode > b.mode
	}
	return a.borrow < b.borrow
}

// flavorOrder lists the flavors of a group a job may try, in order. The
// list depends on the job's request and the group's flavors alone, so the
// job's shape keeps it, per list of group flavors (teams' groups often
// list the same ones); it is never written.
func (c *Core) flavorOrder(w *Workload, g *ResourceGroup) []int {
	s := w.shape
	for i := range s.orders {
		if o := &s.orders[i]; sameFlavors(o.group, g.Flavors) {
			return o.flavors
		}
	}
	o := groupOrder{flavors: appendFlavorOrder(w, g, nil)}
	for _, fq := range g.Flavors {
		o.group = append(o.group, fq.Flavor)
	}
	s.orders = append(s.orders, o)
	return o.flavors
}

func sameFlavors(group []int, fqs []FlavorQuotas) bool {
	if len(group) != len(fqs) {
		return false
	}
	for i, f := range group {
		if fqs[i].Flavor != f {
			return false
		}
	}
	return true
}

func appendFlavorOrder(w *Workload, g *ResourceGroup, buf []int) []int {
	if w.Req.Compatible != nil {
		for _, f := range w.Req.Compatible {
			for _, fq := range g.Flavors {
				if fq.Flavor == f {
					buf = append(buf, f)
					break
				}
			}
		}
		return buf
	}
	for _, fq := range g.Flavors {
		buf = append(buf, fq.Flavor)
	}
	return buf
}

// usageFor is the job's usage with podset pi of group g on flavor f, added
// to u (the caller's buffer).
func (c *Core) usageFor(w *Workload, pi int, g *ResourceGroup, f int, acc accUsage, u []frQty) []frQty {
	nR := len(c.m.Resources)
	n := c.need(w.shape, f)
	for _, x := range acc {
		if x.fr/nR != f {
			u = append(u, x)
		}
	}
	for _, r := range g.Resources {
		if v := n.podsets[pi][r]; v > 0 {
			u = append(u, frQty{f*nR + r, acc.get(f*nR+r) + v})
		}
	}
	return u
}

// wholeGroup says whether group g holds every resource, in order: then a
// one-podset job's usage of a flavor in it is its sole usage there.
func (c *Core) wholeGroup(g *ResourceGroup) bool {
	if len(g.Resources) != len(c.m.Resources) {
		return false
	}
	for i, r := range g.Resources {
		if r != i {
			return false
		}
	}
	return true
}

// forcedAllows applies a snapshot's forced flavor per resource.
func forcedAllows(w *Workload, g *ResourceGroup, f int) bool {
	if len(w.ForcedFlavors) == 0 { // most jobs: no map lookup per resource
		return true
	}
	for _, r := range g.Resources {
		if ff, ok := w.ForcedFlavors[r]; ok && ff != f {
			return false
		}
	}
	return true
}
