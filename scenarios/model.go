package scenarios

import (
	"math"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
)

// Built is a scenario turned into the policy core's model, with the lookups
// a shell needs to translate jobs.
type Built struct {
	Model   *policies.Model
	Flavors []*hardware.InstanceType // by flavor index
	// PoolCohort is the root cohort that holds unallocated capacity (-1 if none).
	PoolCohort int
}

// FlavorIndex finds an instance type's flavor index.
func (b *Built) FlavorIndex(name string) int {
	for i, t := range b.Flavors {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// flavorTypes lists the fleet's types, then types only the timeline adds.
func (s *Scenario) flavorTypes() []*hardware.InstanceType {
	types := s.Fleet.Types()
	seen := map[string]bool{}
	for _, t := range types {
		seen[t.Name] = true
	}
	for _, ch := range s.Timeline {
		if ch.NodeType != "" && !seen[ch.NodeType] {
			t, _ := s.Catalog.Lookup(ch.NodeType)
			types = append(types, t)
			seen[ch.NodeType] = true
		}
	}
	return types
}

// quotaResources says whether any quota names vCPUs or memory.
func (s *Scenario) quotaResources() (cpu, mem bool) {
	look := func(m map[string]Quota) {
		for _, q := range m {
			cpu = cpu || !math.IsNaN(q.VCPUs)
			mem = mem || !math.IsNaN(q.MemoryGiB)
		}
	}
	for _, t := range s.Teams {
		look(t.Quota)
	}
	for _, c := range s.Cohorts {
		look(c.Quota)
	}
	for _, ch := range s.Timeline {
		look(ch.Quota)
	}
	return
}

// fillRatio completes a quota by HyperPod's ratio rule: a quota that gives
// only accelerators gets vCPUs and memory in the same proportion of a node;
// one that gives only memory gets vCPUs by that ratio and no accelerators.
func fillRatio(q Quota, t *hardware.InstanceType) Quota {
	frac := math.NaN()
	switch {
	case t.Accelerators > 0 && q.Accelerators > 0:
		frac = q.Accelerators / float64(t.Accelerators)
	case !math.IsNaN(q.MemoryGiB) && t.MemoryGiB > 0:
		frac = q.MemoryGiB / t.MemoryGiB
	case !math.IsNaN(q.VCPUs) && t.VCPUs > 0:
		frac = q.VCPUs / t.VCPUs
	}
	if math.IsNaN(frac) {
		frac = 0
	}
	if math.IsNaN(q.VCPUs) {
		q.VCPUs = frac * t.VCPUs
	}
	if math.IsNaN(q.MemoryGiB) {
		q.MemoryGiB = frac * t.MemoryGiB
	}
	return q
}

// Build turns the scenario into the core's model.
func (s *Scenario) Build() *Built {
	types := s.flavorTypes()
	m := &policies.Model{Kind: policies.Kind(s.Policy.Kind), NodesModelled: true}
	out := &Built{Model: m, Flavors: types, PoolCohort: -1}
	resIdx := map[string]int{}
	for _, t := range types {
		if t.Accelerators > 0 {
			if _, ok := resIdx[t.Resource]; !ok {
				resIdx[t.Resource] = len(m.Resources)
				m.Resources = append(m.Resources, t.Resource)
			}
		}
	}
	cpuOn, memOn := s.quotaResources()
	// The ratio rule fills one from the other: model both or neither.
	cpuOn = cpuOn || memOn
	memOn = cpuOn
	cpuR, memR := -1, -1
	if cpuOn {
		cpuR = len(m.Resources)
		m.Resources = append(m.Resources, "cpu")
	}
	if memOn {
		memR = len(m.Resources)
		m.Resources = append(m.Resources, "memory")
	}
	for _, t := range types {
		fs := policies.FlavorSpec{Name: t.Name, NodeAccel: policies.ToQty(float64(t.Accelerators)), NodeVCPU: policies.ToQty(t.VCPUs),
			NodeMem: policies.ToQty(t.MemoryGiB), Nodes: s.Fleet.Nodes(t.Name), AccelResource: -1, CPUResource: cpuR, MemResource: memR, Speed: t.Speed}
		if t.Accelerators > 0 {
			fs.AccelResource = resIdx[t.Resource]
		}
		m.Flavors = append(m.Flavors, fs)
	}

	// Cohorts: declared ones, plus "default" when a team uses it.
	cohortIdx := map[string]int{}
	for _, c := range s.Cohorts {
		cohortIdx[c.Name] = len(m.Cohorts)
		m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: c.Name, Parent: -1, Weight: c.Weight})
	}
	for _, t := range s.Teams {
		if _, ok := cohortIdx[t.Cohort]; !ok {
			cohortIdx[t.Cohort] = len(m.Cohorts)
			m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: t.Cohort, Parent: -1, Weight: 1})
		}
	}
	for i, c := range s.Cohorts {
		if c.Parent != "" {
			m.Cohorts[i].Parent = cohortIdx[c.Parent]
		}
		m.Cohorts[i].Quotas = s.quotaSpecs(types, c.Quota, cpuR, memR, nil)
	}

	p := &s.Policy
	fung := policies.FlavorFungibility{WhenCanBorrowTryNext: true}
	switch p.Fallback {
	case "borrow-first":
		fung = policies.FlavorFungibility{}
	case "preempt-first":
		fung = policies.FlavorFungibility{WhenCanBorrowTryNext: true, WhenCanPreemptStop: true, PreemptionOverBorrowing: true}
	}
	reclaim := map[string]policies.PreemptPolicy{"any": policies.Any, "lower-priority": policies.LowerPriority, "never": policies.Never}[p.Reclaim]
	within := map[string]policies.PreemptPolicy{"never": policies.Never, "lower-priority": policies.LowerPriority, "lower-or-newer-equal": policies.LowerOrNewerEqualPriority}
	for _, t := range s.Teams {
		team := t
		q := policies.QueueSpec{Name: t.Name, Cohort: cohortIdx[t.Cohort], Weight: t.Weight, WithinQueue: within[t.PreemptWithinTeam],
			Reclaim: reclaim, Fungibility: fung, FirstCome: p.Admission == "first-come", MaxPreemptions: p.Preemption.MaxRetries}
		if p.Queueing == "strict-fifo" {
			q.Strategy = policies.StrictFIFO
		}
		if p.PreemptWhileBorr == "lower-priority" {
			q.BorrowWithin = policies.LowerPriority
			if p.BorrowThreshold != nil {
				q.BorrowThreshold, q.HasBorrowThreshold = int32(*p.BorrowThreshold), true
			}
		}
		g := policies.ResourceGroup{}
		for r := range m.Resources {
			g.Resources = append(g.Resources, r)
		}
		quotas := s.quotaSpecs(types, t.Quota, cpuR, memR, &team)
		for f := range types {
			g.Flavors = append(g.Flavors, policies.FlavorQuotas{Flavor: f, Quotas: quotas[f]})
		}
		q.Groups = []policies.ResourceGroup{g}
		m.Queues = append(m.Queues, q)
	}
	if p.Kind == "fairshare" && p.QuotaShares {
		// AWS Batch quota shares: quota engine, FIFO idle assignment,
		// cross-share reclaim of lent capacity, never while borrowing.
		m.Kind = policies.KindQuota
		m.IdleFirstCome = true
		for i := range m.Queues {
			m.Queues[i].Reclaim = policies.Any
			m.Queues[i].BorrowWithin = policies.Never
		}
	} else if p.Kind == "quota" {
		if p.IdleAllocation == "fair-share" {
			m.FairSharing.Enabled = true
			for _, st := range p.FairStrategies {
				if st == "LessThanInitialShare" {
					m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanInitialShare)
				} else {
					m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanOrEqualToFinalShare)
				}
			}
		} else {
			m.IdleFirstCome = true
		}
		m.AdmissionFairSharingHalfLife = p.UsageHalfLife
	}
	if (p.Kind == "fifo" || p.Kind == "priority") && p.Reservations == "hard" {
		// Before fair share: each team's quota is a reservation nobody else
		// may use; capacity outside every reservation is first come.
		m.Reservations = true
		for i := range m.Queues {
			for fi := range m.Queues[i].Groups[0].Flavors {
				for r, q := range m.Queues[i].Groups[0].Flavors[fi].Quotas {
					q.HasLend, q.LendLimit = true, 0
					m.Queues[i].Groups[0].Flavors[fi].Quotas[r] = q
				}
			}
		}
	}
	m.Backfill = policies.Backfill{Enabled: p.Backfill, Depth: p.BackfillDepth}
	m.Batch = policies.BatchShare{DecayHalfLife: p.ShareDecay, ComputeReservation: p.ComputeReserve}
	m.PreferLeastLostWork = p.Preemption.PreferLeastLostWork
	m.MinRuntime = p.Preemption.MinRuntime
	out.PoolCohort = s.addIdlePool(m, types, cpuR, memR)
	return out
}

// quotaSpecs turns a quota map into per-flavor, per-resource core quotas.
// With team set, its lending and borrowing settings are applied.
func (s *Scenario) quotaSpecs(types []*hardware.InstanceType, qm map[string]Quota, cpuR, memR int, team *Team) map[int]map[int]policies.Quota {
	out := map[int]map[int]policies.Quota{}
	for f, t := range types {
		q, ok := qm[t.Name]
		if !ok {
			q = Quota{VCPUs: math.NaN(), MemoryGiB: math.NaN()}
		}
		q = fillRatio(q, t)
		byRes := map[int]policies.Quota{}
		set := func(r int, nominal float64, isAccel bool) {
			if r < 0 {
				return
			}
			pq := policies.Quota{Nominal: policies.ToQty(nominal)}
			if team != nil {
				if !team.Lend {
					pq.HasLend, pq.LendLimit = true, 0
				} else if team.LendingLimit < 1 {
					pq.HasLend, pq.LendLimit = true, policies.ToQty(nominal*team.LendingLimit)
				}
				switch {
				case !team.Borrow:
					pq.HasBorrow, pq.BorrowLimit = true, 0
				case math.IsNaN(team.BorrowLimit):
				case team.BorrowLimitPct:
					pq.HasBorrow, pq.BorrowLimit = true, policies.ToQty(nominal*team.BorrowLimit)
				case isAccel:
					pq.HasBorrow, pq.BorrowLimit = true, policies.ToQty(team.BorrowLimit)
				}
			}
			byRes[r] = pq
		}
		if t.Accelerators > 0 {
			set(s.accelResourceIndex(types, t), q.Accelerators, true)
		}
		set(cpuR, q.VCPUs, false)
		set(memR, q.MemoryGiB, false)
		if len(byRes) > 0 {
			out[f] = byRes
		}
	}
	return out
}

func (s *Scenario) accelResourceIndex(types []*hardware.InstanceType, t *hardware.InstanceType) int {
	seen := map[string]int{}
	for _, x := range types {
		if x.Accelerators > 0 {
			if _, ok := seen[x.Resource]; !ok {
				seen[x.Resource] = len(seen)
			}
		}
	}
	return seen[t.Resource]
}

// addIdlePool gives capacity that no quota covers to the single root
// cohort, as a shared pool every team may borrow from (HyperPod idle
// resource sharing). With several roots there is no pool.
func (s *Scenario) addIdlePool(m *policies.Model, types []*hardware.InstanceType, cpuR, memR int) int {
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
	used := make([]int64, len(types)*nR)
	for _, q := range m.Queues {
		for _, fq := range q.Groups[0].Flavors {
			for r, qq := range fq.Quotas {
				used[fq.Flavor*nR+r] += qq.Nominal
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
	if m.Cohorts[root].Quotas == nil {
		m.Cohorts[root].Quotas = map[int]map[int]policies.Quota{}
	}
	for f, fs := range m.Flavors {
		caps := map[int]int64{}
		if fs.AccelResource >= 0 {
			caps[fs.AccelResource] = fs.NodeAccel * int64(fs.Nodes)
		}
		if cpuR >= 0 {
			caps[cpuR] = fs.NodeVCPU * int64(fs.Nodes)
		}
		if memR >= 0 {
			caps[memR] = fs.NodeMem * int64(fs.Nodes)
		}
		for r, cp := range caps {
			free := cp - used[f*nR+r]
			if free <= 0 {
				continue
			}
			if m.Cohorts[root].Quotas[f] == nil {
				m.Cohorts[root].Quotas[f] = map[int]policies.Quota{}
			}
			q := m.Cohorts[root].Quotas[f][r]
			q.Nominal += free
			m.Cohorts[root].Quotas[f][r] = q
		}
	}
	return root
}
