package policies

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// Under a root of sibling teams the search reads teams from a list sorted
// by share and moves only the team it took from; it must visit the teams
// in the order the full scan of every team (nextIn) gives, whatever the
// search does with each: take its candidate, pass over one, or drop the
// team.
func TestTeamsSortedByShareAreVisitedInTheOrderOfAFullScan(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	visits := 0
	for trial := range 300 {
		c, _ := busyCore(t, rng, false, 14)
		q := rng.IntN(4)
		e := &entry{w: &Workload{Queue: q, Priority: 3}, q: q, qn: c.tree.qNode[q],
			frsNeed: []int{rng.IntN(2)}, usage: []frQty{{0, Milli}}}
		// The search's moves, drawn once and replayed on both orders.
		moves := make([]int, 64)
		for i := range moves {
			moves[i] = rng.IntN(3)
		}
		flat := walkTeams(c, e, moves, true)
		scan := walkTeams(c, e, moves, false)
		if !slices.Equal(flat, scan) {
			t.Fatalf("trial %d: teams visited by share %v, by a full scan %v", trial, flat, scan)
		}
		visits += len(flat)
	}
	if visits < 1000 {
		t.Fatalf("only %d visits: the states do not exercise the order", visits)
	}
}

// walkTeams runs a search's walk over the teams, making move i at visit i
// (0: take the candidate, 1: pass over it, 2: drop the team), and returns
// the teams visited; the tree is left as it was.
func walkTeams(c *Core, e *entry, moves []int, flat bool) []int {
	c.arena.reset()
	w := c.fairWork()
	t := c.tree
	var live []int
	for qi, qn := range t.qNode {
		live = append(live, qn)
		w.src[qn] = c.candIterFor(qi, e, Any, filterFair)
	}
	o := c.newFairOrdering(e, w.src, w)
	o.live = live
	root := t.rootOf[e.qn]
	next := func() int {
		if flat {
			return o.nextFlat(root)
		}
		for !w.prunedC[root] {
			if qn := o.nextIn(root); qn >= 0 {
				return qn
			}
		}
		return -1
	}
	var visited []int
	var taken []*Workload
	for qn := next(); qn >= 0 && len(visited) < len(moves); qn = next() {
		switch x := o.pop(qn); moves[len(visited)] {
		case 0:
			c.removeTarget(x)
			taken = append(taken, x)
		case 2:
			w.src[qn] = nil
		}
		visited = append(visited, qn)
	}
	for _, x := range taken {
		c.restoreTarget(x)
	}
	return visited
}
