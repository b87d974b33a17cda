package policies

import (
	"cmp"
	"math"
	"slices"
)

// Running jobs of a team, kept in preemption-candidate order so that a
// search for victims reads them lazily instead of sorting them all: jobs
// being evicted first, then by priority (lowest first), then most recently
// admitted first (Kueue's CandidatesOrdering). They are filed by flavor, so
// a search for room on one instance type never walks jobs on another; each
// (flavor, priority) level is a list in admission order, read from its
// newest end.

type admLevel struct {
	prio       int32
	head, tail *Workload
	// unprot is the newest job of the level whose protection from
	// preemption has ended (nil: none), when the core keeps it
	// (Core.protOrdered): every job newer is protected, so a walk starts
	// there (minruntime.go).
	unprot *Workload
	// sum is the level's usage by flavor-resource, and peak the most any
	// one job filed here ever held (never lowered), so that a search can
	// bound what the level could free without reading its jobs.
	sum, peak []Qty
	// queuedLate counts the jobs filed here that were queued after they
	// were admitted (only a snapshot's or a restored job can be). While
	// it is 0, no job admitted at or before a time was queued after it,
	// which lets a walk for jobs queued after a preemptor stop early
	// (walker.newer).
	queuedLate int
}

func (l *admLevel) count(w *Workload, sign Qty) {
	for _, u := range w.usage {
		for len(l.sum) <= u.fr {
			l.sum, l.peak = append(l.sum, 0), append(l.peak, 0)
		}
		l.sum[u.fr] += sign * u.q
		l.peak[u.fr] = max(l.peak[u.fr], u.q)
	}
}

type victimIndex struct {
	byFlavor [][]*admLevel // [flavor+1] levels by priority, ascending; [0]: jobs on several flavors
	evicting []*Workload
}

func (v *victimIndex) levels(f int) []*admLevel {
	if f+1 < len(v.byFlavor) {
		return v.byFlavor[f+1]
	}
	return nil
}

func (v *victimIndex) level(f int, p int32) *admLevel {
	for len(v.byFlavor) <= f+1 {
		v.byFlavor = append(v.byFlavor, nil)
	}
	ls := v.byFlavor[f+1]
	i, found := slices.BinarySearchFunc(ls, p, func(l *admLevel, p int32) int { return cmp.Compare(l.prio, p) })
	if found {
		return ls[i]
	}
	l := &admLevel{prio: p}
	v.byFlavor[f+1] = slices.Insert(ls, i, l)
	return l
}

// victimFlavor is the one flavor a job uses, or -1 if several or none.
func victimFlavor(w *Workload, nR int) int {
	f := -1
	for _, u := range w.usage {
		uf := u.fr / nR
		if f >= 0 && uf != f {
			return -1
		}
		f = uf
	}
	if f < 0 && w.place.flavor >= 0 {
		f = w.place.flavor
	}
	return f
}

// add files a job in its level, which is kept in walk order from the tail:
// latest admitted first, and among jobs admitted at one instant, lowest
// sequence first. In a simulation a job is admitted at the latest instant
// so far and lands at or next to the tail; a snapshot's running jobs may
// come in any order.
func (v *victimIndex) add(w *Workload, nR int) {
	if checking && w.state == stateEvicting {
		panic("allotcheck: a job being evicted was filed in a level of the victim index")
	}
	w.vflavor = int32(victimFlavor(w, nR))
	l := v.level(int(w.vflavor), w.Priority)
	var after *Workload // the job just before w in walk order (toward the tail)
	x := l.tail
	for x != nil && admissionCmp(x, w) < 0 {
		after, x = x, x.prev
	}
	w.prev, w.next = x, after
	if x != nil {
		x.next = w
	} else {
		l.head = w
	}
	if after != nil {
		after.prev = w
	} else {
		l.tail = w
	}
	w.inLevel = true
	l.count(w, 1)
	if w.Order > w.admittedAt {
		l.queuedLate++
	}
}

func (v *victimIndex) unlink(w *Workload) {
	if !w.inLevel {
		return
	}
	l := v.level(int(w.vflavor), w.Priority)
	if w.prev != nil {
		w.prev.next = w.next
	} else {
		l.head = w.next
	}
	if w.next != nil {
		w.next.prev = w.prev
	} else {
		l.tail = w.prev
	}
	if l.unprot == w {
		l.unprot = w.prev // older: its protection ended before
	}
	w.prev, w.next, w.inLevel = nil, nil, false
	l.count(w, -1)
	if w.Order > w.admittedAt {
		l.queuedLate--
	}
}

// markEvicting moves a job to the evicting set (first in candidate order),
// kept in the order that does not depend on the time (staticCmp), so
// that a search need not sort it unless the order does.
func (v *victimIndex) markEvicting(w *Workload) {
	v.unlink(w)
	i, _ := slices.BinarySearchFunc(v.evicting, w, staticCmp)
	v.evicting = slices.Insert(v.evicting, i, w)
}

func (v *victimIndex) remove(w *Workload) {
	if w.inLevel {
		v.unlink(w)
		return
	}
	if i := slices.Index(v.evicting, w); i >= 0 {
		v.evicting = slices.Delete(v.evicting, i, i+1)
	}
}

// mayHaveBelow says whether a walk over the flavors of frs, stopping at
// priority bound, could find any job: false lets a search skip making an
// iterator that would come up empty.
func (v *victimIndex) mayHaveBelow(frs []int, nR int, bound int32) bool {
	if len(v.evicting) > 0 {
		return true
	}
	found := func(f int) bool {
		for _, l := range v.levels(f) {
			if l.prio >= bound {
				return false
			}
			if l.head != nil {
				return true
			}
		}
		return false
	}
	if found(-1) {
		return true
	}
	for _, fr := range frs {
		if found(fr / nR) {
			return true
		}
	}
	return false
}

// freeable is the most of fr that this team's jobs of priorities in
// [from, to) could free (the usage of those levels, and when from is the
// lowest, of every job being evicted), and the most any one of them holds.
func (v *victimIndex) freeable(fr, nR int, from, to int32) (sum, peak Qty) {
	if to <= from {
		return 0, 0
	}
	below := func(ls []*admLevel) {
		for _, l := range ls {
			if l.prio >= to {
				return
			}
			if l.prio >= from && fr < len(l.sum) {
				sum += l.sum[fr]
				peak = max(peak, l.peak[fr])
			}
		}
	}
	below(v.levels(-1))
	below(v.levels(fr / nR))
	if from != minPrio {
		return sum, peak
	}
	for _, w := range v.evicting {
		for _, u := range w.usage {
			if u.fr == fr {
				sum += u.q
				peak = max(peak, u.q)
			}
		}
	}
	return sum, peak
}

// walker reads one flavor's levels in candidate order.
type walker struct {
	c      *Core
	q      int
	levels []*admLevel
	bound  int32 // levels at or above this priority are not read
	// newer, when set, is a preemptor that may take jobs of its own
	// priority only if they were queued after it (LowerOrNewerEqual): at
	// that level only such jobs are read.
	newer  *Workload
	stopAt float64 // in the level read now: stop at a job admitted at or before this
	lvl    int
	cur    *Workload
	buf    []*Workload
	bufPos int
	head   *Workload
}

func (wk *walker) advance() {
	wk.head = nil
	for {
		if wk.bufPos < len(wk.buf) {
			wk.head = wk.buf[wk.bufPos]
			wk.bufPos++
			return
		}
		if wk.cur == nil {
			wk.lvl++
			if wk.lvl >= len(wk.levels) || wk.levels[wk.lvl].prio >= wk.bound {
				return
			}
			l := wk.levels[wk.lvl]
			wk.cur = wk.c.walkStart(l)
			onlyNewer := wk.newer != nil && l.prio == wk.newer.Priority
			wk.stopAt = math.Inf(-1)
			if onlyNewer && l.queuedLate == 0 {
				// A job queued after the preemptor was admitted after
				// it was queued: the level, newest admitted first, has
				// none left once admissions reach that time.
				wk.stopAt = wk.newer.Order
			}
			if wk.c.orderMovesWithTime() {
				// Orders that depend on the time: sort the level.
				wk.buf = wk.buf[:0]
				for w := wk.cur; w != nil; w = w.prev {
					if !onlyNewer || w.Order > wk.newer.Order {
						wk.buf = append(wk.buf, w)
					}
				}
				slices.SortStableFunc(wk.buf, func(a, b *Workload) int { return wk.c.candidateCmp(a, b, wk.q) })
				wk.bufPos, wk.cur = 0, nil
				continue
			}
			if wk.cur == nil {
				continue
			}
		}
		// The level is kept in walk order (victimIndex.add).
		if wk.cur.admittedAt <= wk.stopAt {
			if checking {
				wk.checkNoneNewer()
			}
			wk.cur = nil
			continue
		}
		wk.head, wk.cur = wk.cur, wk.cur.prev
		return
	}
}

// checkNoneNewer panics if the rest of the level a walk stops early in
// holds a job queued after the preemptor.
func (wk *walker) checkNoneNewer() {
	for w := wk.cur; w != nil; w = w.prev {
		if w.Order > wk.newer.Order {
			panic("allotcheck: a walk for jobs queued after a preemptor stopped before one")
		}
	}
}

// candIter walks one team's running jobs that use given flavors, in
// candidate order, skipping those the filter rejects.
type candIter struct {
	c       *Core
	q       int
	ev      []*Workload
	evPos   int
	walkers []*walker
	peeked  *Workload
	f       candFilter // f.e nil: every job
}

// Filters of candidates.
const (
	filterFair      = iota // uses a needed resource, allowed by the policy, not claimed
	filterClassical        // classify gives a variant, evicting state matches
)

type candFilter struct {
	kind     uint8
	e        *entry
	policy   PreemptPolicy
	adv      bool
	evicting bool
}

func (c *Core) keep(f *candFilter, w *Workload) bool {
	switch f.kind {
	case filterFair:
		return c.mayTake(f.e, w, f.policy)
	default:
		return (w.state == stateEvicting) == f.evicting && c.classify(f.e, w, f.adv) != vNever
	}
}

// candIterFor starts a filtered walk over a team's candidates for an entry.
func (c *Core) candIterFor(team int, e *entry, p PreemptPolicy, kind uint8) *candIter {
	it := c.newCandIter(team, e.q, e.frsNeed, bound(p, e.w), readAll, newerOnly(p, e.w))
	it.f = candFilter{kind: kind, e: e, policy: p}
	return it
}

// Which of a team's jobs a walk reads: a job being evicted is kept in the
// index's evicting list and out of its levels (markEvicting), so a pass
// that wants only one kind need not read the other.
const (
	readAll      = iota
	readEvicting // the evicting list alone
	readRunning  // the levels alone
)

// newCandIter reads team's jobs on the flavors of frs; bound stops before
// jobs of that priority or higher (use maxPrio for no bound).
func (c *Core) newCandIter(team, preemptorQueue int, frs []int, bound int32, read uint8, newer *Workload) *candIter {
	v := &c.queues[team].victims
	it := c.arena.iter()
	it.c, it.q = c, preemptorQueue
	evicting := v.evicting
	if read == readRunning {
		evicting = nil
	}
	for _, w := range evicting {
		if usesAny(w, frs) {
			it.ev = append(it.ev, w)
		}
	}
	if len(it.ev) > 1 && c.orderMovesWithTime() {
		slices.SortStableFunc(it.ev, func(a, b *Workload) int { return c.candidateCmp(a, b, preemptorQueue) })
	}
	if read == readEvicting {
		return it
	}
	nR := len(c.m.Resources)
	add := func(f int) {
		if ls := v.levels(f); len(ls) > 0 {
			wk := c.arena.walker()
			wk.c, wk.q, wk.levels, wk.bound, wk.newer, wk.lvl = c, preemptorQueue, ls, bound, newer, -1
			wk.advance()
			it.walkers = append(it.walkers, wk)
		}
	}
	add(-1)
	var seen [8]int
	flavors := seen[:0]
	for _, fr := range frs {
		if f := fr / nR; !slices.Contains(flavors, f) {
			flavors = append(flavors, f)
			add(f)
		}
	}
	return it
}

// raw returns the next job in order, unfiltered.
func (it *candIter) raw() *Workload {
	if it.evPos < len(it.ev) {
		it.evPos++
		return it.ev[it.evPos-1]
	}
	best := -1
	for i, wk := range it.walkers {
		if wk.head == nil {
			continue
		}
		if best < 0 || it.c.candidateLess(wk.head, it.walkers[best].head, it.q) {
			best = i
		}
	}
	if best < 0 {
		return nil
	}
	w := it.walkers[best].head
	it.walkers[best].advance()
	return w
}

// peek returns the next job that passes the filter, without consuming it.
func (it *candIter) peek() *Workload {
	if it.peeked == nil {
		for w := it.raw(); w != nil; w = it.raw() {
			if it.f.e == nil || it.c.keep(&it.f, w) {
				it.peeked = w
				break
			}
		}
	}
	return it.peeked
}

func (it *candIter) pop() *Workload {
	w := it.peek()
	it.peeked = nil
	return w
}

// arena hands out iterators and walkers for one search and takes them all
// back at the start of the next, so searches do not allocate.
type arena struct {
	iters   []*candIter
	nIters  int
	walkers []*walker
	nWalk   int
}

func (a *arena) reset() { a.nIters, a.nWalk = 0, 0 }

func (a *arena) iter() *candIter {
	if a.nIters == len(a.iters) {
		a.iters = append(a.iters, &candIter{})
	}
	it := a.iters[a.nIters]
	a.nIters++
	*it = candIter{ev: it.ev[:0], walkers: it.walkers[:0]}
	return it
}

func (a *arena) walker() *walker {
	if a.nWalk == len(a.walkers) {
		a.walkers = append(a.walkers, &walker{})
	}
	wk := a.walkers[a.nWalk]
	a.nWalk++
	*wk = walker{buf: wk.buf[:0]}
	return wk
}
