package export

import (
	"fmt"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// team is a compute quota as a team: its allocation per instance type,
// preemption of its own tasks, lending and borrowing, fair-share weight.
func (h *hpImport) team(q hpQuota) error {
	name := aws.ToString(q.target.TeamName)
	obj := "ComputeQuotas[" + q.name + "]"
	t := scenfile.Team{Name: name, Weight: scenfile.Ptr(float64(hpDefaultWeight))}
	if w := q.target.FairShareWeight; w != nil {
		t.Weight = scenfile.Ptr(float64(*w))
	} else {
		h.w.add(obj, "ComputeQuotaTarget.FairShareWeight", "not given: HyperPod's default %d", hpDefaultWeight)
	}
	c := q.config
	if c == nil {
		h.w.add(obj, "ComputeQuotaConfig", "not given: the team has no quota and HyperPod's default sharing")
		c = &types.ComputeQuotaConfig{}
	}
	var err error
	if t.Quota, err = h.allocation(obj, q.where, c.ComputeQuotaResources, "ComputeQuotaResources"); err != nil {
		return err
	}
	within := policies.LowerPriority // the documented default
	if c.PreemptTeamTasks == "" {
		h.w.add(obj, "ComputeQuotaConfig.PreemptTeamTasks", "not given: HyperPod's default LowerPriority")
	} else {
		var ok bool
		if within, ok = hpPreemptTeamTasks.toAllot(c.PreemptTeamTasks); !ok {
			return fmt.Errorf("%s: ComputeQuotaConfig.PreemptTeamTasks: want %s, got %q", q.where, hpPreemptTeamTasks.engines(), c.PreemptTeamTasks)
		}
	}
	t.PreemptWithinTeam, _ = preemptNames.toEngine(within)
	if err := h.sharing(obj, q.where, c.ResourceSharingConfig, &t); err != nil {
		return err
	}
	h.file.Teams = append(h.file.Teams, t)
	return nil
}

// allocation is a list of ComputeQuotaResourceConfig as quotas per type:
// Count instances, or Accelerators (with VCpu and MemoryInGiB).
func (h *hpImport) allocation(obj, where string, rs []types.ComputeQuotaResourceConfig, field string) (map[string]scenfile.Quota, error) {
	out := map[string]scenfile.Quota{}
	for i, r := range rs {
		at := fmt.Sprintf("ComputeQuotaConfig.%s[%d]", field, i)
		typ, per, ok := h.fleet.resolve(string(r.InstanceType))
		if !ok || per == 0 {
			h.w.add(obj, at, "%s: not a GPU type the catalog knows (allot catalog): left out", r.InstanceType)
			continue
		}
		if r.AcceleratorPartition != nil {
			h.w.add(obj, at+".AcceleratorPartition", "GPU partitions (MIG) are not modelled: left out")
		}
		var q scenfile.Quota
		switch {
		case r.Count != nil:
			if *r.Count < 0 {
				return nil, fmt.Errorf("%s: %s.Count: want >= 0 instances, got %d", where, at, *r.Count)
			}
			q.Accelerators = float64(*r.Count) * float64(per)
			if r.Accelerators != nil || r.VCpu != nil || r.MemoryInGiB != nil {
				h.w.add(obj, at, "Count with Accelerators, VCpu or MemoryInGiB: the Count of whole instances is taken")
			}
		case r.Accelerators != nil:
			q.Accelerators = float64(*r.Accelerators)
			if r.VCpu != nil {
				q.VCPUs = scenfile.Ptr(float64(*r.VCpu))
			}
			if r.MemoryInGiB != nil {
				q.MemoryGiB = scenfile.Ptr(float64(*r.MemoryInGiB))
			}
		default:
			h.w.add(obj, at, "neither Count nor Accelerators: left out")
			continue
		}
		if _, dup := out[typ]; dup {
			h.w.add(obj, at, "%s a second time: the two added", r.InstanceType)
			q.Accelerators += out[typ].Accelerators
		}
		out[typ] = q
	}
	return out, nil
}

// sharing is the team's ResourceSharingConfig: the strategy as lend and
// borrow, and the borrow limit, a percentage of the team's allocation or
// (AbsoluteBorrowLimits, one type) accelerators.
func (h *hpImport) sharing(obj, where string, rs *types.ResourceSharingConfig, t *scenfile.Team) error {
	if rs == nil {
		h.w.add(obj, "ComputeQuotaConfig.ResourceSharingConfig", "not given: HyperPod's default LendAndBorrow with a %d%% borrow limit", hpDefaultBorrowLimit)
		rs = &types.ResourceSharingConfig{Strategy: types.ResourceSharingStrategyLendandborrow, BorrowLimit: aws.Int32(hpDefaultBorrowLimit)}
	}
	sh, ok := hpStrategies.toAllot(rs.Strategy)
	if !ok {
		return fmt.Errorf("%s: ComputeQuotaConfig.ResourceSharingConfig.Strategy: want %s, got %q", where, hpStrategies.engines(), rs.Strategy)
	}
	t.Lend, t.Borrow = scenfile.Ptr(sh.lend), scenfile.Ptr(sh.borrow)
	field := "ComputeQuotaConfig.ResourceSharingConfig."
	if !sh.borrow {
		if rs.BorrowLimit != nil || len(rs.AbsoluteBorrowLimits) > 0 {
			h.w.add(obj, field+"BorrowLimit", "%s does not borrow: the limit is ignored", rs.Strategy)
		}
		return nil
	}
	if len(rs.AbsoluteBorrowLimits) > 0 {
		abs, err := h.allocation(obj, where, rs.AbsoluteBorrowLimits, "ResourceSharingConfig.AbsoluteBorrowLimits")
		if err != nil {
			return err
		}
		if len(abs) == 1 {
			for _, q := range abs {
				t.BorrowLimit = scenfile.Num(q.Accelerators)
			}
			h.w.add(obj, field+"AbsoluteBorrowLimits", "borrow_limit %s accelerators in all (allot's limit is one figure for the team)", t.BorrowLimit)
			return nil
		}
		h.w.add(obj, field+"AbsoluteBorrowLimits", "limits on %d types: allot's borrow_limit is one figure; the percentage BorrowLimit is taken", len(abs))
	}
	lim := int32(hpDefaultBorrowLimit)
	if rs.BorrowLimit != nil {
		lim = *rs.BorrowLimit
	} else {
		h.w.add(obj, field+"BorrowLimit", "not given: HyperPod's default %d%%", hpDefaultBorrowLimit)
	}
	if lim < 0 {
		return fmt.Errorf("%s: %sBorrowLimit: want a percentage >= 0, got %d", where, field, lim)
	}
	t.BorrowLimit = fmt.Sprintf("%d%%", lim)
	return nil
}
