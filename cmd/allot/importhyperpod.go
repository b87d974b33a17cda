package main

import (
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newImportHyperPodCmd() *cobra.Command {
	var in export.HyperPodFiles
	var out importOut
	cmd := &cobra.Command{
		Use:   "hyperpod --scheduler-config FILE --compute-quotas FILE... -o POLICY",
		Short: "Write a policy file from SageMaker HyperPod task governance",
		Long: `Read a HyperPod cluster's task governance as the AWS CLI prints it (JSON)
and write a policy file: describe-cluster-scheduler-config gives the
priority classes (a class's weight is its value) and fair share (policy
kind quota, idle_allocation fair-share or first-come); list-compute-quotas
pages or describe-compute-quota outputs give a team per compute quota
(allocation per instance type, Lend / DontLend / LendAndBorrow, borrow
limit, PreemptTeamTasks, FairShareWeight). HyperPod's API does not say the
cluster's instances: the fleet is sized to the quotas' sum, with a warning.
The jobs come through allot import kueue on the cluster's EKS side. The
files allot export hyperpod writes are read too. See docs/import.md.`,
		Example: `  allot import hyperpod --scheduler-config docs/examples/hyperpod/scheduler-config.json \
    --compute-quotas docs/examples/hyperpod/compute-quotas.json \
    --compute-quotas docs/examples/hyperpod/compute-quotas-page2.json -o mine/hyperpod.yaml
  allot sim scenarios/hyperpod-teams.yaml --policy mine/hyperpod.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			imp, err := export.FromHyperPod(in)
			if err != nil {
				return badInput(err)
			}
			return out.write(cmd, imp)
		},
	}
	cmd.Flags().StringVar(&in.SchedulerConfig, "scheduler-config", "", "describe-cluster-scheduler-config output (required)")
	cmd.Flags().StringArrayVar(&in.ComputeQuotas, "compute-quotas", nil, "list-compute-quotas pages or describe-compute-quota outputs (repeat for several; required)")
	_ = cmd.MarkFlagRequired("scheduler-config")
	_ = cmd.MarkFlagRequired("compute-quotas")
	out.flags(cmd)
	return cmd
}
