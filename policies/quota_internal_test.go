package policies

import (
	"math/rand/v2"
	"testing"
)

// treeModel is a two-level cohort tree over one flavor with lending and
// borrowing limits at every level, so that usage is passed up unevenly.
func treeModel() *Model {
	q := func(nom, borrow, lend Qty) map[int]map[int]Quota {
		x := Quota{Nominal: nom * Milli}
		if borrow >= 0 {
			x.BorrowLimit, x.HasBorrow = borrow*Milli, true
		}
		if lend >= 0 {
			x.LendLimit, x.HasLend = lend*Milli, true
		}
		return map[int]map[int]Quota{0: {0: x}}
	}
	queue := func(name string, cohort int, quotas map[int]map[int]Quota) QueueSpec {
		return QueueSpec{Name: name, Cohort: cohort, Weight: 1,
			Groups: []ResourceGroup{{Resources: []int{0}, Flavors: []FlavorQuotas{{Flavor: 0, Quotas: quotas[0]}}}}}
	}
	return &Model{
		Kind:      KindQuota,
		Resources: []string{"gpu"},
		Flavors:   []FlavorSpec{{Name: "f", Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []CohortSpec{
			{Name: "root", Parent: -1, Weight: 1, Quotas: q(4, -1, -1)},
			{Name: "left", Parent: 0, Weight: 1, Quotas: q(2, 6, 1)},
			{Name: "right", Parent: 0, Weight: 1, Quotas: q(0, -1, -1)},
		},
		Queues: []QueueSpec{
			queue("a", 1, q(6, 3, 2)),
			queue("b", 1, q(2, -1, -1)),
			queue("c", 2, q(5, 0, 5)),
			queue("d", 2, q(3, 8, 0)),
		},
	}
}

// A victim search asks whether the preemptor fits with its own usage taken
// out of the tree without taking it out; the answer must be the one the
// tree gives after removing the usage for real.
func TestAvailableLessMatchesRemovingTheUsage(t *testing.T) {
	const fr = 0
	onRandomUsage(7, 11, fr, func(trial int, tr *quotaTree, rng *rand.Rand) {
		for qi := range tr.qNode {
			n := tr.qNode[qi]
			d := someOf(rng, tr.nodes[n].cells[fr].usage)
			got := tr.availableLess(n, fr, d)
			tr.removeUsage(n, fr, d)
			want := tr.available(n, fr)
			tr.addUsage(n, fr, d)
			if got != want {
				t.Fatalf("trial %d, team %d, removing %d: availableLess = %d, available after removal = %d",
					trial, qi, d/Milli, got, want)
			}
		}
	})
}

// Under a root cohort, the borrowing level once victims are gone is read
// off the preemptor's own node; it must be the level the tree gives with
// the victims taken out of it.
func TestBorrowingLevelAfterVictimsUnderARootMatchesTheTree(t *testing.T) {
	m := treeModel()
	m.Cohorts = m.Cohorts[:1] // every team directly under the root
	for i := range m.Queues {
		m.Queues[i].Cohort = 0
	}
	c, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	tr := c.tree
	rng := rand.New(rand.NewPCG(5, 9))
	for trial := range 2000 {
		var running []*Workload
		for qi := range tr.qNode {
			n := tr.qNode[qi]
			if u := tr.nodes[n].cells[0].usage; u > 0 {
				tr.removeUsage(n, 0, u)
			}
			for range rng.IntN(4) {
				w := &Workload{Queue: qi, usage: []frQty{{0, Qty(1+rng.IntN(4)) * Milli}}}
				tr.addAll(n, w.usage)
				running = append(running, w)
			}
		}
		var targets []target
		for _, w := range running {
			if rng.IntN(3) == 0 {
				targets = append(targets, target{w: w})
			}
		}
		q := rng.IntN(len(tr.qNode))
		e := &entry{q: q, qn: tr.qNode[q]}
		usage := []frQty{{0, Qty(1+rng.IntN(8)) * Milli}}
		if got, want := c.borrowAfterUnderRoot(e, usage, targets), c.borrowAfterInTree(e, usage, targets); got != want {
			t.Fatalf("trial %d, team %d: level %d read off the node, %d from the tree", trial, q, got, want)
		}
	}
}

// Taking usage out of the tree never lowers what any team can take: a head
// that fits as things stand fits with victims taken out too, so process
// asks again only when it does not.
func TestRemovingUsageNeverLowersAvailability(t *testing.T) {
	const fr = 0
	onRandomUsage(13, 3, fr, func(trial int, tr *quotaTree, rng *rand.Rand) {
		before := make([]Qty, len(tr.qNode))
		for qi, n := range tr.qNode {
			before[qi] = tr.queueAvailable(n, fr)
		}
		from := tr.qNode[rng.IntN(len(tr.qNode))]
		d := someOf(rng, tr.nodes[from].cells[fr].usage)
		tr.removeUsage(from, fr, d)
		for qi, n := range tr.qNode {
			if after := tr.queueAvailable(n, fr); after < before[qi] {
				t.Fatalf("trial %d: removing %d from node %d lowered team %d's availability from %d to %d",
					trial, d/Milli, from, qi, before[qi]/Milli, after/Milli)
			}
		}
		tr.addUsage(from, fr, d)
	})
}

// onRandomUsage runs check on 2000 random usages of fr in treeModel's
// tree, drawn from a generator seeded with s1 and s2.
func onRandomUsage(s1, s2 uint64, fr int, check func(trial int, tr *quotaTree, rng *rand.Rand)) {
	tr := newQuotaTree(treeModel())
	rng := rand.New(rand.NewPCG(s1, s2))
	for trial := range 2000 {
		freshUsage(tr, rng, fr)
		check(trial, tr, rng)
	}
}

// someOf is a random whole amount from 0 to u.
func someOf(rng *rand.Rand, u Qty) Qty { return Qty(rng.IntN(int(u/Milli)+1)) * Milli }

// freshUsage gives each team of tr a new random usage of fr.
func freshUsage(tr *quotaTree, rng *rand.Rand, fr int) {
	for qi := range tr.qNode {
		n := tr.qNode[qi]
		if u := tr.nodes[n].cells[fr].usage; u > 0 {
			tr.removeUsage(n, fr, u)
		}
		tr.addUsage(n, fr, Qty(rng.IntN(12))*Milli)
	}
}
