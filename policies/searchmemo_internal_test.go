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
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, &c.sub, 0); !ok {
		t.Fatal("the search on x should be remembered")
	}
	c.Finish(other, 2) // team c, within its quota, on type y
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, &c.sub, 0); !ok {
		t.Fatal("a release on type y by a team that does not borrow should leave the search on x")
	}
	c.Finish(a[0], 3) // team a borrows on x
	if _, ok := c.knownSearch(&entry{w: head, q: 1}, &c.sub, 0); ok {
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

// admitted puts a job straight into a core as running on type 0.
func admitted(t *testing.T, c *Core, name string, q int, prio int32, accel, vcpu Qty, at float64) *Workload {
	t.Helper()
	return admittedOn(t, c, 0, name, q, prio, accel, vcpu, at)
}

// admittedOn puts a job straight into a core as running on type f.
func admittedOn(t *testing.T, c *Core, f int, name string, q int, prio int32, accel, vcpu Qty, at float64) *Workload {
	t.Helper()
	w := &Workload{Name: name, Seq: int64(len(name)*1000 + int(at)), Queue: q, Priority: prio, Order: at,
		Req: Request{Accel: accel * Milli, VCPU: vcpu * Milli, Compatible: []int{f}}}
	if err := c.AddAdmitted(w, [][]int{{f}}, at, false); err != nil {
		t.Fatal(err)
	}
	return w
}

// A search's jobs are taken again in order where only room has changed,
// and it stops where the room now lets the job fit. On x (20 GPUs), team a
// borrows 4 with a1 (2 GPUs, first in candidate order) and a2 (6); c and d
// run within their quotas; 4 are free. b0 needs 7: it takes a1 (6 free),
// then a2 (12), and keeps a2 alone. Once d1 (within d's quota) finishes,
// 6 are free: taking a1 is enough.
func TestAReplayedSearchStopsWhereTheRoomNowLetsItFit(t *testing.T) {
	c, err := NewCore(twoTypeModel(false))
	if err != nil {
		t.Fatal(err)
	}
	admitted(t, c, "a1", 0, 0, 2, 0, 0)
	admitted(t, c, "a2", 0, 1, 6, 0, 0)
	admitted(t, c, "c1", 2, 0, 6, 0, 0)
	d1 := admitted(t, c, "d1", 3, 0, 2, 0, 0)
	head := &Workload{Name: "b0", Seq: 9, Queue: 1, Order: 1, Req: Request{Accel: 7 * Milli, Compatible: []int{0}}}
	if err := c.Submit(head); err != nil {
		t.Fatal(err)
	}
	if got := nominateAt(c, head, 1); got != "a2 " {
		t.Fatalf("targets %q, want a2 (a1 and a2 taken, a1 given back)", got)
	}
	c.Finish(d1, 2)
	ts, ok := c.knownSearch(&entry{w: head, q: 1}, &c.sub, 0)
	if !ok || len(ts) != 1 || ts[0].w.Name != "a1" {
		t.Fatalf("replayed: %v %v, want a1 alone, without a search", ts, ok)
	}
	if got := nominateAt(c, head, 3); got != "a1 " {
		t.Fatalf("targets %q, want a1", got)
	}
}

// Which flavor-resources lack room moves with the room, and a search for
// more of them reads more teams: a replay must be for the same ones. On x
// (20 GPUs, 200 vCPUs), a borrows 4 GPUs (a1) and c 60 vCPUs (c1, a
// larger share); b0 needs 8 GPUs and 60 vCPUs, within b's quota, and at
// first lacks GPUs alone: it takes a1. Once d (within its quota) takes 70
// vCPUs it lacks vCPUs too, and c, borrowing vCPUs, comes first: c1.
func TestASearchIsNotReplayedForOtherResourcesThanItWasFor(t *testing.T) {
	quota := func(gpu, vcpu Qty) map[int]Quota {
		return map[int]Quota{0: {Nominal: gpu * Milli}, 1: {Nominal: vcpu * Milli}}
	}
	queue := func(name string, gpu, vcpu Qty) QueueSpec {
		return QueueSpec{Name: name, Cohort: 0, Weight: 1, WithinQueue: LowerPriority, Reclaim: Any,
			Groups: []ResourceGroup{{Resources: []int{0, 1}, Flavors: []FlavorQuotas{{Flavor: 0, Quotas: quota(gpu, vcpu)}}}}}
	}
	c, err := NewCore(&Model{
		Kind:        KindQuota,
		Resources:   []string{"gpu", "vcpu"},
		Flavors:     []FlavorSpec{{Name: "x", Nodes: -1, AccelResource: 0, CPUResource: 1, MemResource: -1, Speed: 1}},
		Cohorts:     []CohortSpec{{Name: "root", Parent: -1, Weight: 1}},
		Queues:      []QueueSpec{queue("a", 4, 40), queue("b", 8, 80), queue("c", 6, 10), queue("d", 2, 70)},
		FairSharing: FairSharing{Enabled: true},
	})
	if err != nil {
		t.Fatal(err)
	}
	admitted(t, c, "a1", 0, 0, 8, 10, 0)
	admitted(t, c, "c1", 2, 0, 4, 70, 0)
	admitted(t, c, "d1", 3, 0, 1, 0, 0)
	head := &Workload{Name: "b0", Seq: 9, Queue: 1, Order: 1, Req: Request{Accel: 8 * Milli, VCPU: 60 * Milli, Compatible: []int{0}}}
	if err := c.Submit(head); err != nil {
		t.Fatal(err)
	}
	if got := nominateAt(c, head, 1); got != "a1 " {
		t.Fatalf("targets %q, want a1", got)
	}
	admitted(t, c, "d2", 3, 0, 1, 70, 2)
	if got := nominateAt(c, head, 3); got != "c1 " {
		t.Fatalf("targets %q, want c1", got)
	}
}

// A search's takes are kept only while they fit in the record: a search
// that ran out of jobs after more of them could, with more room, have
// stopped at one past the record.
func TestTakesTooManyToRecordAreNotReplayed(t *testing.T) {
	e := &entry{frsNeed: []int{0}}
	var k takes
	k.start(e)
	ts := make([]target, len(k.ts)+1)
	k.record(ts, true)
	if k.forNeed(e.frsNeed) {
		t.Fatalf("%d takes recorded as known; the record holds %d", len(ts), len(k.ts))
	}
	k.start(e)
	k.record(ts[:len(k.ts)], true)
	if !k.forNeed(e.frsNeed) {
		t.Fatalf("%d takes not known; the record holds them", len(k.ts))
	}
}

// A search that changed teams with lower shares could not have led is
// taken again only if its job fit in the first round: a second round
// starts where the first ran out of teams, and a team that has started
// to borrow could lead the first further. On x (20 GPUs; shares sum over
// x and y), a borrows 4 with x1, its only job, so the first rule never
// lets it lose one; c runs c1 within its quota of x and borrows 1 on y; b
// runs 3. d0 needs 4 of the 3 free: a fails the first rule, and x1 goes
// in the second round. Then c borrows on x with c2 (share 75, below a's
// 100): in the first round it loses c2 and c1 (its y job keeps its
// share up), and c1 alone is enough.
func TestASearchThatFitInItsSecondRoundIsMadeAgainWhenATeamStartsToBorrow(t *testing.T) {
	c, err := NewCore(twoTypeModel(false))
	if err != nil {
		t.Fatal(err)
	}
	admittedOn(t, c, 0, "x1", 0, 0, 8, 0, 0)
	admittedOn(t, c, 0, "c1", 2, 1, 6, 0, 0)
	admittedOn(t, c, 1, "cy", 2, 1, 7, 0, 0)
	admittedOn(t, c, 0, "b1", 1, 0, 3, 0, 0)
	head := &Workload{Name: "d0", Seq: 9, Queue: 3, Order: 1, Req: Request{Accel: 4 * Milli, Compatible: []int{0}}}
	if err := c.Submit(head); err != nil {
		t.Fatal(err)
	}
	if got := nominateAt(c, head, 1); got != "x1 " {
		t.Fatalf("targets %q, want x1 (second round)", got)
	}
	admittedOn(t, c, 0, "c2", 2, 0, 2, 0, 2)
	if got := nominateAt(c, head, 3); got != "c1 " {
		t.Fatalf("targets %q, want c1 (first round, c2 given back)", got)
	}
}

// A change in a team whose share is below that of every team a search was
// led to (in a search whose job fit in its first round) leaves the search
// as it was, replayed for the room: b0 needs 7 of x, within b's quota, and
// takes a1 then a2 (a's share 100, then 50); d, starting to borrow 1 of x
// (share 8), could not lead it anywhere. a2 alone is still kept.
func TestAChangeInATeamBelowEveryTeamASearchWasLedToLeavesIt(t *testing.T) {
	c, err := NewCore(twoTypeModel(false))
	if err != nil {
		t.Fatal(err)
	}
	admitted(t, c, "a1", 0, 0, 2, 0, 0)
	admitted(t, c, "a2", 0, 1, 6, 0, 0)
	admitted(t, c, "c1", 2, 0, 6, 0, 0)
	admitted(t, c, "d1", 3, 0, 2, 0, 0)
	head := &Workload{Name: "b0", Seq: 9, Queue: 1, Order: 1, Req: Request{Accel: 7 * Milli, Compatible: []int{0}}}
	if err := c.Submit(head); err != nil {
		t.Fatal(err)
	}
	if got := nominateAt(c, head, 1); got != "a2 " {
		t.Fatalf("targets %q, want a2", got)
	}
	admitted(t, c, "d2", 3, 0, 1, 0, 2)
	ts, ok := c.knownSearch(&entry{w: head, q: 1}, &c.sub, 0)
	if !ok || len(ts) != 1 || ts[0].w.Name != "a2" {
		t.Fatalf("known: %v %v, want a2 alone, without a search", ts, ok)
	}
	if got := nominateAt(c, head, 3); got != "a2 " {
		t.Fatalf("targets %q, want a2", got)
	}
}

// A change in a team whose share is below the job's own, once admitted,
// leads a search nowhere when the job borrows and its team has no
// candidate: the first round ends at such a team. d0 needs 4 of x, 2 over
// d's quota (share 17 once admitted); a's only job x1 goes in the second
// round. b then borrows 1 of x (share 12): the first round ends at b, and
// x1 goes as before.
func TestAChangeInATeamBelowTheJobsShareLeavesItsSearch(t *testing.T) {
	c, err := NewCore(twoTypeModel(false))
	if err != nil {
		t.Fatal(err)
	}
	admittedOn(t, c, 0, "x1", 0, 0, 8, 0, 0)
	admittedOn(t, c, 0, "c1", 2, 1, 2, 0, 0)
	admittedOn(t, c, 0, "b1", 1, 0, 8, 0, 0)
	head := &Workload{Name: "d0", Seq: 9, Queue: 3, Order: 1, Req: Request{Accel: 4 * Milli, Compatible: []int{0}}}
	if err := c.Submit(head); err != nil {
		t.Fatal(err)
	}
	if got := nominateAt(c, head, 1); got != "x1 " {
		t.Fatalf("targets %q, want x1 (second round)", got)
	}
	admittedOn(t, c, 0, "b2", 1, 0, 1, 0, 2)
	ts, ok := c.knownSearch(&entry{w: head, q: 3}, &c.sub, 0)
	if !ok || len(ts) != 1 || ts[0].w.Name != "x1" {
		t.Fatalf("known: %v %v, want x1, without a search", ts, ok)
	}
	if got := nominateAt(c, head, 3); got != "x1 " {
		t.Fatalf("targets %q, want x1", got)
	}
}
