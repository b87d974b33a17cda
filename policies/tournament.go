package policies

// The order of a fair-sharing cycle's heads (Kueue's fair-sharing
// tournament): at each cohort from the root down, the child whose share
// would be lowest once its candidate is admitted goes first, a child that
// would not borrow before one that would; then priority and age.

// processFair processes the cycle's entries in tournament order; it reports
// whether anything changed.
//
// A team's standing in a tournament among teams of one cohort reads only
// its own usage, and processing a head changes only its own team's usage.
// So where every head of a root hangs straight from it, the standings taken
// at the start hold all cycle long, and one sort gives the order that a
// tournament per pick would.
func (c *Core) processFair(entries []*entry, now float64) bool {
	t := c.tree
	done := grow(c.doneBuf, len(entries))
	clear(done)
	c.doneBuf = done
	progress := false
	for left := len(entries); left > 0; {
		first := 0
		for done[first] {
			first++
		}
		if left == 1 { // a lone entry wins any tournament
			return c.process(entries[first], now) || progress
		}
		if group := c.flatGroup(entries, done, t.rootOf[entries[first].qn]); len(group) > 1 {
			for _, r := range group {
				if checking {
					c.checkPick(entries, done, r.i)
				}
				done[r.i] = true
				if c.process(entries[r.i], now) {
					progress = true
				}
			}
			left -= len(group)
			continue
		}
		i := c.tournamentPick(entries, done)
		done[i] = true
		left--
		if c.process(entries[i], now) {
			progress = true
		}
	}
	return progress
}

// ranked is an entry with its standing among its root's teams.
type ranked struct {
	i        int
	standing standing
	w        *Workload // entries[i].w, held here: the sort reads it often
}

// standing is what a tournament between teams compares first: whether the
// team would borrow once its head is admitted, then its share.
type standing struct {
	borrows bool
	share   drs
}

// flatGroup returns the entries still to process under root, in
// tournament order, when each hangs straight from root; otherwise nil.
func (c *Core) flatGroup(entries []*entry, done []bool, root int) []ranked {
	if !c.on(FlatOrder) {
		return nil
	}
	t := c.tree
	n := 0
	for i := range entries {
		if qn := entries[i].qn; !done[i] && t.rootOf[qn] == root {
			if t.nodes[qn].parent != root {
				return nil
			}
			n++
		}
	}
	if n < 2 {
		return nil // a tournament of one needs no standings
	}
	group := c.rankBuf[:0]
	for i := range entries {
		e := entries[i]
		if done[i] || t.rootOf[e.qn] != root {
			continue
		}
		r := ranked{i, c.teamStanding(e), e.w}
		// Insertion: a cycle has a head per team, a few dozen at most.
		group = append(group, r)
		j := len(group) - 1
		for ; j > 0 && standsBefore(r.w, group[j-1].w, r.standing, group[j-1].standing); j-- {
			group[j] = group[j-1]
		}
		group[j] = r
	}
	c.rankBuf = group
	return group
}

// teamStanding is e's team's standing once e is admitted. It reads only
// the team's node (usage, quota, lendable: any change bumps its version),
// so a kept entry keeps it from cycle to cycle while the team is still.
func (c *Core) teamStanding(e *entry) standing {
	if v := c.tree.nodes[e.qn].ver; e.standVer != v {
		e.stand, e.standVer = standing{c.borrowsOnAdmission(e), c.shareWith(e.qn, e.usage, 1)}, v
	} else if checking && e.stand != (standing{c.borrowsOnAdmission(e), c.shareWith(e.qn, e.usage, 1)}) {
		panic("allotcheck: a kept standing is not its team's standing")
	}
	return e.stand
}

// standsBefore orders two heads by their standings, then priority and age.
func standsBefore(a, b *Workload, sa, sb standing) bool {
	if sa.borrows != sb.borrows {
		return !sa.borrows
	}
	if k := cmpDRS(sa.share, sb.share); k != 0 {
		return k < 0
	}
	return waitsBefore(a, b, false)
}

// tournamentPick chooses the next entry under fair sharing.
func (c *Core) tournamentPick(entries []*entry, done []bool) int {
	first, left := -1, 0
	for i := range entries {
		if !done[i] {
			if first < 0 {
				first = i
			}
			left++
		}
	}
	t := c.tree
	if left == 1 || t.nodes[entries[first].qn].parent < 0 {
		return first // a lone entry wins any tournament
	}
	// byNode: the entry of each queue node still in play, -1 for none.
	if len(c.byNode) != len(t.nodes) {
		c.byNode = make([]int, len(t.nodes))
		for i := range c.byNode {
			c.byNode[i] = -1
		}
	}
	for i := range entries {
		if !done[i] {
			c.byNode[entries[i].qn] = i
		}
	}
	best := c.tournament(t.rootOf[entries[first].qn], entries, c.byNode)
	for i := range entries {
		c.byNode[entries[i].qn] = -1
	}
	return best
}

func (c *Core) tournament(cohort int, entries []*entry, byNode []int) int {
	t := c.tree
	var buf [16]int
	cands := buf[:0]
	for _, ch := range t.nodes[cohort].cohorts {
		if w := c.tournament(ch, entries, byNode); w >= 0 {
			cands = append(cands, w)
		}
	}
	for _, qn := range t.nodes[cohort].queues {
		if i := byNode[qn]; i >= 0 {
			cands = append(cands, i)
		}
	}
	if len(cands) == 0 {
		return -1
	}
	best := cands[0]
	for _, i := range cands[1:] {
		if c.tournamentLess(entries[i], entries[best], cohort) {
			best = i
		}
	}
	return best
}

// childUnder returns the child of cohort on the path up from node n.
func (c *Core) childUnder(cohort, n int) int {
	for c.tree.nodes[n].parent != cohort {
		n = c.tree.nodes[n].parent
	}
	return n
}

func (c *Core) tournamentLess(a, b *entry, cohort int) bool {
	ca, cb := c.childUnder(cohort, a.qn), c.childUnder(cohort, b.qn)
	var sa, sb standing
	if ca == a.qn && cb == b.qn {
		// Two teams: whether each would borrow is asked before, and
		// cheaper than, their shares.
		sa.borrows, sb.borrows = c.borrowsOnAdmission(a), c.borrowsOnAdmission(b)
		if sa.borrows != sb.borrows {
			return !sa.borrows
		}
		sa.share, sb.share = c.shareWith(a.qn, a.usage, 1), c.shareWith(b.qn, b.usage, 1)
	} else {
		sa.share, sa.borrows = c.shareOnAdmission(ca, a)
		sb.share, sb.borrows = c.shareOnAdmission(cb, b)
	}
	return standsBefore(a.w, b.w, sa, sb)
}

// shareOnAdmission is the share of node n (e's team or a cohort above it)
// once e's job is admitted, and whether n then borrows on its resources.
func (c *Core) shareOnAdmission(n int, e *entry) (drs, bool) {
	t := c.tree
	if n == e.qn { // its own team: no need to touch the tree
		return c.shareWith(n, e.usage, 1), c.borrowsOnAdmission(e)
	}
	t.addAll(e.qn, e.usage)
	d, b := c.shareOf(n), c.borrowingOnUsage(n, e.usage)
	t.removeAll(e.qn, e.usage)
	return d, b
}

// borrowsOnAdmission says whether e's team would borrow on e's resources
// once e is admitted.
func (c *Core) borrowsOnAdmission(e *entry) bool {
	for _, u := range e.usage {
		if c.tree.borrowingWith(e.qn, u.fr, u.q) {
			return true
		}
	}
	return false
}

func (c *Core) borrowingOnUsage(n int, usage []frQty) bool {
	nd := &c.tree.nodes[n]
	for _, u := range usage {
		if cell := &nd.cells[u.fr]; cell.usage > cell.subtree {
			return true
		}
	}
	return false
}
