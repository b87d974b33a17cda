package policies

import "slices"

// headMemo is what the shortcuts remember of a waiting job: its kept
// nomination and the state version it was made at (kept-nomination,
// own-limits), its quick tests (quick-none) and its searches by type
// (remembered-search). It is the shortcuts' state, not the job's: a
// Workload points to one only while it waits, and the rules never read it.
type headMemo struct {
	nom      *entry
	nomVer   uint64
	quick    *quickMemo
	searches *searchMemo
}

// kept returns w's kept nomination, or nil.
func (w *Workload) kept() *entry {
	if w.memo == nil {
		return nil
	}
	return w.memo.nom
}

// memoOf returns w's memories, taking a spare set for a job without.
func (c *Core) memoOf(w *Workload) *headMemo {
	if w.memo == nil {
		if n := len(c.spareMemos); n > 0 {
			w.memo = c.spareMemos[n-1]
			c.spareMemos = c.spareMemos[:n-1]
		} else {
			w.memo = &headMemo{}
		}
	}
	return w.memo
}

// forget hands w's memories back: a job out of the queue is no head.
func (c *Core) forget(w *Workload) {
	m := w.memo
	if m == nil {
		return
	}
	if m.nom != nil {
		c.spareEntries = append(c.spareEntries, m.nom)
	}
	if m.quick != nil {
		c.spareQuick = append(c.spareQuick, m.quick)
	}
	if m.searches != nil {
		c.spareSearches = append(c.spareSearches, m.searches) // cleared when taken (spareOrNew)
	}
	*m = headMemo{}
	c.spareMemos = append(c.spareMemos, m)
	w.memo = nil
}

// A head is renominated whenever the cohort's state changes, and most of
// the time it gets the same answer. keepNomination and keepTargets make the
// answer's slices from scratch space, reusing the head's previous ones when
// equal, so that renominations allocate nothing. Kept slices are never
// written again.

// keepNomination turns e's scratch assignment, needed flavor-resources and
// usage (acc) into slices the entry may keep.
func (c *Core) keepNomination(e *entry, acc accUsage) {
	old := e.w.kept() // nil for a job not nominated since it queued
	sole := -1        // the flavor of a job with one podset in one group
	if a := e.assignment; len(a) == 1 && len(a[0]) == 1 {
		sole = a[0][0]
	}
	if sole >= 0 {
		e.assignment = c.soleAsg[sole] // shared
	} else if old != nil && slices.EqualFunc(old.assignment, e.assignment, slices.Equal[[]int]) {
		e.assignment = old.assignment
	} else {
		n := 0
		for _, a := range e.assignment {
			n += len(a)
		}
		cells := make([]int, 0, n)
		out := make([][]int, len(e.assignment))
		for i, a := range e.assignment {
			cells = append(cells, a...)
			out[i] = cells[len(cells)-len(a) : len(cells) : len(cells)]
		}
		e.assignment = out
	}
	e.frsNeed = c.keepFRs(old, e.frsNeed)
	switch {
	case old != nil && slices.Equal(old.usage, []frQty(acc)):
		e.usage = old.usage
	case sole >= 0 && slices.Equal(c.need(e.w.shape, sole).soleUsage, []frQty(acc)):
		e.usage = c.need(e.w.shape, sole).soleUsage // shared
	default:
		e.usage = append([]frQty(nil), acc...)
	}
}

// keepFRs returns frs (scratch) as a slice the caller may keep: nil when
// empty, the shared one for a single flavor-resource, the head's last
// nomination's when equal, else a copy.
func (c *Core) keepFRs(old *entry, frs []int) []int {
	switch {
	case len(frs) == 0:
		return nil
	case len(frs) == 1:
		return c.soleFR[frs[0]]
	case old != nil && slices.Equal(old.frsNeed, frs):
		return old.frsNeed
	}
	return slices.Clone(frs)
}

// keepTargets returns targets (scratch) as a slice the caller may keep:
// w's last nominated targets when equal, else a copy.
func keepTargets(w *Workload, targets []target) []target {
	if old := w.kept(); old != nil && slices.Equal(old.targets, targets) {
		return old.targets
	}
	return slices.Clone(targets)
}

// grow returns buf with length n, reallocated only when too small; the
// caller overwrites every element.
func grow[T any](buf []T, n int) []T {
	if cap(buf) < n {
		return make([]T, n)
	}
	return buf[:n]
}
