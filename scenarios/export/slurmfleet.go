package export

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
)

// slurmFleet is an imported fleet and how a job finds its types in it.
type slurmFleet struct {
	scen        scenfile.Fleet
	byGPU       map[string][]string // lower-cased Slurm GPU type name -> types
	byPartition map[string][]string // partition -> types, in the order met
	perNode     map[string]int      // GPUs per node, by type
	gpuTypes    []string            // the types with GPUs, in order
	used        map[string]bool     // type names taken
	cpuType     string              // without --nodes: the CPU-only jobs' type
}

func newSlurmFleet() *slurmFleet {
	return &slurmFleet{byGPU: map[string][]string{}, byPartition: map[string][]string{}, perNode: map[string]int{}, used: map[string]bool{}}
}

// add counts nodes of a type, in the order types are met.
func (f *slurmFleet) add(typ string, gpus, count int, gpuType string, partitions []string) {
	found := false
	for i := range f.scen.Nodes {
		if f.scen.Nodes[i].Type == typ {
			f.scen.Nodes[i].Count += count
			found = true
		}
	}
	if !found {
		f.scen.Nodes = append(f.scen.Nodes, scenfile.NodeGroup{Type: typ, Count: count})
		f.perNode[typ] = gpus
		if gpus > 0 {
			f.gpuTypes = append(f.gpuTypes, typ)
		}
	}
	if gpus > 0 {
		k := strings.ToLower(gpuType)
		f.byGPU[k] = appendNew(f.byGPU[k], typ)
	}
	for _, p := range partitions {
		f.byPartition[p] = appendNew(f.byPartition[p], typ)
	}
}

// nodeShape is what nodes of one group share.
type nodeShape struct {
	gpuType      string
	gpus         int
	cpus, memGiB float64
}

// fleetFromNodes groups nodes by (GPU type, GPUs, CPUs, memory) and gives
// each group a type: the catalog's for its GPU model where the nodes fit
// it, else a custom type.
func fleetFromNodes(nodes []slurmNode, w *importWarnings) *slurmFleet {
	f := newSlurmFleet()
	var shapes []nodeShape
	names := map[nodeShape][]string{}
	parts := map[nodeShape][]string{}
	var down []string
	for _, n := range nodes {
		s := nodeShape{n.gpuType, n.gpus, n.cpus, n.memGiB}
		if _, seen := names[s]; !seen {
			shapes = append(shapes, s)
		}
		names[s] = append(names[s], n.name)
		parts[s] = appendNew(parts[s], n.partitions...)
		if st := strings.ToUpper(n.state); strings.ContainsAny(st, "*") || containsAny(st, "DOWN", "DRAIN", "FAIL", "MAINT", "RESERVED") {
			down = append(down, n.name+" ("+n.state+")")
		}
	}
	for _, s := range shapes {
		typ := f.typeFor(s, "nodes "+nodeList(names[s]), w)
		f.add(typ, s.gpus, len(names[s]), s.gpuType, parts[s])
	}
	if len(down) > 0 {
		w.add("nodes", "State", "%s down, draining or reserved when listed (%s): counted in the fleet as healthy", count(len(down), "node"), nodeList(down))
	}
	return f
}

func containsAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.Contains(s, w) {
			return true
		}
	}
	return false
}

// typeFor names the type of nodes of shape s, declaring a custom one
// where the catalog has none that fits.
func (f *slurmFleet) typeFor(s nodeShape, where string, w *importWarnings) string {
	if s.gpus == 0 {
		return f.custom(s, "cpu", nil)
	}
	kinds := slurmGPUKind(s.gpuType)
	if kinds == nil {
		what := fmt.Sprintf("GPU type %q is not one the catalog has", s.gpuType)
		if s.gpuType == "" {
			what = "the GPUs have no type (Gres=gpu:N)"
		}
		name := f.custom(s, "", nil)
		w.add(where, "Gres", "%s: a custom type %s, speed 1.0 (the A100 reference) assumed, unpriced", what, name)
		return name
	}
	if len(kinds) > 1 {
		w.add(where, "Gres", "GPU type %q may be %s: %s assumed", s.gpuType, strings.Join(kinds, " or "), kinds[0])
	}
	cands := catalogTypesOf(kinds[0])
	t := cands[0]
	if len(cands) > 1 {
		var alt []string
		for _, c := range cands[1:] {
			alt = append(alt, c.Name)
		}
		w.add(where, "Gres", "GPU type %q is %s in the catalog, or %s: %s assumed", s.gpuType, t.Name, strings.Join(alt, ", "), t.Name)
	}
	if t.Accelerators == s.gpus && s.cpus <= t.VCPUs && s.memGiB <= t.MemoryGiB {
		if s.cpus < t.VCPUs || s.memGiB < t.MemoryGiB {
			w.add(where, "CPUTot", "%s CPUs and %s GiB, fewer than %s's %s vCPUs and %s GiB: the catalog's figures are used", scenfile.Num(s.cpus), scenfile.Num(s.memGiB), t.Name, scenfile.Num(t.VCPUs), scenfile.Num(t.MemoryGiB))
		}
		return t.Name
	}
	name := f.custom(s, t.Accelerator, scenfile.Ptr(t.Speed))
	w.add(where, "CPUTot", "%d GPUs, %s CPUs, %s GiB do not fit %s (%d, %s, %s): a custom type %s with its GPU's speed, unpriced",
		s.gpus, scenfile.Num(s.cpus), scenfile.Num(s.memGiB), t.Name, t.Accelerators, scenfile.Num(t.VCPUs), scenfile.Num(t.MemoryGiB), name)
	return name
}

var notTypeWord = regexp.MustCompile(`[^a-z0-9]+`)

// custom declares a type for nodes of shape s: GPU kind and speed as
// given (nil: 1.0), named after its GPU type and count.
func (f *slurmFleet) custom(s nodeShape, kind string, speed *float64) string {
	base := "slurm-cpu-" + scenfile.Num(s.cpus) + "c"
	if s.gpus > 0 {
		model := strings.Trim(notTypeWord.ReplaceAllString(strings.ToLower(s.gpuType), "-"), "-")
		if model == "" {
			model = "gpu"
		}
		if kind == "" {
			kind = model
		}
		base = "slurm-" + model + "-" + strconv.Itoa(s.gpus) + "gpu"
	}
	name := base
	for i := 2; f.used[name]; i++ {
		name = base + "-" + strconv.Itoa(i)
	}
	f.used[name] = true
	f.scen.InstanceTypes = append(f.scen.InstanceTypes, scenfile.InstanceType{Name: name, Accelerator: kind,
		Accelerators: s.gpus, VCPUs: scenfile.Ptr(s.cpus), MemoryGiB: scenfile.Ptr(s.memGiB), Speed: speed})
	return name
}

// nodeList names a few nodes: "a, b, c" or "a, b … z (40 nodes)".
func nodeList(names []string) string {
	if len(names) <= 3 {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s, %s … %s (%d)", names[0], names[1], names[len(names)-1], len(names))
}
