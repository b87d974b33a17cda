package main

import (
	"github.com/allot-sim/allot/cmd/internal/exportfiles"
	"github.com/spf13/cobra"
)

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export kueue|hyperpod|aws-batch POLICY [-o DIR]",
		Short: "Write a policy for Kueue, SageMaker HyperPod or AWS Batch",
		Long: `Write POLICY (a scenario or a policy file with a fleet section) as the
objects of another engine, and say what it cannot express.

export kueue writes the Kueue v0.17 objects (kueue.x-k8s.io/v1beta2, built
from Kueue's own API types): a Namespace per team, a ResourceFlavor per
instance type (selecting node.kubernetes.io/instance-type), the
WorkloadPriorityClasses, the Cohorts (nested; a root's own quota holds the
capacity no team's quota covers), a ClusterQueue per team (nominal quota,
borrowing and lending limits per flavor and resource, queueing strategy,
preemption, fair-sharing weight, flavor fungibility) and a LocalQueue in
each team's namespace. Each ClusterQueue covers cpu and memory too, in the
accelerators' share of each instance type's vCPUs and memory, since real
Jobs request them; --accelerators-only has Kueue ignore them instead.
Without -o it prints the objects as YAML; with -o DIR it writes
DIR/objects.yaml (ready for kubectl apply -f), DIR/kueue-config.yaml (a
commented fragment: only the Configuration fields the policy sets, to
merge into the manager's) and DIR/warnings.txt (every setting dropped).
The warnings go to standard error too.

export hyperpod --cluster-arn ARN writes the inputs of SageMaker's
CreateClusterSchedulerConfig (priority classes, fair share, idle resource
sharing) and one CreateComputeQuota per team (instances or accelerators
per ml. instance type, resource sharing strategy and borrow limit,
preemption of the team's own tasks, fair-share weight): with -o DIR,
scheduler-config.json and compute-quota-TEAM.json. An instance type
HyperPod does not offer is an error.

export aws-batch writes the CreateSchedulingPolicy input (policy.kind fairshare: share identifiers
with weightFactor = 1/weight, share decay, compute reservation; with
quota_shares, or kind quota: a quota-share policy), the CreateJobQueue
input that uses it, and under quota shares one CreateQuotaShare per team
(whole instances per ml. type, strategy and borrow limit, in-share
preemption): with -o DIR, scheduling-policy.json, job-queue.json,
quota-share-TEAM.json.

The AWS inputs are typed with the AWS SDK for Go v2 and written by the
SDK's own serializer, so each file is the request body the service gets,
in the API's member names (lowerCamelCase for Batch, PascalCase for
SageMaker): what aws ... --cli-input-json file://FILE takes. The tests run
the AWS CLI on every file of every shipped scenario. Without -o the
inputs are printed as one JSON object; with -o DIR, DIR/warnings.txt
holds the warnings, one line per kind with the teams it concerns.`,
		Example: `  allot export kueue scenarios/amazon-search.yaml -o kueue/
  allot export kueue scenarios/hyperpod-teams.yaml | head -40
  allot export kueue scenarios/replay/philly.yaml --accelerators-only -o kueue/
  allot export hyperpod scenarios/amazon-search.yaml --cluster-arn arn:aws:sagemaker:us-east-1:123456789012:cluster/abcd1234efgh -o hp/
  allot export aws-batch scenarios/amazon-search.yaml --region us-east-1 --account-id 123456789012 --service-environment training -o batch/`,
		Args: cobra.ExactArgs(2),
	}
	var o exportfiles.Options
	cmd.Flags().StringVarP(&o.OutDir, "output", "o", "", "directory for the files (kueue: objects.yaml, kueue-config.yaml; hyperpod: scheduler-config.json, compute-quota-TEAM.json; aws-batch: scheduling-policy.json, job-queue.json, quota-share-TEAM.json; each with warnings.txt)")
	cmd.Flags().BoolVar(&o.Kueue.AcceleratorsOnly, "accelerators-only", false, "kueue: leave cpu and memory out of the ClusterQueues and have Kueue ignore them (kueue-config.yaml's resources.excludeResourcePrefixes)")
	cmd.Flags().StringVar(&o.ClusterARN, "cluster-arn", "", "hyperpod: the ARN of the HyperPod cluster")
	cmd.Flags().StringVar(&o.Batch.Region, "region", "", "aws-batch: the region, for the scheduling policy's ARN")
	cmd.Flags().StringVar(&o.Batch.Account, "account-id", "", "aws-batch: the account, for the scheduling policy's ARN")
	cmd.Flags().StringVar(&o.Batch.ComputeEnvironment, "compute-environment", "", "aws-batch: the compute environment the job queue sends jobs to")
	cmd.Flags().StringVar(&o.Batch.ServiceEnvironment, "service-environment", "", "aws-batch with quota shares: the SageMaker training service environment")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		o.Engine, o.Path = args[0], args[1]
		return libraryErr(exportfiles.Export(cmd.OutOrStdout(), cmd.ErrOrStderr(), o))
	}
	return cmd
}
