package export

import (
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
	"github.com/stretchr/testify/require"
)

const arn = "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh"

// AWS's walkthrough H1: two teams with two ml.g5.8xlarge each, a 50%
// borrow limit, their own lower-priority tasks preemptible, four
// priority classes, fair share on.
func TestHyperPodWalkthroughBecomesItsOwnInputs(t *testing.T) {
	h, err := ToHyperPod(load(t, "../hyperpod-teams.yaml"), arn)
	require.NoError(t, err)
	sc := h.SchedulerConfig.SchedulerConfig
	require.Equal(t, types.FairShareEnabled, sc.FairShare)
	var classes []string
	for _, p := range sc.PriorityClasses {
		classes = append(classes, aws.ToString(p.Name)+"="+string(rune('0'+aws.ToInt32(p.Weight)/10)))
	}
	require.Equal(t, []string{"inference=9", "experimentation=8", "training=7", "fine-tuning=5"}, classes)
	require.Equal(t, []string{"team-a", "team-b"}, h.Teams)
	for _, q := range h.ComputeQuotas {
		cfg := q.ComputeQuotaConfig
		require.Equal(t, []types.ComputeQuotaResourceConfig{{InstanceType: types.ClusterInstanceTypeMlG58xlarge, Count: aws.Int32(2)}}, cfg.ComputeQuotaResources)
		require.Equal(t, types.ResourceSharingStrategyLendandborrow, cfg.ResourceSharingConfig.Strategy)
		require.Equal(t, int32(50), aws.ToInt32(cfg.ResourceSharingConfig.BorrowLimit))
		require.Equal(t, types.PreemptTeamTasksLowerpriority, cfg.PreemptTeamTasks)
		require.Equal(t, arn, aws.ToString(q.ClusterArn))
	}
}

func TestHyperPodInputsStayWithinTheDocumentedLimits(t *testing.T) {
	for _, p := range []string{"../amazon-search.yaml", "../hyperpod-teams.yaml", "../hyperpod-teams-h2.yaml"} {
		h, err := ToHyperPod(load(t, p), arn)
		require.NoError(t, err, p)
		sc := h.SchedulerConfig
		require.LessOrEqual(t, len(sc.SchedulerConfig.PriorityClasses), hpMaxPriorityClasses)
		for _, c := range sc.SchedulerConfig.PriorityClasses {
			require.Regexp(t, hpName, aws.ToString(c.Name))
			require.True(t, aws.ToInt32(c.Weight) >= 0 && aws.ToInt32(c.Weight) <= hpMaxWeight)
		}
		for _, in := range h.ComputeQuotas {
			require.Regexp(t, hpName, aws.ToString(in.ComputeQuotaTarget.TeamName))
			require.Regexp(t, hpName, aws.ToString(in.Name))
			w := aws.ToInt32(in.ComputeQuotaTarget.FairShareWeight)
			require.True(t, w >= 0 && w <= hpMaxWeight, "weight %d", w)
			require.LessOrEqual(t, len(in.ComputeQuotaConfig.ComputeQuotaResources), hpMaxResources)
			if b := in.ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit; b != nil {
				require.True(t, *b >= hpMinBorrow && *b <= hpMaxBorrow, "borrow limit %d", *b)
			}
		}
	}
}

func TestHyperPodRefusesAnInstanceTypeItDoesNotOffer(t *testing.T) {
	_, err := ToHyperPod(load(t, "../live/two-teams.yaml"), arn)
	require.EqualError(t, err, "teams[research].quota: instance type local-gpu: HyperPod offers no ml.local-gpu")
}

func TestHyperPodSaysWhatItCannotExpress(t *testing.T) {
	h, err := ToHyperPod(load(t, "../amazon-search.yaml"), arn)
	require.NoError(t, err)
	require.Equal(t, []string{"teams[ranking-prod, retrieval-prod, ads-prod, nlp-research, vision-research, ranking-research, ranking-sweeps, retrieval-sweeps, ads-sweeps]: " +
		"borrowing without limit: HyperPod's BorrowLimit is at most 500% of the team's allocation"}, h.Warnings, "one line for the nine teams")
	require.Equal(t, int32(500), aws.ToInt32(h.ComputeQuotas[0].ComputeQuotaConfig.ResourceSharingConfig.BorrowLimit))
	require.Equal(t, int32(2), aws.ToInt32(h.ComputeQuotas[0].ComputeQuotaTarget.FairShareWeight))
	require.Equal(t, []types.ComputeQuotaResourceConfig{
		{InstanceType: types.ClusterInstanceTypeMlP548xlarge, Count: aws.Int32(8)},
		{InstanceType: types.ClusterInstanceTypeMlP4d24xlarge, Count: aws.Int32(10)},
	}, h.ComputeQuotas[0].ComputeQuotaConfig.ComputeQuotaResources)
}
