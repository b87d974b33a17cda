package policies

import mbits "math/bits"

// A head is nominated again whenever the state changed, yet most changes
// touch nothing its nomination reads. Under a root whose children are all
// teams, a nomination reads its own team; the usage and nodes of the types
// it may take; and, of other teams, only those that borrow on those types'
// resources (the only ones with candidates, or whose shares are compared).
// A team that does not borrow there and changed did so on other types, so
// it did not borrow there when the head was nominated either. So when none
// of those changed, the kept nomination is the one a new one would give.

// changeLog records, by the state version they were made at, the latest
// change to each team and to each type's usage or nodes, and the latest
// change to quotas or node counts (which voids every kept nomination).
type changeLog struct {
	team   []uint64
	flavor []uint64
	void   uint64
	// released is, by team, the version of its latest release; admitted,
	// by team and type, its latest admission of each priority
	// (ownTeamOnlyGrewSince).
	released []uint64
	admitted [][]prioVer
	// latest lists the latest team changes, in a ring: who changed since
	// a version is read off it, newest first, instead of off every team.
	latest  [64]teamChange
	nLatest uint64
}

type teamChange struct {
	q int
	v uint64
}

// note records a change to team q at version v.
func (ch *changeLog) note(q int, v uint64) {
	ch.team[q] = v
	ch.latest[ch.nLatest%uint64(len(ch.latest))] = teamChange{q, v}
	ch.nLatest++
}

// changedSince returns, in buf, the teams changed since version v (a team
// may come more than once): off the ring while it reaches back that far,
// else off every team.
func (ch *changeLog) changedSince(v uint64, buf []int) []int {
	buf = buf[:0]
	n := uint64(len(ch.latest))
	for k := ch.nLatest; k > 0 && ch.nLatest-k < n; k-- {
		x := ch.latest[(k-1)%n]
		if x.v <= v {
			return buf
		}
		buf = append(buf, x.q)
	}
	if ch.nLatest <= n {
		return buf // the ring holds every change ever made
	}
	buf = buf[:0]
	for x, at := range ch.team {
		if at > v {
			buf = append(buf, x)
		}
	}
	return buf
}

func newChangeLog(queues, flavors int) changeLog {
	return changeLog{team: make([]uint64, queues), flavor: make([]uint64, flavors),
		released: make([]uint64, queues), admitted: make([][]prioVer, queues*flavors)}
}

// usageMoved records an admission or a release of queue q's: usage lists
// the flavor-resources it moved on, and placed the type of nodes it took
// or gave back (-1: none), at version v.
func (c *Core) usageMoved(q int, usage []frQty, placed int, v uint64) {
	ch := &c.changes
	ch.note(q, v)
	nR := len(c.m.Resources)
	for _, u := range usage {
		ch.flavor[u.fr/nR] = v
	}
	if placed >= 0 {
		ch.flavor[placed] = v
	}
}

// stillHolds says whether w's kept nomination, made at state version
// w.memo.nomVer, is the one a nomination now would make.
func (c *Core) stillHolds(w *Workload) bool {
	types, ok := c.typesOf(w)
	return ok && c.unchangedSince(w.memo.nomVer, w.Queue, types, false)
}

// unchangedSince says whether nothing a nomination of a head of queue q
// reads about the types in the set types has changed since state version v;
// with ownGrew, changes to q itself are left to the caller.
func (c *Core) unchangedSince(v uint64, q int, types uint64, ownGrew bool) bool {
	return c.teamAndQuotasUnchangedSince(v, q, ownGrew) && c.typesAndBorrowersUnchangedSince(v, q, types, ownGrew)
}

// searchUnchangedAtDepth says whether a classical search of a head of
// queue q on the types, made at version v, read nothing that changed
// since, at any depth of cohorts: it reads its ancestors' usage only on
// the types searched (whose versions move with any usage there) and takes
// only from teams that borrow on them. (A nomination reads more: fair
// sharing compares cohorts' shares, which read every type.)
func (c *Core) searchUnchangedAtDepth(v uint64, q int, types uint64) bool {
	ch := &c.changes
	return !c.m.FairSharing.Enabled && ch.void <= v && ch.team[q] <= v && c.typesAndBorrowersUnchangedSince(v, q, types, false)
}

// typesAndBorrowersUnchangedSince says whether the usage and nodes of the
// types, and the teams of q's tree that now borrow on them (but q, with
// ownGrew), are unchanged since state version v.
func (c *Core) typesAndBorrowersUnchangedSince(v uint64, q int, types uint64, ownGrew bool) bool {
	ch := &c.changes
	t := c.tree
	qn := t.qNode[q]
	for b := types; b != 0; b &= b - 1 {
		if ch.flavor[mbits.TrailingZeros64(b)] > v {
			return false
		}
	}
	// Teams that changed since, borrowing on the types' resources now.
	root := t.rootOf[qn]
	c.scratch.teams = ch.changedSince(v, c.scratch.teams)
	for _, x := range c.scratch.teams {
		if t.rootOf[t.qNode[x]] == root && t.overOnTypes(x, types) && !(ownGrew && x == q) {
			return false
		}
	}
	return true
}

// teamAndQuotasUnchangedSince says whether queue q (unless ownGrew: then
// the caller has asked about q), quotas and node counts are unchanged since
// state version v, q hangs straight from its root (a cohort's share reads
// every type its teams use), and shortcuts are on: what every memory of a
// head of q needs first.
func (c *Core) teamAndQuotasUnchangedSince(v uint64, q int, ownGrew bool) bool {
	ch := &c.changes
	return ch.void <= v && (ownGrew || ch.team[q] <= v) && c.tree.amongSiblings(c.tree.qNode[q])
}

// typesOf is the set of types a job may take in any of its team's
// resource groups, as bits; it is false when a type's index is past 63.
// It is worked out once per job: its request and team do not change.
func (c *Core) typesOf(w *Workload) (uint64, bool) {
	switch w.typesKnown {
	case typesFit:
		return w.types, true
	case typesPast63:
		return 0, false
	}
	var types uint64
	groups := c.m.Queues[w.Queue].Groups
	for gi := range groups {
		for _, f := range c.flavorOrder(w, &groups[gi]) {
			if f >= 64 {
				w.typesKnown = typesPast63
				return 0, false
			}
			types |= 1 << uint(f)
		}
	}
	w.types, w.typesKnown = types, typesFit
	return types, true
}

// What a job's types field holds.
const (
	typesUnknown uint8 = iota
	typesFit           // the set, as bits
	typesPast63        // a type's index is past 63: no set
)
