package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

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
report.md and report.html, as allot sim --out does, and history.json, the
history itself. Times in the run records are seconds from the daemon's
first start (history.json's epoch, and each event's "at" on the wall
clock); jobs still running are cut off at the moment of the export. Every user the daemon admits may read the history: it holds
every job's metadata and events, and no command line.`,
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
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s{%s,%s,%s,%s,%s,%s}\n", dirPrefix(dir), reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile, historyFile)
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
	if err := reports.WriteRun(dir, col.Data()); err != nil {
		return err
	}
	// The records count seconds from the daemon's first start; the
	// history itself says when that was, and each event's wall-clock time.
	data, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(dir, historyFile), append(data, '\n'))
}

// historyFile is the live history as the daemon gave it, beside the run
// records made of it.
const historyFile = "history.json"

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
	var page bytes.Buffer
	if err := reports.WriteDashboard(&page, col.Data(), "allot live", now, 5); err != nil {
		return err
	}
	var jobs bytes.Buffer
	if err := dashboardJobsTmpl.Execute(&jobs, dashboardJobLines(o)); err != nil {
		return err
	}
	// The jobs go above the charts: after the tiles and team cards.
	html := page.Bytes()
	at := bytes.Index(html, []byte(`<section class="chart`))
	if at < 0 {
		at = bytes.LastIndex(html, []byte(`</main>`))
	}
	if at < 0 {
		at = len(html)
	}
	if _, err := w.Write(html[:at]); err != nil {
		return err
	}
	if _, err := w.Write(jobs.Bytes()); err != nil {
		return err
	}
	_, err := w.Write(html[at:])
	return err
}

// dashboardJobLine is one job of the dashboard's lists: metadata only
// (the page is read by anyone on the machine), every field escaped by
// html/template and printable.
type dashboardJobLine struct {
	ID, Name, Team, State, Reason, Devices, For string
	Accelerators                                int
}

type dashboardJobLists struct{ Open, Finished []dashboardJobLine }

// dashboardJobLines splits the overview's jobs into those not yet done
// and the last finished, with how long each has waited or run.
func dashboardJobLines(o live.Overview) dashboardJobLists {
	var out dashboardJobLists
	dur := func(from time.Time, to time.Time) string { return reports.FmtDuration(max(0, to.Sub(from).Seconds())) }
	p := live.Printable
	for _, v := range o.Jobs {
		l := dashboardJobLine{ID: p(v.ID), Name: p(v.Name), Team: p(v.Team), State: p(v.State), Reason: p(v.Reason),
			Devices: p(strings.Join(v.Devices, ",")), Accelerators: v.Accelerators}
		switch {
		case v.State == live.StateRunning && v.Started != nil:
			l.For = "running " + dur(*v.Started, o.At)
		case v.Ended == nil:
			l.For = "waiting " + dur(v.Submitted, o.At)
		case v.Started != nil:
			l.For = "ran " + dur(*v.Started, *v.Ended)
		default:
			l.For = "ended after waiting " + dur(v.Submitted, *v.Ended)
		}
		if v.Ended == nil {
			out.Open = append(out.Open, l)
		} else {
			out.Finished = append(out.Finished, l)
		}
	}
	return out
}

var dashboardJobsTmpl = template.Must(template.New("jobs").Parse(`{{define "table"}}<table><tr><th>id</th><th>name</th><th>team</th><th>state</th><th>reason</th><th>accelerators</th><th>devices</th><th>waited or ran</th></tr>
{{range .}}<tr><td>{{.ID}}</td><td>{{.Name}}</td><td>{{.Team}}</td><td>{{.State}}</td><td>{{.Reason}}</td><td>{{.Accelerators}}</td><td>{{.Devices}}</td><td>{{.For}}</td></tr>
{{end}}</table>{{end}}<section id="jobs-open"><h2>Jobs not yet done</h2>{{if .Open}}{{template "table" .Open}}{{else}}<p class="note">None: every job is done.</p>{{end}}</section>
<section id="jobs-finished"><h2>Last finished jobs</h2>{{if .Finished}}{{template "table" .Finished}}{{else}}<p class="note">None yet.</p>{{end}}</section>
`))
