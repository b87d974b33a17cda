package presets

import (
	"math"

	"github.com/allot-sim/allot/policies"
)

// Fungibility is the flavor fungibility of a fallback setting:
// try-next-type (a type where the job would borrow or preempt does not
// stop the search), borrow-first (the first type where it fits, borrowing
// or not, stops it) or preempt-first (preempting is preferred to
// borrowing). ok is false for any other name.
func Fungibility(fallback string) (f policies.FlavorFungibility, ok bool) {
	switch fallback {
	case "try-next-type":
		return policies.FlavorFungibility{WhenCanBorrowTryNext: true}, true
	case "borrow-first":
		return policies.FlavorFungibility{}, true
	case "preempt-first":
		return policies.FlavorFungibility{WhenCanBorrowTryNext: true, WhenCanPreemptStop: true, PreemptionOverBorrowing: true}, true
	}
	return policies.FlavorFungibility{}, false
}

// Preemption is the preemption policy of a setting's name: never,
// lower-priority, lower-or-newer-equal or any.
func Preemption(name string) (p policies.PreemptPolicy, ok bool) {
	switch name {
	case "never":
		return policies.Never, true
	case "lower-priority":
		return policies.LowerPriority, true
	case "lower-or-newer-equal":
		return policies.LowerOrNewerEqualPriority, true
	case "any":
		return policies.Any, true
	}
	return policies.Never, false
}

// Sharing is a team's resource sharing (HyperPod's ResourceSharingConfig):
// whether it lends its idle quota and what share of it at most, whether it
// borrows and how much at most.
type Sharing struct {
	Lend         bool
	LendFraction float64 // the share of its quota it lends at most; 1 = all
	Borrow       bool
	// BorrowLimit caps what it borrows: a share of its quota
	// (BorrowPercent) or an absolute amount of accelerators; NaN = no cap.
	BorrowLimit   float64
	BorrowPercent bool
}

// Quota is a team's quota of one resource of one type under its sharing:
// nominal, with the lending and borrowing limits. An absolute borrowing
// limit is in accelerators, so it caps only the accelerator resource.
func (s Sharing) Quota(nominal float64, accelerator bool) policies.Quota {
	q := policies.Quota{Nominal: policies.ToQty(nominal)}
	if !s.Lend {
		q.HasLend, q.LendLimit = true, 0
	} else if s.LendFraction < 1 {
		q.HasLend, q.LendLimit = true, policies.ToQty(nominal*s.LendFraction)
	}
	switch {
	case !s.Borrow:
		q.HasBorrow, q.BorrowLimit = true, 0
	case math.IsNaN(s.BorrowLimit):
	case s.BorrowPercent:
		q.HasBorrow, q.BorrowLimit = true, policies.ToQty(nominal*s.BorrowLimit)
	case accelerator:
		q.HasBorrow, q.BorrowLimit = true, policies.ToQty(s.BorrowLimit)
	}
	return q
}

// Shape is one node of an instance type, or a quota of it: accelerators,
// vCPUs and memory (GiB). In a quota, NaN means not given.
type Shape struct {
	Accelerators, VCPUs, MemoryGiB float64
}

// FillRatio completes a quota of a type by HyperPod's ratio rule: one that
// gives accelerators gets vCPUs and memory in the same share of a node;
// one that gives memory (or vCPUs) gets the rest by that share, and no
// accelerators unless given. What the quota gives is kept.
func FillRatio(q Shape, node Shape) Shape {
	frac := 0.0
	switch {
	case node.Accelerators > 0 && q.Accelerators > 0:
		frac = q.Accelerators / node.Accelerators
	case !math.IsNaN(q.MemoryGiB) && node.MemoryGiB > 0:
		frac = q.MemoryGiB / node.MemoryGiB
	case !math.IsNaN(q.VCPUs) && node.VCPUs > 0:
		frac = q.VCPUs / node.VCPUs
	}
	if math.IsNaN(q.Accelerators) {
		q.Accelerators = 0
	}
	if math.IsNaN(q.VCPUs) {
		q.VCPUs = frac * node.VCPUs
	}
	if math.IsNaN(q.MemoryGiB) {
		q.MemoryGiB = frac * node.MemoryGiB
	}
	return q
}

// IdleAllocation sets how a quota model hands out idle capacity: fair
// share (Kueue's fair sharing, with its strategies in order; none means
// Kueue's default) or first come (heads within quota first, then by
// arrival).
func IdleAllocation(m *policies.Model, fairShare bool, strategies []policies.FairStrategy) {
	m.FairSharing = policies.FairSharing{Enabled: fairShare, Strategies: strategies}
	m.IdleFirstCome = !fairShare
}

// IdlePool gives the capacity of the fleet that no quota covers to the
// single root cohort, as a pool every team may borrow from (HyperPod idle
// resource sharing), and returns that root. With several roots, or no
// team, there is no pool: -1.
func IdlePool(m *policies.Model) int {
	root := -1
	for i, c := range m.Cohorts {
		if c.Parent < 0 {
			if root >= 0 {
				return -1
			}
			root = i
		}
	}
	if root < 0 || len(m.Queues) == 0 {
		return -1
	}
	nR := len(m.Resources)
	used := make([]policies.Qty, len(m.Flavors)*nR)
	for _, q := range m.Queues {
		for _, g := range q.Groups {
			for _, fq := range g.Flavors {
				for r, qq := range fq.Quotas {
					used[fq.Flavor*nR+r] += qq.Nominal
				}
			}
		}
	}
	for _, c := range m.Cohorts {
		for f, byRes := range c.Quotas {
			for r, qq := range byRes {
				used[f*nR+r] += qq.Nominal
			}
		}
	}
	pool := &m.Cohorts[root]
	if pool.Quotas == nil {
		pool.Quotas = map[int]map[int]policies.Quota{}
	}
	for f, fs := range m.Flavors {
		caps := map[int]policies.Qty{}
		if fs.AccelResource >= 0 {
			caps[fs.AccelResource] = fs.NodeAccel * policies.Qty(fs.Nodes)
		}
		if fs.CPUResource >= 0 {
			caps[fs.CPUResource] = fs.NodeVCPU * policies.Qty(fs.Nodes)
		}
		if fs.MemResource >= 0 {
			caps[fs.MemResource] = fs.NodeMem * policies.Qty(fs.Nodes)
		}
		for r, cp := range caps {
			free := cp - used[f*nR+r]
			if free <= 0 {
				continue
			}
			if pool.Quotas[f] == nil {
				pool.Quotas[f] = map[int]policies.Quota{}
			}
			q := pool.Quotas[f][r]
			q.Nominal += free
			pool.Quotas[f][r] = q
		}
	}
	return root
}
