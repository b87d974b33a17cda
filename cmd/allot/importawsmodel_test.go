package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// awsModelCheck validates JSON documents against an operation's output
// shape in the AWS CLI's own copy of the API model (botocore's
// validator: member names, types, required members), one JSON argument
// [service, operation, file] a line in, one report a line out.
const awsModelCheck = `
import json, sys
import botocore.session
from botocore.validate import ParamValidator
session = botocore.session.get_session()
for line in sys.stdin:
    service, op, path = json.loads(line)
    shape = session.get_service_model(service).operation_model(op).output_shape
    report = ParamValidator().validate(json.load(open(path)), shape)
    print(json.dumps(report.generate_report() if report.has_errors() else ""))
`

// The example responses the import tests read (docs/examples/aws-batch,
// docs/examples/hyperpod) are what the AWS CLI's model says the
// operations answer. The one difference is the API reference's: it marks
// a job's startedAt required, yet a job that never started has none
// (DescribeJobs leaves it out), which is what those three jobs show.
func TestAWSImportExamplesMatchTheCLIsAPIModel(t *testing.T) {
	t.Parallel()
	c := newAWSCLI(t)
	py, _ := c.python()
	if py == "" {
		t.Skip("no Python with the executable's awscli: " + awsGet)
	}
	ex := "../../docs/examples/"
	files := [][3]string{
		{"batch", "DescribeJobs", ex + "aws-batch/describe-jobs.json"},
		{"batch", "ListJobs", ex + "aws-batch/list-jobs-page1.json"},
		{"batch", "ListJobs", ex + "aws-batch/list-jobs-page2.json"},
		{"batch", "DescribeSchedulingPolicies", ex + "aws-batch/scheduling-policy.json"},
		{"batch", "DescribeJobQueues", ex + "aws-batch/job-queue.json"},
		{"batch", "DescribeComputeEnvironments", ex + "aws-batch/compute-environments.json"},
		{"sagemaker", "DescribeClusterSchedulerConfig", ex + "hyperpod/scheduler-config.json"},
		{"sagemaker", "ListComputeQuotas", ex + "hyperpod/compute-quotas.json"},
		{"sagemaker", "ListComputeQuotas", ex + "hyperpod/compute-quotas-page2.json"},
	}
	all, err := filepath.Glob(ex + "*/*.json")
	require.NoError(t, err)
	require.Len(t, all, len(files), "every example is checked")
	var in []byte
	for _, f := range files {
		line, err := json.Marshal(f)
		require.NoError(t, err)
		in = append(append(in, line...), '\n')
	}
	cmd := exec.Command(py, "-c", awsModelCheck)
	cmd.Env = c.env
	cmd.Stdin = bytes.NewReader(in)
	out, err := cmd.Output()
	require.NoError(t, err)
	dec := json.NewDecoder(bytes.NewReader(out))
	for _, f := range files {
		var report string
		require.NoError(t, dec.Decode(&report))
		want := ""
		if filepath.Base(f[2]) == "describe-jobs.json" {
			want = "Missing required parameter in jobs[6]: \"startedAt\"\n" +
				"Missing required parameter in jobs[7]: \"startedAt\"\n" +
				"Missing required parameter in jobs[8]: \"startedAt\""
		}
		require.Equal(t, want, report, "%s %s: %s", f[0], f[1], f[2])
	}
}
