package export

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/batch"
	"github.com/aws/aws-sdk-go-v2/service/batch/types"
)

// The Batch configuration files an import reads: each either the output
// of the describe (or list) operation, as the AWS CLI prints it, or the
// input of the create operation, as allot export aws-batch writes it.

// readAWSFile reads and parses one file, warning of the members it reads
// past once the caller has decoded it.
func readAWSFile(path string) (*awsDoc, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readAWSDoc(path, data)
}

func (d *awsDoc) warnUnknown(w *importWarnings, service string) {
	for _, u := range d.unknownMembers() {
		w.add(filepath.Base(d.file), u, "not a member the AWS SDK for Go v2 (%s) knows; read past", service)
	}
}

// readSchedulingPolicies reads describe-scheduling-policies output or a
// CreateSchedulingPolicy input.
func readSchedulingPolicies(path string, w *importWarnings) ([]types.SchedulingPolicyDetail, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	var out []types.SchedulingPolicyDetail
	switch {
	case d.has("schedulingPolicies"):
		var resp batch.DescribeSchedulingPoliciesOutput
		err = d.decode(&resp)
		out = resp.SchedulingPolicies
	case d.has("name", "fairsharePolicy", "quotaSharePolicy"):
		var in batch.CreateSchedulingPolicyInput
		err = d.decode(&in)
		out = []types.SchedulingPolicyDetail{{Name: in.Name, FairsharePolicy: in.FairsharePolicy, QuotaSharePolicy: in.QuotaSharePolicy}}
	default:
		err = notA(d, "describe-scheduling-policies output ({\"schedulingPolicies\": [...]}) or a create-scheduling-policy input")
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: schedulingPolicies: empty", path)
	}
	d.warnUnknown(w, "batch")
	return out, nil
}

// readJobQueues reads describe-job-queues output or a CreateJobQueue
// input.
func readJobQueues(path string, w *importWarnings) ([]types.JobQueueDetail, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	var out []types.JobQueueDetail
	switch {
	case d.has("jobQueues"):
		var resp batch.DescribeJobQueuesOutput
		err = d.decode(&resp)
		out = resp.JobQueues
	case d.has("jobQueueName"):
		var in batch.CreateJobQueueInput
		err = d.decode(&in)
		out = []types.JobQueueDetail{{JobQueueName: in.JobQueueName, Priority: in.Priority, State: in.State, SchedulingPolicyArn: in.SchedulingPolicyArn,
			ComputeEnvironmentOrder: in.ComputeEnvironmentOrder, ServiceEnvironmentOrder: in.ServiceEnvironmentOrder, JobQueueType: in.JobQueueType,
			JobStateTimeLimitActions: in.JobStateTimeLimitActions}}
	default:
		err = notA(d, "describe-job-queues output ({\"jobQueues\": [...]}) or a create-job-queue input")
	}
	if err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: jobQueues: empty", path)
	}
	d.warnUnknown(w, "batch")
	return out, nil
}

// batchQuotaShare is a quota share, from any of the files that give one.
type batchQuotaShare struct {
	types.QuotaShareDetail
	where string
}

// readQuotaShares reads list-quota-shares pages, describe-quota-share
// output or CreateQuotaShare inputs.
func readQuotaShares(path string, w *importWarnings) ([]batchQuotaShare, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	var out []batchQuotaShare
	switch {
	case d.has("quotaShares"):
		var resp batch.ListQuotaSharesOutput
		err = d.decode(&resp)
		for i, q := range resp.QuotaShares {
			out = append(out, batchQuotaShare{q, fmt.Sprintf("%s: quotaShares[%d]", path, i)})
		}
	case d.has("jobQueue"):
		var in batch.CreateQuotaShareInput
		err = d.decode(&in)
		out = []batchQuotaShare{{types.QuotaShareDetail{QuotaShareName: in.QuotaShareName, JobQueueArn: in.JobQueue, CapacityLimits: in.CapacityLimits,
			ResourceSharingConfiguration: in.ResourceSharingConfiguration, PreemptionConfiguration: in.PreemptionConfiguration, State: in.State}, path}}
	case d.has("quotaShareName", "quotaShareArn"):
		var resp batch.DescribeQuotaShareOutput
		err = d.decode(&resp)
		out = []batchQuotaShare{{types.QuotaShareDetail{QuotaShareName: resp.QuotaShareName, QuotaShareArn: resp.QuotaShareArn, JobQueueArn: resp.JobQueueArn,
			CapacityLimits: resp.CapacityLimits, ResourceSharingConfiguration: resp.ResourceSharingConfiguration,
			PreemptionConfiguration: resp.PreemptionConfiguration, State: resp.State, Status: resp.Status}, path}}
	default:
		err = notA(d, "list-quota-shares output ({\"quotaShares\": [...]}), describe-quota-share output or a create-quota-share input")
	}
	if err != nil {
		return nil, err
	}
	for _, q := range out {
		if aws.ToString(q.QuotaShareName) == "" {
			return nil, fmt.Errorf("%s: quotaShareName: required", q.where)
		}
	}
	d.warnUnknown(w, "batch")
	return out, nil
}

// readComputeEnvironments reads describe-compute-environments output.
func readComputeEnvironments(path string, w *importWarnings) ([]types.ComputeEnvironmentDetail, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	if !d.has("computeEnvironments") {
		return nil, notA(d, "describe-compute-environments output ({\"computeEnvironments\": [...]})")
	}
	var resp batch.DescribeComputeEnvironmentsOutput
	if err := d.decode(&resp); err != nil {
		return nil, err
	}
	d.warnUnknown(w, "batch")
	return resp.ComputeEnvironments, nil
}

func notA(d *awsDoc, what string) error {
	return fmt.Errorf("%s: not %s; it has %s", d.file, what, strings.Join(sortedKeys(d.root), ", "))
}
