package export

import (
	"math"
	"sort"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
)

// fleetFromJobs sizes the fleet that a record without --nodes implies:
// per GPU type the jobs ran on, the catalog's type of that GPU (a custom
// one of 8 GPUs where it has none), with nodes enough for the most GPUs
// the jobs held at once; CPU-only jobs get a CPU type of their own, sized
// the same way.
func fleetFromJobs(jobs []slurmJob, w *importWarnings) *slurmFleet {
	f := newSlurmFleet()
	demand := map[string][]interval{}
	var cpuJobs []*slurmJob
	var untyped []*slurmJob
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.Accelerators == 0:
			cpuJobs = append(cpuJobs, j)
		case len(j.gpuTypes) == 0:
			untyped = append(untyped, j)
		default:
			for _, g := range j.gpuTypes {
				if key := strings.ToLower(g); f.byGPU[key] == nil {
					typ, per := f.assumedType(g, w)
					f.byGPU[key] = []string{typ}
					f.perNode[typ] = per
				}
			}
			// Counted on its main type (most GPUs): it ran on those.
			typ := f.byGPU[strings.ToLower(j.gpuTypes[0])][0]
			demand[typ] = append(demand[typ], j.gpuInterval(f.perNode[typ]))
		}
	}
	if len(untyped) > 0 {
		if len(f.gpuTypes) == 0 {
			typ, per := f.assumedType("", w)
			f.perNode[typ] = per
		}
		typ := f.gpuTypes[0]
		f.byGPU[""] = []string{typ}
		for _, j := range untyped {
			demand[typ] = append(demand[typ], j.gpuInterval(f.perNode[typ]))
		}
		if len(f.gpuTypes) > 1 {
			w.add("sacct", "AllocTRES", "%s naming no GPU type (gres/gpu=N): without --nodes, they run on %s, the first type", count(len(untyped), "job"), typ)
		}
	}
	for _, typ := range f.gpuTypes {
		per := float64(f.perNode[typ])
		f.scen.Nodes = append(f.scen.Nodes, scenfile.NodeGroup{Type: typ, Count: int(math.Max(1, math.Ceil(peak(demand[typ])/per)))})
	}
	if len(cpuJobs) > 0 {
		f.cpuFleet(cpuJobs)
	}
	var sizes []string
	for _, g := range f.scen.Nodes {
		sizes = append(sizes, scenfile.Num(float64(g.Count))+" "+g.Type)
	}
	w.add("fleet", "", "ASSUMED (no --nodes): %s, enough for the most GPUs (or CPUs) the recorded jobs held at once", strings.Join(sizes, ", "))
	return f
}

// assumedType is the type of a Slurm GPU type name without a node list,
// and its GPUs per node.
func (f *slurmFleet) assumedType(gpuType string, w *importWarnings) (string, int) {
	where := "sacct"
	kinds := slurmGPUKind(gpuType)
	if gpuType == "" {
		kinds = []string{"a100-40g"}
		w.add(where, "AllocTRES", "jobs name no GPU type (gres/gpu=N) and there is no --nodes: A100s (%s, the catalog's reference) assumed", catalogTypesOf("a100-40g")[0].Name)
	}
	if kinds == nil {
		s := nodeShape{gpuType: gpuType, gpus: 8, cpus: 96, memGiB: 1152}
		name := f.custom(s, "", nil)
		w.add(where, "AllocTRES", "GPU type %q is not one the catalog has: a custom type %s, 8 per node, 96 vCPUs, 1152 GiB, speed 1.0 (the A100 reference), unpriced", gpuType, name)
		f.gpuTypes = append(f.gpuTypes, name)
		return name, 8
	}
	if len(kinds) > 1 {
		w.add(where, "AllocTRES", "GPU type %q may be %s: %s assumed", gpuType, strings.Join(kinds, " or "), kinds[0])
	}
	t := catalogTypesOf(kinds[0])[0]
	f.gpuTypes = appendNew(f.gpuTypes, t.Name)
	return t.Name, t.Accelerators
}

// cpuFleet adds a CPU-only type that fits every CPU-only job on a node,
// with nodes enough for the most CPUs and memory they held at once.
func (f *slurmFleet) cpuFleet(jobs []*slurmJob) {
	var cpu, mem []interval
	s := nodeShape{cpus: 1, memGiB: 1}
	for _, j := range jobs {
		n := math.Max(1, j.nodes)
		s.cpus = math.Max(s.cpus, math.Ceil(j.VCPUs/n))
		s.memGiB = math.Max(s.memGiB, math.Ceil(j.MemoryGiB/n))
		cpu = append(cpu, interval{j.OrigStart, j.OrigEnd, j.VCPUs})
		mem = append(mem, interval{j.OrigStart, j.OrigEnd, j.MemoryGiB})
	}
	name := f.custom(s, "cpu", nil)
	count := math.Max(math.Ceil(peak(cpu)/s.cpus), math.Ceil(peak(mem)/s.memGiB))
	f.scen.Nodes = append(f.scen.Nodes, scenfile.NodeGroup{Type: name, Count: int(math.Max(1, count))})
	f.cpuType = name
}

// interval is an amount held from start to end.
type interval struct{ start, end, amount float64 }

// gpuInterval is what a job held of a type with per GPUs a node: whole
// nodes once it needs one.
func (j *slurmJob) gpuInterval(per int) interval {
	g := j.Accelerators
	if p := float64(per); g >= p {
		g = math.Ceil(g/p) * p
	}
	return interval{j.OrigStart, j.OrigEnd, g}
}

// peak is the most held at once (an end frees before a start at the
// same time takes).
func peak(iv []interval) float64 {
	type ev struct{ t, d float64 }
	evs := make([]ev, 0, 2*len(iv))
	for _, x := range iv {
		evs = append(evs, ev{x.start, x.amount}, ev{x.end, -x.amount})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		return evs[a].d < evs[b].d
	})
	cur, most := 0.0, 0.0
	for _, e := range evs {
		cur += e.d
		most = math.Max(most, cur)
	}
	return most
}

// place gives each job the types it may run on: those of its GPU types,
// narrowed to its partitions' where the node list says which; CPU-only
// jobs its partitions' types (or the assumed CPU type).
func (f *slurmFleet) place(jobs []slurmJob, w *importWarnings) {
	unknownGPU := map[string]int{}
	unknownPart := map[string]int{}
	for i := range jobs {
		j := &jobs[i]
		var parts []string
		for _, p := range j.partitions {
			if ts, ok := f.byPartition[p]; ok {
				parts = appendNew(parts, ts...)
			} else if len(f.byPartition) > 0 {
				unknownPart[p]++
			}
		}
		var types []string
		switch {
		case j.Accelerators == 0 && f.cpuType != "":
			types = []string{f.cpuType}
		case j.Accelerators == 0:
			types = parts
		case len(j.gpuTypes) == 0:
			types = f.byGPU[""]
			if len(f.byPartition) > 0 {
				types = intersect(parts, f.gpuTypes)
			}
		default:
			for _, g := range j.gpuTypes {
				ts, ok := f.byGPU[strings.ToLower(g)]
				if !ok {
					unknownGPU[g]++
				}
				types = appendNew(types, ts...)
			}
			if narrow := intersect(types, parts); len(narrow) > 0 {
				types = narrow
			}
		}
		j.InstanceTypes = types
	}
	if len(unknownGPU) > 0 {
		w.add("sacct", "AllocTRES", "jobs ran on GPU types no node lists (%s): they may run on any GPU type", countList(unknownGPU))
	}
	if len(unknownPart) > 0 {
		w.add("sacct", "Partition", "jobs ran in partitions no node lists (%s): not narrowed by partition", countList(unknownPart))
	}
}

// intersect keeps the items of a that b holds, in a's order.
func intersect(a, b []string) []string {
	var out []string
	for _, x := range a {
		for _, y := range b {
			if x == y {
				out = append(out, x)
				break
			}
		}
	}
	return out
}
