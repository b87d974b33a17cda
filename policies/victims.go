package policies

import "slices"

// Running jobs of a team, kept in preemption-candidate order so a search
// for victims reads them lazily instead of sorting them all: jobs being
// evicted first, then by priority (lowest first), then most recently
// admitted first (Kueue's CandidatesOrdering). Each priority level is a
// list in admission order, walked from its newest end.

type admLevel struct {
	prio       int32
	head, tail *Workload
}

type victimIndex struct {
	levels   []*admLevel // by priority, ascending
	evicting []*Workload
}

func (v *victimIndex) level(p int32) *admLevel {
	i, found := slices.BinarySearchFunc(v.levels, p, func(l *admLevel, p int32) int { return cmpInt32(l.prio, p) })
	if found {
		return v.levels[i]
	}
	l := &admLevel{prio: p}
	v.levels = slices.Insert(v.levels, i, l)
	return l
}

func cmpInt32(a, b int32) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func (v *victimIndex) add(w *Workload) {
	l := v.level(w.Priority)
	w.prev, w.next = l.tail, nil
	if l.tail != nil {
		l.tail.next = w
	} else {
		l.head = w
	}
	l.tail = w
	w.inLevel = true
}

func (v *victimIndex) unlink(w *Workload) {
	if !w.inLevel {
		return
	}
	l := v.level(w.Priority)
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
	w.prev, w.next, w.inLevel = nil, nil, false
}

// markEvicting moves a job to the evicting set (first in candidate order).
func (v *victimIndex) markEvicting(w *Workload) {
	v.unlink(w)
	v.evicting = append(v.evicting, w)
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

// candIter walks one team's running jobs in candidate order.
type candIter struct {
	c      *Core
	q      int // the preemptor's queue (for the ordering of evicting jobs)
	v      *victimIndex
	ev     []*Workload
	evPos  int
	lvl    int
	cur    *Workload
	buf    []*Workload
	bufPos int
	peeked *Workload
	filter func(*Workload) bool
}

func (c *Core) newCandIter(team, preemptorQueue int, filter func(*Workload) bool) *candIter {
	v := &c.queues[team].victims
	it := &candIter{c: c, q: preemptorQueue, v: v, filter: filter, lvl: -1}
	if len(v.evicting) > 0 {
		it.ev = slices.Clone(v.evicting)
		slices.SortStableFunc(it.ev, func(a, b *Workload) int { return c.candidateCmp(a, b, preemptorQueue) })
	}
	return it
}

// raw returns the next job in order, unfiltered.
func (it *candIter) raw() *Workload {
	if it.evPos < len(it.ev) {
		it.evPos++
		return it.ev[it.evPos-1]
	}
	for {
		if it.bufPos < len(it.buf) {
			it.bufPos++
			return it.buf[it.bufPos-1]
		}
		if it.cur == nil {
			it.lvl++
			if it.lvl >= len(it.v.levels) {
				return nil
			}
			it.cur = it.v.levels[it.lvl].tail
			if it.c.m.PreferLeastLostWork || it.c.afs != nil {
				// Orders that depend on now: sort the level.
				it.buf = it.buf[:0]
				for w := it.cur; w != nil; w = w.prev {
					it.buf = append(it.buf, w)
				}
				slices.SortStableFunc(it.buf, func(a, b *Workload) int { return it.c.candidateCmp(a, b, it.q) })
				it.bufPos, it.cur = 0, nil
				continue
			}
			if it.cur == nil {
				continue
			}
		}
		// A run of jobs admitted at the same instant goes in sequence order.
		it.buf = it.buf[:0]
		t := it.cur.admittedAt
		for it.cur != nil && it.cur.admittedAt == t {
			it.buf = append(it.buf, it.cur)
			it.cur = it.cur.prev
		}
		if len(it.buf) > 1 {
			slices.SortFunc(it.buf, func(a, b *Workload) int { return cmpInt64(a.Seq, b.Seq) })
		}
		it.bufPos = 0
	}
}

func cmpInt64(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// peek returns the next job that passes the filter, without consuming it.
func (it *candIter) peek() *Workload {
	if it.peeked == nil {
		for w := it.raw(); w != nil; w = it.raw() {
			if it.filter == nil || it.filter(w) {
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

// candidateCmp is candidateLess as a three-way comparison.
func (c *Core) candidateCmp(a, b *Workload, q int) int {
	if c.candidateLess(a, b, q) {
		return -1
	}
	if c.candidateLess(b, a, q) {
		return 1
	}
	return 0
}
