package policies

import (
	"fmt"
	"math"
)

// Qty is a quantity of a resource in thousandths of its unit (0.5 GPU = 500),
// so that quota arithmetic is exact.
type Qty = int64

// maxQty stands for no limit.
const maxQty = Qty(1<<63 - 1)

// Milli is one whole unit.
const Milli Qty = 1000

// ToQty converts a float amount to thousandths, rounding to nearest.
func ToQty(v float64) Qty { return Qty(math.Round(v * float64(Milli))) }

// Kind names a policy.
type Kind string

// Policy kinds.
const (
	KindFIFO      Kind = "fifo"
	KindPriority  Kind = "priority"
	KindFairShare Kind = "fairshare"
	KindQuota     Kind = "quota"
)

// PreemptPolicy says which jobs may be preempted (Kueue's PreemptionPolicy).
type PreemptPolicy uint8

// Preemption policies.
const (
	Never PreemptPolicy = iota
	LowerPriority
	LowerOrNewerEqualPriority
	Any
)

func (p PreemptPolicy) String() string {
	return [...]string{"Never", "LowerPriority", "LowerOrNewerEqualPriority", "Any"}[p]
}

// QueueingStrategy says what a head that cannot be admitted does.
type QueueingStrategy uint8

// Queueing strategies.
const (
	BestEffortFIFO QueueingStrategy = iota
	StrictFIFO
)

// FlavorFungibility says when the search over instance types stops.
type FlavorFungibility struct {
	// WhenCanBorrowTryNext keeps looking for a type where the job fits
	// without borrowing (Kueue TryNextFlavor); false stops at the first fit.
	WhenCanBorrowTryNext bool
	// WhenCanPreemptStop uses the first type where preemption would make
	// room (Kueue MayStopSearch); false keeps looking (the default).
	WhenCanPreemptStop bool
	// PreemptionOverBorrowing prefers preempting within quota to borrowing.
	PreemptionOverBorrowing bool
}

// Quota is the quota of one queue or cohort for one flavor and resource.
type Quota struct {
	Nominal     Qty
	BorrowLimit Qty
	HasBorrow   bool // false = borrowing unlimited
	LendLimit   Qty
	HasLend     bool // false = all of nominal may be lent
}

// FlavorQuotas is one flavor of a resource group with its quota per resource.
type FlavorQuotas struct {
	Flavor int
	Quotas map[int]Quota // resource index -> quota
}

// ResourceGroup is a set of resources that one podset takes from one flavor.
type ResourceGroup struct {
	Resources []int
	Flavors   []FlavorQuotas // order matters: tried first to last
}

// QueueSpec is a team's queue (Kueue ClusterQueue).
type QueueSpec struct {
	Name         string
	Cohort       int // index into Model.Cohorts, -1 = none
	Strategy     QueueingStrategy
	Weight       float64
	WithinQueue  PreemptPolicy
	Reclaim      PreemptPolicy
	BorrowWithin PreemptPolicy // Never or LowerPriority
	// BorrowThreshold limits borrowWithinCohort victims to priority <= it.
	BorrowThreshold    int32
	HasBorrowThreshold bool
	Fungibility        FlavorFungibility
	Groups             []ResourceGroup
	// FirstCome orders the queue by arrival only (HyperPod first-come-first-
	// serve); otherwise by priority, then arrival (task ranking).
	FirstCome bool
	// MaxPreemptions is how many preemptions a job of this queue survives
	// before it fails; -1 = unlimited. The shell enforces it.
	MaxPreemptions int
}

// CohortSpec is a sharing group; its own quota is an extra shared pool.
type CohortSpec struct {
	Name   string
	Parent int // -1 = root
	Weight float64
	Quotas map[int]map[int]Quota // flavor -> resource -> quota
}

// FlavorSpec is an instance type.
type FlavorSpec struct {
	Name string
	// Node capacity per node, and the number of nodes; Nodes < 0 means the
	// flavor has no nodes modelled (quota alone limits admission).
	NodeAccel, NodeVCPU, NodeMem Qty
	Nodes                        int
	// AccelResource is the index of this flavor's accelerator resource, -1
	// if none; CPUResource and MemResource likewise (-1 = not in quota).
	AccelResource, CPUResource, MemResource int
	// Speed is the relative throughput, used to turn backfill estimates
	// (in reference seconds) into time on this flavor.
	Speed float64
}

// FairSharing enables Kueue fair sharing and picks preemption strategies.
type FairSharing struct {
	Enabled bool
	// LessThanOrEqualToFinalShare (S2-a) and LessThanInitialShare (S2-b), in
	// the order given; empty = both, S2-a first.
	Strategies []FairStrategy
}

// FairStrategy is a fair-sharing preemption rule.
type FairStrategy uint8

// Fair-sharing preemption strategies.
const (
	LessThanOrEqualToFinalShare FairStrategy = iota
	LessThanInitialShare
)

// Backfill configures the fifo and priority policies' backfilling.
type Backfill struct {
	Enabled bool
	// Depth bounds how many queued jobs one pass examines (0 = all).
	Depth int
}

// BatchShare configures the fairshare policy.
type BatchShare struct {
	// DecayHalfLife (s) fades a running job's usage with its age; 0 counts
	// current usage only.
	DecayHalfLife float64
	// ComputeReservation (0..1) holds (r)^active of capacity for inactive shares.
	ComputeReservation float64
}

// Model is the configuration the core schedules with.
type Model struct {
	Kind        Kind
	Resources   []string
	Flavors     []FlavorSpec
	Cohorts     []CohortSpec
	Queues      []QueueSpec
	FairSharing FairSharing
	// AdmissionFairSharingHalfLife (s) > 0 orders jobs within a queue by the
	// decayed usage of their user (Kueue admission fair sharing).
	AdmissionFairSharingHalfLife float64
	Backfill                     Backfill
	Batch                        BatchShare
	// PreferLeastLostWork breaks ties between equally ranked victims by the
	// work they would lose since their last checkpoint.
	PreferLeastLostWork bool
	// MinRuntime (s) > 0 protects a running job from preemption until it
	// has run that long since its last start (minruntime.go).
	MinRuntime float64
	// Reservations makes the fifo and priority policies hold each team to
	// its quota plus capacity outside every quota (nobody lends).
	Reservations bool
	// IdleFirstCome orders heads of different teams by arrival alone when
	// fair sharing is off (HyperPod first-come-first-serve idle allocation).
	IdleFirstCome bool
	// NodesModelled says jobs need room on nodes as well as quota.
	NodesModelled bool
}

// ResourceIndex finds a resource by name.
func (m *Model) ResourceIndex(name string) int {
	for i, r := range m.Resources {
		if r == name {
			return i
		}
	}
	return -1
}

// FlavorIndex finds a flavor by name.
func (m *Model) FlavorIndex(name string) int {
	for i, f := range m.Flavors {
		if f.Name == name {
			return i
		}
	}
	return -1
}

// QueueIndex finds a queue by name.
func (m *Model) QueueIndex(name string) int {
	for i, q := range m.Queues {
		if q.Name == name {
			return i
		}
	}
	return -1
}

// Validate checks the model's internal references.
func (m *Model) Validate() error {
	for i, c := range m.Cohorts {
		if c.Parent >= len(m.Cohorts) || c.Parent == i {
			return fmt.Errorf("cohort %s: bad parent", c.Name)
		}
		seen := map[int]bool{}
		for p := c.Parent; p >= 0; p = m.Cohorts[p].Parent {
			if seen[p] || p == i {
				return fmt.Errorf("cohort %s: parents form a cycle", c.Name)
			}
			seen[p] = true
		}
	}
	for _, q := range m.Queues {
		if q.Cohort >= len(m.Cohorts) {
			return fmt.Errorf("queue %s: bad cohort", q.Name)
		}
		seenRes := map[int]bool{}
		for _, g := range q.Groups {
			for _, r := range g.Resources {
				if seenRes[r] {
					return fmt.Errorf("queue %s: resource %s is in two resource groups", q.Name, m.Resources[r])
				}
				seenRes[r] = true
			}
		}
	}
	return nil
}
