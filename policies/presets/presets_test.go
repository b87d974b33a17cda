package presets

import (
	"math"
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

func TestFallbackNamesMapToKueueFlavorFungibility(t *testing.T) {
	for _, tc := range []struct {
		name string
		want policies.FlavorFungibility
		ok   bool
	}{
		{"try-next-type", policies.FlavorFungibility{WhenCanBorrowTryNext: true}, true},
		{"borrow-first", policies.FlavorFungibility{}, true},
		{"preempt-first", policies.FlavorFungibility{WhenCanBorrowTryNext: true, WhenCanPreemptStop: true, PreemptionOverBorrowing: true}, true},
		{"next", policies.FlavorFungibility{}, false},
	} {
		got, ok := Fungibility(tc.name)
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %+v %v, want %+v %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestPreemptionNamesMapToKueuePolicies(t *testing.T) {
	for name, want := range map[string]policies.PreemptPolicy{"never": policies.Never, "lower-priority": policies.LowerPriority,
		"lower-or-newer-equal": policies.LowerOrNewerEqualPriority, "any": policies.Any} {
		if got, ok := Preemption(name); got != want || !ok {
			t.Errorf("%s: got %v %v, want %v", name, got, ok, want)
		}
	}
	if _, ok := Preemption("LowerPriority"); ok {
		t.Error("Kueue's spelling is not a scenario's")
	}
}

// A team's sharing becomes Kueue's lending and borrowing limits; an
// absolute borrowing limit counts accelerators, so it caps no other
// resource.
func TestSharingBecomesLendingAndBorrowingLimits(t *testing.T) {
	q8 := policies.ToQty(8)
	for _, tc := range []struct {
		name  string
		s     Sharing
		accel bool
		want  policies.Quota
	}{
		{"lends and borrows freely", Sharing{Lend: true, LendFraction: 1, Borrow: true, BorrowLimit: math.NaN()}, true,
			policies.Quota{Nominal: q8}},
		{"lends nothing", Sharing{Lend: false, LendFraction: 1, Borrow: true, BorrowLimit: math.NaN()}, true,
			policies.Quota{Nominal: q8, HasLend: true}},
		{"lends a quarter", Sharing{Lend: true, LendFraction: 0.25, Borrow: true, BorrowLimit: math.NaN()}, true,
			policies.Quota{Nominal: q8, HasLend: true, LendLimit: policies.ToQty(2)}},
		{"borrows nothing", Sharing{Lend: true, LendFraction: 1, Borrow: false, BorrowLimit: math.NaN()}, true,
			policies.Quota{Nominal: q8, HasBorrow: true}},
		{"borrows half its quota", Sharing{Lend: true, LendFraction: 1, Borrow: true, BorrowLimit: 0.5, BorrowPercent: true}, false,
			policies.Quota{Nominal: q8, HasBorrow: true, BorrowLimit: policies.ToQty(4)}},
		{"borrows 16 accelerators", Sharing{Lend: true, LendFraction: 1, Borrow: true, BorrowLimit: 16}, true,
			policies.Quota{Nominal: q8, HasBorrow: true, BorrowLimit: policies.ToQty(16)}},
		{"16 accelerators cap no vCPUs", Sharing{Lend: true, LendFraction: 1, Borrow: true, BorrowLimit: 16}, false,
			policies.Quota{Nominal: q8}},
	} {
		if got := tc.s.Quota(8, tc.accel); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// HyperPod's ratio rule on a p5.48xlarge node (8 GPUs, 192 vCPUs, 2 TiB).
func TestQuotaGetsTheResourcesItOmitsInTheSameShareOfANode(t *testing.T) {
	node := Shape{8, 192, 2048}
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		q    Shape
		want Shape
	}{
		{"half the GPUs", Shape{4, nan, nan}, Shape{4, 96, 1024}},
		{"a quarter of the memory", Shape{0, nan, 512}, Shape{0, 48, 512}},
		{"vCPUs alone", Shape{nan, 48, nan}, Shape{0, 48, 512}},
		{"all given", Shape{2, 10, 100}, Shape{2, 10, 100}},
		{"nothing", Shape{0, nan, nan}, Shape{0, 0, 0}},
	} {
		if got := FillRatio(tc.q, node); got != tc.want {
			t.Errorf("%s: got %+v, want %+v", tc.name, got, tc.want)
		}
	}
}

// model is one type of nodes of 8 GPUs and teams with GPU quotas, all in
// one root cohort.
func model(nodes int, quotas ...float64) *policies.Model {
	m := &policies.Model{Kind: policies.KindQuota, NodesModelled: true, Resources: []string{"nvidia.com/gpu"},
		Flavors: []policies.FlavorSpec{{Name: "p5", NodeAccel: policies.ToQty(8), Nodes: nodes, AccelResource: 0, CPUResource: -1, MemResource: -1, Speed: 1}},
		Cohorts: []policies.CohortSpec{{Name: "org", Parent: -1, Weight: 1}}}
	for i, q := range quotas {
		m.Queues = append(m.Queues, policies.QueueSpec{Name: string(rune('a' + i)), Cohort: 0, Weight: 1, MaxPreemptions: -1,
			WithinQueue: policies.LowerPriority, Reclaim: policies.LowerPriority, BorrowWithin: policies.LowerPriority,
			Groups: []policies.ResourceGroup{{Resources: []int{0}, Flavors: []policies.FlavorQuotas{{Flavor: 0,
				Quotas: map[int]policies.Quota{0: {Nominal: policies.ToQty(q)}}}}}}})
	}
	return m
}

func TestIdlePoolGivesUncoveredCapacityToTheSingleRoot(t *testing.T) {
	m := model(3, 8, 4)
	if root := IdlePool(m); root != 0 {
		t.Fatalf("pool in cohort %d, want 0", root)
	}
	if got := m.Cohorts[0].Quotas[0][0].Nominal; got != policies.ToQty(12) {
		t.Errorf("pool holds %d, want the 12 GPUs of 24 no team's quota covers", got)
	}
	m = model(3, 8, 4)
	m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: "other", Parent: -1, Weight: 1})
	if root := IdlePool(m); root != -1 || m.Cohorts[0].Quotas != nil {
		t.Errorf("two roots: pool in %d with %v, want none", root, m.Cohorts[0].Quotas)
	}
}

// run submits jobs ("team:priority:gpus", in order, one second apart) to a
// core on m and schedules after each; it returns the decisions.
func run(t *testing.T, m *policies.Model, jobs ...string) string {
	t.Helper()
	c, err := policies.NewCore(m)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for i, j := range jobs {
		var team, prio, gpus int
		parts := strings.Split(j, ":")
		team = int(parts[0][0] - 'a')
		prio = int(parts[1][0] - '0')
		gpus = int(parts[2][0] - '0')
		w := &policies.Workload{Name: j, Seq: int64(i), Queue: team, Priority: int32(prio), Order: float64(i),
			Req: policies.Request{Accel: policies.ToQty(float64(gpus))}}
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		p := c.Schedule(float64(i))
		for _, a := range p.Admitted {
			out = append(out, "admit "+a.W.Name)
		}
		for _, x := range p.Preempted {
			out = append(out, "preempt "+x.W.Name+" ("+x.Reason+")")
		}
	}
	return strings.Join(out, "; ")
}

// AWS Batch quota shares (../shared/reference/aws-batch-fairshare.md,
// the blog's examples 1 and 2): a share borrows idle capacity, and lent
// capacity is reclaimed from the borrower, whatever the priorities, when
// its owner's jobs arrive; a share at its limit preempts its own
// lowest-priority job for a higher one.
func TestBatchQuotaSharesReclaimLentCapacityAndPreemptWithinAShareAtItsLimit(t *testing.T) {
	m := model(2, 8, 8)
	BatchQuotaShares(m)
	IdlePool(m)
	got := run(t, m, "a:9:8", "a:9:8", "b:1:8")
	want := "admit a:9:8; admit a:9:8; preempt a:9:8 (InCohortReclamation)"
	if got != want {
		t.Errorf("reclaim: got %q, want %q", got, want)
	}
	m = model(2, 8, 8)
	BatchQuotaShares(m)
	IdlePool(m)
	got = run(t, m, "b:5:8", "a:3:4", "a:1:4", "a:9:4")
	want = "admit b:5:8; admit a:3:4; admit a:1:4; preempt a:1:4 (InClusterQueue)"
	if got != want {
		t.Errorf("in-share: got %q, want %q", got, want)
	}
}

// Hard reservations: a team never uses another's idle reservation.
func TestHardReservationsLendNothing(t *testing.T) {
	m := model(2, 8, 8)
	m.Kind = policies.KindPriority
	HardReservations(m)
	if got := run(t, m, "a:1:8", "a:1:8"); got != "admit a:1:8" {
		t.Errorf("got %q, want only the first of a's jobs: b's 8 GPUs stay reserved", got)
	}
}
