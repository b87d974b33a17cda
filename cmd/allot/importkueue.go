package main

import (
	"fmt"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newImportKueueCmd() *cobra.Command {
	var out importOut
	var kubeconfig, since string
	cmd := &cobra.Command{
		Use:   "kueue [FILE...] [--kubeconfig PATH] [--since DUR] -o SCENARIO [--trace FILE]",
		Short: "Import a Kueue cluster's configuration and Workloads",
		Long: `Read Kueue's objects from files (kubectl get -A -o yaml output, and the
files allot export kueue writes) or from a cluster (--kubeconfig: get and
list only), and write a scenario: ResourceFlavors and Nodes make the fleet,
ClusterQueues the teams, Cohorts the cohort tree, WorkloadPriorityClasses
the priority classes, the manager's Configuration the policy, Workloads the
trace (a running one censored, a pending one left out); without Workloads,
a policy file. See docs/import.md.`,
		Example: `  allot export kueue docs/examples/two-teams.yaml -o k/
  allot import kueue k/objects.yaml k/kueue-config.yaml -o mine/policy.yaml
  allot import kueue scenarios/export/testdata/kueue-history/*.yaml -o mine/history.yaml
  allot sim mine/history.yaml
  # from a cluster: allot import kueue --kubeconfig ~/.kube/config --since 30d -o mine/cluster.yaml`,
	}
	out.flags(cmd)
	cmd.Flags().StringVar(&kubeconfig, "kubeconfig", "", "read from this cluster instead of files (get and list only)")
	cmd.Flags().StringVar(&since, "since", "", "only Workloads created within this long before the newest (e.g. 30d)")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		if (len(args) > 0) == (kubeconfig != "") {
			return &usageError{cmd: cmd.CommandPath(), msg: "give the files to read or --kubeconfig, not both and not neither"}
		}
		var opt export.KueueImportOptions
		if since != "" {
			d, err := scenarios.ParseDuration(since)
			if err != nil || d <= 0 {
				return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--since %q: want a duration such as 30d", since)}
			}
			opt.Since = d
		}
		var objs *export.KueueObjects
		var err error
		if kubeconfig != "" {
			objs, err = export.ReadKueueKubeconfig(cmd.Context(), kubeconfig)
		} else {
			objs, err = export.ReadKueueFiles(args)
		}
		if err != nil {
			return badInput(err)
		}
		imp, err := export.ImportKueue(objs, opt)
		if err != nil {
			return badInput(err)
		}
		return out.write(cmd, imp)
	}
	return cmd
}
