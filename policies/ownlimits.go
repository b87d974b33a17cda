package policies

// A head its own team's limits keep out (the own-limits shortcut). Under
// nested cohorts every release in the tree requeues every parked head, and
// at the tree's capacity most of them fail again for a reason that reads
// their own team alone: with every job of the team it may take gone, the
// job still would not fit the team's quota plus borrowing limit. The team's
// usage, its jobs and its limits change only through changes the log
// records against the team (or, for quotas, voids), so until one of those
// the head fails again on every type, whatever the rest of the tree does.
// Its nomination is then reused: it is set aside as before, taking and
// reserving nothing (teams that reclaim only from lower priorities, whose
// heads with no victims reserve their usage, are left out), so the cycle's
// decisions are the ones a fresh nomination gives. Under fair sharing the
// first test asks the team's borrowing limit alone, to the same end. Its
// reasons are the kept ones; a fresh nomination could word them after the
// rest of the tree (how much is free to the team).
//
// A nomination qualifies when it cannot go and every type it rated that
// did not fit or find victims ended for one of those reasons: the type
// never fits the team (no node holds it, no quota, more than quota plus
// borrowing limit), or the search's first test stopped at the team's own
// limits. A search that went on or was answered from memory, or a type
// where preemption is impossible as the tree stands, disqualifies it.
// (A type skipped because a better one was found, or that fit, leaves the
// job able to go, unless another podset or group cannot: and that one
// alone then keeps it out.)

// ownLimitsHold says whether w's kept nomination, one its own team's
// limits kept out (entry.ownLimited), may be reused: its team, quotas and
// node counts are unchanged since it was made.
func (c *Core) ownLimitsHold(w *Workload) bool {
	if !c.on(OwnLimits) {
		return false
	}
	ch := &c.changes
	return c.tally(OwnLimits, ch.void <= w.memo.nomVer && ch.team[w.Queue] <= w.memo.nomVer)
}

// ownLimitedNomination says whether a fresh nomination qualifies. Under
// fair sharing the team must hang straight from its root: heads of such
// teams are processed in the order of their own standings, so a head that
// changes nothing moves no other; deeper, a tournament between cohorts
// reads each one's best head, which could be this one.
func (c *Core) ownLimitedNomination(e *entry) bool {
	return !e.othersMatter && (e.mode == modeNoFit || e.mode == modeNoCandidates) &&
		(!c.m.FairSharing.Enabled || c.tree.amongSiblings(e.qn)) && c.m.Queues[e.q].Reclaim == Any
}
