package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/workload"
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
report.md and report.html, as allot sim --out does. Times are seconds from
the daemon's first start; jobs still running are cut off at the moment of
the export. Only the daemon's admins may read the whole history.`,
		Example:     `  allot live export out/live && allot report out/live`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var h live.History
			if err := live.NewClient(socketPath(socket)).Do("GET", "/v1/history", nil, &h); err != nil {
				return clientErr(err)
			}
			dir := args[0]
			if err := exportHistory(&h, dir); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s,%s}\n", dirPrefix(dir), reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile)
			return nil
		},
	}
	addSocketFlag(cmd, &socket)
	return cmd
}

// exportHistory writes a history through the sinks allot sim --out uses.
func exportHistory(h *live.History, dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	jw, err := reports.NewJobsWriter(filepath.Join(dir, reports.JobsFile))
	if err != nil {
		return err
	}
	col := reports.NewCollector()
	if err := h.Records(workload.Tee(col, jw), 0); err != nil {
		return err
	}
	return reports.WriteRun(dir, col.Data())
}

// dashboardPage renders the --http dashboard with the reports package.
func dashboardPage(w io.Writer, h *live.History, o live.Overview) error {
	col := reports.NewCollector()
	if err := h.Records(col, 0); err != nil {
		return err
	}
	var pending, running, preempted int
	for _, t := range o.Teams {
		pending, running, preempted = pending+t.Pending, running+t.Running, preempted+t.Preempted
	}
	now := reports.Now{Tiles: [][2]string{
		{"devices in use now", fmt.Sprintf("%d / %d (%.0f%%)", o.InUse, o.Devices, 100*o.Utilization)},
		{"pending / running / preempted now", fmt.Sprintf("%d / %d / %d", pending, running, preempted)},
	}}
	now.Teams = [][]string{{"team", "quota", "allocated", "borrowed", "lent", "pending", "running", "preempted"}}
	for _, t := range o.Teams {
		now.Teams = append(now.Teams, []string{t.Team, strconv.Itoa(t.Quota), strconv.Itoa(t.Allocated), strconv.Itoa(t.Borrowed),
			strconv.Itoa(t.Lent), strconv.Itoa(t.Pending), strconv.Itoa(t.Running), strconv.Itoa(t.Preempted)})
	}
	return reports.WriteDashboard(w, col.Data(), "allot live", now, 5)
}
