package scenarios

import (
	"math"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/policies/presets"
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

// fillRatio completes a quota by HyperPod's ratio rule (presets.FillRatio).
func fillRatio(q Quota, t *hardware.InstanceType) Quota {
	f := presets.FillRatio(presets.Shape{Accelerators: q.Accelerators, VCPUs: q.VCPUs, MemoryGiB: q.MemoryGiB},
		presets.Shape{Accelerators: float64(t.Accelerators), VCPUs: t.VCPUs, MemoryGiB: t.MemoryGiB})
	q.VCPUs, q.MemoryGiB = f.VCPUs, f.MemoryGiB
	return q
}

// Build turns the scenario into the core's model.
func (s *Scenario) Build() *Built { return s.build(false) }

// BuildCoveringCPUAndMemory is Build with vCPUs and memory modelled even
// where no quota names them: each quota's share of a type's vCPUs and
// memory follows its share of the accelerators (the ratio rule). An export
// uses it, since a real Job requests both (NodeResources says where the
// catalog lacks the figures).
func (s *Scenario) BuildCoveringCPUAndMemory() *Built { return s.build(true) }

// NodeResourcesUnknown lists the fleet's instance types whose vCPUs or
// memory the catalog does not give.
func (s *Scenario) NodeResourcesUnknown() []string {
	var out []string
	for _, t := range s.flavorTypes() {
		if t.VCPUs <= 0 || t.MemoryGiB <= 0 {
			out = append(out, t.Name)
		}
	}
	return out
}

func (s *Scenario) build(cover bool) *Built {
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
	cpuOn = cpuOn || memOn || cover
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
	// The loader has checked every name: the presets know them all.
	fung, _ := presets.Fungibility(p.Fallback)
	reclaim, _ := presets.Preemption(p.Reclaim)
	for _, t := range s.Teams {
		team := t
		within, _ := presets.Preemption(t.PreemptWithinTeam)
		q := policies.QueueSpec{Name: t.Name, Cohort: cohortIdx[t.Cohort], Weight: t.Weight, WithinQueue: within,
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
		presets.BatchQuotaShares(m)
	} else if p.Kind == "quota" {
		var strategies []policies.FairStrategy
		for _, st := range p.FairStrategies {
			if st == "LessThanInitialShare" {
				strategies = append(strategies, policies.LessThanInitialShare)
			} else {
				strategies = append(strategies, policies.LessThanOrEqualToFinalShare)
			}
		}
		presets.IdleAllocation(m, p.IdleAllocation == "fair-share", strategies)
		m.AdmissionFairSharingHalfLife = p.UsageHalfLife
	}
	if (p.Kind == "fifo" || p.Kind == "priority") && p.Reservations == "hard" {
		presets.HardReservations(m)
	}
	m.Backfill = policies.Backfill{Enabled: p.Backfill, Depth: p.BackfillDepth}
	m.Batch = policies.BatchShare{DecayHalfLife: p.ShareDecay, ComputeReservation: p.ComputeReserve}
	m.PreferLeastLostWork = p.Preemption.PreferLeastLostWork
	m.MinRuntime = p.Preemption.MinRuntime
	out.PoolCohort = presets.IdlePool(m)
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
				pq = presets.Sharing{Lend: team.Lend, LendFraction: team.LendingLimit, Borrow: team.Borrow,
					BorrowLimit: team.BorrowLimit, BorrowPercent: team.BorrowLimitPct}.Quota(nominal, isAccel)
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
