package importers

import (
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/allot-sim/allot/hardware"
)

// Alibaba openb (cluster-trace-gpu-v2023). Pods:
//   name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
//   pod_phase, creation_time, deletion_time, scheduled_time
// Nodes: sn, cpu_milli, memory_mib, gpu, model.

var (
	openbPodCols  = []string{"name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli", "gpu_spec", "qos", "pod_phase", "creation_time", "deletion_time", "scheduled_time"}
	openbNodeCols = []string{"sn", "cpu_milli", "memory_mib", "gpu", "model"}
)

// openbQoS maps Alibaba QoS classes to priority classes: latency-sensitive
// online pods first, Kubernetes Guaranteed next, best-effort last.
var openbQoS = []struct {
	qos, class string
	value      int
}{
	{"LS", "latency-sensitive", 100},
	{"Guaranteed", "guaranteed", 90},
	{"Burstable", "burstable", 50},
	{"BE", "best-effort", 10},
}

const openbTeam = "openb"

func importOpenB(files []string, _ Options) (*Result, error) {
	var pods, nodes string
	for _, f := range files {
		t, err := openTable(f, ',', nil)
		if err != nil {
			return nil, err
		}
		isPods, isNodes := t.need(openbPodCols...) == nil, t.need(openbNodeCols...) == nil
		t.close()
		switch {
		case isPods && pods == "":
			pods = f
		case isNodes && nodes == "":
			nodes = f
		case !isPods && t.need("name", "cpu_milli", "memory_mib", "num_gpu", "gpu_milli") == nil:
			return nil, fmt.Errorf("%s: line 1: a pod list without creation, scheduled and deletion times (the packing-only variants such as multigpuNN): it has no arrivals or durations to replay", f)
		case isPods || isNodes:
			return nil, fmt.Errorf("%s: a second openb %s list; give one pod list and at most one node list", f, map[bool]string{true: "pod", false: "node"}[isPods])
		default:
			return nil, fmt.Errorf("%s: line 1: neither an openb pod list (%s) nor a node list (%s)", f, strings.Join(openbPodCols, ","), strings.Join(openbNodeCols, ","))
		}
	}
	if pods == "" {
		return nil, fmt.Errorf("openb: no pod list among the inputs (want a CSV with columns %s)", strings.Join(openbPodCols, ","))
	}
	r := &Result{Format: "openb"}
	models := map[string][]string{} // GPU model -> node type names
	if nodes != "" {
		if err := readOpenBNodes(nodes, r, models); err != nil {
			return nil, err
		}
	}
	if err := readOpenBPods(pods, r, models); err != nil {
		return nil, err
	}
	r.finish()
	for _, q := range openbQoS {
		r.PriorityClasses = append(r.PriorityClasses, PriorityClass{Name: q.class, Value: q.value})
	}
	r.Teams = []Team{{Name: openbTeam}}
	r.note("one team %q: the trace names no tenants; it borrows the whole fleet", openbTeam)
	r.note("QoS to priority class: LS latency-sensitive (100), Guaranteed guaranteed (90), Burstable burstable (50), BE best-effort (10)")
	r.note("accelerators: num_gpu, or gpu_milli/1000 for a pod sharing one GPU (num_gpu 1, gpu_milli < 1000); vcpus = cpu_milli/1000; memory_gib = memory_mib/1024")
	r.note("CPU-only pods (num_gpu 0) are CPU-only jobs: 0 accelerators, their vcpus and memory; they prefer CPU nodes, then GPU nodes")
	r.note("duration_s = deletion_time - scheduled_time; orig_start/end = scheduled/deletion time; orig_status = pod_phase (running = still running when the trace was taken)")
	r.note("submit_time = creation_time; gpu_spec (GPU models a pod accepts) becomes instance_types: every node type of those models")
	r.note("GPU sharing is modelled per node (a node's GPUs as one divisible pool), not per physical GPU as in the FGD paper")
	if nodes != "" {
		r.note("node types: one per (GPU model, GPUs, vCPUs, memory) of the node list; speed 1.0 (durations are as measured, on whatever GPU ran them), unpriced")
	}
	return r, nil
}

func readOpenBNodes(path string, r *Result, models map[string][]string) error {
	t, err := openTable(path, ',', nil)
	if err != nil {
		return err
	}
	defer t.close()
	type key struct {
		model         string
		gpus          int
		cpuMilli, mib float64
	}
	count := map[key]int{}
	var order []key
	if err := t.each(func() error {
		var cpu, mib, g float64
		if err := t.nums([]string{"cpu_milli", "memory_mib", "gpu"}, &cpu, &mib, &g); err != nil {
			return err
		}
		if g < 0 || g != math.Trunc(g) || cpu < 0 || mib < 0 {
			return t.errf("gpu", "want a whole number of GPUs and non-negative cpu_milli and memory_mib")
		}
		model := t.str("model")
		if g > 0 && model == "" {
			return t.errf("model", "a node with %g GPUs names no GPU model", g)
		}
		k := key{model, int(g), cpu, mib}
		if count[k] == 0 {
			order = append(order, k)
		}
		count[k]++
		return nil
	}); err != nil {
		return err
	}
	sort.SliceStable(order, func(a, b int) bool { return count[order[a]] > count[order[b]] })
	for _, k := range order {
		kind := strings.ToLower(k.model)
		name := fmt.Sprintf("openb-%s-%dgpu-%gc-%gg", kind, k.gpus, k.cpuMilli/1000, k.mib/1024)
		if k.gpus == 0 {
			kind = "cpu"
			name = fmt.Sprintf("openb-cpu-%gc-%gg", k.cpuMilli/1000, k.mib/1024)
		}
		it := hardware.InstanceType{Name: name, Accelerator: kind, AcceleratorModel: k.model, Accelerators: k.gpus,
			VCPUs: k.cpuMilli / 1000, MemoryGiB: k.mib / 1024, Speed: 1, Custom: true,
			Source: fmt.Sprintf("openb node list %s: %d nodes", path, count[k])}
		if k.gpus > 0 {
			it.Resource = hardware.ResourceNvidiaGPU
			models[k.model] = append(models[k.model], name)
		}
		r.Types = append(r.Types, it)
		r.Nodes = append(r.Nodes, hardware.NodeGroup{Type: name, Count: count[k]})
	}
	return nil
}

func readOpenBPods(path string, r *Result, models map[string][]string) error {
	t, err := openTable(path, ',', nil)
	if err != nil {
		return err
	}
	defer t.close()
	qos := map[string]string{}
	for _, q := range openbQoS {
		qos[q.qos] = q.class
	}
	ignoredSpec := 0
	// CPU-only pods prefer CPU nodes, then any GPU node (in the list's order).
	var cpuFirst []string
	for _, it := range r.Types {
		if it.Accelerators == 0 {
			cpuFirst = append(cpuFirst, it.Name)
		}
	}
	for _, it := range r.Types {
		if it.Accelerators > 0 {
			cpuFirst = append(cpuFirst, it.Name)
		}
	}
	defer func() {
		if ignoredSpec > 0 {
			r.note("%d pods' gpu_spec ignored: without the node list there are no types to pin them to", ignoredSpec)
		}
	}()
	for {
		if err := t.next(); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		r.Rows++
		j := newJob()
		j.ID, j.Team = t.str("name"), openbTeam
		if j.ID == "" {
			return t.errf("name", "missing value")
		}
		var cpu, mib, ngpu, milli, created, deleted, sched float64
		for _, f := range []struct {
			col string
			v   *float64
			opt bool
		}{{"cpu_milli", &cpu, false}, {"memory_mib", &mib, false}, {"num_gpu", &ngpu, false}, {"gpu_milli", &milli, false},
			{"creation_time", &created, false}, {"deletion_time", &deleted, true}, {"scheduled_time", &sched, true}} {
			if *f.v, err = t.num(f.col, f.opt); err != nil {
				return err
			}
		}
		switch {
		case ngpu < 0 || ngpu != math.Trunc(ngpu):
			return t.errf("num_gpu", "want a whole number >= 0, got %g", ngpu)
		case milli < 0 || milli > 1000:
			return t.errf("gpu_milli", "want 0..1000 (thousandths of one GPU), got %g", milli)
		case cpu < 0:
			return t.errf("cpu_milli", "negative: %g", cpu)
		case mib < 0:
			return t.errf("memory_mib", "negative: %g", mib)
		case created < 0:
			return t.errf("creation_time", "negative time %g", created)
		}
		class, ok := qos[t.str("qos")]
		if !ok {
			return t.errf("qos", "unknown QoS class %q (known: LS, Guaranteed, Burstable, BE)", t.str("qos"))
		}
		phase := strings.ToLower(t.str("pod_phase"))
		if math.IsNaN(sched) {
			r.leave("never scheduled (" + phase + ")")
			continue
		}
		if math.IsNaN(deleted) {
			r.leave("no deletion_time")
			continue
		}
		if sched < created {
			return t.errf("scheduled_time", "%g is before creation_time %g", sched, created)
		}
		if deleted < sched {
			return t.errf("deletion_time", "%g is before scheduled_time %g", deleted, sched)
		}
		j.Submit, j.Duration = created, deleted-sched
		j.OrigStart, j.OrigEnd, j.OrigStatus = sched, deleted, phase
		j.PriorityClass = class
		j.VCPUs, j.MemoryGiB = cpu/1000, mib/1024
		j.Accelerators = ngpu
		if ngpu == 1 && milli > 0 && milli < 1000 {
			j.Accelerators = milli / 1000
		}
		if j.Accelerators == 0 && j.VCPUs == 0 {
			r.leave("requests nothing (no GPU, no CPU)")
			continue
		}
		if j.Accelerators == 0 && len(models) > 0 {
			j.InstanceTypes = cpuFirst
		}
		if spec := t.str("gpu_spec"); spec != "" && j.Accelerators > 0 && len(models) == 0 {
			ignoredSpec++
		} else if spec != "" && j.Accelerators > 0 {
			for _, m := range strings.Split(spec, "|") {
				names, ok := models[m]
				if !ok {
					return t.errf("gpu_spec", "GPU model %q is not in the node list", m)
				}
				j.InstanceTypes = append(j.InstanceTypes, names...)
			}
		}
		r.Jobs = append(r.Jobs, j)
	}
}
