package export

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
	"github.com/stretchr/testify/require"
)

var batchTarget = BatchTarget{Region: "us-east-1", Account: "123456789012", ComputeEnvironment: "gpus", ServiceEnvironment: "training"}

// withSettings is a shipped scenario with settings written in.
func withSettings(t *testing.T, path string, set ...scenarios.Setting) *scenarios.Scenario {
	t.Helper()
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	data, err = scenarios.EditYAML(data, set)
	require.NoError(t, err)
	s, err := scenarios.ParsePolicy(path, data, nil)
	require.NoError(t, err)
	return s
}

func TestFairShareBecomesShareIdentifiersWithInverseWeights(t *testing.T) {
	s := withSettings(t, "../amazon-search.yaml", scenarios.Setting{Path: "policy.kind", Value: "fairshare"},
		scenarios.Setting{Path: "policy.share_decay", Value: "1h"}, scenarios.Setting{Path: "policy.compute_reservation", Value: "25%"})
	b, err := ToBatch(s, batchTarget)
	require.NoError(t, err)
	fp := b.SchedulingPolicy.FairsharePolicy
	require.NotNil(t, fp)
	require.Nil(t, b.SchedulingPolicy.QuotaSharePolicy)
	require.Equal(t, int32(3600), aws.ToInt32(fp.ShareDecaySeconds))
	require.Equal(t, int32(25), aws.ToInt32(fp.ComputeReservation))
	require.Len(t, fp.ShareDistribution, 9)
	require.Equal(t, "ranking-prod", aws.ToString(fp.ShareDistribution[0].ShareIdentifier))
	require.Equal(t, float32(0.5), aws.ToFloat32(fp.ShareDistribution[0].WeightFactor), "weight 2: half the usage counted")
	require.Equal(t, float32(1), aws.ToFloat32(fp.ShareDistribution[3].WeightFactor))
	require.Equal(t, "arn:aws:batch:us-east-1:123456789012:scheduling-policy/amazon-search", aws.ToString(b.JobQueue.SchedulingPolicyArn))
	require.Equal(t, "gpus", aws.ToString(b.JobQueue.ComputeEnvironmentOrder[0].ComputeEnvironment))
	require.Empty(t, b.QuotaShares)
}

func TestQuotaSharesCarryEachTeamsInstancesAndSharing(t *testing.T) {
	s := withSettings(t, "../amazon-search.yaml", scenarios.Setting{Path: "policy.kind", Value: "fairshare"},
		scenarios.Setting{Path: "policy.quota_shares", Value: "true"}, scenarios.Setting{Path: "teams[ads-sweeps].borrow_limit", Value: "200%"},
		scenarios.Setting{Path: "teams[ads-sweeps].preempt_within_team", Value: "never"})
	b, err := ToBatch(s, batchTarget)
	require.NoError(t, err)
	require.Equal(t, types.QuotaShareIdleResourceAssignmentStrategyFifo, b.SchedulingPolicy.QuotaSharePolicy.IdleResourceAssignmentStrategy)
	require.Equal(t, types.JobQueueTypeSagemakerTraining, b.JobQueue.JobQueueType)
	require.Len(t, b.QuotaShares, 9)
	q := b.QuotaShares[0]
	require.Equal(t, []types.QuotaShareCapacityLimit{{CapacityUnit: aws.String("ml.p5.48xlarge"), MaxCapacity: aws.Int32(8)},
		{CapacityUnit: aws.String("ml.p4d.24xlarge"), MaxCapacity: aws.Int32(10)}}, q.CapacityLimits)
	require.Equal(t, types.QuotaShareResourceSharingStrategyLendAndBorrow, q.ResourceSharingConfiguration.Strategy)
	require.Equal(t, int32(-1), aws.ToInt32(q.ResourceSharingConfiguration.BorrowLimit), "unlimited")
	require.Equal(t, types.QuotaShareInSharePreemptionStateEnabled, q.PreemptionConfiguration.InSharePreemption)
	last := b.QuotaShares[8]
	require.Equal(t, "ads-sweeps", aws.ToString(last.QuotaShareName))
	require.Equal(t, int32(200), aws.ToInt32(last.ResourceSharingConfiguration.BorrowLimit))
	require.Equal(t, types.QuotaShareInSharePreemptionStateDisabled, last.PreemptionConfiguration.InSharePreemption)
}

func TestBatchInputsStayWithinTheDocumentedLimits(t *testing.T) {
	for _, kind := range []string{"fairshare", "quota"} {
		s := withSettings(t, "../amazon-search.yaml", scenarios.Setting{Path: "policy.kind", Value: kind},
			scenarios.Setting{Path: "teams[*-prod].weight", Value: "20000"})
		b, err := ToBatch(s, batchTarget)
		require.NoError(t, err)
		if fp := b.SchedulingPolicy.FairsharePolicy; fp != nil {
			for _, sa := range fp.ShareDistribution {
				w := aws.ToFloat32(sa.WeightFactor)
				require.True(t, w >= batchMinWeight && w <= batchMaxWeight, "weightFactor %g", w)
			}
			require.Contains(t, b.Warnings, "teams[ranking-prod, retrieval-prod, ads-prod].weight 20000: Batch's weightFactor (its inverse) runs 0.0001..999.9999; exported as 0.0001")
		}
		require.LessOrEqual(t, len(b.QuotaShares), batchMaxQuotaShares)
		for _, q := range b.QuotaShares {
			require.NotEmpty(t, q.CapacityLimits)
			require.LessOrEqual(t, len(q.CapacityLimits), batchMaxCapacityLimits)
			require.GreaterOrEqual(t, aws.ToInt32(q.ResourceSharingConfiguration.BorrowLimit), int32(-1))
		}
	}
}

// A quota share needs 1..5 capacity limits: a team without quota gets
// none (a warning), one of six instance types is refused.
func TestAQuotaShareHasOneToFiveCapacityLimits(t *testing.T) {
	data, err := os.ReadFile("../hyperpod-teams.yaml")
	require.NoError(t, err)
	i := strings.LastIndex(string(data), "    quota: {ml.g5.8xlarge: 2}\n")
	path := filepath.Join(t.TempDir(), "no-quota.yaml")
	require.NoError(t, os.WriteFile(path, append(data[:i:i], data[i+len("    quota: {ml.g5.8xlarge: 2}\n"):]...), 0o644))
	b, err := ToBatch(load(t, path), batchTarget)
	require.NoError(t, err)
	require.Equal(t, []string{"team-a"}, b.Teams)
	require.Equal(t, []types.QuotaShareCapacityLimit{{CapacityUnit: aws.String("ml.g5.8xlarge"), MaxCapacity: aws.Int32(2)}},
		b.QuotaShares[0].CapacityLimits, "ml. once, though the catalog's name has it")
	require.Contains(t, b.Warnings, "teams[team-b]: no quota: a Batch quota share needs at least one capacity limit; none is written for the team")

	_, err = ToBatch(load(t, "../bench/stress/s7-small-jobs-six-types.yaml"), batchTarget)
	require.EqualError(t, err, "teams[team-001].quota: 6 instance types; a Batch quota share takes at most 5")

	b, err = ToBatch(load(t, "../bench/stress/s2-200-teams.yaml"), batchTarget)
	require.NoError(t, err)
	require.Contains(t, b.Warnings, "200 quota shares: Batch takes at most 20 per job queue; split the teams over several queues")
}
