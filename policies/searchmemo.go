package policies

// A head's nomination often changes only on a type other than the one
// where it found victims, and its search there reads nothing of that
// change: its own team, the usage and nodes of the type searched, and the
// teams borrowing on that type's resources (stillholds.go has why no other
// team is read). So a head remembers each type's search with the state
// version it was made at, and takes the answer again while none of those
// changed since. Candidate order must not move with time, so neither
// admission fair sharing nor least-lost-work ordering may be on.

// searchMemo is a head's remembered searches, one per type.
type searchMemo struct {
	typeSlots
	ver     [4]uint64
	targets [4][]target // shared with the nominations that took them: never written
}

// targetsOn returns the targets of e's search on type f (sub is the
// search's entry): remembered when nothing it reads has changed, else
// searched for and remembered.
func (c *Core) targetsOn(e, sub *entry, f int) []target {
	if !c.searchMemoOn(e, f) {
		return c.findTargets(sub)
	}
	if ts, ok := c.knownSearch(e, f); ok {
		return ts
	}
	ts := c.findTargets(sub)
	c.rememberSearch(e, f, ts)
	return ts
}

// searchMemoOn says whether e's searches may be remembered: one podset of
// one group (its usage on a type is fixed) on a type with an index below 64.
func (c *Core) searchMemoOn(e *entry, f int) bool {
	return !c.exhaustive && f < 64 && c.afs == nil && !c.m.PreferLeastLostWork &&
		len(c.m.Queues[e.q].Groups) == 1 && (e.w.shape.generic || len(e.w.shape.req.PodSets) == 1)
}

// knownSearch returns the targets of e's last search on type f when nothing
// it read has changed since.
func (c *Core) knownSearch(e *entry, f int) ([]target, bool) {
	m := e.w.searches
	if m == nil {
		return nil, false
	}
	i := m.find(f)
	if i < 0 || !c.unchangedSince(m.ver[i], e.q, 1<<uint(f)) {
		return nil, false
	}
	m.ver[i] = c.stateVer // as good as made now
	return m.targets[i], true
}

// rememberSearch records e's search on type f, made in the state as it is.
func (c *Core) rememberSearch(e *entry, f int, targets []target) {
	m := e.w.searches
	if m == nil {
		m = spareOrNew(&c.spareSearches)
		e.w.searches = m
	}
	if i := m.slot(f); i >= 0 {
		m.ver[i], m.targets[i] = c.stateVer, targets
	}
}
