package export

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// HyperPodFiles are the HyperPod task governance files allot import
// hyperpod reads: as the AWS CLI prints the describe and list outputs,
// or as allot export hyperpod writes the create inputs.
type HyperPodFiles struct {
	// SchedulerConfig is describe-cluster-scheduler-config output.
	SchedulerConfig string
	// ComputeQuotas are list-compute-quotas pages or describe-compute-quota
	// outputs.
	ComputeQuotas []string
}

// The documented defaults of members left out (API_ComputeQuotaConfig,
// API_ResourceSharingConfig, API_ComputeQuotaTarget, API_SchedulerConfig).
const (
	hpDefaultBorrowLimit = 50
	hpDefaultWeight      = 0
)

// hpImport is a HyperPod import under way.
type hpImport struct {
	w     importWarnings
	fleet *awsFleet
	file  scenfile.File
}

// FromHyperPod reads a HyperPod cluster's task governance into a policy
// file: the priority classes and fair share of its scheduler
// configuration, a team per compute quota (allocation, lending and
// borrowing, borrow limit, preemption, fair-share weight) and, as
// HyperPod's API does not say the cluster's instances, a fleet sized
// from the quotas (a warning). There is no history: the cluster's jobs
// are Kueue Workloads (allot import kueue).
func FromHyperPod(in HyperPodFiles) (*Imported, error) {
	h := &hpImport{fleet: newAWSFleet()}
	sc, err := readHPSchedulerConfig(in.SchedulerConfig, &h.w)
	if err != nil {
		return nil, err
	}
	h.file.Name = sc.name
	if h.file.Name == "" {
		h.file.Name = "hyperpod"
	}
	h.scheduler(sc)
	quotas, err := h.readQuotas(in.ComputeQuotas, sc.cluster)
	if err != nil {
		return nil, err
	}
	for _, q := range quotas {
		if err := h.team(q); err != nil {
			return nil, err
		}
	}
	if len(h.file.Teams) == 0 {
		return nil, fmt.Errorf("%s: no compute quota in effect: a policy needs at least one team", strings.Join(in.ComputeQuotas, ", "))
	}
	h.sizeFleet()
	if h.file.Fleet == nil {
		return nil, fmt.Errorf("%s: no quota of a GPU type the catalog knows: the fleet cannot be sized", strings.Join(in.ComputeQuotas, ", "))
	}
	src := []string{filepath.Base(in.SchedulerConfig)}
	for _, p := range in.ComputeQuotas {
		src = append(src, filepath.Base(p))
	}
	return &Imported{File: &h.file, Warnings: h.w.lines, Source: "SageMaker HyperPod task governance (" + sourceList(src) + ")"}, nil
}

// scheduler is the policy (kind quota, fair share of idle compute) and
// the priority classes, whose weights are their values.
func (h *hpImport) scheduler(sc *hpSchedulerConfig) {
	c, obj := sc.config, "SchedulerConfig"
	h.file.Policy.Kind = "quota"
	fair := true // the documented default
	if c.FairShare != "" {
		var ok bool
		if fair, ok = hpFairShare.toAllot(c.FairShare); !ok {
			h.w.add(obj, "FairShare", "%q: want %s; Enabled assumed", c.FairShare, hpFairShare.engines())
			fair = true
		}
	}
	h.file.Policy.IdleAllocation = "first-come"
	if fair {
		h.file.Policy.IdleAllocation = "fair-share"
	}
	if c.IdleResourceSharing == types.IdleResourceSharingDisabled {
		h.w.add(obj, "IdleResourceSharing", "Disabled: allot lends capacity no quota covers to every team; the fleet written here is the quotas' sum, which leaves none")
	}
	for i, p := range c.PriorityClasses {
		if p.Name == nil {
			h.w.add(obj, fmt.Sprintf("PriorityClasses[%d]", i), "no Name: left out")
			continue
		}
		h.file.PriorityClasses = append(h.file.PriorityClasses, scenfile.PriorityClass{Name: *p.Name, Value: int(aws.ToInt32(p.Weight))})
	}
	switch sc.status {
	case "", types.SchedulerResourceStatusCreated, types.SchedulerResourceStatusUpdated:
	default:
		h.w.add(obj, "Status", "%s: imported as it is written", sc.status)
	}
	h.w.add("policy", "", "queueing, fallback and the preemption model (grace period, checkpoint, restore: what the jobs do) have no HyperPod setting: allot's defaults")
	h.w.add("policy", "admission", "HyperPod ranks a team's tasks by priority unless first-come first-serve is chosen on the console, which the API does not say: task-ranking")
}

// readQuotas reads the compute quotas, keeping those in effect, one per
// team, in the order given.
func (h *hpImport) readQuotas(paths []string, cluster string) ([]hpQuota, error) {
	var out []hpQuota
	seen, teams := map[string]bool{}, map[string]bool{}
	for _, p := range paths {
		qs, err := readHPQuotas(p, &h.w)
		if err != nil {
			return nil, err
		}
		for _, q := range qs {
			key, team := q.id, aws.ToString(q.target.TeamName)
			if key == "" {
				key = q.name
			}
			obj := "ComputeQuotas[" + q.name + "]"
			switch {
			case key != "" && seen[key]:
				h.w.add(obj, "", "in more than one file or page: kept once")
				continue
			case q.activation == types.ActivationStateDisabled:
				h.w.add(obj, "ActivationState", "Disabled: left out")
				continue
			case q.status == types.SchedulerResourceStatusDeleted || q.status == types.SchedulerResourceStatusDeleting ||
				q.status == types.SchedulerResourceStatusCreateFailed:
				h.w.add(obj, "Status", "%s: left out", q.status)
				continue
			case teams[team]:
				h.w.add(obj, "ComputeQuotaTarget.TeamName", "%s has a compute quota already: this one left out", team)
				continue
			}
			if cluster != "" && q.cluster != "" && q.cluster != cluster {
				h.w.add(obj, "ClusterArn", "%s is not the scheduler configuration's cluster %s: imported with it", q.cluster, cluster)
			}
			seen[key], teams[team] = true, true
			out = append(out, q)
		}
	}
	return out, nil
}

// sizeFleet is as many nodes of each type as the quotas allocate.
func (h *hpImport) sizeFleet() {
	groups := h.fleet.fromQuotas(h.file.Teams, true)
	h.file.Fleet = h.fleet.fleet()
	h.w.add("fleet", "nodes", "HyperPod's task governance does not say the cluster's instances: sized to the quotas' sum (%s); edit fleet.nodes to the cluster's instance groups", groups)
}
