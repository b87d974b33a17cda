package main

import (
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newImportBatchCmd() *cobra.Command {
	var in export.BatchFiles
	var out importOut
	cmd := &cobra.Command{
		Use:   "aws-batch [--jobs FILE...] [--scheduling-policy FILE] [--job-queue FILE] [--quota-shares FILE...] [--compute-environments FILE...] -o SCENARIO",
		Short: "Write a scenario from an AWS Batch job queue's configuration and jobs",
		Long: `Read an AWS Batch job queue as the AWS CLI prints it (JSON) and write a
scenario with the trace of its jobs, or a policy file without jobs. The
scheduling policy (describe-scheduling-policies) becomes policy kind
fairshare (share identifiers are teams, weight = 1 / weightFactor,
shareDecaySeconds, computeReservation) or, for a quota-share policy,
fairshare with quota_shares and a team per quota share (list-quota-shares:
capacity limits in whole instances, strategy, borrow limit, in-share
preemption); a queue without one is fifo. describe-job-queues names the
policy and the compute environments, whose instance types and maxvCpus
(describe-compute-environments) make the fleet. describe-jobs output and
list-jobs pages (merged by job ID) make the trace: createdAt, startedAt and
stoppedAt, shareIdentifier as team, schedulingPriority as a priority class
priority-N, the GPUs of the container, node ranges or ECS and EKS
properties, and the attempts. The create inputs allot export aws-batch
writes are read too. See docs/import.md.`,
		Example: `  allot import aws-batch --jobs docs/examples/aws-batch/describe-jobs.json \
    --jobs docs/examples/aws-batch/list-jobs-page1.json --jobs docs/examples/aws-batch/list-jobs-page2.json \
    --scheduling-policy docs/examples/aws-batch/scheduling-policy.json --job-queue docs/examples/aws-batch/job-queue.json \
    --compute-environments docs/examples/aws-batch/compute-environments.json -o mine/batch.yaml
  allot sim mine/batch.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			imp, err := export.FromBatch(in)
			if err != nil {
				return badInput(err)
			}
			return out.write(cmd, imp)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&in.Jobs, "jobs", nil, "describe-jobs output or a list-jobs page (repeat for several; without: a policy file)")
	f.StringVar(&in.SchedulingPolicy, "scheduling-policy", "", "describe-scheduling-policies output")
	f.StringVar(&in.JobQueue, "job-queue", "", "describe-job-queues output")
	f.StringArrayVar(&in.QuotaShares, "quota-shares", nil, "list-quota-shares pages or describe-quota-share outputs (repeat for several)")
	f.StringArrayVar(&in.ComputeEnvironments, "compute-environments", nil, "describe-compute-environments output (repeat for pages)")
	out.flags(cmd)
	return cmd
}
