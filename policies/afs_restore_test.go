package policies

import (
	"math"
	"testing"
)

// A user's consumption given back to a rebuilt core decays from when it
// was taken, towards what the user's running jobs hold, exactly as it
// would have in the core that took it; and it orders the team's queue.
func TestRestoredUserUsageDecaysAndOrdersAsIfTheCoreHadNeverStopped(t *testing.T) {
	m := &Model{Kind: KindQuota, Resources: []string{"gpu"}, AdmissionFairSharingHalfLife: 3600,
		Flavors: []FlavorSpec{{Name: "f", NodeAccel: 8 * Milli, Nodes: 1, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []CohortSpec{{Name: "c", Parent: -1, Weight: 1}},
		Queues: []QueueSpec{{Name: "a", Cohort: 0, Weight: 1, MaxPreemptions: -1,
			Groups: []ResourceGroup{{Resources: []int{0}, Flavors: []FlavorQuotas{{Flavor: 0, Quotas: map[int]Quota{0: {Nominal: 8 * Milli}}}}}}}}}
	job := func(name string, user int, order float64) *Workload {
		return &Workload{Name: name, Queue: 0, User: user, Order: order, Req: Request{Accel: 8 * Milli}}
	}
	// The first core: user 1 runs an 8-GPU job from 0 to 1800 s.
	one, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	w := job("w", 1, 0)
	if err := one.Submit(w); err != nil {
		t.Fatal(err)
	}
	if p := one.Schedule(0); len(p.Admitted) != 1 {
		t.Fatalf("admitted %v", p.Admitted)
	}
	one.Finish(w, 1800)
	kept := one.UserUsages(1800)
	if len(kept) != 1 || kept[0].User != 1 || kept[0].Consumed <= 0 {
		t.Fatalf("kept %+v", kept)
	}
	want := one.UserUsages(5400)[0].Consumed
	if math.Abs(want-kept[0].Consumed/2) > 1e-9 {
		t.Errorf("an hour (one half-life) later %g, want half of %g", want, kept[0].Consumed)
	}

	// A rebuilt core given the usage: same figure an hour later, and user
	// 2's later job goes before user 1's earlier one.
	two, err := NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := two.RestoreUserUsage(0, 1, kept[0].Consumed, 1800); err != nil {
		t.Fatal(err)
	}
	if got := two.UserUsages(5400)[0].Consumed; math.Abs(got-want) > 1e-9 {
		t.Errorf("restored usage an hour later %g, want %g", got, want)
	}
	early, late := job("early", 1, 100), job("late", 2, 200)
	for _, x := range []*Workload{early, late} {
		if err := two.Submit(x); err != nil {
			t.Fatal(err)
		}
	}
	if p := two.Schedule(5400); len(p.Admitted) != 1 || p.Admitted[0].W != late {
		t.Errorf("admitted %v, want user 2's late job first", p.Admitted)
	}
	if err := two.RestoreUserUsage(3, 1, 1, 0); err == nil {
		t.Error("usage of an unknown queue restored")
	}
}
