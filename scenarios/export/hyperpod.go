package export

import (
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// HyperPod is a policy as SageMaker HyperPod task governance inputs: the
// cluster's scheduler configuration and one compute quota per team, typed
// with the AWS SDK for Go v2, for the AWS CLI's --cli-input-json.
type HyperPod struct {
	SchedulerConfig *sagemaker.CreateClusterSchedulerConfigInput
	ComputeQuotas   []*sagemaker.CreateComputeQuotaInput
	Teams           []string // by ComputeQuotas index
	Warnings        []string
	w               warnings
}

// The documented limits (API_SchedulerConfig, API_CreateComputeQuota).
const (
	hpMaxPriorityClasses = 10
	hpMaxWeight          = 100
	hpMinBorrow          = 1
	hpMaxBorrow          = 500
	hpMaxResources       = 15
)

// hpName is the pattern of HyperPod names (priority classes, teams,
// configurations).
var hpName = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9]){0,39}$`)

var notHPName = regexp.MustCompile(`[^a-z0-9-]+`)

// hpOffered are the instance types HyperPod offers.
var hpOffered = types.ClusterInstanceType("").Values()

// hpInstanceType is the HyperPod instance type of one of the scenario's;
// an error when HyperPod offers none.
func hpInstanceType(name string) (types.ClusterInstanceType, error) {
	t := types.ClusterInstanceType(mlType(name))
	if !slices.Contains(hpOffered, t) {
		return "", fmt.Errorf("instance type %s: HyperPod offers no %s", name, t)
	}
	return t, nil
}

// ToHyperPod maps a scenario's policy onto HyperPod task governance for the
// cluster clusterARN. An instance type HyperPod does not offer is an error.
func ToHyperPod(s *scenarios.Scenario, clusterARN string) (*HyperPod, error) {
	m := s.Build().Model
	h := &HyperPod{}
	base := hpNameOf(s.Name)
	if err := h.scheduler(s, m, base, clusterARN); err != nil {
		return nil, err
	}
	for qi := range m.Queues {
		if err := h.computeQuota(s, m, qi, base, clusterARN); err != nil {
			return nil, err
		}
	}
	h.policyWarnings(s, m)
	h.Warnings = h.w.lines()
	return h, nil
}

// scheduler is the cluster's scheduler configuration: fair share, idle
// resource sharing where cohorts hold capacity outside every team's
// allocation, and the priority classes with their weights.
func (h *HyperPod) scheduler(s *scenarios.Scenario, m *policies.Model, base, clusterARN string) error {
	fairShare, _ := hpFairShare.toEngine(m.FairSharing.Enabled)
	sc := &types.SchedulerConfig{FairShare: fairShare, IdleResourceSharing: types.IdleResourceSharingDisabled}
	for _, c := range m.Cohorts {
		if len(c.Quotas) > 0 {
			sc.IdleResourceSharing = types.IdleResourceSharingEnabled // capacity outside every allocation
		}
	}
	weights, changed := priorityWeights(s.Priority)
	if changed {
		h.w.add("priority_classes: HyperPod weights run 0..100; the values were mapped in order onto that range (%s)", weightList(s.Priority, weights))
	}
	if len(s.Priority) > hpMaxPriorityClasses {
		return fmt.Errorf("priority_classes: %d classes; HyperPod takes at most %d", len(s.Priority), hpMaxPriorityClasses)
	}
	for i, p := range s.Priority {
		if !hpName.MatchString(p.Name) {
			return fmt.Errorf("priority_classes[%s]: HyperPod names are lower-case letters, digits and '-', up to 41 characters", p.Name)
		}
		sc.PriorityClasses = append(sc.PriorityClasses, types.PriorityClass{Name: aws.String(p.Name), Weight: aws.Int32(weights[i])})
	}
	h.SchedulerConfig = &sagemaker.CreateClusterSchedulerConfigInput{Name: aws.String(base), ClusterArn: aws.String(clusterARN),
		SchedulerConfig: sc, Description: aws.String("allot policy " + s.Name)}
	return nil
}

// computeQuota is team qi's compute quota: its preemption within the
// team, its allocation by instance type, how it lends and borrows, and
// its fair-share weight, with a warning for each setting HyperPod cannot
// carry.
func (h *HyperPod) computeQuota(s *scenarios.Scenario, m *policies.Model, qi int, base, clusterARN string) error {
	q, t := m.Queues[qi], s.Teams[qi]
	team := hpNameOf(t.Name)
	if team != t.Name {
		h.w.team(t.Name, ": HyperPod team names are lower-case letters, digits and '-': %q", team)
	}
	within := q.WithinQueue
	if within == policies.LowerOrNewerEqualPriority {
		within = policies.LowerPriority
		h.w.team(t.Name, ".preempt_within_team lower-or-newer-equal: HyperPod has LowerPriority only")
	}
	preempt, ok := hpPreemptTeamTasks.toEngine(within)
	if !ok {
		preempt = types.PreemptTeamTasksNever
	}
	cfg := &types.ComputeQuotaConfig{PreemptTeamTasks: preempt, ResourceSharingConfig: &types.ResourceSharingConfig{}}
	sh, err := h.allocation(m, t.Name, q, cfg)
	if err != nil {
		return err
	}
	h.sharing(t.Name, cfg.ResourceSharingConfig, sh)
	w := int32(math.Round(q.Weight))
	if float64(w) != q.Weight || w > hpMaxWeight {
		w = min(max(w, 0), hpMaxWeight)
		h.w.team(t.Name, ".weight %g: HyperPod's FairShareWeight is a whole number 0..100; exported as %d", q.Weight, w)
	}
	h.ComputeQuotas = append(h.ComputeQuotas, &sagemaker.CreateComputeQuotaInput{
		Name: aws.String(hpNameOf(base + "-" + team)), ClusterArn: aws.String(clusterARN), ComputeQuotaConfig: cfg,
		ComputeQuotaTarget: &types.ComputeQuotaTarget{TeamName: aws.String(team), FairShareWeight: aws.Int32(w)},
		ActivationState:    types.ActivationStateEnabled, Description: aws.String("allot team " + t.Name)})
	h.Teams = append(h.Teams, team)
	if q.Reclaim != policies.Any && q.Reclaim != policies.Never {
		h.w.team(t.Name, ": reclaim %s: HyperPod always reclaims lent compute", q.Reclaim)
	}
	if q.BorrowWithin != policies.Never {
		h.w.team(t.Name, ": preempt_while_borrowing: HyperPod has no preemption by a borrowing team")
	}
	if q.Strategy == policies.StrictFIFO {
		h.w.team(t.Name, ": queueing strict-fifo: HyperPod queues best effort")
	}
	return nil
}

// hpSharing is what a team's quotas say of its lending and borrowing:
// whether it lends and borrows at all, and its largest borrowing limit
// as a percentage of its quota (-1: unlimited).
type hpSharing struct {
	lend, borrow bool
	borrowPct    float64
}

// allocation gives cfg the team's accelerator quota by instance type (in
// nodes where it is whole nodes, else in accelerators) and says how the
// quotas lend and borrow.
func (h *HyperPod) allocation(m *policies.Model, name string, q policies.QueueSpec, cfg *types.ComputeQuotaConfig) (hpSharing, error) {
	sh := hpSharing{lend: true, borrow: true, borrowPct: -1}
	for _, g := range q.Groups {
		for _, fq := range g.Flavors {
			f := m.Flavors[fq.Flavor]
			it, err := hpInstanceType(f.Name)
			if err != nil {
				return sh, fmt.Errorf("teams[%s].quota: %w", name, err)
			}
			acc := fq.Quotas[f.AccelResource]
			if f.AccelResource < 0 {
				return sh, fmt.Errorf("teams[%s].quota.%s: a CPU-only type; this export gives accelerator quotas", name, f.Name)
			}
			if acc.HasLend && acc.LendLimit == 0 {
				sh.lend = false
			} else if acc.HasLend && acc.LendLimit < acc.Nominal {
				h.w.team(name, ".lending_limit: HyperPod lends all of a team's idle quota or none; it lends all")
			}
			if acc.HasBorrow && acc.BorrowLimit == 0 {
				sh.borrow = false
			} else if acc.HasBorrow && acc.Nominal > 0 {
				sh.borrowPct = math.Max(sh.borrowPct, 100*float64(acc.BorrowLimit)/float64(acc.Nominal))
			}
			if acc.Nominal == 0 {
				continue
			}
			rc := types.ComputeQuotaResourceConfig{InstanceType: it}
			if acc.Nominal%f.NodeAccel == 0 {
				rc.Count = aws.Int32(int32(acc.Nominal / f.NodeAccel))
			} else {
				rc.Accelerators = aws.Int32(int32((acc.Nominal + policies.Milli - 1) / policies.Milli))
			}
			cfg.ComputeQuotaResources = append(cfg.ComputeQuotaResources, rc)
		}
	}
	if len(cfg.ComputeQuotaResources) > hpMaxResources {
		return sh, fmt.Errorf("teams[%s].quota: %d instance types; HyperPod takes at most %d", name, len(cfg.ComputeQuotaResources), hpMaxResources)
	}
	return sh, nil
}

// sharing sets the team's resource sharing strategy and, where it lends
// and borrows, its borrow limit within HyperPod's range.
func (h *HyperPod) sharing(name string, rs *types.ResourceSharingConfig, sh hpSharing) {
	s := sharing{sh.lend, sh.borrow}
	if !s.lend && s.borrow {
		s.borrow = false
		h.w.team(name, ": lend false with borrow true: HyperPod's DontLend does not borrow either")
	}
	rs.Strategy, _ = hpStrategies.toEngine(s)
	if rs.Strategy != types.ResourceSharingStrategyLendandborrow {
		return
	}
	pct := sh.borrowPct
	if pct < 0 {
		pct = hpMaxBorrow
		h.w.team(name, ": borrowing without limit: HyperPod's BorrowLimit is at most %d%% of the team's allocation", hpMaxBorrow)
	}
	lim := int32(math.Round(pct))
	if lim < hpMinBorrow || lim > hpMaxBorrow {
		lim = min(max(lim, hpMinBorrow), hpMaxBorrow)
		h.w.team(name, ".borrow_limit %.0f%%: HyperPod takes %d%%..%d%%; exported as %d%%", pct, hpMinBorrow, hpMaxBorrow, lim)
	}
	rs.BorrowLimit = aws.Int32(lim)
}

// policyWarnings warns of the policy-wide settings HyperPod cannot carry:
// nested or separate cohorts, min_runtime, first-come admission.
func (h *HyperPod) policyWarnings(s *scenarios.Scenario, m *policies.Model) {
	for _, c := range m.Cohorts {
		if c.Parent >= 0 {
			h.w.add("cohorts[%s]: HyperPod puts every team in one cohort; the nesting is dropped", c.Name)
			break
		}
	}
	if len(m.Cohorts) > 1 && !slices.ContainsFunc(m.Cohorts, func(c policies.CohortSpec) bool { return c.Parent >= 0 }) {
		h.w.add("cohorts: HyperPod puts every team in one cohort; teams of separate cohorts will share")
	}
	if m.MinRuntime > 0 {
		h.w.add("policy.preemption.min_runtime: HyperPod has no protection from preemption after a start")
	}
	if s.Policy.Admission == "first-come" && len(s.Priority) > 0 {
		h.w.add("policy.admission first-come: HyperPod's first-come first-serve prioritisation is set on the console; the priority classes are exported for task ranking")
	}
}

// hpNameOf makes a HyperPod name: lower case, other characters '-', at
// most 41 characters.
func hpNameOf(s string) string {
	out := strings.Trim(notHPName.ReplaceAllString(strings.ToLower(s), "-"), "-")
	if len(out) > 41 {
		out = strings.TrimRight(out[:41], "-")
	}
	if out == "" {
		out = "allot"
	}
	return out
}

// priorityWeights maps priority values onto HyperPod's 0..100 weights: as
// they are when they fit, else by rank, evenly, keeping the order.
func priorityWeights(ps []scenarios.PriorityClass) ([]int32, bool) {
	out := make([]int32, len(ps))
	fits := true
	for i, p := range ps {
		fits = fits && p.Value >= 0 && p.Value <= hpMaxWeight
		out[i] = int32(p.Value)
	}
	if fits {
		return out, false
	}
	vals := make([]int, len(ps))
	for i, p := range ps {
		vals[i] = p.Value
	}
	sort.Ints(vals)
	vals = slices.Compact(vals)
	for i, p := range ps {
		r := slices.Index(vals, p.Value)
		out[i] = 0
		if len(vals) > 1 {
			out[i] = int32(math.Round(float64(hpMaxWeight) * float64(r) / float64(len(vals)-1)))
		}
	}
	return out, true
}

func weightList(ps []scenarios.PriorityClass, w []int32) string {
	var parts []string
	for i, p := range ps {
		parts = append(parts, fmt.Sprintf("%s %d→%d", p.Name, p.Value, w[i]))
	}
	return strings.Join(parts, ", ")
}
