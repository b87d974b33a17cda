package export

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios/scenfile"
)

// awsShape is a GPU instance type the built-in catalog lacks: its
// accelerators per node, vCPUs and memory (GiB), from the types'
// published specifications (Amazon EC2 accelerated computing instances;
// the SageMaker ml. types are the same machines).
type awsShape struct {
	accelerator  string
	accelerators int
	vcpus, mem   float64
}

// awsExtraTypes are the G5, G6 and G6e sizes: HyperPod's walkthroughs
// run on ml.g5, and quotas name them.
var awsExtraTypes = map[string]awsShape{}

func init() {
	sizes := []struct {
		size       string
		gpus       int
		vcpus, mem float64 // G5 and G6; G6e has twice the memory
	}{
		{"xlarge", 1, 4, 16}, {"2xlarge", 1, 8, 32}, {"4xlarge", 1, 16, 64}, {"8xlarge", 1, 32, 128},
		{"12xlarge", 4, 48, 192}, {"16xlarge", 1, 64, 256}, {"24xlarge", 4, 96, 384}, {"48xlarge", 8, 192, 768},
	}
	for _, s := range sizes {
		awsExtraTypes["g5."+s.size] = awsShape{"a10g", s.gpus, s.vcpus, s.mem}
		awsExtraTypes["g6."+s.size] = awsShape{"l4", s.gpus, s.vcpus, s.mem}
		awsExtraTypes["g6e."+s.size] = awsShape{"l40s", s.gpus, s.vcpus, 2 * s.mem}
	}
}

// awsFleet gathers the node groups of an imported fleet and the custom
// types they need, resolving the engines' instance type names (ml. or
// EC2) to allot's.
type awsFleet struct {
	cat    *hardware.Catalog
	custom []scenfile.InstanceType
	nodes  map[string]int
	order  []string
}

func newAWSFleet() *awsFleet {
	return &awsFleet{cat: hardware.Builtin(), nodes: map[string]int{}}
}

// resolve is allot's name of an engine's instance type and its
// accelerators per node; ok false when neither the catalog nor the table
// of G types knows it. A table type becomes a custom type of the fleet,
// named as the engine names it.
func (f *awsFleet) resolve(name string) (string, int, bool) {
	own := fromMLType(name, f.cat)
	if t, ok := f.cat.Lookup(own); ok {
		return own, t.Accelerators, true
	}
	s, ok := awsExtraTypes[strings.TrimPrefix(name, "ml.")]
	if !ok {
		return "", 0, false
	}
	t := &hardware.InstanceType{Name: name, Accelerator: s.accelerator, Accelerators: s.accelerators, Resource: hardware.ResourceNvidiaGPU,
		VCPUs: s.vcpus, MemoryGiB: s.mem, Speed: 1, Custom: true}
	if err := f.cat.Add(t); err != nil {
		return "", 0, false
	}
	f.custom = append(f.custom, scenfile.InstanceType{Name: name, Accelerator: s.accelerator, Accelerators: s.accelerators,
		VCPUs: scenfile.Ptr(s.vcpus), MemoryGiB: scenfile.Ptr(s.mem)})
	return name, s.accelerators, true
}

// add puts nodes of an (already resolved) type into the fleet.
func (f *awsFleet) add(name string, nodes int) {
	if _, ok := f.nodes[name]; !ok {
		f.order = append(f.order, name)
	}
	f.nodes[name] += nodes
}

// nodesFor is the whole nodes that hold acc accelerators of a type.
func nodesFor(acc float64, perNode int) int {
	return int(math.Ceil(acc/float64(perNode) - 1e-9))
}

// fleet is the fleet section; nil without nodes.
func (f *awsFleet) fleet() *scenfile.Fleet {
	if len(f.order) == 0 {
		return nil
	}
	out := &scenfile.Fleet{}
	for _, t := range f.custom {
		if _, used := f.nodes[t.Name]; used {
			out.InstanceTypes = append(out.InstanceTypes, t)
		}
	}
	for _, name := range f.order {
		if f.nodes[name] > 0 {
			out.Nodes = append(out.Nodes, scenfile.NodeGroup{Type: name, Count: f.nodes[name]})
		}
	}
	if len(out.Nodes) == 0 {
		return nil
	}
	return out
}

// fromQuotas adds as many nodes of each type as teams' quotas hold, the
// types in the order met (sorted: by name), and says what it added
// ("2 p5.48xlarge, ...") for the warning.
func (f *awsFleet) fromQuotas(teams []scenfile.Team, sorted bool) string {
	acc := map[string]float64{}
	var order []string
	for _, t := range teams {
		for _, typ := range sortedQuotaTypes(t.Quota) {
			if _, ok := acc[typ]; !ok {
				order = append(order, typ)
			}
			acc[typ] += t.Quota[typ].Accelerators
		}
	}
	if sorted {
		sort.Strings(order)
	}
	var groups []string
	for _, typ := range order {
		it, _ := f.cat.Lookup(typ)
		n := nodesFor(acc[typ], it.Accelerators)
		f.add(typ, n)
		groups = append(groups, fmt.Sprintf("%d %s", n, typ))
	}
	return strings.Join(groups, ", ")
}
