package importers

import (
	"fmt"
	"io"
	"math"

	"github.com/allot-sim/allot/hardware"
)

// Alibaba GPU-disaggregated DLRM serving (cluster-trace-gpu-v2025):
// instance_sn, role (CN: CPU node, HN: heterogeneous GPU node), app_name,
// cpu/gpu/rdma/memory/disk request and limit, max_instance_per_node,
// creation_time, scheduled_time, deletion_time (NaN: before the trace
// started, or after it ended).

var dlrmCols = []string{"instance_sn", "role", "app_name", "cpu_request", "gpu_request", "memory_request", "creation_time", "scheduled_time", "deletion_time"}

// Assumed node shapes: the trace does not list its machines.
var (
	dlrmHN = hardware.InstanceType{Name: "dlrm-hn", Accelerator: "gpu", Accelerators: 8, Resource: hardware.ResourceNvidiaGPU,
		VCPUs: 128, MemoryGiB: 1024, Speed: 1, Custom: true, Source: "assumed by the alibaba-dlrm importer: 8 GPUs, 128 vCPUs, 1024 GiB"}
	dlrmCN = hardware.InstanceType{Name: "dlrm-cn", Accelerator: "cpu", Accelerators: 0,
		VCPUs: 192, MemoryGiB: 1536, Speed: 1, Custom: true, Source: "assumed by the alibaba-dlrm importer: 192 vCPUs (the largest instance asks 192), 1536 GiB"}
)

func importDLRM(files []string, _ Options) (*Result, error) {
	if len(files) != 1 {
		return nil, fmt.Errorf("alibaba-dlrm: want one file (disaggregated_DLRM_trace.csv), got %d", len(files))
	}
	t, err := openTable(files[0], ',', nil)
	if err != nil {
		return nil, err
	}
	defer t.close()
	if err := t.need(dlrmCols...); err != nil {
		return nil, err
	}
	r := &Result{Format: "alibaba-dlrm"}
	end := 0.0
	teams := map[string]bool{}
	var order []string
	censored, atStart := 0, 0
	for {
		if err := t.next(); err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		r.Rows++
		j := newJob()
		j.ID, j.Team = t.str("instance_sn"), t.str("app_name")
		if j.ID == "" {
			return nil, t.errf("instance_sn", "missing value")
		}
		if j.Team == "" {
			return nil, t.errf("app_name", "missing value")
		}
		role := t.str("role")
		vals := map[string]float64{}
		for _, c := range []string{"cpu_request", "gpu_request", "memory_request", "creation_time", "scheduled_time", "deletion_time"} {
			opt := c == "creation_time" || c == "scheduled_time" || c == "deletion_time"
			v, err := t.num(c, opt)
			if err != nil {
				return nil, err
			}
			if v < 0 {
				return nil, t.errf(c, "negative: %g", v)
			}
			vals[c] = v
			if opt && !math.IsNaN(v) {
				end = math.Max(end, v)
			}
		}
		switch role {
		case "HN":
			j.InstanceTypes = []string{dlrmHN.Name}
			if vals["gpu_request"] <= 0 {
				return nil, t.errf("gpu_request", "an HN (GPU node) instance asks for %g GPUs", vals["gpu_request"])
			}
		case "CN":
			j.InstanceTypes = []string{dlrmCN.Name}
		default:
			return nil, t.errf("role", "unknown role %q (want CN or HN)", role)
		}
		j.Accelerators, j.VCPUs, j.MemoryGiB = vals["gpu_request"], vals["cpu_request"], vals["memory_request"]
		j.Class = role
		if j.Accelerators == 0 && j.VCPUs == 0 {
			r.leave("requests nothing")
			continue
		}
		c, s, d := vals["creation_time"], vals["scheduled_time"], vals["deletion_time"]
		switch {
		case math.IsNaN(c) && math.IsNaN(s):
			c, s = 0, 0 // running when the trace began
			atStart++
		case math.IsNaN(c):
			c = s
		case math.IsNaN(s):
			r.leave("created but never scheduled")
			continue
		}
		if s < c {
			return nil, t.errf("scheduled_time", "%g is before creation_time %g", s, c)
		}
		j.Submit, j.OrigStart = c, s
		j.OrigStatus = "deleted"
		if math.IsNaN(d) {
			j.OrigStatus = "running" // still running at the end: censored below
			censored++
		} else if d < s {
			return nil, t.errf("deletion_time", "%g is before scheduled_time %g", d, s)
		}
		j.OrigEnd = d
		r.Jobs = append(r.Jobs, j)
		if !teams[j.Team] {
			teams[j.Team] = true
			order = append(order, j.Team)
		}
	}
	// Instances still running at the end run until the last time the
	// trace mentions.
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if math.IsNaN(j.OrigEnd) {
			j.OrigEnd = end
		}
		j.Duration = j.OrigEnd - j.OrigStart
	}
	r.finish()
	for _, tm := range order {
		r.Teams = append(r.Teams, Team{Name: tm})
	}
	r.PriorityClasses = []PriorityClass{{Name: "latency-sensitive", Value: 100}}
	for i := range r.Jobs {
		r.Jobs[i].PriorityClass = "latency-sensitive"
	}
	dlrmSizeFleet(r)
	r.note("teams = services (app_name); job_class = role (CN: CPU node, HN: GPU node); every instance is latency-sensitive (the dataset says so)")
	r.note("accelerators = gpu_request, vcpus = cpu_request, memory_gib = memory_request; CN instances run on CPU nodes, HN instances on GPU nodes")
	r.note("%d instances already running when the trace began are submitted at 0; %d still running at its end (deletion_time NaN) run until %.0f s, the last time it records, and are censored there", atStart, censored, end)
	r.note("max_instance_per_node (anti-affinity), RDMA and disk requests are not modelled")
	r.note("fleet ASSUMED (the trace lists no machines): %s and %s nodes, enough for the peak of the original concurrent demand plus 10%%", dlrmHN.Name, dlrmCN.Name)
	return r, nil
}

// dlrmSizeFleet sizes each node type for 110% of the original peak of
// concurrent demand on it (by its binding resource).
func dlrmSizeFleet(r *Result) {
	r.FleetAssumed = true
	for _, it := range []hardware.InstanceType{dlrmHN, dlrmCN} {
		need := 0.0
		for _, res := range []func(j int) float64{
			func(j int) float64 { return r.Jobs[j].Accelerators / math.Max(1, float64(it.Accelerators)) },
			func(j int) float64 { return r.Jobs[j].VCPUs / it.VCPUs },
			func(j int) float64 { return r.Jobs[j].MemoryGiB / it.MemoryGiB },
		} {
			need = math.Max(need, peakConcurrent(r, it.Name, res))
		}
		nodes := int(math.Ceil(need * 1.1))
		if nodes == 0 {
			continue
		}
		r.Types = append(r.Types, it)
		r.Nodes = append(r.Nodes, hardware.NodeGroup{Type: it.Name, Count: nodes})
	}
}

// peakConcurrent is the largest sum of amount(j) over jobs of one type
// running at once in the original schedule.
func peakConcurrent(r *Result, typ string, amount func(j int) float64) float64 {
	type edge struct {
		t, d float64
	}
	var es []edge
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if len(j.InstanceTypes) == 0 || j.InstanceTypes[0] != typ {
			continue
		}
		a := amount(i)
		es = append(es, edge{j.OrigStart, a}, edge{j.OrigEnd, -a})
	}
	sortEdges := func(a, b int) bool {
		if es[a].t != es[b].t {
			return es[a].t < es[b].t
		}
		return es[a].d < es[b].d // ends before starts at one instant
	}
	sortSlice(es, sortEdges)
	cur, peak := 0.0, 0.0
	for _, e := range es {
		cur += e.d
		peak = math.Max(peak, cur)
	}
	return peak
}
