package export

import (
	"fmt"
	"slices"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	corev1 "k8s.io/api/core/v1"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// requests sums a Workload's requests over its pod sets: what Kueue
// counted at admission (status.admission's resourceUsage, else
// status.resourceRequests), and, for a resource it did not count, the
// pod template's (containers summed, the largest init container, the
// overhead) times the pods admitted.
func (im *kueueImport) requests(wl *kueue.Workload, j *workload.Job) {
	total := map[corev1.ResourceName]policies.Qty{}
	for _, ps := range wl.Spec.PodSets {
		count := ps.Count
		var counted corev1.ResourceList
		if adm := wl.Status.Admission; adm != nil {
			for _, a := range adm.PodSetAssignments {
				if a.Name == ps.Name {
					counted = a.ResourceUsage
					if a.Count != nil {
						count = *a.Count
					}
				}
			}
		}
		if counted == nil {
			for _, rr := range wl.Status.ResourceRequests {
				if rr.Name == ps.Name {
					counted = rr.Resources
				}
			}
		}
		if ps.MinCount != nil {
			im.w.add("Workloads", "spec.podSets[].minCount", "partial admission is not modelled: a job runs with the pods Kueue admitted, or all of them")
		}
		if ps.TopologyRequest != nil {
			im.w.add("Workloads", "spec.podSets[].topologyRequest", "topology-aware scheduling is not modelled: a job's nodes are any of its type")
		}
		for name, q := range podRequests(&ps.Template.Spec) {
			if _, ok := counted[name]; !ok {
				total[name] += resourceQty(name, q) * policies.Qty(count)
			}
		}
		for name, q := range counted {
			total[name] += resourceQty(name, q)
		}
	}
	for _, r := range acceleratorResources {
		n := total[corev1.ResourceName(r)]
		if n == 0 {
			continue
		}
		if j.Accelerators > 0 {
			im.w.add("Workloads", "spec.podSets", "a job requests both %s and %s: only the first counted", j.Resource, r)
			continue
		}
		j.Accelerators = units(n)
		if r != hardware.ResourceNvidiaGPU {
			j.Resource = r
		}
	}
	j.VCPUs, j.MemoryGiB = units(total[corev1.ResourceCPU]), units(total[corev1.ResourceMemory])
}

// podRequests is what one pod requests, as Kubernetes counts it: its
// containers' requests (a limit where no request is given) summed, or
// its largest init container's where larger, plus its overhead.
func podRequests(spec *corev1.PodSpec) corev1.ResourceList {
	out := corev1.ResourceList{}
	own := func(c *corev1.Container) corev1.ResourceList {
		r := c.Resources.Requests.DeepCopy()
		if r == nil {
			r = corev1.ResourceList{}
		}
		for name, q := range c.Resources.Limits {
			if _, ok := r[name]; !ok {
				r[name] = q
			}
		}
		return r
	}
	for i := range spec.Containers {
		for name, q := range own(&spec.Containers[i]) {
			sum := out[name]
			sum.Add(q)
			out[name] = sum
		}
	}
	for i := range spec.InitContainers {
		for name, q := range own(&spec.InitContainers[i]) {
			if cur, ok := out[name]; !ok || q.Cmp(cur) > 0 {
				out[name] = q
			}
		}
	}
	for name, q := range spec.Overhead {
		sum := out[name]
		sum.Add(q)
		out[name] = sum
	}
	return out
}

// jobClass is a Workload's priority class: the one it names, else the
// first class of its priority value (a class made for a value no class
// has, with a warning).
func (im *kueueImport) jobClass(wl *kueue.Workload) string {
	if r := wl.Spec.PriorityClassRef; r != nil && r.Name != "" {
		for _, c := range im.file.PriorityClasses {
			if c.Name == r.Name {
				return c.Name
			}
		}
	}
	if wl.Spec.Priority == nil || *wl.Spec.Priority == 0 {
		return ""
	}
	v := int(*wl.Spec.Priority)
	for _, c := range im.file.PriorityClasses {
		if c.Value == v {
			return c.Name
		}
	}
	name := fmt.Sprintf("priority-%d", v)
	im.file.PriorityClasses = append(im.file.PriorityClasses, scenfile.PriorityClass{Name: name, Value: v})
	im.w.add("Workloads", "spec.priority", "%d, the value of no priority class read: class %s made for it", v, name)
	return name
}

// jobTypes are the instance types a job may run on, preferred first: the
// one its pods' nodeSelector pins, else the one Kueue admitted it to and
// then the other flavors of its ClusterQueue with its accelerator, in
// order. A job's duration is its running time on the first
// (docs/trace.md): where it ran.
func (im *kueueImport) jobTypes(wl *kueue.Workload, cq, res string, accel bool) []string {
	for _, ps := range wl.Spec.PodSets {
		if t := ps.Template.Spec.NodeSelector[InstanceTypeLabel]; t != "" {
			for _, ft := range im.types() {
				if ft.nodes > 0 && (ft.it.Name == t || ft.labels[InstanceTypeLabel] == t) {
					return []string{ft.it.Name}
				}
			}
		}
	}
	if res == "" {
		res = hardware.ResourceNvidiaGPU
	}
	var flavors []string
	if adm := wl.Status.Admission; adm != nil {
		for _, a := range adm.PodSetAssignments {
			for _, name := range []corev1.ResourceName{corev1.ResourceName(res), corev1.ResourceCPU} {
				if f, ok := a.Flavors[name]; ok {
					flavors = append(flavors, string(f))
				}
			}
		}
	}
	for i, c := range im.o.ClusterQueues {
		if c.Name == cq {
			flavors = append(flavors, im.cqFlavorOrder[i]...)
		}
	}
	var out []string
	for _, f := range flavors {
		ft := im.flavors[f]
		if ft == nil || ft.nodes == 0 || slices.Contains(out, ft.it.Name) || accel && (ft.it.Accelerators == 0 || ft.resource() != res) {
			continue // not a type the job can run on
		}
		out = append(out, ft.it.Name)
	}
	return out
}
