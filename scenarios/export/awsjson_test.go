package export

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/allot-sim/allot/scenarios"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/stretchr/testify/require"
)

// The importers read by member name what the SDK's own serializer writes
// by member name: every input the exporters write for amazon-search (as
// fair share, as quota shares, and for HyperPod) reads back into the same
// SDK value, with no member left over.
func TestAWSDocumentsReadBackWhatTheSDKsSerializerWrites(t *testing.T) {
	var inputs []any
	for _, kind := range []scenarios.Setting{{Path: "policy.kind", Value: "fairshare"}, {Path: "policy.quota_shares", Value: "true"}} {
		s := withSettings(t, "../amazon-search.yaml", scenarios.Setting{Path: "policy.kind", Value: "fairshare"}, kind,
			scenarios.Setting{Path: "policy.share_decay", Value: "1h"}, scenarios.Setting{Path: "policy.compute_reservation", Value: "25%"})
		b, err := ToBatch(s, batchTarget)
		require.NoError(t, err)
		inputs = append(inputs, b.SchedulingPolicy, b.JobQueue)
		for _, q := range b.QuotaShares {
			inputs = append(inputs, q)
		}
	}
	h, err := ToHyperPod(load(t, "../amazon-search.yaml"), arn)
	require.NoError(t, err)
	inputs = append(inputs, h.SchedulerConfig)
	for _, q := range h.ComputeQuotas {
		inputs = append(inputs, q)
	}
	require.Len(t, inputs, 2+2+9+1+9)
	for _, in := range inputs {
		data, err := CLIJSON(in)
		require.NoError(t, err)
		d, err := readAWSDoc("in.json", data)
		require.NoError(t, err)
		back := reflect.New(reflect.TypeOf(in).Elem())
		require.NoError(t, d.decode(back.Interface()))
		require.Equal(t, in, back.Interface(), "%T", in)
		require.Empty(t, d.unknownMembers(), "%T", in)
	}
}

// The examples use the API's member names only: nothing is read past.
func TestAWSExamplesHoldOnlyTheAPIsMembers(t *testing.T) {
	imp := importBatchExample(t)
	hp := importHyperPodExample(t)
	for _, w := range append(imp.Warnings, hp.Warnings...) {
		require.NotContains(t, w, "not a member", w)
	}
	paths, err := filepath.Glob("../../docs/examples/*/*.json")
	require.NoError(t, err)
	require.Len(t, paths, 9)
}

// A member the SDK does not know (a newer API's, or a typo) is read past
// and warned of once, with list indices as [*].
func TestAWSMembersTheSDKLacksAreReadPastWithAWarning(t *testing.T) {
	p := writeJSON(t, "jobs.json", `{"jobs": [
	  {"jobId": "a", "status": "SUCCEEDED", "createdAt": 1000, "startedAt": 2000, "stoppedAt": 5000, "shareIdentifer": "x",
	   "container": {"resourceRequirements": [{"type": "GPU", "value": "1"}]}},
	  {"jobId": "b", "status": "SUCCEEDED", "createdAt": 1000, "startedAt": 2000, "stoppedAt": 5000, "shareIdentifer": "y",
	   "container": {"resourceRequirements": [{"type": "GPU", "value": "1"}]}}]}`)
	imp, err := FromBatch(BatchFiles{Jobs: []string{p}})
	require.NoError(t, err)
	require.Contains(t, imp.Warnings, "jobs.json: jobs[*].shareIdentifer: not a member the AWS SDK for Go v2 (batch) knows; read past")
	var n int
	for _, w := range imp.Warnings {
		if strings.Contains(w, "shareIdentifer") {
			n++
		}
	}
	require.Equal(t, 1, n)
}

// Responses decode whole: the outputs' types take the documents.
func TestAWSResponsesDecodeIntoTheSDKsOutputTypes(t *testing.T) {
	d, err := readAWSFile("../../docs/examples/hyperpod/scheduler-config.json")
	require.NoError(t, err)
	var sc sagemaker.DescribeClusterSchedulerConfigOutput
	require.NoError(t, d.decode(&sc))
	require.Equal(t, "2026-01-05T09:12:44.812Z", sc.CreationTime.Format("2006-01-02T15:04:05.999Z07:00"), "the CLI's ISO 8601 time")
	require.Equal(t, "AROAEXAMPLE:admin", *sc.CreatedBy.IamIdentity.PrincipalId)
	d, err = readAWSFile("../../docs/examples/aws-batch/describe-jobs.json")
	require.NoError(t, err)
	var jobs batch.DescribeJobsOutput
	require.NoError(t, d.decode(&jobs))
	require.Len(t, jobs.Jobs, 12)
	require.Equal(t, int32(3), *jobs.Jobs[1].RetryStrategy.Attempts)
}
