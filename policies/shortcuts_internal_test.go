package policies

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The victim searches take shortcuts: a later type that could only tie is
// not searched, sibling teams are read from a list sorted by share, and a
// round stops at the first team whose share is below the preemptor's, a
// head's search that ended at the quick test is remembered, and so is its
// search on each type, taken again or replayed. So do cycles: heads of
// sibling teams are ordered by one sort, a head with victims is not asked
// again whether it fits unless usage was added before it, a cycle that
// would repeat the last idle one is not run, and a head's nomination is
// kept while nothing it reads has changed. Two cores, one with the
// shortcuts and one without, must make the same decisions, step by step,
// over random streams of jobs that arrive, finish and are preempted, while
// teams' quotas now and then change and, where nodes are modelled, nodes
// fail and come back; with fair sharing and with classical preemption,
// with vCPUs in quota or not, with borrowing and lending limits, a
// strict-order team and a weightless one (and, under classical
// preemption, borrowing thresholds), with jobs of two podsets, with
// admission fair sharing between two users of each team, and with vCPUs
// in a resource group of their own (with and without nodes).
func TestSearchShortcutsChangeNoDecision(t *testing.T) {
	seeds := uint64(100)
	if testing.Short() {
		seeds = 20 // about 5 s on two cores, not 25
		t.Logf("-short: %d random streams a variant, not 100", seeds)
	}
	for _, v := range []twinVariant{{}, {deep: true}, {nodes: true}, {nodes: true, classical: true}, {lostWork: true},
		{vcpus: true}, {vcpus: true, nodes: true}, {limits: true}, {limits: true, vcpus: true, nodes: true},
		{podsets: true}, {podsets: true, nodes: true}, {afs: true}, {groups: true}, {groups: true, nodes: true},
		{limits: true, classical: true}, {within: true}, {within: true, teamPrio: true}, {teamPrio: true, nodes: true},
		{deep: true, classical: true}, {deep: true, classical: true, limits: true}, {deep: true, classical: true, nodes: true, within: true},
		{minRuntime: true}, {minRuntime: true, classical: true}, {minRuntime: true, deep: true, within: true}, {minRuntime: true, limits: true, nodes: true}} {
		t.Run(v.String(), func(t *testing.T) {
			preemptions := 0
			for seed := range seeds {
				preemptions += runTwins(t, v, seed)
			}
			t.Logf("%d preemptions", preemptions)
			if preemptions < 10*int(seeds) {
				t.Fatalf("only %d preemptions: the streams do not exercise the searches", preemptions)
			}
		})
	}
}

// Each shortcut switched off alone changes no decision either, and each
// is asked in these runs: the switches are independent of one another.
func TestEachShortcutOffAloneChangesNoDecision(t *testing.T) {
	variants := []twinVariant{{}, {classical: true, limits: true}, {deep: true, within: true}, {nodes: true}, {minRuntime: true}}
	for _, s := range Shortcuts() {
		t.Run(s.String(), func(t *testing.T) {
			for _, v := range variants {
				for seed := range uint64(12) {
					runTwinsOff(t, v, seed, 1<<s)
				}
			}
		})
	}
	asked := ShortcutCounts{}
	for _, v := range variants {
		tw := newTwin(t, v, 0)
		rng := rand.New(rand.NewPCG(7, 99))
		for step := range 120 {
			tw.submit(&Workload{Seq: int64(step), Queue: rng.IntN(4), Priority: int32(rng.IntN(3)), Order: float64(step),
				Req: Request{Accel: Qty(1+rng.IntN(7)) * Milli}})
			finish := -1
			if n := len(tw.running); n > 0 && rng.IntN(2) == 0 {
				finish = rng.IntN(n)
			}
			tw.step(float64(step), finish)
		}
		k := tw.c.ShortcutCounts()
		for s := range asked.Hits {
			asked.Hits[s] += k.Hits[s]
			asked.Misses[s] += k.Misses[s]
		}
	}
	for _, s := range Shortcuts() {
		if asked.Hits[s] == 0 {
			t.Errorf("%s never answered in these runs (misses %d): switching it off shows nothing", s, asked.Misses[s])
		}
	}
}

// runTwins drives a core with the shortcuts and one without over one random
// stream, fails at the first step where they differ, and counts the
// preemptions.
func runTwins(t *testing.T, v twinVariant, seed uint64) int {
	return runTwinsOff(t, v, seed, 0)
}

// runTwinsOff is runTwins with the shortcuts of off switched off in the
// fast twin.
func runTwinsOff(t *testing.T, v twinVariant, seed uint64, off ShortcutSet) int {
	fast, slow := newTwin(t, v, off), newTwin(t, v, AllShortcuts)
	rng := rand.New(rand.NewPCG(seed, 99))
	preemptions := 0
	for step := range 120 {
		now := float64(step)
		w := &Workload{Seq: int64(step), Queue: rng.IntN(4), Priority: int32(rng.IntN(3)), Order: now,
			Req: Request{Accel: Qty(1+rng.IntN(7)) * Milli}}
		if v.teamPrio { // each team's jobs share one priority, as in the benchmarks
			w.Priority = int32(w.Queue % 3)
		}
		// Some jobs name their types: one of them, or both in either order.
		w.Req.Compatible = [][]int{nil, nil, {0}, {1}, {0, 1}, {1, 0}}[rng.IntN(6)]
		if v.vcpus {
			w.Req.VCPU = Qty(rng.IntN(13)) * Milli
		}
		if v.podsets && rng.IntN(3) == 0 { // a launcher and its workers
			per := func(g Qty) []Qty { return []Qty{g * Milli} }
			w.Req = Request{Compatible: w.Req.Compatible, PodSets: []PodSet{
				{Name: "launcher", Count: 1, PerPod: per(1)}, {Name: "workers", Count: int32(1 + rng.IntN(3)), PerPod: per(Qty(1 + rng.IntN(2)))}}}
		}
		if v.groups { // GPUs from x or y, vCPUs from a CPU pool z
			w.Req = Request{PodSets: []PodSet{{Name: "main", Count: 1, PerPod: []Qty{w.Req.Accel, Qty(rng.IntN(9)) * Milli}}}}
		}
		if v.afs { // two users share each team
			w.User = rng.IntN(2)
		}
		if v.lostWork { // the work a job would lose moves with the time
			w.RunStart, w.CheckpointInterval = now, float64(rng.IntN(4))*1.5
		}
		fast.submit(w)
		slow.submit(w)
		if rng.IntN(20) == 0 { // now and then a team's quota changes
			q, f, nom := rng.IntN(4), rng.IntN(2), Qty(rng.IntN(9))*Milli
			fast.c.SetQuota(q, f, 0, nom)
			slow.c.SetQuota(q, f, 0, nom)
		}
		got, want := "", ""
		if v.nodes && rng.IntN(8) == 0 { // a node fails or comes back
			f, n, up := rng.IntN(2), int32(rng.IntN(5)), rng.IntN(2) == 0
			got, want = fast.setNode(f, n, up, now), slow.setNode(f, n, up, now)
		}
		finish := -1
		if n := len(fast.running); n > 0 && rng.IntN(2) == 0 {
			finish = rng.IntN(n)
		}
		got, want = got+fast.step(now, finish), want+slow.step(now, finish)
		if got != want {
			t.Fatalf("seed %d, step %d:\nwith shortcuts    %s\nwithout shortcuts %s", seed, step, got, want)
		}
		preemptions += strings.Count(got, "preempt")
	}
	return preemptions
}

// twinVariant is the model twins run on: teams under one root or two child
// cohorts; nodes of four accelerators modelled or not; fair sharing or
// classical preemption; candidates ordered by the work they would lose or
// not; vCPUs in quota besides GPUs, or GPUs alone; teams alike but for
// their quotas, or each with a twist (limits); a third of the jobs a
// launcher and its workers (podsets), or none; two users per team under
// admission fair sharing (afs), or none; a second resource group, vCPUs
// from a pool of their own (groups), or one; every within-team policy, one
// per team (within), or lower priority for all; one priority per team
// (teamPrio), or any priority for any job.
type twinVariant struct {
	deep, nodes, classical, lostWork, vcpus, limits, podsets, afs, groups, within, teamPrio bool
	minRuntime                                                                              bool
}

func (v twinVariant) String() string {
	return fmt.Sprintf("deep=%v,nodes=%v,classical=%v,lostWork=%v,vcpus=%v,limits=%v,podsets=%v,afs=%v,groups=%v,within=%v,teamPrio=%v,minRuntime=%v",
		v.deep, v.nodes, v.classical, v.lostWork, v.vcpus, v.limits, v.podsets, v.afs, v.groups, v.within, v.teamPrio, v.minRuntime)
}

func (v twinVariant) model() *Model {
	m := twoTypeModel(v.deep)
	if v.nodes {
		m.NodesModelled = true
		for f := range m.Flavors {
			m.Flavors[f].Nodes, m.Flavors[f].NodeAccel = 5, 4*Milli
		}
	}
	m.PreferLeastLostWork = v.lostWork
	if v.minRuntime { // a job may not be preempted in its first 3 steps
		m.MinRuntime = 3
	}
	if v.afs {
		m.AdmissionFairSharingHalfLife = 20
	}
	if v.groups { // a second resource group: vCPUs, from a pool of its own
		m.Resources = append(m.Resources, "vcpu")
		m.Flavors = append(m.Flavors, FlavorSpec{Name: "z", Nodes: -1, AccelResource: -1, CPUResource: 1, MemResource: -1, Speed: 1})
		for q := range m.Queues {
			nom := Qty([]int{6, 3, 4, 2}[q]) * Milli
			m.Queues[q].Groups = append(m.Queues[q].Groups, ResourceGroup{Resources: []int{1},
				Flavors: []FlavorQuotas{{Flavor: 2, Quotas: map[int]Quota{1: {Nominal: nom}}}}})
		}
	}
	if v.vcpus { // a team's vCPU quota is three per GPU of its quota
		m.Resources = append(m.Resources, "vcpu")
		for f := range m.Flavors {
			m.Flavors[f].CPUResource, m.Flavors[f].NodeVCPU = 1, 12*Milli
		}
		for q := range m.Queues {
			g := &m.Queues[q].Groups[0]
			g.Resources = []int{0, 1}
			for i := range g.Flavors {
				g.Flavors[i].Quotas[1] = Quota{Nominal: 3 * g.Flavors[i].Quotas[0].Nominal}
			}
		}
	}
	if v.limits {
		// a borrows at most 3 of a type, b lends at most 2 of its own, c
		// keeps strict order and prefers preempting to borrowing, and d,
		// weightless, looks for a type where it need not borrow.
		for i := range m.Queues[0].Groups[0].Flavors {
			fq := &m.Queues[0].Groups[0].Flavors[i]
			fq.Quotas[0] = Quota{Nominal: fq.Quotas[0].Nominal, BorrowLimit: 3 * Milli, HasBorrow: true}
			fq = &m.Queues[1].Groups[0].Flavors[i]
			fq.Quotas[0] = Quota{Nominal: fq.Quotas[0].Nominal, LendLimit: 2 * Milli, HasLend: true}
		}
		m.Queues[2].Strategy = StrictFIFO
		m.Queues[2].Fungibility.PreemptionOverBorrowing = true
		m.Queues[3].Weight = 0
		m.Queues[3].Fungibility.WhenCanBorrowTryNext = true
	}
	if v.within {
		for q, p := range []PreemptPolicy{Never, LowerOrNewerEqualPriority, Any, LowerPriority} {
			m.Queues[q].WithinQueue = p
		}
	}
	if v.classical {
		m.FairSharing.Enabled = false
		for q := range m.Queues {
			m.Queues[q].BorrowWithin = LowerPriority
			if v.limits { // b and d borrow only from jobs of priority 0
				m.Queues[q].BorrowThreshold, m.Queues[q].HasBorrowThreshold = 0, q%2 == 1
			}
		}
	}
	return m
}

// twin is a core driven by a test, with its jobs in a stable order.
type twin struct {
	t       *testing.T
	c       *Core
	running []int64 // sequence numbers of admitted jobs, in admission order
	bySeq   map[int64]*Workload
}

func newTwin(t *testing.T, v twinVariant, off ShortcutSet) *twin {
	c, err := NewCore(v.model())
	if err != nil {
		t.Fatal(err)
	}
	c.off = off
	return &twin{t: t, c: c, bySeq: map[int64]*Workload{}}
}

func (tw *twin) submit(w *Workload) {
	x := *w
	x.Req.Compatible = slices.Clone(w.Req.Compatible)
	if err := tw.c.Submit(&x); err != nil {
		tw.t.Fatal(err)
	}
	tw.bySeq[x.Seq] = &x
}

// step finishes the running job at index finish (if any), completes the
// evictions under way, schedules, and describes the plan.
func (tw *twin) step(now float64, finish int) string {
	if finish >= 0 {
		seq := tw.running[finish]
		tw.running = slices.Delete(tw.running, finish, finish+1)
		tw.c.Finish(tw.bySeq[seq], now)
	}
	for i := 0; i < len(tw.running); i++ {
		if w := tw.bySeq[tw.running[i]]; w.state == stateEvicting {
			tw.c.Requeue(w, now)
			tw.running = slices.Delete(tw.running, i, i+1)
			i--
		}
	}
	return tw.schedule(now)
}

// setNode takes a node down, requeueing the jobs on it, or brings it back,
// and describes what it requeued.
func (tw *twin) setNode(f int, n int32, up bool, now float64) string {
	out := ""
	if !up {
		for _, w := range tw.c.JobsOnNode(f, n) {
			tw.c.Requeue(w, now)
			tw.running = slices.DeleteFunc(tw.running, func(s int64) bool { return s == w.Seq })
			out += fmt.Sprintf("requeue %d; ", w.Seq)
		}
	}
	tw.c.SetNodeHealthy(f, n, up)
	return out
}

// schedule runs Schedule alone and describes the plan. Every search puts
// back the room it took on trial: none is left on any node.
func (tw *twin) schedule(now float64) string {
	p := tw.c.Schedule(now)
	for f, pl := range tw.c.pools {
		if pl != nil && (pl.trialWhole != 0 || len(pl.trial) != 0) {
			tw.t.Fatalf("at %g: type %d keeps trial room after the cycle (%d whole nodes, %v)", now, f, pl.trialWhole, pl.trial)
		}
	}
	out := ""
	for _, a := range p.Admitted {
		out += fmt.Sprintf("admit %d on %d; ", a.W.Seq, a.W.Flavor())
		tw.running = append(tw.running, a.W.Seq)
	}
	for _, x := range p.Preempted {
		out += fmt.Sprintf("preempt %d for %d (%s); ", x.W.Seq, x.By.Seq, x.Reason)
	}
	return out
}

// A cycle with the state and heads of the last cycle that changed nothing
// is counted but not run. A head waiting for its victims to stop leaves the
// cohort settled; a job queued behind it changes neither the state nor the
// heads, so the next call changes nothing, exactly as a core without the
// shortcut decides; a job that becomes another team's head is nominated.
func TestACycleThatWouldRepeatTheLastIdleOneIsCountedButNotRun(t *testing.T) {
	fast, slow := newTwin(t, twinVariant{}, 0), newTwin(t, twinVariant{}, AllShortcuts)
	both := func(w Workload) {
		w.Req.Compatible = []int{0} // type x only
		fast.submit(&w)
		slow.submit(&w)
	}
	for i := range 4 { // team a borrows 16 of type x's 20
		both(Workload{Seq: int64(i), Queue: 0, Req: Request{Accel: 5 * Milli}})
	}
	if got := fast.step(0, -1); got != "admit 0 on 0; admit 1 on 0; admit 2 on 0; admit 3 on 0; " {
		t.Fatalf("setup: %s", got)
	}
	slow.step(0, -1)
	both(Workload{Seq: 4, Queue: 1, Priority: 1, Order: 1, Req: Request{Accel: 8 * Milli}}) // within b's quota
	if got, want := fast.step(1, -1), slow.step(1, -1); got != want || strings.Count(got, "preempt") != 2 {
		t.Fatalf("b's job should reclaim two of a's jobs: %q, without the shortcut %q", got, want)
	}
	h := fast.bySeq[4]
	if s := &fast.c.settled; !s.valid || !slices.Equal(s.heads, []*Workload{h}) {
		t.Fatalf("the cycle after the preemptions should settle on b's waiting head")
	}

	both(Workload{Seq: 5, Queue: 1, Order: 2, Req: Request{Accel: 1 * Milli}}) // behind b's head
	cycles := fast.c.cycles
	if got, want := fast.schedule(2), slow.schedule(2); got != "" || want != "" {
		t.Fatalf("a job behind a waiting head changed something: %q, without the shortcut %q", got, want)
	}
	if fast.c.cycles != cycles+1 || fast.c.cycles != slow.c.cycles {
		t.Fatalf("cycles: %d then %d (without the shortcut %d); the unrun cycle still counts", cycles, fast.c.cycles, slow.c.cycles)
	}
	for _, seq := range []int64{4, 5} {
		gs, gr := fast.c.Why(fast.bySeq[seq])
		ws, wr := slow.c.Why(slow.bySeq[seq])
		if gs != ws || gr != wr {
			t.Errorf("job %d: %s %q, without the shortcut %s %q", seq, gs, gr, ws, wr)
		}
	}

	// A head in team c, with the state as it was: only the heads differ.
	// It would reclaim from team a, but the victims it finds first are
	// the ones b's head claimed earlier in the cycle, so it waits for them.
	both(Workload{Seq: 6, Queue: 2, Order: 3, Req: Request{Accel: 2 * Milli}})
	if got, want := fast.schedule(3), slow.schedule(3); got != want {
		t.Fatalf("a new head: %q, without the shortcut %q", got, want)
	}
	gs, gr := fast.c.Why(fast.bySeq[6])
	ws, wr := slow.c.Why(slow.bySeq[6])
	if gs != ws || gr != wr || gr != "waiting for jobs preempted by another job to stop" {
		t.Fatalf("the new head: %s %q, without the shortcut %s %q", gs, gr, ws, wr)
	}
}

// A kept nomination rests on the nodes of the job's types too. Team b's
// head needs two whole nodes of type x: one idle and one held by the job it
// reclaims from team a. When the idle node fails, or is taken out of the
// fleet, the head needs a second victim, though no job was released or
// admitted.
func TestANodeLostIsSeenByTheHeadWaitingOnItsType(t *testing.T) {
	for _, tc := range []struct {
		name string
		lose func(c *Core, idle int32)
	}{
		{"fails", func(c *Core, idle int32) { c.SetNodeHealthy(0, idle, false) }},
		{"removed", func(c *Core, _ int32) { c.PickNodesToRemove(0, 1) }}, // free nodes go first
	} {
		lose := tc.lose
		t.Run(tc.name, func(t *testing.T) {
			v := twinVariant{nodes: true}
			fast, slow := newTwin(t, v, 0), newTwin(t, v, AllShortcuts)
			both := func(w Workload) {
				w.Req.Compatible = []int{0} // type x only: five nodes of four
				fast.submit(&w)
				slow.submit(&w)
			}
			for i := range 4 { // team a borrows 12 of type x's 20, a node per job
				both(Workload{Seq: int64(i), Queue: 0, Req: Request{Accel: 4 * Milli}})
			}
			if got := fast.schedule(0); got != "admit 0 on 0; admit 1 on 0; admit 2 on 0; admit 3 on 0; " {
				t.Fatalf("setup: %s", got)
			}
			slow.schedule(0)
			both(Workload{Seq: 4, Queue: 1, Order: 1, Req: Request{Accel: 8 * Milli}}) // within b's quota of 8
			if got, want := fast.schedule(1), slow.schedule(1); got != want || strings.Count(got, "preempt") != 1 {
				t.Fatalf("b's job should reclaim one of a's jobs: %q, without the shortcut %q", got, want)
			}
			idle := int32(-1)
			for n := range int32(5) {
				if len(fast.c.JobsOnNode(0, n)) == 0 {
					idle = n
				}
			}
			if idle < 0 {
				t.Fatal("setup: no idle node of type x")
			}
			lose(fast.c, idle)
			lose(slow.c, idle)
			got, want := fast.schedule(2), slow.schedule(2)
			if got != want || strings.Count(got, "preempt") != 1 || !strings.Contains(got, "for 4") {
				t.Fatalf("with the idle node gone b's job should reclaim a second job: %q, without the shortcut %q", got, want)
			}
		})
	}
}
