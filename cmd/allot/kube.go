package main

import (
	"errors"
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/live/local"
	"github.com/spf13/cobra"
)

// kubeTarget is where a live command acts: the local daemon, or with
// --backend kubernetes a cluster's API server.
type kubeTarget struct {
	backend string
	socket  string // --socket: the daemon's, with --backend local
	kube.Target
	job kube.JobSpec // allot submit's --image, --resource, --pods, --toleration
}

// addPolicyFlag adds --policy-configmap to a command that reads the
// controller's policy.
func addPolicyFlag(cmd *cobra.Command, k *kubeTarget) {
	cmd.Flags().StringVar(&k.Policy, "policy-configmap", "allot-system/allot-policy", "with --backend kubernetes: the controller's policy ConfigMap, [NAMESPACE/]NAME")
}

// addRemoteFlags adds where a live command acts: --socket, and the
// backend flags.
func addRemoteFlags(cmd *cobra.Command, k *kubeTarget) {
	addSocketFlag(cmd, &k.socket)
	addBackendFlags(cmd, k)
}

func addBackendFlags(cmd *cobra.Command, k *kubeTarget) {
	f := cmd.Flags()
	f.StringVar(&k.backend, "backend", "local", "local (the daemon on this machine) or kubernetes (the cluster's API server)")
	f.StringVar(&k.Kubeconfig, "kubeconfig", "", "with --backend kubernetes: kubeconfig file (default $KUBECONFIG, ~/.kube/config, else in-cluster)")
	f.StringVarP(&k.Namespace, "namespace", "n", "", "with --backend kubernetes: the namespace (default: the team's, else every namespace)")
}

// on says whether the command acts on Kubernetes; an unknown backend is a
// usage error.
func (k *kubeTarget) on(cmd *cobra.Command) (bool, error) {
	switch k.backend {
	case "", "local":
		return false, nil
	case "kubernetes":
		return true, nil
	}
	return false, &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--backend %q: want local or kubernetes", k.backend)}
}

// remote is what the command acts on, picked once: the cluster with
// --backend kubernetes, else the daemon behind the socket (--socket, else
// local.SocketPath's); where names it for the user.
func (k *kubeTarget) remote(cmd *cobra.Command) (r live.Remote, where string, err error) {
	on, err := k.on(cmd)
	if err != nil {
		return nil, "", err
	}
	if on {
		return liveconf.Remote(k.Target, k.job), "kubernetes", nil
	}
	where = local.SocketPath(k.socket)
	return live.NewSocketRemote(where), where, nil
}

// runE is the RunE of a command that acts on the remote: run gets it,
// and what it refuses is bad input (liveErr).
func (k *kubeTarget) runE(run func(cmd *cobra.Command, args []string, r live.Remote) error) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		r, _, err := k.remote(cmd)
		if err != nil {
			return err
		}
		return liveErr(run(cmd, args, r))
	}
}

// liveErr marks what a live.Remote refused as bad input; its text is the
// remote's.
func liveErr(err error) error {
	var ae *live.APIError
	if errors.As(err, &ae) || kube.IsInput(err) {
		return badInput(err)
	}
	return err
}
