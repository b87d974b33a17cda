package export

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
	"k8s.io/apimachinery/pkg/api/resource"
)

// batchRes is what a Batch job requests: GPUs, vCPUs and memory (MiB,
// as Batch counts it), over all its nodes.
type batchRes struct {
	gpus, vcpus, memMiB float64
}

func (r *batchRes) add(o batchRes, times float64) {
	r.gpus += o.gpus * times
	r.vcpus += o.vcpus * times
	r.memMiB += o.memMiB * times
}

// batchRequirements sums a container's resourceRequirements (type GPU,
// VCPU, MEMORY in MiB), falling back on the older vcpus and memory
// members; path names the container in errors.
func (d *awsDoc) batchRequirements(reqs []types.ResourceRequirement, vcpus, memory *int32, path string) (batchRes, error) {
	var r batchRes
	var haveCPU, haveMem bool
	for i, req := range reqs {
		at := fmt.Sprintf("%s.resourceRequirements[%d].value", path, i)
		v, err := strconv.ParseFloat(strings.TrimSpace(aws.ToString(req.Value)), 64)
		if err != nil || v < 0 {
			return r, &awsPathError{d.file, at, fmt.Sprintf("want a number >= 0, got %q", aws.ToString(req.Value))}
		}
		switch req.Type {
		case types.ResourceTypeGpu:
			r.gpus += v
		case types.ResourceTypeVcpu:
			r.vcpus, haveCPU = r.vcpus+v, true
		case types.ResourceTypeMemory:
			r.memMiB, haveMem = r.memMiB+v, true
		default:
			return r, &awsPathError{d.file, fmt.Sprintf("%s.resourceRequirements[%d].type", path, i), fmt.Sprintf("want GPU, VCPU or MEMORY, got %q", req.Type)}
		}
	}
	if !haveCPU && vcpus != nil {
		r.vcpus = float64(*vcpus)
	}
	if !haveMem && memory != nil {
		r.memMiB = float64(*memory)
	}
	return r, nil
}

// batchEKSContainers sums the requests (else limits) of EKS containers:
// nvidia.com/gpu, cpu and memory as Kubernetes quantities.
func (d *awsDoc) batchEKSContainers(res []*types.EksContainerResourceRequirements, path string) (batchRes, error) {
	var r batchRes
	for i, c := range res {
		if c == nil {
			continue
		}
		for _, name := range []string{"nvidia.com/gpu", "cpu", "memory"} {
			s, ok := c.Requests[name]
			field := "requests"
			if !ok {
				s, ok = c.Limits[name]
				field = "limits"
			}
			if !ok {
				continue
			}
			q, err := resource.ParseQuantity(s)
			if err != nil {
				return r, &awsPathError{d.file, fmt.Sprintf("%s[%d].resources.%s.%s", path, i, field, name), fmt.Sprintf("want a Kubernetes quantity, got %q", s)}
			}
			switch name {
			case "nvidia.com/gpu":
				r.gpus += q.AsApproximateFloat64()
			case "cpu":
				r.vcpus += q.AsApproximateFloat64()
			case "memory":
				r.memMiB += q.AsApproximateFloat64() / (1 << 20)
			}
		}
	}
	return r, nil
}

// batchJobResources is what a job detail requests in all: a multi-node
// job's node ranges (nodes × each range's containers), an ECS job's
// task containers, an EKS job's pod containers or the container.
func (d *awsDoc) batchJobResources(j *types.JobDetail, path string) (batchRes, error) {
	var total batchRes
	switch {
	case j.NodeProperties != nil && len(j.NodeProperties.NodeRangeProperties) > 0:
		np := j.NodeProperties
		for i, nr := range np.NodeRangeProperties {
			at := fmt.Sprintf("%s.nodeProperties.nodeRangeProperties[%d]", path, i)
			nodes, err := d.batchTargetNodes(aws.ToString(nr.TargetNodes), int(aws.ToInt32(np.NumNodes)), at+".targetNodes")
			if err != nil {
				return total, err
			}
			var per batchRes
			switch {
			case nr.Container != nil:
				per, err = d.batchRequirements(nr.Container.ResourceRequirements, nr.Container.Vcpus, nr.Container.Memory, at+".container")
			case nr.EcsProperties != nil:
				per, err = d.batchECSTasks(nr.EcsProperties.TaskProperties, at+".ecsProperties.taskProperties")
			case nr.EksProperties != nil && nr.EksProperties.PodProperties != nil:
				var res []*types.EksContainerResourceRequirements
				for _, c := range nr.EksProperties.PodProperties.Containers {
					res = append(res, c.Resources)
				}
				per, err = d.batchEKSContainers(res, at+".eksProperties.podProperties.containers")
			}
			if err != nil {
				return total, err
			}
			total.add(per, float64(nodes))
		}
		return total, nil
	case j.EcsProperties != nil:
		var tasks []types.EcsTaskProperties
		for _, t := range j.EcsProperties.TaskProperties {
			var cs []types.TaskContainerProperties
			for _, c := range t.Containers {
				cs = append(cs, types.TaskContainerProperties{ResourceRequirements: c.ResourceRequirements})
			}
			tasks = append(tasks, types.EcsTaskProperties{Containers: cs})
		}
		return d.batchECSTasks(tasks, path+".ecsProperties.taskProperties")
	case j.EksProperties != nil && j.EksProperties.PodProperties != nil:
		var res []*types.EksContainerResourceRequirements
		for _, c := range j.EksProperties.PodProperties.Containers {
			res = append(res, c.Resources)
		}
		return d.batchEKSContainers(res, path+".eksProperties.podProperties.containers")
	case j.Container != nil:
		return d.batchRequirements(j.Container.ResourceRequirements, j.Container.Vcpus, j.Container.Memory, path+".container")
	}
	return total, nil
}

func (d *awsDoc) batchECSTasks(tasks []types.EcsTaskProperties, path string) (batchRes, error) {
	var total batchRes
	for ti, t := range tasks {
		for ci, c := range t.Containers {
			r, err := d.batchRequirements(c.ResourceRequirements, nil, nil, fmt.Sprintf("%s[%d].containers[%d]", path, ti, ci))
			if err != nil {
				return total, err
			}
			total.add(r, 1)
		}
	}
	return total, nil
}

// batchTargetNodes is how many nodes a node range covers: "N", "N:M",
// ":M" or "N:" (to the last of numNodes), indices from 0.
func (d *awsDoc) batchTargetNodes(s string, numNodes int, path string) (int, error) {
	bad := &awsPathError{d.file, path, fmt.Sprintf("want N, N:M, :M or N: (node indices below numNodes %d), got %q", numNodes, s)}
	lo, hi, isRange := strings.Cut(s, ":")
	if !isRange {
		hi = lo
	}
	from, to := 0, numNodes-1
	var err error
	if lo != "" {
		if from, err = strconv.Atoi(lo); err != nil {
			return 0, bad
		}
	}
	if hi != "" {
		if to, err = strconv.Atoi(hi); err != nil {
			return 0, bad
		}
	}
	if from < 0 || to < from || to >= numNodes {
		return 0, bad
	}
	return to - from + 1, nil
}
