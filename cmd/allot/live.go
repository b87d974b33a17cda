package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/allot-sim/allot/cmd/internal/livereport"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/local"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

// needsDaemon marks a command whose help example talks to a running
// daemon: TestEveryHelpExampleRuns skips it (the live tests run a daemon).
const needsDaemon = "needs-daemon"

func newLiveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "live",
		Short: "Run a policy on real work: a durable job queue for this machine",
		Long: `Live mode runs the policy core the simulator uses on real processes: a
daemon (allot live serve) keeps a durable queue in its data directory and
starts, preempts and restarts jobs; allot submit, jobs, describe, cancel and
logs talk to it over its Unix socket, and allot live export writes its
history as a run directory that allot report renders.`,
		Example: `  allot live serve --help`,
	}
	cmd.AddCommand(newServeCmd(), newShimCmd(), newLiveSnapshotCmd(), newLiveExportCmd(), newCheckStoreCmd(), newBackupCmd())
	cmd.AddCommand(newReplayCmd(), newSleepJobCmd())
	return cmd
}

// clientErr maps a daemon's answer to an exit code: its refusals of a
// request are bad input (2), as are unknown jobs. What the daemon said
// is printed through live.Printable: it may quote what users named.
func clientErr(err error) error {
	var ae *live.APIError
	if errors.As(err, &ae) {
		return badInput(errors.New(live.Printable(ae.Msg)))
	}
	if err != nil {
		return errors.New(live.Printable(err.Error()))
	}
	return nil
}

func addSocketFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "socket", "", "the daemon's socket (default $ALLOT_SOCKET, else the data directory's)")
}

func newLiveSnapshotCmd() *cobra.Command {
	var out string
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
		RunE: kt.runE(func(cmd *cobra.Command, args []string, r live.Remote) error {
			data, err := r.Snapshot()
			if err != nil {
				return err
			}
			if out == "" {
				_, err := cmd.OutOrStdout().Write(data)
				return err
			}
			if err := os.WriteFile(out, data, 0o644); err != nil {
				return fmt.Errorf("write snapshot: %w", err)
			}
			return nil
		}),
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to FILE (default: standard output)")
	addRemoteFlags(cmd, &kt)
	addPolicyFlag(cmd, &kt)
	return cmd
}

// The history comes from the daemon's API, not from the store file: a
// running daemon holds the store's lock (bbolt lets no reader in beside a
// writer), and the daemon is where the fleet the history ran on is known.
func newLiveExportCmd() *cobra.Command {
	var socket string
	cmd := &cobra.Command{
		Use:   "export DIR",
		Short: "Write the live history as a run directory that allot report renders",
		Long: `Write the daemon's history (every job's submits, starts, preemptions and
stops since the daemon first started) into DIR as the run records a
simulation writes: summary.json, jobs.parquet, timeseries.parquet,
report.md and report.html, as allot sim --out does, and history.json, the
history itself. Times in the run records are seconds from the daemon's
first start (history.json's epoch, and each event's "at" on the wall
clock); jobs still running are cut off at the moment of the export. Every user the daemon admits may read the history: it holds
every job's metadata and events, and no command line.`,
		Example:     `  allot live export out/live && allot report out/live`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			h, err := live.NewSocketRemote(local.SocketPath(socket)).History()
			if err != nil {
				return liveErr(err)
			}
			dir := args[0]
			if err := livereport.Export(h, dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s,%s,%s}\n", dirPrefix(dir), reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile, livereport.HistoryFile)
			return nil
		},
	}
	addSocketFlag(cmd, &socket)
	return cmd
}
