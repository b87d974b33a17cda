package export

import (
	"fmt"
	"slices"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios/scenfile"
)

// cohortNode is a cohort of the scenario.
type cohortNode struct {
	name, parent string
	weight       *float64
	quota        map[string]*typeQuota
	// declared says a Cohort object was read; else Kueue made the cohort
	// because a ClusterQueue or Cohort named it.
	declared bool
}

// cohortTree is the cohorts: those read, then the parents they name that
// were not; roots as allot counts them (teams' cohorts included).
type cohortTree struct {
	nodes  []*cohortNode
	byName map[string]*cohortNode
	roots  []string
}

// defaultCohort is the cohort of a team that names none.
const defaultCohort = "default"

func (im *kueueImport) cohortTree() (*cohortTree, error) {
	tr := &cohortTree{byName: map[string]*cohortNode{}}
	for _, c := range im.o.Cohorts {
		obj := "Cohort " + c.Name
		n := &cohortNode{name: c.Name, parent: string(c.Spec.ParentName), quota: im.cohortQuotas[c.Name], declared: true}
		if fs := c.Spec.FairSharing; fs != nil && fs.Weight != nil {
			w := fs.Weight.AsApproximateFloat64()
			if w < 0 {
				return nil, fmt.Errorf("%s%s: spec.fairSharing.weight %s is negative", im.origin(obj), obj, fs.Weight)
			}
			if w != 1 {
				n.weight = scenfile.Ptr(w)
			}
		}
		for _, q := range n.quota {
			if q.accel.hasBorrow || q.accel.hasLend || q.cpu.hasBorrow || q.cpu.hasLend || q.mem.hasBorrow || q.mem.hasLend {
				im.w.add(obj, "spec.resourceGroups", "a cohort's borrowingLimit and lendingLimit are not modelled: its quota is shared without limit")
				break
			}
		}
		tr.nodes = append(tr.nodes, n)
		tr.byName[n.name] = n
	}
	for _, n := range slices.Clone(tr.nodes) {
		if p := n.parent; p != "" && tr.byName[p] == nil {
			tr.byName[p] = &cohortNode{name: p}
			tr.nodes = append(tr.nodes, tr.byName[p])
		}
	}
	for _, n := range tr.nodes {
		at := n.name
		for steps := 0; at != ""; steps++ {
			if steps > len(tr.nodes) {
				obj := "Cohort " + n.name
				return nil, fmt.Errorf("%s%s: spec.parentName: the parents form a cycle", im.origin(obj), obj)
			}
			at = tr.byName[at].parent
		}
		if n.parent == "" {
			tr.roots = append(tr.roots, n.name)
		}
	}
	for _, cq := range im.o.ClusterQueues {
		c := string(cq.Spec.CohortName)
		switch {
		case c == "" || c == defaultCohort:
			if tr.byName[defaultCohort] == nil && !slices.Contains(tr.roots, defaultCohort) {
				tr.roots = append(tr.roots, defaultCohort) // allot makes it
			}
		case tr.byName[c] == nil:
			// Kueue made it for the ClusterQueue; allot needs it declared.
			tr.byName[c] = &cohortNode{name: c}
			tr.nodes = append(tr.nodes, tr.byName[c])
			tr.roots = append(tr.roots, c)
		}
	}
	return tr, nil
}

// poolQuota drops the single root cohort's own quota where it is what
// allot gives that root anyway: the capacity no other quota covers
// (HyperPod's idle resource sharing, which an export writes as the root's
// quota). Capacity beyond the root's quota is a warning: Kueue lends it
// to nobody, allot to every team.
func (im *kueueImport) poolQuota(tr *cohortTree) {
	if len(tr.roots) != 1 {
		return
	}
	root := tr.byName[tr.roots[0]]
	var own map[string]*typeQuota
	if root != nil {
		own = root.quota
	}
	implied, exact := map[string]*typeQuota{}, true
	for _, ft := range im.types() {
		if ft.nodes == 0 {
			continue
		}
		free := &typeQuota{hasCPU: true, hasMem: true}
		n := policies.Qty(ft.nodes)
		free.accel.nominal = policies.ToQty(float64(ft.it.Accelerators)) * n
		free.cpu.nominal = policies.ToQty(ft.it.VCPUs) * n
		free.mem.nominal = policies.ToQty(ft.it.MemoryGiB) * n
		for _, qs := range im.cqQuotas {
			ft.subtract(free, qs[ft.it.Name])
		}
		for _, c := range tr.nodes {
			if c != root {
				ft.subtract(free, c.quota[ft.it.Name])
			}
		}
		for _, r := range []*rq{&free.accel, &free.cpu, &free.mem} {
			r.nominal = max(0, r.nominal)
		}
		implied[ft.it.Name] = free
		q := own[ft.it.Name]
		if q == nil {
			q = &typeQuota{}
		}
		if !near(q.accel.nominal, free.accel.nominal) || q.hasCPU && !near(q.cpu.nominal, free.cpu.nominal) ||
			q.hasMem && !near(q.mem.nominal, free.mem.nominal) {
			exact = false
		}
	}
	if exact {
		if root != nil {
			root.quota = nil
		}
		return
	}
	for _, ft := range im.types() {
		free, q := implied[ft.it.Name], own[ft.it.Name]
		if free == nil {
			continue
		}
		extra := free.accel.nominal
		if q != nil {
			extra -= q.accel.nominal
		}
		if extra > tolerance {
			im.w.add("Cohort "+tr.roots[0], "", "%s accelerators of %s are in no quota: Kueue lends them to nobody; allot lets every team borrow them (the root cohort's idle capacity)",
				scenfile.Num(units(extra)), ft.it.Name)
		}
	}
}

// subtract takes a quota (its cpu and memory by the ratio rule where it
// does not give them) from what is free.
func (ft *flavorType) subtract(free, q *typeQuota) {
	if q == nil {
		return
	}
	cpu, mem := ft.ratio(q.accel.nominal)
	if q.hasCPU {
		cpu = q.cpu.nominal
	}
	if q.hasMem {
		mem = q.mem.nominal
	}
	free.accel.nominal -= q.accel.nominal
	free.cpu.nominal -= cpu
	free.mem.nominal -= mem
}

// decideCPU models cpu and memory where a quota states them other than
// by its accelerators' share.
func (im *kueueImport) decideCPU(tr *cohortTree) {
	check := func(qs map[string]*typeQuota) {
		for _, ft := range im.types() {
			if q := qs[ft.it.Name]; q != nil && ft.nodes > 0 && !ft.byRatio(q) {
				im.cpuModelled = true
			}
		}
	}
	for _, qs := range im.cqQuotas {
		check(qs)
	}
	for _, n := range tr.nodes {
		check(n.quota)
	}
}

// cohorts is the cohorts section: every cohort read or named as a
// parent, but a default cohort that says nothing (allot makes it).
func (im *kueueImport) cohorts(tr *cohortTree) []scenfile.Cohort {
	parents := map[string]bool{}
	for _, n := range tr.nodes {
		parents[n.parent] = true
	}
	var out []scenfile.Cohort
	for _, n := range tr.nodes {
		c := scenfile.Cohort{Name: n.name, Parent: n.parent, Weight: n.weight, Quota: im.scenarioQuota(n.quota)}
		if n.name == defaultCohort && c.Parent == "" && c.Weight == nil && c.Quota == nil && !parents[n.name] {
			continue
		}
		out = append(out, c)
	}
	return out
}
