package policies

import "slices"

// A head's nomination often changes only on a type other than the one
// where it found victims, and its search there reads nothing of that
// change: its own team, the usage and nodes of the type searched, and the
// teams borrowing on that type's resources (stillholds.go has why no other
// team is read). So a head remembers each type's search with the state
// version it was made at, and takes the answer again while none of those
// changed since. Candidate order must not move with time, so neither
// admission fair sharing nor least-lost-work ordering may be on.
//
// A fair-sharing search also remembers the jobs it took, in order, before
// it kept the fewest. Which jobs it takes, and in which order, reads the
// shares and candidates of its own team and of the teams that borrow on
// the type, never the room: room only decides where it stops. So while
// no team changed in a way that could lead the search elsewhere
// (changedTeamsLeadNowhere: a team that stopped borrowing there, or
// changed with a low enough share, leads it nowhere unless the search was
// led to it), the same jobs are taken again in the same order, checking
// after each whether the job fits now, with whatever room admissions and
// releases of other teams, and nodes, have left (replay). That is the
// search less all its reading of shares and candidates, unless the takes
// run out before the job fits while the search had not run out: what it
// would take next is then unknown, and it is searched for. Which
// flavor-resources lack room moves with the room, and a search reads only
// teams borrowing those, so a replay must be for the same ones.

// searchMemo is a head's remembered searches, one per type.
type searchMemo struct {
	typeSlots
	ver     [4]uint64
	targets [4][]target // shared with the nominations that took them: never written
	took    [4]takes
}

// takes are a fair-sharing search's takes, in order, with the
// flavor-resources it was for (which lack room depends on the room), when
// they number no more than fit here (known).
type takes struct {
	known bool
	spent bool // the search ran out of jobs to take: there is no next one
	n     int
	ts    [8]target
	need  frSet
	// The teams the search was led to, in its first round (nLeads -1: too
	// many to hold), the lowest share any had when it led, whether the job
	// fit in that round, and whether its own team had candidates.
	nLeads   int
	leads    [8]int
	floor    teamShare
	fitFirst bool
	own      bool
}

// start makes the record that of a search for e ending before it takes a
// job.
func (k *takes) start(e *entry) {
	k.known, k.spent, k.n, k.nLeads, k.fitFirst, k.own = true, true, 0, 0, false, false
	k.need.set(e.frsNeed)
}

// lead records that the search was led to team node qn, at share d.
func (k *takes) lead(qn int, d drs) {
	ts := shareKey(qn, d)
	switch {
	case k.nLeads < 0:
	case k.nLeads == len(k.leads):
		k.nLeads = -1
	default:
		if k.nLeads == 0 || k.floor.above(ts) {
			k.floor = ts
		}
		k.leads[k.nLeads] = qn
		k.nLeads++
	}
}

// record makes the record that of a search with these takes.
func (k *takes) record(ts []target, spent bool) {
	k.known, k.spent = k.known && len(ts) <= len(k.ts), spent
	k.n = copy(k.ts[:], ts)
}

// set makes k a copy of o, copying only the parts in use.
func (k *takes) set(o *takes) {
	if k.n > o.n {
		clear(k.ts[o.n:k.n]) // hold no finished job
	}
	k.known, k.spent, k.n, k.need = o.known, o.spent, o.n, o.need
	k.nLeads, k.floor, k.fitFirst, k.own = o.nLeads, o.floor, o.fitFirst, o.own
	copy(k.ts[:o.n], o.ts[:o.n])
	copy(k.leads[:max(0, o.nLeads)], o.leads[:max(0, o.nLeads)])
}

// forNeed says whether the takes are known and were for frs.
func (k *takes) forNeed(frs []int) bool {
	return k.known && k.need.is(frs)
}

// replay takes k's jobs for e in order, until it fits; it is false when
// they run out first while the search had not (see above). prev is the
// last answer, given back when it is the answer again.
func (c *Core) replay(e *entry, k *takes, prev []target) ([]target, bool) {
	if k.n == 0 {
		return nil, k.spent
	}
	t := c.tree
	t.addAll(e.qn, e.usage)
	taken := c.scratch.replay[:0]
	fit := false
	for _, x := range k.ts[:k.n] {
		c.removeTarget(x.w)
		taken = append(taken, x)
		if fit = c.fitsOwnUsageIn(e); fit {
			break
		}
	}
	t.removeAll(e.qn, e.usage)
	c.scratch.replay = taken[:0]
	if !fit && !k.spent {
		c.restoreTargets(taken)
		return nil, false
	}
	return c.settleTakes(e, taken, fit, prev), true
}

// targetsOn returns the targets of e's search on type f (sub is the
// search's entry): remembered when nothing it reads has changed, else
// searched for and remembered.
func (c *Core) targetsOn(e, sub *entry, f int) []target {
	if !c.searchMemoOn(e, f) {
		return c.findTargets(sub)
	}
	if ts, ok := c.knownSearch(e, sub, f); c.tally(RememberedSearch, ok) {
		if checking {
			c.checkTargets(RememberedSearch, sub, ts)
		}
		return ts
	}
	ts := c.findTargets(sub)
	c.rememberSearch(e, f, ts)
	return ts
}

// searchMemoOn says whether e's searches may be remembered: one podset of
// one group (its usage on a type is fixed) on a type with an index below 64.
func (c *Core) searchMemoOn(e *entry, f int) bool {
	return c.on(RememberedSearch) && f < 64 && !c.orderMovesWithTime() &&
		len(c.m.Queues[e.q].Groups) == 1 && (e.w.shape.generic || len(e.w.shape.req.PodSets) == 1)
}

// knownSearch returns the targets of e's search on type f (sub is the
// search's entry) when known without searching: its last one's, when the
// room on f is as it was and nothing it read has changed, or no change
// could lead it anywhere else; or its takes replayed, when the room has
// changed and no change could lead it anywhere else.
func (c *Core) knownSearch(e, sub *entry, f int) ([]target, bool) {
	if e.w.memo == nil || e.w.memo.searches == nil {
		return nil, false
	}
	m := e.w.memo.searches
	i := m.find(f)
	if i < 0 {
		return nil, false
	}
	v := m.ver[i]
	same := c.changes.flavor[f] <= v
	if !same && !m.took[i].forNeed(sub.frsNeed) {
		return nil, false
	}
	// The head's own team may have changed since, if only by growing
	// where the search took nobody (owngrowth.go); the other teams are
	// asked about as ever.
	ownGrew := false
	if c.changes.team[e.q] > v {
		if !m.took[i].tookNobodyAlone() || !c.ownTeamOnlyGrewSince(v, e.q, e.w, f, c.m.Queues[e.q].WithinQueue) {
			return nil, false
		}
		ownGrew = true
	}
	unchanged := same && c.unchangedSince(v, e.q, 1<<uint(f), ownGrew)
	if same && !unchanged && !ownGrew && !c.tree.amongSiblings(e.qn) { // under a root of teams, unchangedSince has answered
		unchanged = c.searchUnchangedAtDepth(v, e.q, 1<<uint(f))
	}
	if !unchanged && !c.changedTeamsLeadNowhere(v, sub, f, &m.took[i], ownGrew) {
		return nil, false
	}
	if !same {
		ts, ok := c.replay(sub, &m.took[i], m.targets[i])
		if !ok {
			return nil, false
		}
		m.targets[i] = ts
	}
	m.ver[i] = c.stateVer // as good as made now
	return m.targets[i], true
}

// changedTeamsLeadNowhere says whether no team changed since v could lead
// the search of e (its entry for type f) anywhere it went: none is a team
// the search was led to, and each that borrows on f now has a share below
// that of each of those when it led (if the job fit in the first round),
// or below the job's share once admitted (if the job borrows, so that
// fair-sharing rules apply, and its own team has no candidate, whose
// taking would lower that share). A round is led by the highest share, so
// the first kind leads nowhere before the job fits; and the first round
// ends at the first team whose share is below the job's, and the second
// reads only teams the first was led to, so the second kind could only end
// the first round where it ends anyway. What the search read of the other
// teams is as it was.
func (c *Core) changedTeamsLeadNowhere(v uint64, e *entry, f int, k *takes, ownGrew bool) bool {
	if !k.known || k.nLeads < 0 || !c.teamAndQuotasUnchangedSince(v, e.q, ownGrew) {
		return false
	}
	ch := &c.changes
	t := c.tree
	var pNew teamShare
	pKnown, fair := false, false
	root := t.rootOf[e.qn]
	c.scratch.teams = ch.changedSince(v, c.scratch.teams)
	for _, x := range c.scratch.teams {
		xn := t.qNode[x]
		if ownGrew && x == e.q {
			continue // asked about by ownTeamOnlyGrewSince
		}
		if slices.Contains(k.leads[:k.nLeads], xn) {
			return false
		}
		if t.rootOf[xn] != root || !t.overOnTypes(x, 1<<uint(f)) {
			continue // no candidate of it is read
		}
		sx := shareKey(xn, c.shareOf(xn))
		if k.fitFirst && k.nLeads > 0 && k.floor.above(sx) {
			continue
		}
		if !pKnown {
			pNew, fair, pKnown = shareKey(e.qn, c.shareWith(e.qn, e.usage, 1)), !c.staysWithinNominal(e), true
		}
		if !fair || k.own || !pNew.above(sx) {
			return false
		}
	}
	return true
}

// rememberSearch records e's search on type f, made in the state as it is.
func (c *Core) rememberSearch(e *entry, f int, targets []target) {
	hm := c.memoOf(e.w)
	m := hm.searches
	if m == nil {
		m = spareOrNew(&c.spareSearches)
		hm.searches = m
	}
	if i := m.slot(f); i >= 0 {
		m.ver[i], m.targets[i] = c.stateVer, targets
		m.took[i].set(&c.took)
	}
}
