package main

import (
	"fmt"
	"os"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
)

// liveSnapshot writes the controller's state as a snapshot that `allot
// cycle` reads: its model's flavors, cohorts and queues, and its jobs.
func liveSnapshot(c *live.Controller) ([]byte, error) {
	m, now, jobs := c.State()
	var out []scenarios.SnapshotJob
	for _, j := range jobs {
		sj := scenarios.SnapshotJob{Name: "job-" + j.ID, Queue: j.Team, Priority: c.Priority(j.PriorityClass), Created: j.Order,
			Flavor: -1, Want: m.FlavorIndex(j.InstanceType), Accelerators: float64(j.Accelerators)}
		if j.State == live.StateRunning && j.Flavor >= 0 {
			sj.Flavor, sj.Admitted, sj.Evicting = j.Flavor, j.AdmittedAt, j.Stopping != ""
			sj.Started, sj.HasStarted = j.RunStart, true
		}
		out = append(out, sj)
	}
	return scenarios.MarshalSnapshot(m, now, out, "written by allot live snapshot: quota level; times are seconds since the daemon's first start")
}

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
			var data []byte
			if on, err := kt.on(cmd); err != nil {
				return err
			} else if on {
				if data, err = snapshotKube(&kt); err != nil {
					return err
				}
			} else if err := live.NewClient(socketPath(socket)).Do("GET", "/v1/snapshot", nil, &data); err != nil {
				return clientErr(err)
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
