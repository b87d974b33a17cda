package policies

import (
	"fmt"
	"strings"
)

// Flavor assignment: for each podset and resource group, try the flavors in
// order (the job's own preference list, else the queue's order) and rate each
// one: it fits (maybe by borrowing), it needs preemption (of own lower
// priority jobs, or reclaim of lent quota), or it cannot fit. Fungibility
// decides whether to stop at the first usable flavor or look for a better
// one. Kueue's flavorassigner, plus a check that the job also fits on nodes.

type mode uint8

const (
	modeNoFit mode = iota
	modeNoCandidates
	modePreempt
	modeReclaim
	modeFit
)

type entry struct {
	w          *Workload
	q          int
	qn         int
	mode       mode
	assignment [][]int
	usage      []frQty
	borrowing  int
	frsNeed    []int
	targets    []target
	whys       [4]why
	nWhy       int
	placeNeed  placeNeed
	flavor     int // placement flavor (single-podset generic jobs)
}

type target struct {
	w      *Workload
	reason string
}

type flavorChoice struct {
	f       int
	mode    mode
	borrow  int
	targets []target
	frsNeed []int
	why     why
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

// flavorOrder lists the flavors of a group a job may try, in order.
func (c *Core) flavorOrder(w *Workload, g *ResourceGroup, buf []int) []int {
	buf = buf[:0]
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

// canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing with reclaim.
func (c *Core) canPreemptWhileBorrowing(q int) bool {
	spec := &c.m.Queues[q]
	return spec.BorrowWithin != Never || (c.m.FairSharing.Enabled && spec.Reclaim != Never)
}

// mayReclaimInHierarchy: a subtree below the root would hold val.
func (c *Core) mayReclaimInHierarchy(qn, fr int, v Qty) bool {
	t := c.tree
	nd := &t.nodes[qn]
	if !(t.borrowingWith(qn, fr, v) && nd.parent >= 0) {
		return nd.parent >= 0
	}
	remaining := v - t.localAvailable(qn, fr)
	for p := nd.parent; p >= 0; p = t.nodes[p].parent {
		if !t.borrowingWith(p, fr, remaining) {
			return t.nodes[p].parent >= 0
		}
		remaining -= t.localAvailable(p, fr)
	}
	return false
}

// accUsage is a job's usage so far in an assignment, per flavor-resource.
type accUsage []frQty

func (a accUsage) get(fr int) Qty {
	for _, x := range a {
		if x.fr == fr {
			return x.q
		}
	}
	return 0
}

func (a accUsage) add(fr int, q Qty) accUsage {
	for i := range a {
		if a[i].fr == fr {
			a[i].q += q
			return a
		}
	}
	return append(a, frQty{fr, q})
}

// whyCode says why a flavor cannot take a job; the text is made only when
// someone asks (Core.Why), so that scheduling does not format strings.
type whyCode uint8

const (
	whyNone whyCode = iota
	whyNotPlaceable
	whyNoQuota
	whyNeverFits
	whyNoPreemption
	whyNoCandidates
	whyNoType
)

type why struct {
	code       whyCode
	f, r       int
	val, avail Qty
}

func (c *Core) whyText(x why) string {
	fname := ""
	if x.f >= 0 && x.f < len(c.m.Flavors) {
		fname = c.m.Flavors[x.f].Name
	}
	res := ""
	if x.r >= 0 && x.r < len(c.m.Resources) {
		res = c.m.Resources[x.r]
	}
	switch x.code {
	case whyNotPlaceable:
		return fmt.Sprintf("%s: the job does not fit on one of its nodes", fname)
	case whyNoQuota:
		return fmt.Sprintf("%s: the team has no quota for %s", fname, res)
	case whyNeverFits:
		return fmt.Sprintf("%s: asks %s %s, more than the team could ever get (%s: quota plus borrowing limit)", fname, fmtQty(x.val), res, fmtQty(x.avail))
	case whyNoPreemption:
		return fmt.Sprintf("%s: %s %s free to the team, %s needed, and it may not preempt beyond its quota", fname, fmtQty(x.avail), res, fmtQty(x.val))
	case whyNoCandidates:
		return fmt.Sprintf("%s: not enough free and no running job may be preempted for it", fname)
	case whyNoType:
		return "no compatible instance type in the team's quota"
	}
	return ""
}

// reasonText joins an entry's reasons.
func (c *Core) reasonText(e *entry) string {
	var parts []string
	for _, x := range e.whys[:e.nWhy] {
		parts = append(parts, c.whyText(x))
	}
	if e.mode == modeNoCandidates && len(parts) == 0 {
		return "needs preemption but no running job may be preempted for it"
	}
	return strings.Join(dedupe(parts), "; ")
}

func (e *entry) addWhy(x why) {
	if x.code != whyNone && e.nWhy < len(e.whys) {
		e.whys[e.nWhy] = x
		e.nWhy++
	}
}

// nominate computes a head's flavor assignment and, if it needs preemption,
// its targets, against the current state.
func (c *Core) nominate(e *entry) {
	w := e.w
	spec := &c.m.Queues[e.q]
	nR := len(c.m.Resources)
	nPS := 1
	if !w.shape.generic {
		nPS = len(w.shape.req.PodSets)
	}
	// Built in scratch space, then kept as the head's last nomination's
	// slices when equal (a waiting head is renominated many times).
	e.assignment = grow(c.scratch.asg, nPS)
	cells := grow(c.scratch.cells, nPS*len(spec.Groups))
	c.scratch.asg, c.scratch.cells = e.assignment, cells
	e.frsNeed = c.scratch.frsNeed[:0]
	e.mode = modeFit
	e.flavor = -1
	var accBuf [4]frQty
	acc := accUsage(accBuf[:0]) // earlier podsets' usage of this job
	var flv [16]int
	pob := spec.Fungibility.PreemptionOverBorrowing
	for pi := range e.assignment {
		e.assignment[pi] = cells[pi*len(spec.Groups) : (pi+1)*len(spec.Groups) : (pi+1)*len(spec.Groups)]
		for gi := range spec.Groups {
			g := &spec.Groups[gi]
			e.assignment[pi][gi] = -1
			if !c.requestsGroup(w, pi, g) {
				continue
			}
			var best flavorChoice
			haveBest := false
			firstWhy := e.nWhy
			fold := func(ch *flavorChoice) {
				e.addWhy(ch.why)
				if !haveBest || better(ch, &best, pob) {
					best, haveBest = *ch, true
				}
			}
			// A flavor that needs preemption cannot beat one where the job
			// fits (unless preemption is preferred to borrowing), nor one
			// that reclaims without borrowing: whatever its search found,
			// better() would keep the best so far.
			skipSearch := func() bool {
				return haveBest && ((best.mode == modeFit && !pob) || (best.mode == modeReclaim && best.borrow == 0))
			}
			// Unless a found victim ends the search over flavors, searches
			// wait until every flavor is rated: a later flavor where the job
			// fits makes them moot.
			lazy := !spec.Fungibility.WhenCanPreemptStop
			var rated [8]ratedFlavor
			seen := rated[:0]
			for _, f := range c.flavorOrder(w, g, flv[:0]) {
				if !forcedAllows(w, g, f) {
					continue
				}
				ch, search := c.rateFlavor(e, pi, g, f, acc)
				if search && !lazy {
					ch = c.searchFlavor(e, pi, g, acc, ch, skipSearch())
				}
				if lazy {
					seen = append(seen, ratedFlavor{ch, search})
				} else {
					fold(&ch)
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
						seen[i].ch = c.searchFlavor(e, pi, g, acc, seen[i].ch, skipSearch())
					}
					fold(&seen[i].ch)
				}
			}
			if !haveBest {
				best = flavorChoice{f: -1, mode: modeNoFit}
				e.addWhy(why{code: whyNoType, f: -1, r: -1})
			}
			if best.mode != modeNoFit && best.mode != modeNoCandidates {
				e.nWhy = firstWhy // reasons matter only when the job cannot go
			}
			if best.mode < e.mode {
				e.mode = best.mode
			}
			if best.f < 0 {
				continue
			}
			e.assignment[pi][gi] = best.f
			e.borrowing = max(e.borrowing, best.borrow)
			e.frsNeed = append(e.frsNeed, best.frsNeed...)
			if best.mode == modePreempt || best.mode == modeReclaim {
				e.targets = best.targets
			}
			if e.flavor < 0 {
				e.flavor = best.f
			}
			n := c.need(w.shape, best.f)
			for _, r := range g.Resources {
				if v := n.podsets[pi][r]; v > 0 {
					acc = acc.add(best.f*nR+r, v)
				}
			}
		}
	}
	c.scratch.frsNeed = e.frsNeed[:0]
	c.keepNomination(e, acc)
	if e.mode == modeNoFit || e.mode == modeNoCandidates {
		return
	}
	if e.mode == modePreempt || e.mode == modeReclaim {
		// Multi-podset or multi-group jobs: targets for the whole assignment.
		if len(e.assignment) > 1 || len(spec.Groups) > 1 {
			e.targets = c.findTargets(e)
		}
		if len(e.targets) == 0 {
			e.mode = modeNoCandidates
		}
	}
	if e.flavor >= 0 && c.pools[e.flavor] != nil {
		e.placeNeed = c.need(w.shape, e.flavor).place
	}
}

func dedupe(xs []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, x := range xs {
		if !seen[x] {
			seen[x] = true
			out = append(out, x)
		}
	}
	return out
}

// requestsGroup says whether podset pi asks for any resource of group g on
// some flavor.
func (c *Core) requestsGroup(w *Workload, pi int, g *ResourceGroup) bool {
	if w.shape.generic {
		return true
	}
	for _, r := range g.Resources {
		if w.shape.req.PodSets[pi].PerPod[r] > 0 {
			return true
		}
	}
	return false
}

// ratedFlavor is a flavor's rating, and whether it still needs a search.
type ratedFlavor struct {
	ch     flavorChoice
	search bool
}

// rateFlavor classifies one flavor for one podset short of looking for
// victims; it reports whether the flavor needs preemption, so that
// searchFlavor must finish it.
func (c *Core) rateFlavor(e *entry, pi int, g *ResourceGroup, f int, acc accUsage) (flavorChoice, bool) {
	w := e.w
	t := c.tree
	nR := len(c.m.Resources)
	ch := flavorChoice{f: f, mode: modeFit}
	n := c.need(w.shape, f)
	if !n.ok {
		return flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNotPlaceable, f: f, r: -1}}, false
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
			return flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNoQuota, f: f, r: r}}, false
		}
		val := acc.get(fr) + req
		if pa := t.potentialAvailable(e.qn, fr); val > pa {
			return flavorChoice{f: f, mode: modeNoFit, why: why{code: whyNeverFits, f: f, r: r, val: val, avail: pa}}, false
		}
		if val <= t.queueAvailable(e.qn, fr) {
			ch.borrow = max(ch.borrow, t.lowestSubtreeHeightThatFits(e.qn, fr, val))
			continue
		}
		frs = append(frs, fr)
		if !(val <= qnode.quota[fr].Nominal || c.mayReclaimInHierarchy(e.qn, fr, val) || c.canPreemptWhileBorrowing(e.q)) {
			preemptPossible = false
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
		return ch, false
	}
	ch.frsNeed = c.keepFRs(w.nomEntry, frs)
	if !preemptPossible {
		ch.mode = modeNoFit
		return ch, false
	}
	return ch, true
}

// searchFlavor finishes rating a flavor that needs preemption: it looks for
// victims (single-podset jobs; others get targets for their whole
// assignment later). With skip, the flavor is reported as having none
// without looking (the caller already has a better choice).
func (c *Core) searchFlavor(e *entry, pi int, g *ResourceGroup, acc accUsage, ch flavorChoice, skip bool) flavorChoice {
	w, f := e.w, ch.f
	if skip {
		ch.mode = modeNoCandidates
		return ch
	}
	if w.shape.generic || len(e.w.shape.req.PodSets) == 1 {
		sub := &c.sub // the search for one flavor; reused, it never outlives the call
		*sub = entry{w: w, q: e.q, qn: e.qn, frsNeed: ch.frsNeed, flavor: f}
		sub.usage = c.usageFor(w, pi, g, f, acc, c.scratch.subUsage[:0])
		c.scratch.subUsage = sub.usage[:0]
		if p := c.pools[f]; p != nil {
			sub.placeNeed = c.need(w.shape, f).place
		}
		ch.targets = c.findTargets(sub)
		if len(ch.targets) == 0 {
			ch.mode = modeNoCandidates
			ch.why = why{code: whyNoCandidates, f: f, r: -1}
			return ch
		}
		ch.mode = modeReclaim
		for _, tg := range ch.targets {
			if tg.w.Queue == e.q {
				ch.mode = modePreempt
			}
		}
		ch.borrow = c.borrowAfter(e, sub.usage, ch.targets)
	}
	return ch
}

// borrowAfter is the borrowing level of usage in e's queue once targets are
// gone. Under a root cohort it reads the queue's own usage less its own
// targets (the level is 0 or the root's height, whatever the root holds);
// deeper trees move the targets out of the tree for the question.
func (c *Core) borrowAfter(e *entry, usage []frQty, targets []target) int {
	if p := c.tree.parentOf[e.qn]; p >= 0 && c.tree.parentOf[p] < 0 {
		return c.borrowAfterUnderRoot(e, usage, targets)
	}
	return c.borrowAfterInTree(e, usage, targets)
}

func (c *Core) borrowAfterUnderRoot(e *entry, usage []frQty, targets []target) int {
	t := c.tree
	nd, root := &t.nodes[e.qn], &t.nodes[t.parentOf[e.qn]]
	b := 0
	for _, u := range usage {
		own := Qty(0)
		for _, tg := range targets {
			if tg.w.Queue == e.q {
				own += usageOf(tg.w.usage, u.fr)
			}
		}
		if nd.usage[u.fr]-own+u.q > nd.subtree[u.fr] {
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

func fmtQty(q Qty) string {
	if q%Milli == 0 {
		return fmt.Sprintf("%d", q/Milli)
	}
	return fmt.Sprintf("%g", float64(q)/float64(Milli))
}

// forcedAllows applies a snapshot's forced flavor per resource.
func forcedAllows(w *Workload, g *ResourceGroup, f int) bool {
	for _, r := range g.Resources {
		if ff, ok := w.ForcedFlavors[r]; ok && ff != f {
			return false
		}
	}
	return true
}
