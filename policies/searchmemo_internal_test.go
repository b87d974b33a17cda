package policies

import (
	"fmt"
	"testing"
)

// reclaimSetup fills type x with five jobs of team a (a borrows 16 of x's
// 20) and one job of team c on type y, and queues a head of team b that
// must reclaim one of a's jobs on x; it returns the core, a's jobs, c's job
// and the head.
func reclaimSetup(t *testing.T, lostWork bool) (*Core, []*Workload, *Workload, *Workload) {
	t.Helper()
	m := twoTypeModel(false)
	m.PreferLeastLostWork = lostWork
	c, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	submit := func(w *Workload) *Workload {
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		return w
	}
	var a []*Workload
	for i := range 5 {
		a = append(a, submit(&Workload{Name: fmt.Sprint("a", i), Seq: int64(i), Queue: 0, Order: float64(i),
			RunStart: float64(i), CheckpointInterval: 10, Req: Request{Accel: 4 * Milli, Compatible: []int{0}}}))
	}
	other := submit(&Workload{Name: "c0", Seq: 5, Queue: 2, Order: 5, Req: Request{Accel: 2 * Milli, Compatible: []int{1}}})
	if p := c.Schedule(0); len(p.Admitted) != 6 {
		t.Fatalf("setup: %d admitted, want 6", len(p.Admitted))
	}
	head := submit(&Workload{Name: "b0", Seq: 6, Queue: 1, Order: 6, Req: Request{Accel: 4 * Milli, Compatible: []int{0}}})
	return c, a, other, head
}

// nominateAt nominates w afresh at time now and names its targets.
func nominateAt(c *Core, w *Workload, now float64) string {
	c.now = now
	e := &entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue]}
	c.nominate(e)
	out := ""
	for _, tg := range e.targets {
		out += tg.w.Name + " "
	}
	return out
}

// A head's search on a type is taken again while nothing it reads has
// changed: a job of a team that does not borrow finishing on another type
// leaves it; a job of the team it reclaims from finishing on that type
// does not.
func TestASearchIsTakenAgainOnlyWhileNothingItReadChanged(t *testing.T) {
	c, a, other, head := reclaimSetup(t, false)
	if got := nominateAt(c, head, 1); got != "a0 " {
		t.Fatalf("targets %q, want a0 (admitted with the others, first by sequence)", got)
	}
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, 0); !ok {
		t.Fatal("the search on x should be remembered")
	}
	c.Finish(other, 2) // team c, within its quota, on type y
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, 0); !ok {
		t.Fatal("a release on type y by a team that does not borrow should leave the search on x")
	}
	c.Finish(a[0], 3) // team a borrows on x
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, 0); ok {
		t.Fatal("a release on x by the team that lends the victims should void the search")
	}
	if got := nominateAt(c, head, 4); got != "" {
		t.Fatalf("with a0 gone the head fits, yet it has targets %q", got)
	}
}

// Where candidates are ordered by the work they would lose, the order moves
// with the time alone, so no search is remembered: at time 12 the job that
// last checkpointed most recently is a2 (2 s lost), at 15 it is a4 (1 s).
func TestASearchIsNotRememberedWhenCandidateOrderMovesWithTime(t *testing.T) {
	c, _, _, head := reclaimSetup(t, true)
	if got := nominateAt(c, head, 12); got != "a2 " {
		t.Fatalf("at 12: targets %q, want a2", got)
	}
	if got := nominateAt(c, head, 15); got != "a4 " {
		t.Fatalf("at 15: targets %q, want a4", got)
	}
}
