package scenarios

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/allot-sim/allot/hardware"
)

// QuotaRule says what team and cohort quotas do when a planner resizes the
// fleet.
type QuotaRule int

const (
	// QuotasScale keeps each quota's share of its instance type: a quota of
	// 64 of 576 GPUs becomes 32 when the type halves (rounded down to whole
	// units). This is how a platform team re-divides a fleet it resizes.
	QuotasScale QuotaRule = iota
	// QuotasKeep leaves quotas as written; where they add up to more than
	// the type has, nodes decide, as in Kueue.
	QuotasKeep
)

// NodeCounts is the node count of each instance type of the fleet.
func (s *Scenario) NodeCounts() map[string]int {
	out := map[string]int{}
	for _, g := range s.Fleet.Groups {
		out[g.Type] += g.Count
	}
	return out
}

// WithFleet returns the scenario with the node counts given (types not named
// keep theirs). A type's groups shrink or grow together, the last group
// taking the difference; a type set to zero leaves the fleet, and so do the
// quotas on it and the workload classes' mentions of it. Everything is
// validated again, as if the file said so: an error wrapping
// ErrFleetTooSmall says some class's jobs could never start.
func (s *Scenario) WithFleet(counts map[string]int, rule QuotaRule) (*Scenario, error) {
	raw := *s.raw
	old := s.NodeCounts()
	for _, typ := range slices.Sorted(maps.Keys(counts)) {
		if _, ok := old[typ]; !ok {
			return nil, fmt.Errorf("%s: instance type %q has no nodes in the fleet to resize (fleet.nodes)", s.Path, typ)
		}
		if counts[typ] < 0 {
			return nil, fmt.Errorf("%s: instance type %q: node count must be >= 0, got %d", s.Path, typ, counts[typ])
		}
	}
	var nodes []nodeGroupYAML
	left := maps.Clone(counts)
	for i, g := range raw.Fleet.Nodes {
		want, ok := left[g.Type]
		if !ok {
			nodes = append(nodes, g)
			continue
		}
		n := min(*g.Count, want)
		if lastGroupOf(raw.Fleet.Nodes, i) {
			n = want
		}
		left[g.Type] = want - n
		if n > 0 {
			c := n
			nodes = append(nodes, nodeGroupYAML{Type: g.Type, Count: &c, Failures: g.Failures})
		}
	}
	raw.Fleet.Nodes = nodes
	ratio := func(typ string) float64 {
		n, ok := counts[typ]
		if !ok || rule == QuotasKeep {
			return 1
		}
		return float64(n) / float64(old[typ])
	}
	raw.Teams = slices.Clone(raw.Teams)
	for i := range raw.Teams {
		raw.Teams[i].Quota = resizeQuota(raw.Teams[i].Quota, counts, ratio)
	}
	raw.Cohorts = slices.Clone(raw.Cohorts)
	for i := range raw.Cohorts {
		raw.Cohorts[i].Quota = resizeQuota(raw.Cohorts[i].Quota, counts, ratio)
	}
	if raw.Workload != nil && raw.Workload.Synthetic != nil {
		w := *raw.Workload
		syn := *w.Synthetic
		syn.Classes = slices.Clone(syn.Classes)
		for i := range syn.Classes {
			c := &syn.Classes[i]
			if c.InstanceTypes == nil {
				continue
			}
			kept := slices.DeleteFunc(slices.Clone(c.InstanceTypes), func(t string) bool { n, ok := counts[t]; return ok && n == 0 })
			if len(kept) == 0 {
				return nil, fmt.Errorf("workload class %s runs only on %s, and the fleet has none: %w", c.Name, strings.Join(c.InstanceTypes, ", "), ErrFleetTooSmall)
			}
			c.InstanceTypes = kept
		}
		w.Synthetic = &syn
		raw.Workload = &w
	}
	return s.rebuild(&raw, s.at)
}

func lastGroupOf(groups []nodeGroupYAML, i int) bool {
	for _, g := range groups[i+1:] {
		if g.Type == groups[i].Type {
			return false
		}
	}
	return true
}

// resizeQuota scales a quota map to a resized fleet and drops the types
// that left it.
func resizeQuota(q map[string]quotaYAML, counts map[string]int, ratio func(string) float64) map[string]quotaYAML {
	if q == nil {
		return nil
	}
	out := map[string]quotaYAML{}
	for typ, v := range q {
		if n, ok := counts[typ]; ok && n == 0 {
			continue
		}
		k := ratio(typ)
		out[typ] = quotaYAML{Accelerators: scaleDown(v.Accelerators, k), VCPUs: scaleDown(v.VCPUs, k), MemoryGiB: scaleDown(v.MemoryGiB, k)}
	}
	return out
}

func scaleDown(v *float64, k float64) *float64 {
	if v == nil || k == 1 {
		return v
	}
	x := math.Floor(*v*k + 1e-9)
	return &x
}

// WithDemandScale returns the scenario with k times the synthetic demand:
// every class's arrival rate times k (and a job count, where the workload
// has one, times k, so it spans the same time). A trace has no rate to
// scale: `allot trace transform` rescales one.
func (s *Scenario) WithDemandScale(k float64) (*Scenario, error) {
	if !(k > 0) {
		return nil, fmt.Errorf("demand scale must be > 0, got %g", k)
	}
	raw := *s.raw
	if raw.Workload == nil || raw.Workload.Synthetic == nil {
		return nil, fmt.Errorf("%s: workload: demand can be scaled only for a synthetic workload; for a trace, write a scaled copy with `allot trace transform`", s.Path)
	}
	w := *raw.Workload
	syn := *w.Synthetic
	syn.Classes = slices.Clone(syn.Classes)
	for i := range syn.Classes {
		c := &syn.Classes[i]
		if c.Arrival.RatePerHour != nil {
			r := *c.Arrival.RatePerHour * k
			c.Arrival.RatePerHour = &r
		}
	}
	if syn.Count > 0 {
		syn.Count = int(math.Round(float64(syn.Count) * k))
	}
	w.Synthetic = &syn
	raw.Workload = &w
	return s.rebuild(&raw, s.at)
}

// WithSpotShare returns the scenario with share of each instance type's
// nodes (rounded) moved into a spot group of that type: nodes with their
// own failure model, interruptions being failures at that rate and repair
// the time to get the capacity back.
func (s *Scenario) WithSpotShare(share float64, interruptions hardware.Failures) (*Scenario, error) {
	if !(share >= 0 && share <= 1) {
		return nil, fmt.Errorf("spot share must be between 0%% and 100%%, got %g", share)
	}
	if share > 0 && !interruptions.Enabled() {
		return nil, fmt.Errorf("a spot share needs an interruption rate (mean time between interruptions > 0)")
	}
	raw := *s.raw
	model := &failuresYAML{NodeMTBF: Duration{Seconds: interruptions.MTBF, Set: true}, RepairTime: Duration{Seconds: interruptions.Repair, Set: true}}
	counts := s.NodeCounts()
	var nodes, spot []nodeGroupYAML
	taken := map[string]int{}
	for i := len(raw.Fleet.Nodes) - 1; i >= 0; i-- {
		g := raw.Fleet.Nodes[i]
		want := int(math.Round(float64(counts[g.Type])*share)) - taken[g.Type]
		n := min(*g.Count, want)
		taken[g.Type] += n
		if left := *g.Count - n; left > 0 {
			nodes = append(nodes, nodeGroupYAML{Type: g.Type, Count: &left, Failures: g.Failures})
		}
		if n > 0 {
			spot = append(spot, nodeGroupYAML{Type: g.Type, Count: &n, Failures: model})
		}
	}
	slices.Reverse(nodes)
	slices.Reverse(spot)
	raw.Fleet.Nodes = append(nodes, spot...)
	return s.rebuild(&raw, s.at)
}
