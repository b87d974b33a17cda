package policies

import (
	"slices"
	"testing"
)

// A head its own team's limits keep out is not nominated again while only
// the rest of the tree changes: team a (quota 4, borrowing limit 2) runs 6
// GPUs, so its 2-GPU head could not fit even with every job it may take
// gone. A release in team c requeues it, and its nomination is reused (one
// hit): it stays out, as a core with the shortcut off decides. When a's
// own job ends, it is nominated again and admitted. Under classical
// preemption that holds with a in a cohort of its own under the root;
// under fair sharing only with a straight under the root (a deeper head
// could be its cohort's pick in a tournament), so there it is not asked.
func TestAHeadItsOwnLimitsKeepOutWaitsForItsTeamNotForTheTree(t *testing.T) {
	for _, tc := range []struct {
		fair, nested bool
		hits         int64
	}{{false, true, 1}, {false, false, 1}, {true, false, 1}, {true, true, 0}} {
		ownLimitsKeepOut(t, tc.fair, tc.nested, tc.hits)
	}
}

func ownLimitsKeepOut(t *testing.T, fair, nested bool, wantHits int64) {
	m := &Model{
		Kind:        KindQuota,
		Resources:   []string{"gpu"},
		Flavors:     []FlavorSpec{{Name: "x", Nodes: -1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts:     []CohortSpec{{Name: "root", Parent: -1, Weight: 1}, {Name: "left", Parent: 0, Weight: 1}},
		FairSharing: FairSharing{Enabled: fair},
	}
	aCohort := 0
	if nested {
		aCohort = 1
	} else {
		m.Cohorts = m.Cohorts[:1]
	}
	queue := func(name string, cohort int, q Quota) QueueSpec {
		return QueueSpec{Name: name, Cohort: cohort, Weight: 1, WithinQueue: LowerPriority, Reclaim: Any,
			Groups: []ResourceGroup{{Resources: []int{0}, Flavors: []FlavorQuotas{{Flavor: 0, Quotas: map[int]Quota{0: q}}}}}}
	}
	m.Queues = []QueueSpec{
		queue("a", aCohort, Quota{Nominal: 4 * Milli, BorrowLimit: 2 * Milli, HasBorrow: true}),
		queue("c", 0, Quota{Nominal: 8 * Milli}),
	}
	for _, off := range []ShortcutSet{0, 1 << OwnLimits} {
		mm := *m
		c, err := NewCore(&mm, WithShortcutsOff(off))
		if err != nil {
			t.Fatal(err)
		}
		job := func(seq int64, q int, gpus Qty, now float64) *Workload {
			w := &Workload{Name: m.Queues[q].Name + "-" + string(rune('0'+seq)), Seq: seq, Queue: q, Order: now, Req: Request{Accel: gpus * Milli}}
			if err := c.Submit(w); err != nil {
				t.Fatal(err)
			}
			return w
		}
		admitted := func(now float64) []string {
			var out []string
			for _, a := range c.Schedule(now).Admitted {
				out = append(out, a.W.Name)
			}
			slices.Sort(out)
			return out
		}
		a1, c1 := job(1, 0, 6, 0), job(2, 1, 2, 0)
		if got := admitted(0); !slices.Equal(got, []string{"a-1", "c-2"}) {
			t.Fatalf("fair %v, nested %v, off %b: admitted %v at 0, want a-1 and c-2", fair, nested, off, got)
		}
		job(3, 0, 2, 1) // a's head: 6 + 2 over a's 6
		job(4, 1, 2, 1)
		if got := admitted(1); !slices.Equal(got, []string{"c-4"}) {
			t.Fatalf("fair %v, nested %v, off %b: admitted %v at 1, want c-4", fair, nested, off, got)
		}
		c.Finish(c1, 2)
		if got := admitted(2); len(got) != 0 {
			t.Fatalf("fair %v, nested %v, off %b: admitted %v after c's release, want nothing", fair, nested, off, got)
		}
		want := wantHits
		if off != 0 {
			want = 0
		}
		if hits := c.ShortcutCounts().Hits[OwnLimits]; hits != want {
			t.Errorf("fair %v, nested %v, off %b: own-limits answered %d times, want %d", fair, nested, off, hits, want)
		}
		c.Finish(a1, 3)
		if got := admitted(3); !slices.Equal(got, []string{"a-3"}) {
			t.Fatalf("fair %v, nested %v, off %b: admitted %v after a's own release, want a-3", fair, nested, off, got)
		}
	}
}
