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

// memoCase is a core with jobs put straight in as running, and a head
// waiting on type 0 (x), for the search memory's rules.
type memoCase struct {
	t    *testing.T
	c    *Core
	head *Workload
}

func newMemoCase(t *testing.T, m *Model) *memoCase {
	t.Helper()
	c, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	return &memoCase{t: t, c: c}
}

// run puts a job of queue q on type f as running since at.
func (mc *memoCase) run(f int, name string, q int, prio int32, accel, vcpu Qty, at float64) *Workload {
	mc.t.Helper()
	w := &Workload{Name: name, Seq: int64(len(name)*1000 + int(at)), Queue: q, Priority: prio, Order: at,
		Req: Request{Accel: accel * Milli, VCPU: vcpu * Milli, Compatible: []int{f}}}
	if err := mc.c.AddAdmitted(w, [][]int{{f}}, at, false); err != nil {
		mc.t.Fatal(err)
	}
	return w
}

// wait queues the head: a job of queue q for accel GPUs and vcpu vCPUs of x.
func (mc *memoCase) wait(name string, q int, accel, vcpu Qty) {
	mc.t.Helper()
	mc.head = &Workload{Name: name, Seq: 9, Queue: q, Order: 1, Req: Request{Accel: accel * Milli, VCPU: vcpu * Milli, Compatible: []int{0}}}
	if err := mc.c.Submit(mc.head); err != nil {
		mc.t.Fatal(err)
	}
}

// targets nominates the head at now and fails unless its targets are want.
func (mc *memoCase) targets(now float64, want, why string) {
	mc.t.Helper()
	if got := nominateAt(mc.c, mc.head, now); got != want {
		mc.t.Fatalf("at %g: targets %q, want %q (%s)", now, got, want, why)
	}
}

// known fails unless the head's search on x is known without a search,
// with the one target want.
func (mc *memoCase) known(want string) {
	mc.t.Helper()
	ts, ok := mc.c.knownSearch(&entry{w: mc.head, q: mc.head.Queue}, &mc.c.sub, 0)
	if !ok || len(ts) != 1 || ts[0].w.Name != want {
		mc.t.Fatalf("known: %v %v, want %s alone, without a search", ts, ok, want)
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
	mc := newMemoCase(t, &Model{
		Kind:        KindQuota,
		Resources:   []string{"gpu", "vcpu"},
		Flavors:     []FlavorSpec{{Name: "x", Nodes: -1, AccelResource: 0, CPUResource: 1, MemResource: -1, Speed: 1}},
		Cohorts:     []CohortSpec{{Name: "root", Parent: -1, Weight: 1}},
		Queues:      []QueueSpec{queue("a", 4, 40), queue("b", 8, 80), queue("c", 6, 10), queue("d", 2, 70)},
		FairSharing: FairSharing{Enabled: true},
	})
	mc.run(0, "a1", 0, 0, 8, 10, 0)
	mc.run(0, "c1", 2, 0, 4, 70, 0)
	mc.run(0, "d1", 3, 0, 1, 0, 0)
	mc.wait("b0", 1, 8, 60)
	mc.targets(1, "a1 ", "GPUs lacking")
	mc.run(0, "d2", 3, 0, 1, 70, 2)
	mc.targets(3, "c1 ", "GPUs and vCPUs lacking")
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

// A remembered search is replayed, or kept, only where its rules say. Each
// case runs jobs on x (20 GPUs) and y, queues a head on x, nominates it,
// changes one thing, nominates it again, and checks both answers (and,
// where a rule should spare the search, that it is known without one).
// Shares sum over x and y; a, b, c and d weigh 1, 2, 1 and 3.
func TestARememberedSearchHoldsWhereItsRulesSay(t *testing.T) {
	type job struct {
		f     int
		name  string
		q     int
		prio  int32
		accel Qty
		at    float64
	}
	for _, tc := range []struct {
		rule          string
		running       []job
		head          job // its queue and GPUs
		first         string
		change        job // put in as running; or, with no GPUs, finished
		known, second string
	}{{
		// a borrows 4 with a1 (2 GPUs, first in candidate order) and a2
		// (6); c and d run within quota; 4 are free. b0 needs 7: it takes
		// a1 (6 free), then a2 (12), and keeps a2. Once d1 finishes, 6 are
		// free: taking a1 is enough.
		rule:    "AReplayedSearchStopsWhereTheRoomNowLetsItFit",
		running: []job{{0, "a1", 0, 0, 2, 0}, {0, "a2", 0, 1, 6, 0}, {0, "c1", 2, 0, 6, 0}, {0, "d1", 3, 0, 2, 0}},
		head:    job{0, "b0", 1, 0, 7, 1}, first: "a2 ",
		change: job{name: "d1"}, known: "a1", second: "a1 ",
	}, {
		// As above, but d starts to borrow 1 of x with d2 (share 8), below
		// a's share at each take (100, then 50): it could lead nowhere.
		rule:    "AChangeInATeamBelowEveryTeamASearchWasLedToLeavesIt",
		running: []job{{0, "a1", 0, 0, 2, 0}, {0, "a2", 0, 1, 6, 0}, {0, "c1", 2, 0, 6, 0}, {0, "d1", 3, 0, 2, 0}},
		head:    job{0, "b0", 1, 0, 7, 1}, first: "a2 ",
		change: job{0, "d2", 3, 0, 1, 2}, known: "a2", second: "a2 ",
	}, {
		// a borrows 4 with x1, its only job, so the first rule never lets
		// it lose one; b runs within quota; 2 are free. d0 needs 4, 2 over
		// d's quota (share 17 once admitted): x1 goes in the second round.
		// b then borrows 1 of x (share 12): the first round ends at b.
		rule:    "AChangeInATeamBelowTheJobsShareLeavesItsSearch",
		running: []job{{0, "x1", 0, 0, 8, 0}, {0, "c1", 2, 1, 2, 0}, {0, "b1", 1, 0, 8, 0}},
		head:    job{0, "d0", 3, 0, 4, 1}, first: "x1 ",
		change: job{0, "b2", 1, 0, 1, 2}, known: "x1", second: "x1 ",
	}, {
		// As a's x1 above, with c running c1 within its quota of x and
		// borrowing 1 on y, and 3 free for d0. c then borrows on x with c2
		// (share 75, below a's 100): a first round that ran out of teams
		// now reaches c, which loses c2 and c1 (its y job keeps its share
		// up), and c1 alone is enough.
		rule:    "ASearchThatFitInItsSecondRoundIsMadeAgainWhenATeamStartsToBorrow",
		running: []job{{0, "x1", 0, 0, 8, 0}, {0, "c1", 2, 1, 6, 0}, {1, "cy", 2, 1, 7, 0}, {0, "b1", 1, 0, 3, 0}},
		head:    job{0, "d0", 3, 0, 4, 1}, first: "x1 ",
		change: job{0, "c2", 2, 0, 2, 2}, second: "c1 ",
	}} {
		t.Run(tc.rule, func(t *testing.T) {
			mc := newMemoCase(t, twoTypeModel(false))
			byName := map[string]*Workload{}
			for _, j := range tc.running {
				byName[j.name] = mc.run(j.f, j.name, j.q, j.prio, j.accel, 0, j.at)
			}
			mc.wait(tc.head.name, tc.head.q, tc.head.accel, 0)
			mc.targets(1, tc.first, "first nomination")
			if j := tc.change; j.accel == 0 {
				mc.c.Finish(byName[j.name], 2)
			} else {
				mc.run(j.f, j.name, j.q, j.prio, j.accel, 0, j.at)
			}
			if tc.known != "" {
				mc.known(tc.known)
			}
			mc.targets(3, tc.second, "after the change")
		})
	}
}
