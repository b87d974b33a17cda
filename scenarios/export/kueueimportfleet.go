package export

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios/scenfile"
	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// acceleratorResources are the resources an import counts as accelerators.
var acceleratorResources = []string{hardware.ResourceNvidiaGPU, hardware.ResourceNeuron}

// gpuProductLabel is the label NVIDIA's GPU feature discovery puts the
// GPU's model in: a custom type's accelerator kind.
const gpuProductLabel = "nvidia.com/gpu.product"

// flavorType is a ResourceFlavor as an instance type.
type flavorType struct {
	flavor string            // the ResourceFlavor's name
	labels map[string]string // its nodeLabels
	// accelResource is the accelerator resource its quotas name (a
	// custom type's, where its Nodes do not say).
	accelResource string
	it            hardware.InstanceType
	catalog       bool // its figures are a catalog type's
	// copy says it is a catalog type's copy under another name (a second
	// flavor of that type): declared in the fleet like a custom type.
	copy  bool
	nodes int
	// byNodes says the Nodes gave the count (else the quotas did).
	byNodes bool
	// node figures of a custom type read from its Nodes
	nodeAccel          []int
	nodeCPU, nodeMemGi float64
}

func units(q policies.Qty) float64 { return float64(q) / float64(policies.Milli) }

// readFlavors makes an instance type of each ResourceFlavor: the one its
// node.kubernetes.io/instance-type label names, else the flavor's name; a
// catalog type as is, any other a custom type (with a warning).
func (im *kueueImport) readFlavors() {
	im.flavors = map[string]*flavorType{}
	for _, rf := range im.o.Flavors {
		obj := "ResourceFlavor " + rf.Name
		name, ok := rf.Spec.NodeLabels[InstanceTypeLabel]
		if !ok {
			name = rf.Name
		}
		for _, k := range slices.Sorted(maps.Keys(rf.Spec.NodeLabels)) {
			if k != InstanceTypeLabel {
				im.w.add(obj, "spec.nodeLabels."+k, "allot places jobs by instance type only; the label is used to count this flavor's Nodes and otherwise ignored")
			}
		}
		if len(rf.Spec.NodeTaints) > 0 {
			im.w.add(obj, "spec.nodeTaints", "not modelled: every job of a team that lists this flavor may run there")
		}
		if len(rf.Spec.Tolerations) > 0 {
			im.w.add(obj, "spec.tolerations", "not modelled")
		}
		if rf.Spec.TopologyName != nil {
			im.w.add(obj, "spec.topologyName", "topology-aware scheduling is not modelled: a job's nodes are any of its type")
		}
		im.addFlavor(rf.Name, name, rf.Spec.NodeLabels)
	}
}

// addFlavor adds a flavor of an instance type named typ.
func (im *kueueImport) addFlavor(flavor, typ string, labels map[string]string) *flavorType {
	ft := &flavorType{flavor: flavor, labels: labels}
	obj := "ResourceFlavor " + flavor
	if cat, ok := im.catalog.Lookup(typ); ok {
		ft.it, ft.catalog = *cat, true
	} else {
		ft.it = hardware.InstanceType{Name: typ, Accelerator: "generic", Custom: true}
	}
	if im.typeTaken(typ) {
		name := flavor
		if _, cat := im.catalog.Lookup(name); cat || im.typeTaken(name) || name == typ {
			name = typ + "-" + flavor
		}
		im.w.add(obj, "", "instance type %s is another flavor's too: this one is the custom type %s, with the same figures", typ, name)
		ft.it.Name, ft.it.Custom, ft.copy = name, true, ft.catalog
	} else if !ft.catalog {
		im.w.add(obj, "", "%q is not a catalog instance type (allot catalog): a custom type, its figures from its Nodes or else its quotas", typ)
	}
	im.flavors[flavor] = ft
	im.flavorOrder = append(im.flavorOrder, flavor)
	return ft
}

// typeTaken says another flavor's instance type has this name.
func (im *kueueImport) typeTaken(name string) bool {
	for _, ft := range im.flavors {
		if ft.it.Name == name {
			return true
		}
	}
	return false
}

// flavor is the flavor a quota names; one not read is assumed with a
// warning.
func (im *kueueImport) flavor(object, field, name string) *flavorType {
	if ft, ok := im.flavors[name]; ok {
		return ft
	}
	im.w.add(object, field, "ResourceFlavor %s was not read: assumed to select instance type %s", name, name)
	return im.addFlavor(name, name, nil)
}

// countNodes assigns each Node to the flavor whose nodeLabels it carries
// (the one with the most labels, where several do) and takes a custom
// type's figures from its Nodes.
func (im *kueueImport) countNodes() {
	unmatched := 0
	for _, n := range im.o.Nodes {
		var best *flavorType
		for _, f := range im.flavorOrder {
			ft := im.flavors[f]
			if matches(n.Labels, ft.labels) && (best == nil || len(ft.labels) > len(best.labels)) {
				best = ft
			}
		}
		if best == nil {
			unmatched++
			continue
		}
		best.nodes++
		best.byNodes = true
		accel := 0
		for _, r := range acceleratorResources {
			q, ok := n.Status.Allocatable[corev1.ResourceName(r)]
			if ok && q.Value() > 0 {
				accel = int(q.Value())
				if !best.catalog && best.it.Resource == "" {
					best.it.Resource = r
				}
			}
		}
		if best.catalog && accel != best.it.Accelerators {
			im.w.add("Node "+n.Name, "status.allocatable", "%d accelerators where the catalog's %s has %d: the catalog's figures kept", accel, best.it.Name, best.it.Accelerators)
		}
		if !best.catalog {
			best.nodeAccel = append(best.nodeAccel, accel)
			capacity := n.Status.Capacity
			if len(capacity) == 0 {
				capacity = n.Status.Allocatable
			}
			cpu, mem := capacity[corev1.ResourceCPU], capacity[corev1.ResourceMemory]
			best.nodeCPU = math.Max(best.nodeCPU, units(resourceQty(corev1.ResourceCPU, cpu)))
			best.nodeMemGi = math.Max(best.nodeMemGi, units(resourceQty(corev1.ResourceMemory, mem)))
			if p := n.Labels[gpuProductLabel]; p != "" && best.it.Accelerator == "generic" {
				best.it.Accelerator = strings.ToLower(p)
			}
		}
	}
	if unmatched > 0 {
		im.w.add("Nodes", "", "%d Nodes carry the nodeLabels of no ResourceFlavor: Kueue admits nothing there; left out of the fleet", unmatched)
	}
	for _, f := range im.flavorOrder {
		ft := im.flavors[f]
		if ft.catalog || len(ft.nodeAccel) == 0 {
			continue
		}
		ft.it.Accelerators = slices.Max(ft.nodeAccel)
		if slices.Min(ft.nodeAccel) != ft.it.Accelerators {
			im.w.add("ResourceFlavor "+f, "", "its Nodes have from %d to %d accelerators: every node of type %s assumed to have %d",
				slices.Min(ft.nodeAccel), ft.it.Accelerators, ft.it.Name, ft.it.Accelerators)
		}
		ft.it.VCPUs, ft.it.MemoryGiB = ft.nodeCPU, ft.nodeMemGi
	}
}

func matches(labels, want map[string]string) bool {
	for k, v := range want {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// sizeFromQuotas gives each flavor without Nodes the nodes its quotas
// need: the sum of every nominal quota of it, in whole nodes; a custom
// type without Nodes is one node holding that sum.
func (im *kueueImport) sizeFromQuotas() {
	if len(im.o.Nodes) == 0 && len(im.flavorOrder) > 0 {
		im.w.add("Nodes", "", "none read: the fleet is sized from the flavors' quotas (the sum of every ClusterQueue's and Cohort's nominal quota, in whole nodes)")
	}
	for _, f := range im.flavorOrder {
		ft := im.flavors[f]
		if ft.byNodes {
			continue
		}
		var sum typeQuota
		for _, owner := range im.quotaOwners() {
			if q := owner[ft.it.Name]; q != nil {
				sum.accel.nominal += q.accel.nominal
				sum.cpu.nominal += q.cpu.nominal
				sum.mem.nominal += q.mem.nominal
			}
		}
		accel, cpu := units(sum.accel.nominal), units(sum.cpu.nominal)
		switch {
		case accel == 0 && cpu == 0:
			ft.nodes = 0
		case ft.catalog && ft.it.Accelerators > 0:
			ft.nodes = int(math.Ceil(accel / float64(ft.it.Accelerators)))
		case ft.catalog:
			ft.nodes = int(math.Ceil(cpu / ft.it.VCPUs))
		default:
			ft.nodes = 1
			ft.it.Accelerators = int(math.Ceil(accel))
			ft.it.VCPUs, ft.it.MemoryGiB = cpu, units(sum.mem.nominal)
			im.w.add("ResourceFlavor "+f, "", "no Nodes: instance type %s assumed to be one node holding all its quota (%d accelerators, %s vCPUs, %s GiB)",
				ft.it.Name, ft.it.Accelerators, scenfile.Num(cpu), scenfile.Num(ft.it.MemoryGiB))
		}
		if len(im.o.Nodes) > 0 && ft.nodes > 0 {
			im.w.add("ResourceFlavor "+f, "", "no Nodes carry its nodeLabels: %d nodes of %s assumed, enough for its quotas", ft.nodes, ft.it.Name)
		}
	}
	for _, f := range im.flavorOrder {
		ft := im.flavors[f]
		if !ft.catalog && ft.it.Resource == "" {
			ft.it.Resource = hardware.ResourceNvidiaGPU
			if ft.accelResource != "" {
				ft.it.Resource = ft.accelResource
			}
		}
	}
}

// fleet is the fleet section: the flavors' types in the order the
// ClusterQueues try them, those with nodes.
func (im *kueueImport) fleet() (*scenfile.Fleet, error) {
	fl := &scenfile.Fleet{}
	for _, ft := range im.types() {
		if ft.nodes == 0 {
			continue
		}
		if !ft.catalog || ft.copy {
			it := scenfile.InstanceType{Name: ft.it.Name, Accelerator: ft.it.Accelerator, Accelerators: ft.it.Accelerators}
			if ft.it.Accelerators > 0 {
				it.Resource = ft.it.Resource
			}
			if ft.it.VCPUs > 0 {
				it.VCPUs = scenfile.Ptr(ft.it.VCPUs)
			}
			if ft.it.MemoryGiB > 0 {
				it.MemoryGiB = scenfile.Ptr(ft.it.MemoryGiB)
			}
			if ft.it.Priced {
				it.PricePerHour = scenfile.Ptr(ft.it.PricePerHour)
			}
			if ft.it.Speed > 0 && ft.it.Speed != 1 {
				it.Speed = scenfile.Ptr(ft.it.Speed) // a catalog type's copy
			}
			if ft.it.Accelerators == 0 && ft.it.VCPUs <= 0 {
				return nil, fmt.Errorf("ResourceFlavor %s: its Nodes or quotas give neither accelerators nor vCPUs", ft.flavor)
			}
			fl.InstanceTypes = append(fl.InstanceTypes, it)
		}
		fl.Nodes = append(fl.Nodes, scenfile.NodeGroup{Type: ft.it.Name, Count: ft.nodes})
	}
	if len(fl.Nodes) == 0 {
		return nil, fmt.Errorf("no fleet: no Nodes, and no ResourceFlavor with a quota")
	}
	return fl, nil
}

// types are the flavors in fleet order: as the ClusterQueues list them,
// the first ClusterQueue first, then any other flavor read.
func (im *kueueImport) types() []*flavorType {
	var out []*flavorType
	seen := map[string]bool{}
	add := func(f string) {
		if !seen[f] {
			seen[f] = true
			out = append(out, im.flavors[f])
		}
	}
	for _, order := range im.cqFlavorOrder {
		for _, f := range order {
			add(f)
		}
	}
	for _, f := range im.flavorOrder {
		add(f)
	}
	return out
}

// checkFlavorOrder warns of each ClusterQueue that tries its flavors in
// another order than the fleet's, which allot uses for every team.
func (im *kueueImport) checkFlavorOrder(cqs []*kueue.ClusterQueue) {
	pos := map[string]int{}
	for i, ft := range im.types() {
		pos[ft.flavor] = i
	}
	for i, order := range im.cqFlavorOrder {
		if !slices.IsSortedFunc(order, func(a, b string) int { return pos[a] - pos[b] }) {
			im.w.add("ClusterQueue "+cqs[i].Name, "spec.resourceGroups", "tries its flavors in the order %s; allot tries the fleet's order for every team",
				strings.Join(order, ", "))
		}
	}
}

// quotaOwners are the quotas of every ClusterQueue, then every Cohort.
func (im *kueueImport) quotaOwners() []map[string]*typeQuota {
	out := slices.Clone(im.cqQuotas)
	for _, c := range im.o.Cohorts {
		out = append(out, im.cohortQuotas[c.Name])
	}
	return out
}
