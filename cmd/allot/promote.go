package main

import (
	"context"
	"fmt"
	"os"

	"github.com/allot-sim/allot/cmd/internal/exportfiles"
	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
)

// promoteFlags are allot promote's flags.
type promoteFlags struct {
	to     string
	dryRun bool
	asJSON bool
	kt     kubeTarget
	apply  bool
	export exportfiles.Options // --to kueue, hyperpod or aws-batch
}

// newPromoteCmd is allot promote: the flags, then promoteLive or
// promoteExport by --to.
func newPromoteCmd() *cobra.Command {
	var f promoteFlags
	cmd := &cobra.Command{
		Use:   "promote POLICY --to live [--dry-run]",
		Short: "Put a policy file into production: a running daemon or the Kubernetes controller",
		Long: `Check POLICY (a policy file, as allot tune writes, or a whole scenario)
against the live fleet and teams, show how one scheduling pass over the
jobs as they stand would decide under the current policy and under POLICY
(who would be admitted where, who preempted and why), then apply it.

To a local daemon (--socket, $ALLOT_SOCKET) the new policy takes effect at
once, without a restart: jobs keep running where they run and keep their
place in the queue, and every later decision is recorded with the policy
that made it (allot describe shows it). A promotion changes the policy,
not the fleet: a file whose fleet differs is refused. The daemon keeps the
policy until it stops; start it with --config POLICY to keep it after that.

With --backend kubernetes the dry run is made on a snapshot of the cluster
(allot live snapshot) under each policy, and POLICY is written to the
controller's policy ConfigMap (--policy-configmap), which it follows.

--dry-run shows the decisions and changes nothing.

--to kueue, hyperpod or aws-batch writes that engine's export to -o DIR,
as allot export does (with --cluster-arn for HyperPod, and --region,
--account-id, --compute-environment or --service-environment for Batch);
with --apply, the Kueue objects are server-side applied to the cluster of
the kubeconfig (--kubeconfig): every object is applied as a dry run first
and the changes printed (create, or each field that changes), then for
real unless --dry-run. HyperPod and Batch inputs go through the AWS CLI.`,
		Example: `  allot promote tuned.yaml --to live --dry-run
  allot promote tuned.yaml --to live
  allot promote tuned.yaml --to live --backend kubernetes
  allot promote scenarios/amazon-search.yaml --to kueue -o kueue/
  allot promote tuned.yaml --to kueue -o kueue/ --apply --dry-run`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			switch f.to {
			case "live":
				return promoteLive(cmd, args[0], &f)
			case "kueue", "hyperpod", "aws-batch":
				return promoteExport(cmd, args[0], &f)
			default:
				return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--to %q: want live, kueue, hyperpod or aws-batch", f.to)}
			}
		},
	}
	cmd.Flags().StringVar(&f.to, "to", "", "where to: live, kueue, hyperpod or aws-batch")
	cmd.Flags().StringVarP(&f.export.OutDir, "output", "o", "", "with --to kueue, hyperpod or aws-batch: the directory the export goes to")
	cmd.Flags().BoolVar(&f.apply, "apply", false, "with --to kueue: server-side apply the objects to the cluster of the kubeconfig (a dry run and its changes first; with --dry-run, only that)")
	cmd.Flags().BoolVar(&f.export.Kueue.AcceleratorsOnly, "accelerators-only", false, "with --to kueue: leave cpu and memory out of the ClusterQueues and have Kueue ignore them (as allot export kueue --accelerators-only)")
	cmd.Flags().StringVar(&f.export.ClusterARN, "cluster-arn", "", "with --to hyperpod: the HyperPod cluster's ARN")
	cmd.Flags().StringVar(&f.export.Batch.Region, "region", "", "with --to aws-batch: the region")
	cmd.Flags().StringVar(&f.export.Batch.Account, "account-id", "", "with --to aws-batch: the account")
	cmd.Flags().StringVar(&f.export.Batch.ComputeEnvironment, "compute-environment", "", "with --to aws-batch: the compute environment")
	cmd.Flags().StringVar(&f.export.Batch.ServiceEnvironment, "service-environment", "", "with --to aws-batch and quota shares: the service environment")
	cmd.Flags().BoolVar(&f.dryRun, "dry-run", false, "show how decisions would change, and change nothing")
	cmd.Flags().BoolVar(&f.asJSON, "json", false, "print the decisions under both policies as JSON")
	addRemoteFlags(cmd, &f.kt)
	addPolicyFlag(cmd, &f.kt)
	_ = cmd.MarkFlagRequired("to")
	return cmd
}

// promoteLive shows how the policy at path would decide beside the
// current one on a running daemon, or on the Kubernetes controller, and
// unless --dry-run puts it in place.
func promoteLive(cmd *cobra.Command, path string, f *promoteFlags) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return badInput(err)
	}
	if on, err := f.kt.on(cmd); err != nil {
		return err
	} else if on {
		return promoteKube(cmd, &f.kt, path, data, f.dryRun, f.asJSON)
	}
	r := live.NewSocketRemote(local.SocketPath(f.kt.socket))
	req := live.PolicyRequest{Name: path, Policy: string(data)}
	preview, err := r.Promote(req)
	if err != nil {
		return liveErr(err)
	}
	if !f.asJSON {
		show.Promotion(cmd.OutOrStdout(), preview.CurrentID, preview.NewID, preview.Current, preview.Promoted)
	}
	if f.dryRun {
		if f.asJSON {
			return show.JSON(cmd.OutOrStdout(), preview)
		}
		fmt.Fprintln(cmd.OutOrStdout(), "dry run: nothing changed")
		return nil
	}
	req.Apply = true
	applied, err := r.Promote(req)
	if err != nil {
		return liveErr(err)
	}
	if f.asJSON {
		return show.JSON(cmd.OutOrStdout(), applied)
	}
	fmt.Fprintf(cmd.OutOrStdout(), "applied: the daemon now runs %s; no job was stopped or restarted by the change itself\n", applied.NewID)
	return nil
}

// promoteKube previews POLICY on a snapshot of the cluster and writes it
// to the controller's policy ConfigMap.
func promoteKube(cmd *cobra.Command, k *kubeTarget, path string, data []byte, dryRun, asJSON bool) error {
	pns, pname := k.PolicyConfigMap()
	data, dropped, err := scenarios.WithoutSection(data, "fleet")
	if err != nil {
		return badInput(fmt.Errorf("%s: %w", path, err))
	}
	if dropped && !asJSON {
		fmt.Fprintf(cmd.OutOrStdout(), "%s: its fleet section is left out: the cluster's nodes are the fleet\n", path)
	}
	resp, err := liveconf.PreviewKube(liveconf.Remote(k.Target, k.job), path, data)
	if err != nil {
		return liveErr(err)
	}
	if !asJSON {
		show.Promotion(cmd.OutOrStdout(), resp.CurrentID, resp.NewID, resp.Current, resp.Promoted)
	}
	if !dryRun {
		if err := k.ReplacePolicy(context.Background(), data); err != nil {
			return liveErr(err)
		}
		resp.Applied = true
	}
	if asJSON {
		return show.JSON(cmd.OutOrStdout(), resp)
	}
	if dryRun {
		fmt.Fprintln(cmd.OutOrStdout(), "dry run: nothing changed")
	} else {
		fmt.Fprintf(cmd.OutOrStdout(), "applied: wrote %s to ConfigMap %s/%s; the controller follows it at its next sync\n", path, pns, pname)
	}
	return nil
}
