package policies

import (
	"fmt"
	"slices"
)

// Built with -tags allotcheck, every time a shortcut answers, the core
// computes the same answer without it and panics, naming the shortcut, if
// the two differ (make check-shortcuts runs the shipped and stress
// scenarios this way). The checks read and restore what they touch, so a
// checked run decides as an ordinary one.

// mismatch panics with the shortcut's name and what differed.
func (c *Core) mismatch(s Shortcut, format string, args ...any) {
	panic(fmt.Sprintf("allotcheck: shortcut %s answered wrongly at t=%g: %s", s, c.now, fmt.Sprintf(format, args...)))
}

// withOff computes f with shortcut s off, and c.took and the work counts
// kept as they were.
func (c *Core) withOff(s Shortcut, f func()) {
	off, took, work := c.off, c.took, c.counts.Work
	c.off |= 1 << s
	f()
	c.off, c.took, c.counts.Work = off, took, work
}

// checkNoTargets checks that e's search, made with s off, finds nobody.
func (c *Core) checkNoTargets(s Shortcut, e *entry) {
	var ts []target
	c.withOff(s, func() { ts = c.findTargets(e) })
	if len(ts) > 0 {
		c.mismatch(s, "no victims for %s, but a search finds %s", checkName(e.w), targetNames(ts))
	}
}

// checkTargets checks that e's search, made with s off, takes the same
// victims for the same reasons as the remembered answer.
func (c *Core) checkTargets(s Shortcut, e *entry, got []target) {
	var want []target
	c.withOff(s, func() { want = c.findTargets(e) })
	if !sameTargets(got, want) {
		c.mismatch(s, "victims for %s %s, a search finds %s", checkName(e.w), targetNames(got), targetNames(want))
	}
}

func sameTargets(a, b []target) bool {
	key := func(ts []target) []string {
		var out []string
		for _, t := range ts {
			out = append(out, fmt.Sprintf("%d/%s", t.w.Seq, t.reason))
		}
		slices.Sort(out)
		return out
	}
	return slices.Equal(key(a), key(b))
}

func targetNames(ts []target) string {
	var out []string
	for _, t := range ts {
		out = append(out, fmt.Sprintf("%s (%s)", checkName(t.w), t.reason))
	}
	return fmt.Sprint(out)
}

// checkNomination checks that a kept nomination is the one made afresh.
func (c *Core) checkNomination(w *Workload) {
	kept := w.kept()
	e := c.spareEntry()
	*e = entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue]}
	c.withOff(KeptNomination, func() { c.nominate(e) })
	defer func() { c.spareEntries = append(c.spareEntries, e) }()
	if e.mode != kept.mode || e.flavor != kept.flavor || e.borrowing != kept.borrowing ||
		!slices.EqualFunc(e.assignment, kept.assignment, slices.Equal) || !sameTargets(e.targets, kept.targets) {
		c.mismatch(KeptNomination, "kept nomination of %s is mode %d flavor %d targets %s; afresh mode %d flavor %d targets %s",
			checkName(w), kept.mode, kept.flavor, targetNames(kept.targets), e.mode, e.flavor, targetNames(e.targets))
	}
}

// checkOwnLimits checks that a head kept out by its own team's limits
// would be kept out by a fresh nomination too: no type where it fits or
// finds victims.
func (c *Core) checkOwnLimits(w *Workload) {
	e := c.spareEntry()
	*e = entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue]}
	c.withOff(OwnLimits, func() { c.nominate(e) })
	defer func() { c.spareEntries = append(c.spareEntries, e) }()
	if e.mode != modeNoFit && e.mode != modeNoCandidates {
		c.mismatch(OwnLimits, "%s kept out by its team's limits; afresh mode %d flavor %d targets %s",
			checkName(w), e.mode, e.flavor, targetNames(e.targets))
	}
}

// checkChoice checks that choosing a flavor with tie-skip off picks the
// same one, in the same mode, with the same victims. It returns the
// choice made again (the first lived in scratch space the second reused)
// and leaves e's reasons as the first left them.
func (c *Core) checkChoice(e *entry, pi int, g *ResourceGroup, acc accUsage, got *flavorChoice) *flavorChoice {
	first := *got
	first.targets = slices.Clone(got.targets)
	whys, nWhy := e.whys, e.nWhy
	var again *flavorChoice
	c.withOff(TieSkip, func() { again = c.chooseFlavor(e, pi, g, acc) })
	e.whys, e.nWhy = whys, nWhy
	if again.f != first.f || again.mode != first.mode || again.borrow != first.borrow || !sameTargets(again.targets, first.targets) {
		c.mismatch(TieSkip, "%s chose type %d mode %d borrowing %d victims %s; every type searched: type %d mode %d borrowing %d victims %s",
			checkName(e.w), first.f, first.mode, first.borrow, targetNames(first.targets), again.f, again.mode, again.borrow, targetNames(again.targets))
	}
	return again
}

// checkPick checks that a tournament among the entries of want's root
// still to process, run with flat-order off, picks want next.
func (c *Core) checkPick(entries []*entry, done []bool, want int) {
	root := c.tree.rootOf[entries[want].qn]
	others := slices.Clone(done)
	for i, e := range entries {
		others[i] = others[i] || c.tree.rootOf[e.qn] != root
	}
	got := -1
	c.withOff(FlatOrder, func() { got = c.tournamentPick(entries, others) })
	if got != want {
		c.mismatch(FlatOrder, "the sorted list puts %s next, a tournament %s", checkName(entries[want].w), checkName(entries[got].w))
	}
}

// checkFitsWithVictimsOut checks that a head whose fit was not asked again
// fits with this cycle's victims out.
func (c *Core) checkFitsWithVictimsOut(e *entry) {
	if !c.fitsWithVictimsOut(e, c.quotaFitsOnly, e.targets) {
		c.mismatch(FitOnce, "%s was not asked again and no longer fits", checkName(e.w))
	}
}

// checkName names a job in a check's message: its name, or its sequence.
func checkName(w *Workload) string {
	if w.Name != "" {
		return w.Name
	}
	return fmt.Sprintf("job #%d", w.Seq)
}
