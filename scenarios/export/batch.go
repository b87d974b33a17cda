package export

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// Batch is a policy as AWS Batch inputs, typed with the AWS SDK for Go v2:
// a scheduling policy (fair share, or quota shares), the job queue that
// uses it, and under quota shares one quota share per team.
type Batch struct {
	SchedulingPolicy *batch.CreateSchedulingPolicyInput
	JobQueue         *batch.CreateJobQueueInput
	QuotaShares      []*batch.CreateQuotaShareInput
	Teams            []string // by QuotaShares index
	Warnings         []string
	w                warnings
}

// BatchTarget says where the inputs go: the region and account that make
// the scheduling policy's ARN, and the environment the queue sends jobs to.
type BatchTarget struct {
	Region, Account string
	// ComputeEnvironment (ECS or EKS) or, for SageMaker training jobs
	// (quota shares), ServiceEnvironment.
	ComputeEnvironment, ServiceEnvironment string
}

// The documented limits (API_FairsharePolicy, API_ShareAttributes; the
// user guide's quota shares page).
const (
	batchMaxDecay          = 604800
	batchMaxReservation    = 99
	batchMinWeight         = 0.0001
	batchMaxWeight         = 999.9999
	batchMaxCapacityLimits = 5
	batchMaxQuotaShares    = 20
)

var batchName = regexp.MustCompile(`[^A-Za-z0-9_-]+`)

// ToBatch maps a scenario's policy onto AWS Batch. fairshare becomes a
// fair-share scheduling policy; fairshare with quota_shares and quota
// become quota shares (the latter approximated: Batch has no cohorts or
// fair sharing across shares); fifo becomes a queue with no policy.
func ToBatch(s *scenarios.Scenario, target BatchTarget) (*Batch, error) {
	m := s.Build().Model
	b := &Batch{}
	name := strings.Trim(batchName.ReplaceAllString(s.Name, "-"), "-")
	queue := &batch.CreateJobQueueInput{JobQueueName: aws.String(name), Priority: aws.Int32(1), State: types.JQStateEnabled}
	b.JobQueue = queue
	quotaShares := s.Policy.QuotaShares || s.Policy.Kind == "quota"
	switch s.Policy.Kind {
	case "fairshare", "quota":
		pol := &batch.CreateSchedulingPolicyInput{Name: aws.String(name)}
		if quotaShares {
			pol.QuotaSharePolicy = &types.QuotaSharePolicy{IdleResourceAssignmentStrategy: types.QuotaShareIdleResourceAssignmentStrategyFifo}
		} else {
			pol.FairsharePolicy = b.fairshare(s, m)
		}
		b.SchedulingPolicy = pol
		arn := fmt.Sprintf("arn:aws:batch:%s:%s:scheduling-policy/%s", target.Region, target.Account, name)
		if target.Region == "" || target.Account == "" {
			arn = "arn:aws:batch:REGION:ACCOUNT:scheduling-policy/" + name
			b.w.add("the job queue names its scheduling policy by ARN: give --region and --account-id, or replace REGION and ACCOUNT in it")
		}
		queue.SchedulingPolicyArn = aws.String(arn)
	case "fifo", "priority":
		if s.Policy.Kind == "priority" {
			b.w.add("policy.kind priority: a Batch queue without a scheduling policy is first in, first out; priority orders jobs only within a share")
		}
	}
	if quotaShares {
		env := target.ServiceEnvironment
		if env == "" {
			env = "SERVICE_ENVIRONMENT"
			b.w.add("quota shares need a SageMaker training queue: give --service-environment, or replace SERVICE_ENVIRONMENT")
		}
		queue.JobQueueType = types.JobQueueTypeSagemakerTraining
		queue.ServiceEnvironmentOrder = []types.ServiceEnvironmentOrder{{Order: aws.Int32(1), ServiceEnvironment: aws.String(env)}}
		if s.Policy.Kind == "quota" {
			b.w.add("policy.kind quota: exported as Batch quota shares; Batch has no cohorts, lending limits or fair sharing across shares, and idle capacity goes first come")
		}
		if err := b.quotaShares(s, m, name); err != nil {
			return nil, err
		}
	} else {
		env := target.ComputeEnvironment
		if env == "" {
			env = "COMPUTE_ENVIRONMENT"
			b.w.add("the job queue needs a compute environment: give --compute-environment, or replace COMPUTE_ENVIRONMENT")
		}
		queue.ComputeEnvironmentOrder = []types.ComputeEnvironmentOrder{{Order: aws.Int32(1), ComputeEnvironment: aws.String(env)}}
	}
	if m.MinRuntime > 0 {
		b.w.add("policy.preemption.min_runtime: Batch has no protection from preemption after a start")
	}
	b.Warnings = b.w.lines()
	return b, nil
}

// fairshare is Batch's fair-share policy: weightFactor is the inverse of
// allot's weight; the decay window stands in for allot's half-life.
func (b *Batch) fairshare(s *scenarios.Scenario, m *policies.Model) *types.FairsharePolicy {
	fp := &types.FairsharePolicy{}
	if d := s.Policy.ShareDecay; d > 0 {
		sec := int32(min(math.Round(d), batchMaxDecay))
		fp.ShareDecaySeconds = aws.Int32(sec)
		b.w.add("policy.share_decay %gs: allot decays usage by a half-life, Batch by a window; exported as a %ds window", d, sec)
	}
	if r := s.Policy.ComputeReserve; r > 0 {
		fp.ComputeReservation = aws.Int32(int32(min(math.Round(100*r), batchMaxReservation)))
	}
	for _, q := range m.Queues {
		w := batchWeightFactor(q.Weight)
		if w < batchMinWeight || w > batchMaxWeight {
			w = min(max(w, batchMinWeight), batchMaxWeight)
			b.w.team(q.Name, ".weight %g: Batch's weightFactor (its inverse) runs %g..%g; exported as %g", q.Weight, batchMinWeight, batchMaxWeight, w)
		}
		fp.ShareDistribution = append(fp.ShareDistribution, types.ShareAttributes{ShareIdentifier: aws.String(q.Name), WeightFactor: aws.Float32(float32(w))})
	}
	return fp
}

// quotaShares is one quota share per team: its nodes per instance type,
// its sharing strategy and borrow limit, and in-share preemption.
func (b *Batch) quotaShares(s *scenarios.Scenario, m *policies.Model, queue string) error {
	for qi, q := range m.Queues {
		t := s.Teams[qi]
		inShare, _ := batchInShare.toEngine(q.WithinQueue != policies.Never)
		qs := &batch.CreateQuotaShareInput{QuotaShareName: aws.String(strings.Trim(batchName.ReplaceAllString(q.Name, "-"), "-")),
			JobQueue: aws.String(queue), State: types.QuotaShareStateEnabled,
			PreemptionConfiguration: &types.QuotaSharePreemptionConfiguration{InSharePreemption: inShare}}
		lend, borrow, pct := true, true, -1.0
		for _, g := range q.Groups {
			for _, fq := range g.Flavors {
				f := m.Flavors[fq.Flavor]
				acc := fq.Quotas[f.AccelResource]
				if f.AccelResource < 0 || acc.Nominal == 0 {
					continue
				}
				lend = lend && !(acc.HasLend && acc.LendLimit == 0)
				borrow = borrow && !(acc.HasBorrow && acc.BorrowLimit == 0)
				if acc.HasBorrow && acc.BorrowLimit > 0 {
					pct = math.Max(pct, 100*float64(acc.BorrowLimit)/float64(acc.Nominal))
				}
				nodes := acc.Nominal / f.NodeAccel
				if acc.Nominal%f.NodeAccel != 0 {
					nodes++
					b.w.team(t.Name, ".quota.%s: Batch counts whole instances; %g accelerators rounded up to %d nodes", f.Name, float64(acc.Nominal)/float64(policies.Milli), nodes)
				}
				qs.CapacityLimits = append(qs.CapacityLimits, types.QuotaShareCapacityLimit{CapacityUnit: aws.String(mlType(f.Name)), MaxCapacity: aws.Int32(int32(nodes))})
			}
		}
		if len(qs.CapacityLimits) == 0 {
			b.w.team(t.Name, ": no quota: a Batch quota share needs at least one capacity limit; none is written for the team")
			continue
		}
		if len(qs.CapacityLimits) > batchMaxCapacityLimits {
			return fmt.Errorf("teams[%s].quota: %d instance types; a Batch quota share takes at most %d", t.Name, len(qs.CapacityLimits), batchMaxCapacityLimits)
		}
		sh := sharing{lend, borrow}
		if !lend && borrow {
			sh.borrow = false
			b.w.team(t.Name, ": lend false with borrow true: Batch's RESERVE does not borrow either")
		}
		strategy, _ := batchStrategies.toEngine(sh)
		rs := &types.QuotaShareResourceSharingConfiguration{Strategy: strategy}
		if sh.lend && sh.borrow {
			rs.BorrowLimit = aws.Int32(-1)
			if pct >= 0 {
				rs.BorrowLimit = aws.Int32(int32(math.Round(pct)))
			}
		}
		qs.ResourceSharingConfiguration = rs
		b.QuotaShares = append(b.QuotaShares, qs)
		b.Teams = append(b.Teams, aws.ToString(qs.QuotaShareName))
	}
	if n := len(b.QuotaShares); n > batchMaxQuotaShares {
		b.w.add("%d quota shares: Batch takes at most %d per job queue; split the teams over several queues", n, batchMaxQuotaShares)
	}
	return nil
}
