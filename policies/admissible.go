package policies

// Whether a nominated job is admissible: its usage fits its team's quota
// (within nominal unless it may borrow) and, where nodes are modelled, its
// nodes have room. Asked as things stand (fits), while the job's own usage
// is in the tree (fitsOwnUsageIn), and with this cycle's victims out
// (fitsWithVictimsOut); searches ask it after each trial take, first tests
// with every takeable job out. Every such question ends here.

// quotaAdmits says whether e's usage fits its team's quota as the tree
// stands (e's own usage not in it): what the tree lets the team take and,
// unless allowBorrow, no borrowing.
func (c *Core) quotaAdmits(e *entry, allowBorrow bool) bool {
	t := c.tree
	for _, u := range e.usage {
		if !allowBorrow && t.borrowingWith(e.qn, u.fr, u.q) {
			return false
		}
		if u.q > t.queueAvailable(e.qn, u.fr) {
			return false
		}
	}
	return true
}

// nodesAdmit says whether e's job has room on its nodes, where modelled
// for its placement flavor.
func (c *Core) nodesAdmit(e *entry) bool {
	if e.flavor >= 0 {
		if p := c.pools[e.flavor]; p != nil && !p.fits(e.placeNeed) {
			return false
		}
	}
	return true
}

// fits says whether e's job is admissible as things stand.
func (c *Core) fits(e *entry, allowBorrow bool) bool {
	return c.quotaAdmits(e, allowBorrow) && c.nodesAdmit(e)
}

// quotaFitsOnly is fits for quota alone, borrowing allowed (nodes are
// checked when placing).
func (c *Core) quotaFitsOnly(e *entry) bool { return c.quotaAdmits(e, true) }

// fitsOwnUsageIn is fits(e, true) asked while e's own usage is in the
// tree (a fair-sharing search keeps it there for the shares).
func (c *Core) fitsOwnUsageIn(e *entry) bool {
	for _, u := range e.usage {
		if u.q > max(0, c.tree.availableLess(e.qn, u.fr, u.q)) {
			return false
		}
	}
	return c.nodesAdmit(e)
}

// fitsWithVictimsOut asks fits of e with the victims claimed this cycle and
// e's own targets out of the tree. Taking usage out only makes room, so a
// head that fits as things stand is not asked again.
func (c *Core) fitsWithVictimsOut(e *entry, fits func(*entry) bool, targets []target) bool {
	if fits(e) {
		return true
	}
	c.removeClaimedQuota(e)
	c.removeTargetsQuota(targets)
	ok := fits(e)
	c.restoreTargetsQuota(targets)
	c.restoreClaimedQuota(e)
	return ok
}
