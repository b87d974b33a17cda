package policies

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Flavor assignment (Kueue's flavorassigner, plus a check that the job also
// fits on nodes): a head's nomination takes, for each podset and resource
// group, the flavor chooseFlavor finds (flavors.go). Each flavor is tried in
// order (the job's own preference list, else the queue's order) and rated:
// it fits (maybe by borrowing), it needs preemption (of own lower priority
// jobs, or reclaim of lent quota), or it cannot fit. Fungibility decides
// whether to stop at the first usable flavor or look for a better one.

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
	// othersMatter: a type's outcome read more than the job's own team
	// (ownlimits.go); ownLimited: it did not, and the job cannot go.
	othersMatter bool
	ownLimited   bool
	// stand is its team's standing with the job admitted, worked out at the
	// team node's version standVer (0: not yet; versions start at 1).
	stand    standing
	standVer uint64
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

// canPreemptWhileBorrowing: borrowWithinCohort, or fair sharing with reclaim.
func (c *Core) canPreemptWhileBorrowing(q int) bool {
	spec := &c.m.Queues[q]
	return spec.BorrowWithin != Never || (c.m.FairSharing.Enabled && spec.Reclaim != Never)
}

// mayReclaimInHierarchy: a subtree below the root would hold val.
func (c *Core) mayReclaimInHierarchy(qn, fr int, v Qty) bool {
	p := c.tree.fitsAt(qn, fr, v)
	return p >= 0 && c.tree.nodes[p].parent >= 0
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
	whyUndeclared
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
		s := fmt.Sprintf("%s: not enough free and no running job may be preempted for it", fname)
		if n, left := c.protectedOn(x.f); n > 0 {
			s += fmt.Sprintf(" now (%d running there protected by min_runtime, the first for another %s)", n, fmtDuration(left))
		}
		return s
	case whyNoType:
		return "no compatible instance type in the team's quota"
	case whyUndeclared:
		return fmt.Sprintf("asks for %s, which none of the team's quotas lists", res)
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
	if nPS == 1 && len(spec.Groups) == 1 && c.wholeGroup(&spec.Groups[0]) && c.requestsGroup(w, 0, &spec.Groups[0]) {
		c.nominateSole(e)
		return
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
	for pi := range e.assignment {
		e.assignment[pi] = cells[pi*len(spec.Groups) : (pi+1)*len(spec.Groups) : (pi+1)*len(spec.Groups)]
		for gi := range spec.Groups {
			g := &spec.Groups[gi]
			e.assignment[pi][gi] = -1
			if !c.requestsGroup(w, pi, g) {
				continue
			}
			firstWhy := e.nWhy
			best := c.chooseFlavor(e, pi, g, acc)
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
			if !n.ok {
				continue // no node of the type could hold it: it adds no usage
			}
			for _, r := range g.Resources {
				if v := n.podsets[pi][r]; v > 0 {
					acc = acc.add(best.f*nR+r, v)
				}
			}
		}
	}
	if r := c.undeclared(w, spec); r >= 0 {
		e.mode = modeNoFit
		e.addWhy(why{code: whyUndeclared, f: -1, r: r})
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

// nominateSole is nominate for the common job: one podset, in the one
// resource group, which holds every resource. Its nomination is its flavor
// choice; its assignment and usage are the ones shared by every such job
// on that flavor (or the last nomination's, when equal), as keepNomination
// would make them, without building them in scratch space first.
func (c *Core) nominateSole(e *entry) {
	w := e.w
	g := &c.m.Queues[e.q].Groups[0]
	e.flavor = -1
	best := c.chooseFlavor(e, 0, g, nil)
	if best.mode != modeNoFit && best.mode != modeNoCandidates {
		e.nWhy = 0 // reasons matter only when the job cannot go
	}
	e.mode = min(modeFit, best.mode)
	old := w.kept()
	if best.f < 0 {
		e.assignment = c.noAsg
		return // modeNoFit: nothing else is read
	}
	f := best.f
	e.assignment = c.soleAsg[f]
	e.borrowing = best.borrow
	e.frsNeed = best.frsNeed // kept by rateFlavor: nil, shared, the last one's, or its own copy
	if best.mode == modePreempt || best.mode == modeReclaim {
		e.targets = best.targets
	}
	e.flavor = f
	n := c.need(w.shape, f)
	switch {
	case !n.ok: // no node of the type could hold it: it adds no usage
		e.usage = nil
	case old != nil && slices.Equal(old.usage, n.soleUsage):
		e.usage = old.usage
	default:
		e.usage = n.soleUsage // shared
	}
	if e.mode == modeNoFit || e.mode == modeNoCandidates {
		return
	}
	if (e.mode == modePreempt || e.mode == modeReclaim) && len(e.targets) == 0 {
		e.mode = modeNoCandidates
	}
	if c.pools[f] != nil {
		e.placeNeed = n.place
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

// undeclared is a resource a podset asks for that no resource group of
// the queue lists (-1: none). Such a job never fits: no group assigns it
// a flavor, and Kueue reports the resource unavailable in the
// ClusterQueue rather than admitting the rest of the request.
func (c *Core) undeclared(w *Workload, spec *QueueSpec) int {
	if w.shape.generic {
		return -1
	}
	for _, ps := range w.shape.req.PodSets {
		for r, v := range ps.PerPod {
			if v > 0 && !slices.ContainsFunc(spec.Groups, func(g ResourceGroup) bool { return slices.Contains(g.Resources, r) }) {
				return r
			}
		}
	}
	return -1
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

func fmtQty(q Qty) string {
	if q%Milli == 0 {
		return fmt.Sprintf("%d", q/Milli)
	}
	return fmt.Sprintf("%g", float64(q)/float64(Milli))
}

// fmtDuration writes seconds as a person reads them: 45s, 12m, 2h5m.
func fmtDuration(s float64) string {
	d := int64(math.Ceil(s))
	switch {
	case d < 60:
		return fmt.Sprintf("%ds", d)
	case d < 3600:
		return fmt.Sprintf("%dm", (d+59)/60)
	}
	h, m := d/3600, (d%3600+59)/60
	if m == 60 {
		h, m = h+1, 0
	}
	if m == 0 {
		return fmt.Sprintf("%dh", h)
	}
	return fmt.Sprintf("%dh%dm", h, m)
}
