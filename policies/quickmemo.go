package policies

import "slices"

// A head that cannot fit is nominated again after every change in its
// cohort, and most of its searches end at the quick test: its own team has
// no candidate, the job would borrow, and no borrowing team could lose a
// job by either rule. Among sibling teams that answer keeps while the
// head's own team is unchanged, except for teams admitted to since: a
// release elsewhere only lowers that team's share, and its best case
// (losing its smallest job) with it, so no rule that failed can pass, and
// no team starts to borrow but by an admission. So a head remembers the
// answer per flavor, and later asks again only the teams admitted to since.

// quickMemo is a head's remembered quick tests, one per flavor.
type quickMemo struct {
	typeSlots
	grown [4]uint64 // grown.n when last known to hold
	since [4]uint64 // the state version it was made at: its team unchanged since
	need  [4]frSet  // the flavor-resources it was for
}

// typeSlots keys a head's memo entries by flavor, four at most.
type typeSlots struct {
	n int
	f [4]int32
}

func (s *typeSlots) find(f int) int {
	for i := range s.n {
		if s.f[i] == int32(f) {
			return i
		}
	}
	return -1
}

// slot returns f's entry, taking a free one for it; -1 when all hold others.
func (s *typeSlots) slot(f int) int {
	i := s.find(f)
	if i < 0 && s.n < len(s.f) {
		i = s.n
		s.f[i] = int32(f)
		s.n++
	}
	return i
}

// frSet is the flavor-resources a search was for, four at most. Which of
// a job's resources lack room moves with the room, and a search reads only
// the teams that borrow those: what it found holds only for the same ones.
type frSet struct {
	n   int // -1: too many to hold
	frs [4]int
}

func (s *frSet) set(frs []int) {
	s.n = -1
	if len(frs) <= len(s.frs) {
		s.n = copy(s.frs[:], frs)
	}
}

func (s *frSet) is(frs []int) bool { return s.n >= 0 && slices.Equal(s.frs[:s.n], frs) }

// spareOrNew takes a memo from spare, cleared, or makes one.
func spareOrNew[T any](spare *[]*T) *T {
	n := len(*spare)
	if n == 0 {
		return new(T)
	}
	m := (*spare)[n-1]
	*spare = (*spare)[:n-1]
	var zero T
	*m = zero
	return m
}

// growthLog lists the queues of the latest admissions (-1: quotas or
// nodes changed), in a ring; n counts every entry ever made.
type growthLog struct {
	n    uint64
	ring [256]int32
}

func (g *growthLog) note(q int32) {
	g.ring[g.n%uint64(len(g.ring))] = q
	g.n++
}

// quickSaysNone says whether e's search on its flavor is known to find no
// victims: its last one ended at the quick test, its team is unchanged, and
// no team admitted to since could now lose a job.
func (c *Core) quickSaysNone(e *entry, strategies []FairStrategy) bool {
	if e.w.memo == nil || e.w.memo.quick == nil {
		return false
	}
	m := e.w.memo.quick
	i := m.find(e.flavor)
	if i < 0 || c.changes.team[e.q] > m.since[i] || !m.need[i].is(e.frsNeed) {
		return false
	}
	g := &c.grown
	if g.n-m.grown[i] > uint64(len(g.ring)) {
		return false // admissions since have left the ring
	}
	t := c.tree
	root := t.rootOf[e.qn]
	asked := false
	var pNew drs
	for k := m.grown[i]; k < g.n; k++ {
		q := g.ring[k%uint64(len(g.ring))]
		if q < 0 {
			return false
		}
		qn := t.qNode[q]
		if qn == e.qn || t.rootOf[qn] != root || !t.overOnAny(int(q), e.frsNeed) {
			continue // not a borrower on the job's resources: no candidate
		}
		if !asked {
			pNew, asked = c.shareWith(e.qn, e.usage, 1), true
		}
		if c.mayLose(e, qn, qn, pNew, c.shareOf(qn), strategies) {
			return false
		}
	}
	m.grown[i] = g.n
	return true
}

// rememberNone records that e's search ended at the quick test.
func (c *Core) rememberNone(e *entry) {
	if !c.tree.amongSiblings(e.qn) || !e.w.shape.generic || len(c.m.Queues[e.q].Groups) != 1 || e.flavor < 0 {
		return // one podset of one group only: its usage on a flavor is fixed
	}
	hm := c.memoOf(e.w)
	m := hm.quick
	if m == nil {
		m = spareOrNew(&c.spareQuick)
		hm.quick = m
	}
	if i := m.slot(e.flavor); i >= 0 {
		m.grown[i], m.since[i] = c.grown.n, c.stateVer
		m.need[i].set(e.frsNeed)
	}
}
