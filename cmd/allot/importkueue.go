package main

import (
	"fmt"

	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

func newImportKueueCmd() *cobra.Command {
	var out importOut
	var kubeconfig, since string
	cmd := &cobra.Command{
		Use:   "kueue [FILE...] [--kubeconfig PATH] [--since DUR] -o SCENARIO [--trace FILE]",
		Short: "Import a Kueue cluster's configuration and Workloads",
		Long: `Read Kueue's objects, from files (as kubectl get -o yaml writes them: a List
or ---separated documents, several kinds to a file; and the objects.yaml
and kueue-config.yaml allot export kueue writes) or from a cluster
(--kubeconfig: it only gets and lists), and write a scenario: ResourceFlavors
and Nodes make the fleet (without Nodes, sized from the quotas), ClusterQueues
the teams (quotas, borrowing and lending limits, preemption, weights),
Cohorts the cohort tree, WorkloadPriorityClasses the priority classes, the
manager's Configuration (the kueue-manager-config ConfigMap on a cluster)
the policy, and Workloads the trace (admission and finish from their
conditions, evictions and requeues counted; a running one censored at the
newest time seen; a pending one left out). Without Workloads it writes a
policy file. Exactly one of FILE... and --kubeconfig.

  kubectl get clusterqueues,cohorts,resourceflavors,localqueues,workloadpriorityclasses,priorityclasses,workloads,nodes -A -o yaml > kueue.yaml

See docs/import.md.`,
		Example: `  allot export kueue docs/examples/two-teams.yaml -o k/ && allot import kueue k/objects.yaml k/kueue-config.yaml -o mine/policy.yaml
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
			objs, err = readKueueCluster(cmd, kubeconfig)
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

// readKueueCluster reads the cluster of a kubeconfig, at 100 requests a
// second rather than client-go's 5: a history is thousands of objects.
func readKueueCluster(cmd *cobra.Command, kubeconfig string) (*export.KueueObjects, error) {
	cfg, err := (&kube.Target{Kubeconfig: kubeconfig}).Loader().ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("--kubeconfig %s: %w", kubeconfig, err)
	}
	cfg = rest.CopyConfig(cfg)
	cfg.QPS, cfg.Burst = 100, 200
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}
	return export.ReadKueueCluster(cmd.Context(), dyn, "the cluster of "+kubeconfig)
}
