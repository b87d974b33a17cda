package export

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/policies/presets"
	"github.com/allot-sim/allot/scenarios/scenfile"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// rq is one resource's quota in the model's units.
type rq struct {
	nominal, borrow, lend policies.Qty
	hasBorrow, hasLend    bool
}

// typeQuota is a ClusterQueue's or Cohort's quota of one instance type.
type typeQuota struct {
	accel, cpu, mem          rq
	hasAccel, hasCPU, hasMem bool
}

// tolerance is how far apart (in thousandths) two figures may be and be
// the same: a quota exported by its share of a node is rounded once.
const tolerance = 2

func near(a, b policies.Qty) bool { return a-b <= tolerance && b-a <= tolerance }

// readGroups reads a ClusterQueue's or Cohort's resourceGroups: quotas
// by instance type, and the flavors in the order listed.
func (im *kueueImport) readGroups(object string, groups []kueue.ResourceGroup) (map[string]*typeQuota, []string, error) {
	out := map[string]*typeQuota{}
	var order []string
	for gi, g := range groups {
		for fi, fq := range g.Flavors {
			field := fmt.Sprintf("spec.resourceGroups[%d].flavors[%d]", gi, fi)
			ft := im.flavor(object, field, string(fq.Name))
			order = append(order, ft.flavor)
			tq := out[ft.it.Name]
			if tq == nil {
				tq = &typeQuota{}
				out[ft.it.Name] = tq
			}
			for _, r := range fq.Resources {
				rf := field + ".resources[" + string(r.Name) + "]"
				q, err := readQuota(r)
				if err != nil {
					return nil, nil, fmt.Errorf("%s%s: %s: %w", im.origin(object), object, rf, err)
				}
				switch name := string(r.Name); {
				case r.Name == corev1.ResourceCPU:
					tq.cpu, tq.hasCPU = q, true
				case r.Name == corev1.ResourceMemory:
					tq.mem, tq.hasMem = q, true
				case slices.Contains(acceleratorResources, name):
					if !ft.catalog && ft.accelResource == "" {
						ft.accelResource = name
					}
					if res := ft.resource(); res != name {
						im.w.add(object, rf, "instance type %s's accelerators are %s: this quota is not modelled; dropped", ft.it.Name, res)
						continue
					}
					tq.accel, tq.hasAccel = q, true
				default:
					im.w.add(object, rf, "allot models accelerators, cpu and memory only: dropped")
				}
			}
		}
	}
	return out, order, nil
}

// resource is the flavor's accelerator resource.
func (ft *flavorType) resource() string {
	switch {
	case ft.catalog || ft.it.Resource != "":
		return ft.it.Resource
	case ft.accelResource != "":
		return ft.accelResource
	}
	return hardware.ResourceNvidiaGPU
}

func readQuota(r kueue.ResourceQuota) (rq, error) {
	q := rq{nominal: resourceQty(r.Name, r.NominalQuota)}
	if q.nominal < 0 {
		return q, fmt.Errorf("nominalQuota %s is negative", r.NominalQuota.String())
	}
	for _, l := range []struct {
		q   *resource.Quantity
		dst *policies.Qty
		has *bool
		key string
	}{{r.BorrowingLimit, &q.borrow, &q.hasBorrow, "borrowingLimit"}, {r.LendingLimit, &q.lend, &q.hasLend, "lendingLimit"}} {
		if l.q == nil {
			continue
		}
		*l.dst, *l.has = resourceQty(r.Name, *l.q), true
		if *l.dst < 0 {
			return q, fmt.Errorf("%s %s is negative", l.key, l.q.String())
		}
	}
	return q, nil
}

// ratio is the cpu and memory a quota of a accelerators of the type has
// by HyperPod's ratio rule (presets.FillRatio), as an export writes them.
func (ft *flavorType) ratio(a policies.Qty) (cpu, mem policies.Qty) {
	f := presets.FillRatio(presets.Shape{Accelerators: units(a), VCPUs: math.NaN(), MemoryGiB: math.NaN()},
		presets.Shape{Accelerators: float64(ft.it.Accelerators), VCPUs: ft.it.VCPUs, MemoryGiB: ft.it.MemoryGiB})
	return policies.ToQty(f.VCPUs), policies.ToQty(f.MemoryGiB)
}

// byRatio says a quota's cpu and memory are its accelerators' share of
// the type's (or not given): the scenario need not say them.
func (ft *flavorType) byRatio(q *typeQuota) bool {
	cpu, mem := ft.ratio(q.accel.nominal)
	return (!q.hasCPU || near(q.cpu.nominal, cpu)) && (!q.hasMem || near(q.mem.nominal, mem))
}

// scenarioQuota is a quota map of the scenario: accelerators per type,
// with vcpus and memory_gib where cpu is modelled and they are not the
// accelerators' share; types with no quota left out.
func (im *kueueImport) scenarioQuota(quotas map[string]*typeQuota) map[string]scenfile.Quota {
	out := map[string]scenfile.Quota{}
	for _, ft := range im.types() {
		q := quotas[ft.it.Name]
		if q == nil || ft.nodes == 0 {
			continue
		}
		sq := scenfile.Quota{Accelerators: units(q.accel.nominal)}
		if im.cpuModelled && !ft.byRatio(q) {
			// What the quota gives; the ratio rule fills in the rest.
			if q.hasCPU {
				sq.VCPUs = scenfile.Ptr(units(q.cpu.nominal))
			}
			if q.hasMem {
				sq.MemoryGiB = scenfile.Ptr(units(q.mem.nominal))
			}
		}
		if sq.Accelerators == 0 && sq.VCPUs == nil && sq.MemoryGiB == nil {
			continue
		}
		out[ft.it.Name] = sq
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// limitEntry is one quota's limits, for inferring a team's sharing.
type limitEntry struct {
	what  string // "TYPE RESOURCE"
	accel bool
	q     rq
}

// sharing sets a team's lend, lending_limit, borrow and borrow_limit from
// its per-type limits (allot states them once per team, Kueue per flavor
// and resource) and warns of the limits they do not reproduce.
func (im *kueueImport) sharing(obj string, t *scenfile.Team, quotas map[string]*typeQuota) {
	var entries, accel, cpu, mem []limitEntry
	for _, ft := range im.types() {
		q := quotas[ft.it.Name]
		if q == nil {
			continue
		}
		if q.hasAccel {
			e := limitEntry{ft.it.Name + " " + ft.resource(), true, q.accel}
			entries, accel = append(entries, e), append(accel, e)
		}
		if q.hasCPU {
			e := limitEntry{ft.it.Name + " cpu", false, q.cpu}
			entries, cpu = append(entries, e), append(cpu, e)
		}
		if q.hasMem {
			e := limitEntry{ft.it.Name + " memory", false, q.mem}
			entries, mem = append(entries, e), append(mem, e)
		}
	}
	// The limits are read from the accelerators' quotas; a team with
	// none (a CPU-only ClusterQueue) has them read from its cpu's, else
	// its memory's.
	for _, alt := range [][]limitEntry{cpu, mem} {
		if !slices.ContainsFunc(accel, significant) && slices.ContainsFunc(alt, significant) {
			accel = alt
		}
	}
	sh := presets.Sharing{Lend: true, LendFraction: 1, Borrow: true, BorrowLimit: math.NaN()}
	lendAll, borrowAll := true, true
	for _, e := range accel {
		lendAll = lendAll && e.q.hasLend && e.q.lend == 0
		borrowAll = borrowAll && e.q.hasBorrow && e.q.borrow == 0
	}
	big := largest(accel)
	switch {
	case !slices.ContainsFunc(accel, func(e limitEntry) bool { return e.q.hasLend }):
	case lendAll:
		sh.Lend = false
	case big.q.nominal > 0 && big.q.hasLend:
		sh.LendFraction = min(1, float64(big.q.lend)/float64(big.q.nominal))
	}
	switch {
	case !slices.ContainsFunc(accel, func(e limitEntry) bool { return e.q.hasBorrow }):
	case borrowAll:
		sh.Borrow = false
	default:
		sh = im.borrowLimit(obj, sh, accel, big)
	}
	t.Lend, t.Borrow = nil, nil
	if !sh.Lend {
		t.Lend = scenfile.Ptr(false)
	} else if sh.LendFraction < 1 {
		t.LendingLimit = scenfile.Percent(sh.LendFraction)
	}
	if !sh.Borrow {
		t.Borrow = scenfile.Ptr(false)
	} else if !math.IsNaN(sh.BorrowLimit) {
		if sh.BorrowPercent {
			t.BorrowLimit = scenfile.Percent(sh.BorrowLimit)
		} else {
			t.BorrowLimit = scenfile.Num(sh.BorrowLimit)
		}
	}
	var off []string
	for _, e := range entries {
		want := sh.Quota(units(e.q.nominal), e.accel)
		lendOK := e.q.hasLend == want.HasLend && near(e.q.lend, want.LendLimit) ||
			!want.HasLend && e.q.hasLend && e.q.lend >= e.q.nominal
		if !lendOK {
			off = append(off, fmt.Sprintf("%s lendingLimit %s (allot: %s)", e.what, limitText(e.q.hasLend, e.q.lend), limitText(want.HasLend, want.LendLimit)))
		}
		if e.q.hasBorrow != want.HasBorrow || !near(e.q.borrow, want.BorrowLimit) {
			off = append(off, fmt.Sprintf("%s borrowingLimit %s (allot: %s)", e.what, limitText(e.q.hasBorrow, e.q.borrow), limitText(want.HasBorrow, want.BorrowLimit)))
		}
	}
	if len(off) > 0 {
		im.w.add(obj, "spec.resourceGroups", "limits per flavor that one lending_limit and borrow_limit per team cannot state: %s", strings.Join(off, "; "))
	}
}

// borrowLimit picks a team's borrow_limit: the share of its quota or the
// number of accelerators that reproduces every accelerator limit, else
// the largest quota's share (with the mismatches warned by the caller).
func (im *kueueImport) borrowLimit(obj string, sh presets.Sharing, accel []limitEntry, big limitEntry) presets.Sharing {
	fits := func(s presets.Sharing) bool {
		for _, e := range accel {
			want := s.Quota(units(e.q.nominal), e.accel)
			if e.q.hasBorrow != want.HasBorrow || !near(e.q.borrow, want.BorrowLimit) {
				return false
			}
		}
		return true
	}
	var cands []presets.Sharing
	if big.q.nominal > 0 && big.q.hasBorrow {
		s := sh
		s.BorrowLimit, s.BorrowPercent = float64(big.q.borrow)/float64(big.q.nominal), true
		cands = append(cands, s)
	}
	for _, e := range accel {
		if e.accel && e.q.hasBorrow && e.q.borrow >= policies.Milli {
			s := sh
			s.BorrowLimit = units(e.q.borrow)
			cands = append(cands, s)
			break
		}
	}
	for _, s := range cands {
		if fits(s) {
			return s
		}
	}
	if len(cands) == 0 {
		im.w.add(obj, "spec.resourceGroups", "borrowing limits below one accelerator on flavors without quota: borrowing assumed unlimited")
		return sh
	}
	return cands[0]
}

// significant says a quota has something to say: a nominal quota or a
// limit.
func significant(e limitEntry) bool { return e.q.nominal > 0 || e.q.hasBorrow || e.q.hasLend }

// largest is the entry with the largest nominal quota (the first of
// equals).
func largest(es []limitEntry) limitEntry {
	var best limitEntry
	for i, e := range es {
		if i == 0 || e.q.nominal > best.q.nominal {
			best = e
		}
	}
	return best
}

func limitText(has bool, q policies.Qty) string {
	if !has {
		return "none"
	}
	return scenfile.Num(units(q))
}
