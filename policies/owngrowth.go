package policies

import mbits "math/bits"

// A head that cannot take anyone's place is searched again whenever its own
// team changes, and most of those searches take nobody again (in the 1M
// benchmark, 0.49M of the 1.21M searches that still ran). Its own team is
// read three ways: its candidates, its share once the head is admitted
// (the preemptor's share in the fair-sharing rules), and the room it has.
// An admission to the team raises that share and takes room; the team's
// jobs beginning to stop move neither. So when a search took nobody and
// had no candidate of its own team, and the team since only admitted jobs
// that are not the head's candidates, or began stopping some, every rule
// that failed fails again, no candidate of its own appeared, and less room
// is left: the search takes nobody again. A release, which lowers the
// share and frees room, voids this.

// prioVer is the latest version at which a team admitted a job of one
// priority on one type.
type prioVer struct {
	prio int32
	ver  uint64
}

// noteAdmitted records an admission to queue q of a job of priority prio
// that uses the types in flavors (as bits), at version v.
func (ch *changeLog) noteAdmitted(q int, prio int32, flavors uint64, v uint64) {
	for b := flavors; b != 0; b &= b - 1 {
		f := mbits.TrailingZeros64(b)
		if f >= len(ch.flavor) {
			continue
		}
		k := q*len(ch.flavor) + f
		list := ch.admitted[k]
		i := 0
		for i < len(list) && list[i].prio != prio {
			i++
		}
		if i == len(list) {
			list = append(list, prioVer{prio: prio})
			ch.admitted[k] = list
		}
		list[i].ver = v
	}
}

// ownTeamOnlyGrewSince says whether queue q's changes since version v,
// for a head w of it searching type f, are only admissions of jobs that
// are not w's candidates there (under the team's within-team policy p)
// and jobs beginning to stop: no release, no quota change.
func (c *Core) ownTeamOnlyGrewSince(v uint64, q int, w *Workload, f int, p PreemptPolicy) bool {
	ch := &c.changes
	if !c.on(RememberedSearch) || ch.void > v || ch.released[q] > v || !c.tree.amongSiblings(c.tree.qNode[q]) || f >= len(ch.flavor) || f >= 64 {
		return false
	}
	for _, a := range ch.admitted[q*len(ch.flavor)+f] {
		// Admitted since v, a job of an equal priority may be newer than w.
		if a.ver > v && mayTakePriority(p, w, a.prio) {
			return false
		}
	}
	return true
}

// tookNobodyAlone says whether a remembered search took no job and had no
// candidate of the head's own team.
func (k *takes) tookNobodyAlone() bool { return k.known && k.n == 0 && !k.own }

// flavorBits is the set of types a usage and a placement use, as bits
// (types past 63 are left out: no memory keeps them).
func flavorBits(usage []frQty, nR, placed int) uint64 {
	var b uint64
	for _, u := range usage {
		if f := u.fr / nR; f < 64 {
			b |= 1 << uint(f)
		}
	}
	if placed >= 0 && placed < 64 {
		b |= 1 << uint(placed)
	}
	return b
}
