package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/livereport"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

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
			h, err := live.NewSocketRemote(socketPath(socket)).History()
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
