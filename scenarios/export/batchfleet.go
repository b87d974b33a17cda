package export

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// batchRecordType is the type a fleet sized from the record is made of
// when the jobs do not say where they ran.
const batchRecordType = "batch-gpu"

// sizeFleet gives the import its fleet: the quota shares' capacity limits
// (a quota-share queue runs on a SageMaker service environment), else
// the compute environments, else the peak the record held, each but the
// environments with a warning. With none of them it is an error.
func (b *batchImport) sizeFleet(in BatchFiles, jobs []workload.Job) error {
	quotas := slices.ContainsFunc(b.file.Teams, func(t scenfile.Team) bool { return len(t.Quota) > 0 })
	switch {
	case quotas:
		if len(in.ComputeEnvironments) > 0 {
			b.w.add("computeEnvironments", "", "quota shares run on a SageMaker service environment: the compute environments are not read")
		}
		b.fleetFromQuotas()
	case len(in.ComputeEnvironments) > 0:
		var ces []types.ComputeEnvironmentDetail
		for _, p := range in.ComputeEnvironments {
			page, err := readComputeEnvironments(p, &b.w)
			if err != nil {
				return err
			}
			ces = append(ces, page...)
		}
		b.computeEnvironments(ces)
	}
	if b.fleet.fleet() == nil && len(jobs) > 0 {
		b.fleetFromRecord(jobs)
	}
	b.file.Fleet = b.fleet.fleet()
	if b.file.Fleet == nil {
		return fmt.Errorf("no fleet: give the compute environments (--compute-environments: aws batch describe-compute-environments), quota shares or jobs that ran on GPUs")
	}
	return nil
}

// fleetFromQuotas is as many nodes of each type as the quotas hold.
func (b *batchImport) fleetFromQuotas() {
	groups := b.fleet.fromQuotas(b.file.Teams, false)
	b.w.add("fleet", "nodes", "sized from the quota shares' capacity limits (%s): the service environment's capacity is not read; edit fleet.nodes", groups)
}

// computeEnvironments are the queue's compute environments as node
// groups: maxvCpus over each instance type's vCPUs (the catalog's),
// split evenly where an environment lists several types.
func (b *batchImport) computeEnvironments(ces []types.ComputeEnvironmentDetail) {
	var order []string
	if b.queue != nil {
		for _, o := range b.queue.ComputeEnvironmentOrder {
			order = append(order, arnName(aws.ToString(o.ComputeEnvironment), "compute-environment/"))
		}
	}
	seen := map[string]bool{}
	for _, ce := range ces {
		name := aws.ToString(ce.ComputeEnvironmentName)
		obj := "computeEnvironments[" + name + "]"
		switch {
		case seen[name]:
			b.w.add(obj, "", "in more than one file or page: kept once")
			continue
		case len(order) > 0 && !slices.Contains(order, name):
			b.w.add(obj, "", "not in the job queue's computeEnvironmentOrder: left out")
			continue
		}
		seen[name] = true
		b.computeEnvironment(obj, ce)
	}
	for _, name := range order {
		if !seen[name] {
			b.w.add("computeEnvironments["+name+"]", "", "in the job queue's computeEnvironmentOrder but not in the files: left out")
		}
	}
	if len(order) > 1 {
		b.w.add("jobQueues["+b.name()+"]", "computeEnvironmentOrder", "allot places a job on any type of the fleet that fits it: the order of the environments is not kept")
	}
}

func (b *batchImport) computeEnvironment(obj string, ce types.ComputeEnvironmentDetail) {
	cr := ce.ComputeResources
	switch {
	case ce.Type == types.CETypeUnmanaged:
		b.w.add(obj, "type", "UNMANAGED: its instances are not described; left out")
		return
	case ce.State == types.CEStateDisabled:
		b.w.add(obj, "state", "DISABLED: left out")
		return
	case cr == nil:
		b.w.add(obj, "computeResources", "not given: left out")
		return
	case cr.Type == types.CRTypeFargate || cr.Type == types.CRTypeFargateSpot:
		b.w.add(obj, "computeResources.type", "%s has no GPUs: left out", cr.Type)
		return
	case cr.Type == types.CRTypeSpot:
		b.w.add(obj, "computeResources.type", "SPOT: interruptions are not modelled (give the node group a failure model to model them)")
	}
	var found []*hardware.InstanceType
	for _, it := range cr.InstanceTypes {
		found = append(found, b.ceType(obj, it)...)
	}
	if len(found) == 0 {
		return
	}
	maxv := float64(aws.ToInt32(cr.MaxvCpus))
	share := maxv / float64(len(found))
	var names []string
	for _, t := range found {
		n := int(share / t.VCPUs)
		if n == 0 {
			b.w.add(obj, "computeResources.maxvCpus", "%g vCPUs hold no %s (%g vCPUs): none in the fleet", share, t.Name, t.VCPUs)
			continue
		}
		b.fleet.add(t.Name, n)
		names = append(names, fmt.Sprintf("%d %s", n, t.Name))
	}
	if len(found) > 1 {
		b.w.add(obj, "computeResources.instanceTypes", "maxvCpus %g split evenly among %d types (%s): Batch launches any mix", maxv, len(found), strings.Join(names, ", "))
	}
	if aws.ToInt32(cr.MinvCpus) < aws.ToInt32(cr.MaxvCpus) {
		b.w.add(obj, "computeResources.minvCpus", "the fleet is what the environment scales up to (maxvCpus %g); Batch scales it down to minvCpus %d when idle", maxv, aws.ToInt32(cr.MinvCpus))
	}
}

// ceType is the GPU types of a compute environment's instanceTypes
// entry: a type, or a family ("p4d") whose one catalog size it means.
func (b *batchImport) ceType(obj, it string) []*hardware.InstanceType {
	field := "computeResources.instanceTypes[" + it + "]"
	if !strings.Contains(it, ".") {
		var sizes []string
		for _, n := range append(b.fleet.cat.SortedNames(), slices.Collect(maps.Keys(awsExtraTypes))...) {
			if strings.HasPrefix(n, it+".") && !slices.Contains(sizes, n) {
				sizes = append(sizes, n)
			}
		}
		sort.Strings(sizes)
		if len(sizes) != 1 {
			b.w.add(obj, field, "%s: an instance family (or optimal), of which Batch picks sizes by demand; %d GPU sizes are known (%s): left out; name the types", it, len(sizes), strings.Join(sizes, ", "))
			return nil
		}
		b.w.add(obj, field, "an instance family: taken as %s, its one GPU size known", sizes[0])
		it = sizes[0]
	}
	name, per, ok := b.fleet.resolve(it)
	if !ok {
		b.w.add(obj, field, "not a GPU type the catalog knows (allot catalog): left out")
		return nil
	}
	t, _ := b.fleet.cat.Lookup(name)
	if per == 0 || t.VCPUs <= 0 {
		b.w.add(obj, field, "no GPUs or no vCPU count in the catalog: left out")
		return nil
	}
	return []*hardware.InstanceType{t}
}

// fleetFromRecord is as many nodes as the jobs held at their peak, of the
// types they ran on, or of a custom 8-GPU type where they do not say.
func (b *batchImport) fleetFromRecord(jobs []workload.Job) {
	type edge struct {
		at, acc float64
	}
	byType := map[string][]edge{}
	largest := map[string]float64{}
	for _, j := range jobs {
		typ := batchRecordType
		if len(j.InstanceTypes) == 1 {
			if name, per, ok := b.fleet.resolve(j.InstanceTypes[0]); ok && per > 0 {
				typ = name
			}
		}
		byType[typ] = append(byType[typ], edge{j.OrigStart, j.Accelerators}, edge{j.OrigEnd, -j.Accelerators})
		largest[typ] = max(largest[typ], j.Accelerators)
	}
	if _, ok := byType[batchRecordType]; ok {
		b.fleet.custom = append(b.fleet.custom, scenfile.InstanceType{Name: batchRecordType, Accelerator: "generic", Accelerators: 8})
		_ = b.fleet.cat.Add(&hardware.InstanceType{Name: batchRecordType, Accelerator: "generic", Accelerators: 8, Resource: hardware.ResourceNvidiaGPU, Speed: 1, Custom: true})
	}
	var groups []string
	for _, typ := range slices.Sorted(maps.Keys(byType)) {
		es := byType[typ]
		sort.Slice(es, func(a, c int) bool { return es[a].at < es[c].at || es[a].at == es[c].at && es[a].acc < es[c].acc })
		held, peak := 0.0, 0.0
		for _, e := range es {
			held += e.acc
			peak = max(peak, held)
		}
		t, _ := b.fleet.cat.Lookup(typ)
		n := max(nodesFor(peak, t.Accelerators), nodesFor(largest[typ], t.Accelerators))
		b.fleet.add(typ, n)
		groups = append(groups, fmt.Sprintf("%d %s", n, typ))
	}
	b.w.add("fleet", "nodes", "no compute environments given (--compute-environments): sized for the most GPUs the jobs held at once (%s); edit fleet.nodes", strings.Join(groups, ", "))
}

// pinTypes keeps the instance type a job ran on where the fleet has it.
func (b *batchImport) pinTypes(jobs []workload.Job) {
	off := 0
	for i := range jobs {
		j := &jobs[i]
		if len(j.InstanceTypes) == 0 {
			continue
		}
		name, _, ok := b.fleet.resolve(j.InstanceTypes[0])
		if _, in := b.fleet.nodes[name]; ok && in {
			j.InstanceTypes = []string{name}
		} else {
			j.InstanceTypes = nil
			off++
		}
	}
	if off > 0 {
		b.w.add("jobs", "container.instanceType", "%d jobs ran on types the fleet lacks: they may run on any type", off)
	}
}

// arnName is the name at the end of an ARN (after kind, e.g.
// "compute-environment/"), or s itself when it is a name.
func arnName(s, kind string) string {
	if _, name, ok := strings.Cut(s, ":"+kind); ok {
		return name
	}
	return s
}

func sortedQuotaTypes(q map[string]scenfile.Quota) []string {
	return slices.Sorted(maps.Keys(q))
}
