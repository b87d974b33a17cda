package policies

import "cmp"

// Candidate order: the order in which a search considers running jobs as
// victims (Kueue's CandidatesOrdering, plus least lost work). Jobs being
// evicted come first, then jobs of other teams before the preemptor's own,
// then, among jobs of one team, teamOrderCmp. Every walk, sort and memory
// of candidates reads it here.

// candidateLess says whether a comes before b for a preemptor of queue q.
func (c *Core) candidateLess(a, b *Workload, q int) bool {
	ae, be := a.state == stateEvicting, b.state == stateEvicting
	if ae != be {
		return ae
	}
	ao, bo := a.Queue != q, b.Queue != q
	if ao != bo {
		return ao
	}
	return c.teamOrderCmp(a, b) < 0
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

// teamOrderCmp orders jobs past the evicting and own-team steps: under
// admission fair sharing, between users of one team, the user with more
// decayed usage first; then staticCmp, with, under least lost work, the
// job that would lose less first among equal priorities.
func (c *Core) teamOrderCmp(a, b *Workload) int {
	if c.afs != nil && a.Queue == b.Queue && a.User != b.User {
		if sa, sb := c.afs.score(a.Queue, a.User, c.now), c.afs.score(b.Queue, b.User, c.now); sa != sb {
			return -cmp.Compare(sa, sb)
		}
	}
	if c.m.PreferLeastLostWork && a.Priority == b.Priority {
		if la, lb := a.LostWork(c.now), b.LostWork(c.now); la != lb {
			return cmp.Compare(la, lb)
		}
	}
	return staticCmp(a, b)
}

// orderMovesWithTime says whether teamOrderCmp reads the time (admission
// fair sharing or least lost work): then the victim index's order is not
// the candidate order and must be sorted, and no answer that rests on the
// order may be remembered.
func (c *Core) orderMovesWithTime() bool { return c.afs != nil || c.m.PreferLeastLostWork }

// staticCmp is teamOrderCmp where the order does not move with time: lower
// priority first, then admissionCmp. The victim index keeps its evicting
// jobs in this order, and each level (one priority) in admissionCmp order.
func staticCmp(a, b *Workload) int {
	if a.Priority != b.Priority {
		return cmp.Compare(a.Priority, b.Priority)
	}
	return admissionCmp(a, b)
}

// admissionCmp is the last step of candidate order: the latest admitted
// first, then the lowest sequence.
func admissionCmp(a, b *Workload) int {
	if a.admittedAt != b.admittedAt {
		return -cmp.Compare(a.admittedAt, b.admittedAt)
	}
	return cmp.Compare(a.Seq, b.Seq)
}
