package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func newLiveSnapshotCmd() *cobra.Command {
	var socket, out string
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:   "snapshot [-o FILE]",
		Short: "The live state as a snapshot file that allot cycle reads",
		Long: `Write the daemon's state — its policy's flavors, cohorts and teams, running
and pending jobs — as a snapshot (quota level: no nodes), so that
allot cycle can show what the policy would decide and why.`,
		Example: `  allot live snapshot -o now.yaml
  allot cycle now.yaml`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			data, err := r.Snapshot()
			if err != nil {
				return liveErr(err)
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return fmt.Errorf("write snapshot: %w", err)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE (default: standard output)")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	addPolicyFlag(cmd, &kt)
	return cmd
}
