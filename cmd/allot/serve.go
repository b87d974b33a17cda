package main

import (
	"errors"
	"fmt"
	"os"
	"time"

	"github.com/allot-sim/allot/cmd/internal/atomicfile"
	"github.com/allot-sim/allot/cmd/internal/liveconf"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/spf13/cobra"
)

func newServeCmd() *cobra.Command {
	var config, dataDir, httpAddr, configMap, logFormat, retain string
	var kt kubeTarget
	var poll time.Duration
	cmd := &cobra.Command{
		Use:   "serve --config FILE [--data-dir DIR] | --backend kubernetes [--config FILE]",
		Short: "Run the live daemon on this machine, or the controller of a cluster",
		Long: `Run the live daemon: FILE is a scenario or a policy file. Its fleet's devices
are this machine's, numbered from 0; without a fleet section, the NVIDIA
GPUs nvidia-smi lists are (one instance type per model, named
nvidia-MODEL), else the Neuron devices neuron-ls lists (neuron-FAMILY);
team quotas name these types. State is kept in DIR
(default ~/.local/share/allot, /var/lib/allot as root) and the API listens
on DIR/allot.sock (/run/allot/allot.sock for root's default, where every
user's client looks), for the daemon's own user only unless the file's
live section says who else may submit to which teams: run it as root for
that, and it runs each job as its submitter (docs/live.md, "Running the
daemon safely"). Jobs keep running when
the daemon stops or is killed; a restarted daemon re-adopts them.

With --backend kubernetes it is the controller of a cluster's batch/v1
Jobs: its policy is the policy.yaml of ConfigMap -n/--policy-configmap
(allot-system/allot-policy; --config FILE writes it first), its fleet the
cluster's nodes; replicas elect a leader. See docs/live.md.`,
		Example: `  allot live serve --config scenarios/live/two-teams.yaml --data-dir /tmp/allot --http :9464 --retain 30d &
  export ALLOT_SOCKET=/tmp/allot/allot.sock
  curl -s 127.0.0.1:9464/metrics | grep allot_team_allocated
  # on a cluster: the policy goes to ConfigMap allot-system/allot-policy
  allot live serve --backend kubernetes --config scenarios/live/kubernetes.yaml`,
		Annotations: map[string]string{needsDaemon: "starts one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if on, err := kt.on(cmd); err != nil || on {
				if err != nil {
					return err
				}
				return liveErr(liveconf.ServeKube(&kt.Target, config, configMap, httpAddr, cmd.ErrOrStderr()))
			}
			d, err := liveconf.LocalDaemon(liveconf.ServeOptions{Config: config, DataDir: dataDir, HTTP: httpAddr,
				LogFormat: logFormat, Retain: retain, Poll: poll, Stderr: cmd.ErrOrStderr()})
			if err != nil {
				return libraryErr(err)
			}
			if d.HTTP != nil {
				defer d.HTTP.Close()
			}
			return local.Serve(d)
		},
	}
	cmd.Flags().StringVar(&config, "config", "", "scenario or policy file with a fleet")
	cmd.Flags().StringVar(&dataDir, "data-dir", "", "state directory (default ~/.local/share/allot)")
	cmd.Flags().DurationVar(&poll, "poll", 50*time.Millisecond, "how often to look for ended runs")
	cmd.Flags().StringVar(&httpAddr, "http", "", "serve a read-only dashboard on / and Prometheus metrics on /metrics at ADDR (host defaults to 127.0.0.1)")
	cmd.Flags().StringVar(&logFormat, "log-format", "text", "the log on standard error: text or json (one line per decision and fault, with job ids)")
	cmd.Flags().StringVar(&retain, "retain", "", "delete finished jobs' files and history this long after they ended (e.g. 30d; default: keep all)")
	cmd.Flags().StringVar(&configMap, "policy-configmap", "allot-policy", "with --backend kubernetes: the ConfigMap (in -n, default allot-system) whose policy.yaml the controller follows; --config writes it")
	addBackendFlags(cmd, &kt)
	return cmd
}

func newShimCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "shim RUNDIR",
		Short:  "Supervise one run of a job (started by the daemon)",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return local.RunShim(args[0])
		},
	}
}

func newCheckStoreCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "check-store FILE",
		Short: "Check a live daemon's store (state.db, or a backup) page by page",
		Long: `Read every page and record of a store file without changing it: its meta
pages, its size against what its last transaction uses, bbolt's consistency
check, and every job and event decoded. live serve runs it before it opens
its store; use it on a backup before restoring it. Exit 0: sound; 1: damaged
(the message says what and how to restore); 2: it cannot be read.`,
		Example: `  allot live backup -o /tmp/allot-state.db && allot live check-store /tmp/allot-state.db
  allot live check-store /var/lib/allot/state.db`,
		Annotations: map[string]string{needsDaemon: "checks its store"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := os.Stat(args[0]); err != nil {
				return badInput(err)
			}
			if err := live.VerifyStore(args[0]); err != nil {
				var de *live.StoreDamagedError
				if errors.As(err, &de) {
					return &problemError{err.Error()}
				}
				return err
			}
			fmt.Fprintf(cmd.OutOrStdout(), "%s: sound\n", args[0])
			return nil
		},
	}
}

func newBackupCmd() *cobra.Command {
	var socket, out string
	cmd := &cobra.Command{
		Use:   "backup -o FILE",
		Short: "Copy a running daemon's store, consistent, while it runs",
		Long: `Ask the daemon for a consistent copy of its store (state.db) and write it to
FILE, whole or not at all. Only the daemon's admins may. To restore: stop
the daemon, check the copy (allot live check-store FILE), put it in place of
DATA_DIR/state.db, and start the daemon: jobs still running are re-adopted,
those that ended meanwhile are settled from their records.`,
		Example:     `  allot live backup -o /backup/allot-$(date +%F).db`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return &usageError{cmd: cmd.CommandPath(), msg: "-o FILE is required"}
			}
			data, err := live.NewSocketRemote(local.SocketPath(socket)).Backup()
			if err != nil {
				return liveErr(err)
			}
			if err := atomicfile.Write(out, data); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "allot live backup: %d bytes to %s\n", len(data), out)
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the file to write")
	addSocketFlag(cmd, &socket)
	return cmd
}
