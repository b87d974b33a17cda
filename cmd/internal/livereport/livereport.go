// Package livereport renders live mode's history with the reports
// package: the run directory allot live export writes, and the page of
// the --http dashboard. It joins live and reports, which only the command
// line may import together (ARCHITECTURE.md), so it sits under cmd.
package livereport

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

	"github.com/allot-sim/allot/cmd/internal/atomicfile"
	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/workload"
)

// Export writes a history into dir as the run directory allot sim --out
// writes, through the same sinks, and the history itself (HistoryFile).
func Export(h *live.History, dir string) error {
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
	return atomicfile.Write(filepath.Join(dir, HistoryFile), append(data, '\n'))
}

// HistoryFile is the live history as the daemon gave it, beside the run
// records made of it.
const HistoryFile = "history.json"

// DashboardPage renders the --http dashboard with the reports package (a
// live.Page): the tiles and team cards of now, the jobs, then the charts
// of the history.
func DashboardPage(w io.Writer, h *live.History, o live.Overview) error {
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
