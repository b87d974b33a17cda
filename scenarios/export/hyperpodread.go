package export

import (
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker"
	"github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// The HyperPod task governance files an import reads: each the output of
// the describe (or list) operation as the AWS CLI prints it, or the input
// of the create operation as allot export hyperpod writes it.

// hpSchedulerConfig is a cluster's scheduler configuration, from either.
type hpSchedulerConfig struct {
	name, cluster string
	status        types.SchedulerResourceStatus
	config        *types.SchedulerConfig
}

// readHPSchedulerConfig reads describe-cluster-scheduler-config output or
// a CreateClusterSchedulerConfig input.
func readHPSchedulerConfig(path string, w *importWarnings) (*hpSchedulerConfig, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	var out hpSchedulerConfig
	switch {
	case d.has("ClusterSchedulerConfigSummaries"):
		return nil, fmt.Errorf("%s: list-cluster-scheduler-configs output holds no SchedulerConfig: give describe-cluster-scheduler-config's output", path)
	case d.has("ClusterSchedulerConfigArn", "ClusterSchedulerConfigId", "Status"):
		var resp sagemaker.DescribeClusterSchedulerConfigOutput
		err = d.decode(&resp)
		out = hpSchedulerConfig{aws.ToString(resp.Name), aws.ToString(resp.ClusterArn), resp.Status, resp.SchedulerConfig}
	case d.has("SchedulerConfig"):
		var in sagemaker.CreateClusterSchedulerConfigInput
		err = d.decode(&in)
		out = hpSchedulerConfig{aws.ToString(in.Name), aws.ToString(in.ClusterArn), "", in.SchedulerConfig}
	default:
		err = notA(d, "describe-cluster-scheduler-config output or a create-cluster-scheduler-config input")
	}
	if err != nil {
		return nil, err
	}
	if out.config == nil {
		return nil, fmt.Errorf("%s: SchedulerConfig: required", path)
	}
	d.warnUnknown(w, "sagemaker")
	return &out, nil
}

// hpQuota is one compute quota, from any of the files that give one.
type hpQuota struct {
	name, id, cluster string
	target            *types.ComputeQuotaTarget
	config            *types.ComputeQuotaConfig
	activation        types.ActivationState
	status            types.SchedulerResourceStatus
	where             string
}

// readHPQuotas reads list-compute-quotas pages, describe-compute-quota
// output or CreateComputeQuota inputs.
func readHPQuotas(path string, w *importWarnings) ([]hpQuota, error) {
	d, err := readAWSFile(path)
	if err != nil {
		return nil, err
	}
	var out []hpQuota
	switch {
	case d.has("ComputeQuotaSummaries"):
		var resp sagemaker.ListComputeQuotasOutput
		err = d.decode(&resp)
		for i, s := range resp.ComputeQuotaSummaries {
			out = append(out, hpQuota{aws.ToString(s.Name), aws.ToString(s.ComputeQuotaId), aws.ToString(s.ClusterArn), s.ComputeQuotaTarget,
				s.ComputeQuotaConfig, s.ActivationState, s.Status, fmt.Sprintf("%s: ComputeQuotaSummaries[%d]", path, i)})
		}
	case d.has("ComputeQuotaArn", "ComputeQuotaId", "Status"):
		var resp sagemaker.DescribeComputeQuotaOutput
		err = d.decode(&resp)
		out = []hpQuota{{aws.ToString(resp.Name), aws.ToString(resp.ComputeQuotaId), aws.ToString(resp.ClusterArn), resp.ComputeQuotaTarget,
			resp.ComputeQuotaConfig, resp.ActivationState, resp.Status, path}}
	case d.has("ComputeQuotaConfig", "ComputeQuotaTarget"):
		var in sagemaker.CreateComputeQuotaInput
		err = d.decode(&in)
		out = []hpQuota{{aws.ToString(in.Name), "", aws.ToString(in.ClusterArn), in.ComputeQuotaTarget, in.ComputeQuotaConfig, in.ActivationState, "", path}}
	default:
		err = notA(d, "list-compute-quotas output ({\"ComputeQuotaSummaries\": [...]}), describe-compute-quota output or a create-compute-quota input")
	}
	if err != nil {
		return nil, err
	}
	for _, q := range out {
		if q.target == nil || aws.ToString(q.target.TeamName) == "" {
			return nil, fmt.Errorf("%s: ComputeQuotaTarget.TeamName: required", q.where)
		}
	}
	d.warnUnknown(w, "sagemaker")
	return out, nil
}
