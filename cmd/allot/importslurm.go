package main

import (
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newImportSlurmCmd() *cobra.Command {
	var in export.SlurmFiles
	var out importOut
	cmd := &cobra.Command{
		Use:   "slurm --sacct FILE [--nodes FILE] [--shares FILE] [--assoc FILE] [--qos FILE] -o SCENARIO",
		Short: "Write a scenario and trace from a Slurm cluster's accounting and configuration",
		Long: `Read what Slurm's commands print about a cluster and write a scenario
with the trace of its recorded jobs; each flag names the command whose
output it takes (sacct with --duplicates keeps every run of a requeued
job). The policy kind follows the cluster: quota where accounts' GrpTRES
limit GPUs, fairshare where shares are given, else priority. See
docs/import.md, "Slurm", for the mapping and the warnings.`,
		Example: `  allot import slurm --sacct docs/examples/slurm/sacct.txt --nodes docs/examples/slurm/nodes.txt \
    --shares docs/examples/slurm/sshare.txt --qos docs/examples/slurm/qos.txt -o slurm/scenario.yaml
  allot sim slurm/scenario.yaml`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			imp, err := export.ImportSlurm(in)
			if err != nil {
				return err
			}
			return out.write(cmd, imp)
		},
	}
	f := cmd.Flags()
	f.StringVar(&in.Sacct, "sacct", "", "sacct --parsable2 --allocations --format=JobID,JobName,User,Account,Partition,QOS,Submit,Start,End,Elapsed,State,AllocTRES,ReqTRES,Timelimit,Priority (required)")
	f.StringVar(&in.Nodes, "nodes", "", "scontrol show nodes --oneliner: the fleet (default: sized from the jobs)")
	f.StringVar(&in.Shares, "shares", "", "sshare -P -a (or sacctmgr show assoc -P): accounts, nesting, shares")
	f.StringVar(&in.Assoc, "assoc", "", "sacctmgr show assoc -P format=Cluster,Account,User,Share,GrpTRES,ParentName: GPU limits as quotas")
	f.StringVar(&in.QOS, "qos", "", "sacctmgr show qos -P: priority classes and preemption")
	_ = cmd.MarkFlagRequired("sacct")
	out.flags(cmd)
	return cmd
}
