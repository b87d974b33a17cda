package policies

import "slices"

// A head is renominated whenever the cohort's state changes, and most of
// the time it gets the same answer. keepNomination and keepTargets make the
// answer's slices from scratch space, reusing the head's previous ones when
// equal, so that renominations allocate nothing. Kept slices are never
// written again.

// keepNomination turns e's scratch assignment, needed flavor-resources and
// usage (acc) into slices the entry may keep.
func (c *Core) keepNomination(e *entry, acc accUsage) {
	old := e.w.nomEntry // nil for a job not nominated since it queued
	sole := -1          // the flavor of a job with one podset in one group
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
	if old := w.nomEntry; old != nil && slices.Equal(old.targets, targets) {
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
