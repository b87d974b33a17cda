package export

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
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
	s, err := scenarios.ParseLive(path, commentOut(data, "workload"), nil)
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

func TestBatchInputsRoundTripThroughTheSDKTypesWithinTheDocumentedLimits(t *testing.T) {
	for _, kind := range []string{"fairshare", "quota"} {
		s := withSettings(t, "../amazon-search.yaml", scenarios.Setting{Path: "policy.kind", Value: kind},
			scenarios.Setting{Path: "teams[*-prod].weight", Value: "20000"})
		b, err := ToBatch(s, batchTarget)
		require.NoError(t, err)
		for _, v := range []any{b.SchedulingPolicy, b.JobQueue} {
			data, err := CLIJSON(v)
			require.NoError(t, err)
			var back any = &batch.CreateSchedulingPolicyInput{}
			if _, ok := v.(*batch.CreateJobQueueInput); ok {
				back = &batch.CreateJobQueueInput{}
			}
			require.NoError(t, json.Unmarshal(data, back))
			again, err := CLIJSON(back)
			require.NoError(t, err)
			require.JSONEq(t, string(data), string(again))
		}
		if fp := b.SchedulingPolicy.FairsharePolicy; fp != nil {
			for _, sa := range fp.ShareDistribution {
				w := aws.ToFloat32(sa.WeightFactor)
				require.True(t, w >= batchMinWeight && w <= batchMaxWeight, "weightFactor %g", w)
			}
			require.Contains(t, b.Warnings, "teams[ranking-prod].weight 20000: Batch's weightFactor (its inverse) runs 0.0001..999.9999; exported as 0.0001")
		}
		for _, q := range b.QuotaShares {
			data, err := CLIJSON(q)
			require.NoError(t, err)
			var back batch.CreateQuotaShareInput
			require.NoError(t, json.Unmarshal(data, &back))
			again, err := CLIJSON(&back)
			require.NoError(t, err)
			require.JSONEq(t, string(data), string(again))
		}
	}
}
