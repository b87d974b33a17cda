package policies

import (
	"math/rand/v2"
	"testing"
)

// twoTypeModel is four teams sharing two quota-only instance types, with
// fair sharing: under one root cohort, or (deep) two by two under child
// cohorts of it that hold some quota of their own.
func twoTypeModel(deep bool) *Model {
	quotas := func(nom Qty) map[int]Quota { return map[int]Quota{0: {Nominal: nom * Milli}} }
	queue := func(name string, w float64, n0, n1 Qty) QueueSpec {
		return QueueSpec{Name: name, Cohort: 0, Weight: w, WithinQueue: LowerPriority, Reclaim: Any,
			Groups: []ResourceGroup{{Resources: []int{0}, Flavors: []FlavorQuotas{
				{Flavor: 0, Quotas: quotas(n0)}, {Flavor: 1, Quotas: quotas(n1)}}}}}
	}
	flavor := func(name string) FlavorSpec {
		return FlavorSpec{Name: name, Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}
	}
	m := &Model{
		Kind:        KindQuota,
		Resources:   []string{"gpu"},
		Flavors:     []FlavorSpec{flavor("x"), flavor("y")},
		Cohorts:     []CohortSpec{{Name: "root", Parent: -1, Weight: 1}},
		Queues:      []QueueSpec{queue("a", 1, 4, 8), queue("b", 2, 8, 4), queue("c", 1, 6, 6), queue("d", 3, 2, 2)},
		FairSharing: FairSharing{Enabled: true},
	}
	if deep {
		both := func(n Qty) map[int]map[int]Quota { return map[int]map[int]Quota{0: quotas(n), 1: quotas(n)} }
		m.Cohorts = append(m.Cohorts, CohortSpec{Name: "left", Parent: 0, Weight: 1, Quotas: both(3)},
			CohortSpec{Name: "right", Parent: 0, Weight: 2, Quotas: both(1)})
		for i := range m.Queues {
			m.Queues[i].Cohort = 1 + i/2
		}
	}
	return m
}

// A search is skipped when victims in other teams would leave the job
// borrowing at the level of a best choice that already reclaims. On random
// states, a skipped search's full answer must never beat that choice, and
// a search not skipped must give the full answer. Under child cohorts,
// where victims elsewhere can lower the level, nothing is skipped.
func TestASkippedSearchCouldNotHaveBeatenTheReclaimingChoice(t *testing.T) {
	for _, deep := range []bool{false, true} {
		searchesSkippedOnRandomStates(t, deep)
	}
}

func searchesSkippedOnRandomStates(t *testing.T, deep bool) {
	rng := rand.New(rand.NewPCG(3, 17))
	skipped := 0
	for trial := range 300 {
		c, submit := busyCore(t, rng, deep, 12)
		var heads []*Workload
		for range 4 {
			heads = append(heads, submit(20))
		}
		for _, w := range heads {
			// The level of borrowing from the queue's parent cohort.
			root := c.tree.nodes[c.tree.nodes[c.tree.qNode[w.Queue]].parent].height
			e := &entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue]}
			g := &c.m.Queues[w.Queue].Groups[0]
			for _, fq := range g.Flavors {
				var ch flavorChoice
				if !c.rateFlavor(&ch, e, 0, g, fq.Flavor, nil) {
					continue
				}
				full, got := ch, ch
				c.searchFlavor(e, 0, g, nil, &full, false, -1)
				c.searchFlavor(e, 0, g, nil, &got, false, root)
				bar := flavorChoice{f: -1, mode: modeReclaim, borrow: root}
				switch {
				case got.mode == modeNoCandidates && full.mode != modeNoCandidates:
					skipped++
					if better(&full, &bar, false) {
						t.Fatalf("deep %v, trial %d, team %d, type %d: skipped a search whose answer (mode %d, level %d) beats reclaiming at level %d",
							deep, trial, w.Queue, fq.Flavor, full.mode, full.borrow, root)
					}
				case got.mode != full.mode || got.borrow != full.borrow || len(got.targets) != len(full.targets):
					t.Fatalf("deep %v, trial %d, team %d, type %d: search with a bar gave mode %d level %d, %d targets; without, mode %d level %d, %d targets",
						deep, trial, w.Queue, fq.Flavor, got.mode, got.borrow, len(got.targets), full.mode, full.borrow, len(full.targets))
				}
			}
		}
	}
	if !deep && skipped == 0 {
		t.Fatal("no search was skipped: the states do not exercise the rule")
	}
	t.Logf("deep %v: %d searches skipped", deep, skipped)
}

// busyCore is a core of twoTypeModel after n random jobs, each scheduled as
// it came, and a function that submits one more random job.
func busyCore(t *testing.T, rng *rand.Rand, deep bool, n int) (*Core, func(now float64) *Workload) {
	c, err := NewCore(twoTypeModel(deep))
	if err != nil {
		t.Fatal(err)
	}
	seq := int64(0)
	submit := func(now float64) *Workload {
		w := &Workload{Name: "j", Seq: seq, Queue: rng.IntN(4), Priority: int32(rng.IntN(3)), Order: now,
			Req: Request{Accel: Qty(1+rng.IntN(6)) * Milli}}
		seq++
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	for i := range n {
		submit(float64(i))
		c.Schedule(float64(i))
	}
	return c, submit
}
