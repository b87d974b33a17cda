package export

import (
	"fmt"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/stretchr/testify/require"
)

// The files are the request bodies the SDK's serializer writes: Batch's
// members in lowerCamelCase, SageMaker's in PascalCase, enums in their
// wire values, unset members left out, keys sorted.
func TestAWSFilesAreTheRequestBodyInTheAPIsMemberNames(t *testing.T) {
	s := load(t, "../hyperpod-teams.yaml")
	b, err := ToBatch(s, batchTarget)
	require.NoError(t, err)
	data, err := CLIJSON(b.JobQueue)
	require.NoError(t, err)
	require.Equal(t, `{
  "jobQueueName": "hyperpod-teams",
  "jobQueueType": "SAGEMAKER_TRAINING",
  "priority": 1,
  "schedulingPolicyArn": "arn:aws:batch:us-east-1:123456789012:scheduling-policy/hyperpod-teams",
  "serviceEnvironmentOrder": [
    {
      "order": 1,
      "serviceEnvironment": "training"
    }
  ],
  "state": "ENABLED"
}`, string(data))
	data, err = CLIJSON(b.QuotaShares[0])
	require.NoError(t, err)
	require.Equal(t, `{
  "capacityLimits": [
    {
      "capacityUnit": "ml.g5.8xlarge",
      "maxCapacity": 2
    }
  ],
  "jobQueue": "hyperpod-teams",
  "preemptionConfiguration": {
    "inSharePreemption": "ENABLED"
  },
  "quotaShareName": "team-a",
  "resourceSharingConfiguration": {
    "borrowLimit": 50,
    "strategy": "LEND_AND_BORROW"
  },
  "state": "ENABLED"
}`, string(data))

	h, err := ToHyperPod(s, arn)
	require.NoError(t, err)
	data, err = CLIJSON(h.ComputeQuotas[0])
	require.NoError(t, err)
	require.Equal(t, `{
  "ActivationState": "Enabled",
  "ClusterArn": "arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh",
  "ComputeQuotaConfig": {
    "ComputeQuotaResources": [
      {
        "Count": 2,
        "InstanceType": "ml.g5.8xlarge"
      }
    ],
    "PreemptTeamTasks": "LowerPriority",
    "ResourceSharingConfig": {
      "BorrowLimit": 50,
      "Strategy": "LendAndBorrow"
    }
  },
  "ComputeQuotaTarget": {
    "FairShareWeight": 0,
    "TeamName": "team-a"
  },
  "Description": "allot team team-a",
  "Name": "hyperpod-teams-team-a"
}`, string(data))
}

// Go ranges over a map in a random order; the serializer writes a map
// (tags) in that order. The file is the same bytes every time.
func TestTheSameInputGivesTheSameBytes(t *testing.T) {
	tags := map[string]string{}
	for i := range 20 {
		tags[fmt.Sprintf("k%02d", i)] = "v"
	}
	in := &batch.CreateJobQueueInput{JobQueueName: aws.String("q"), Priority: aws.Int32(1), Tags: tags}
	first, err := CLIJSON(in)
	require.NoError(t, err)
	require.Contains(t, string(first), "\"tags\": {\n    \"k00\": \"v\",\n    \"k01\": \"v\",")
	for range 20 {
		again, err := CLIJSON(in)
		require.NoError(t, err)
		require.Equal(t, string(first), string(again))
	}
}

// The SDK's own validation of the model's required members runs first.
func TestAnInputTheSDKRefusesIsAnError(t *testing.T) {
	_, err := CLIJSON(&batch.CreateJobQueueInput{JobQueueName: aws.String("q")})
	require.ErrorContains(t, err, "missing required field, CreateJobQueueInput.Priority")
	_, err = CLIJSON(&sagemaker.CreateComputeQuotaInput{Name: aws.String("q")})
	require.ErrorContains(t, err, "missing required field, CreateComputeQuotaInput.ClusterArn")
	_, err = CLIJSON(&batch.DeleteJobQueueInput{})
	require.EqualError(t, err, "no AWS operation takes a *batch.DeleteJobQueueInput")
}
