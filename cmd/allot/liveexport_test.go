package main

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/allot-sim/allot/live/kube/kubetest"
	"github.com/allot-sim/allot/reports"
	"github.com/chromedp/chromedp"
)

// preemptionPair runs research's low job on all four devices (two
// borrowed) until prod's high job takes its quota back: the low job is
// preempted, resumes, and both succeed.
func preemptionPair(t *testing.T, d *daemon) (low, high string) {
	t.Helper()
	low = d.submit("research", "low", 4, "STEPS=60", "STEP_S=0.05", "EVERY=1000")
	d.waitState(low, live.StateRunning, 10*time.Second)
	waitFor(t, "the low job's step 3", 10*time.Second, func() bool { return strings.Contains(d.stdout(low), "step 3\n") })
	high = d.submit("prod", "high", 2, "STEPS=2", "STEP_S=0.05")
	d.waitState(high, live.StateSucceeded, 15*time.Second)
	d.waitState(low, live.StateSucceeded, 20*time.Second)
	return low, high
}

// runSegments sums held accelerators × time over every run in the
// daemon's own history: from each admission to the exit that ended it.
func runSegments(t *testing.T, d *daemon) float64 {
	t.Helper()
	var h live.History
	if err := live.NewClient(d.sock).Do("GET", "/v1/history", nil, &h); err != nil {
		t.Fatal(err)
	}
	acc := map[string]float64{}
	for _, j := range h.Jobs {
		acc[j.ID] = float64(j.Accelerators)
	}
	started := map[string]float64{}
	total, runs := 0.0, 0
	for _, e := range h.Events {
		switch e.Kind {
		case "admitted":
			started[e.Job] = e.Time
		case "exited":
			total += acc[e.Job] * (e.Time - started[e.Job])
			runs++
		}
	}
	if runs != 3 {
		t.Errorf("history has %d runs, want 3 (low, high, low resumed)", runs)
	}
	return total
}

// A live history exported with `allot live export` is a run directory like
// `allot sim --out` writes: its summary counts the jobs and the
// preemption, `allot report` renders it, and the accelerator-seconds of its
// series are those of the runs the daemon recorded.
func TestLiveExportRendersTheSameReportAsASimulationFromRealHistory(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	preemptionPair(t, d)
	dir := t.TempDir()
	var o, e bytes.Buffer
	if code := run([]string{"live", "export", dir, "--socket", d.sock}, &o, &e); code != 0 {
		t.Fatalf("live export: exit %d: %s", code, e.String())
	}
	for _, f := range []string{reports.SummaryFile, reports.JobsFile, reports.SeriesFile, reports.ReportMDFile, reports.ReportHTMLFile} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("export wrote no %s: %v", f, err)
		}
	}
	data, err := reports.LoadRun(dir)
	if err != nil {
		t.Fatal(err)
	}
	s := data.Summary
	if s.Jobs.Submitted != 2 || s.Jobs.Started != 2 || s.Jobs.Completed != 2 || s.Jobs.RunningAtEnd != 0 || s.Jobs.PendingAtEnd != 0 {
		t.Errorf("jobs %+v, want 2 submitted, started and completed", s.Jobs)
	}
	if s.Preemptions != 1 || s.ByTeam["research"].Preemptions != 1 || s.ByTeam["prod"].Preemptions != 0 {
		t.Errorf("preemptions %d (research %d, prod %d), want 1 of research's", s.Preemptions, s.ByTeam["research"].Preemptions, s.ByTeam["prod"].Preemptions)
	}
	if s.Scenario != "live-two-teams" || s.Policy != "quota" || s.Cost.USD <= 0 {
		t.Errorf("run %q, policy %q, cost $%g: want the config's name, its policy kind, and its price", s.Scenario, s.Policy, s.Cost.USD)
	}
	if s.Capacity.Accelerators != 4 || len(data.Teams) != 2 {
		t.Errorf("fleet of %d accelerators and teams %v, want 4 and research, prod", s.Capacity.Accelerators, data.Teams)
	}
	series := 0.0
	for _, byTeam := range data.Allocated {
		for _, b := range byTeam {
			for k, x := range b {
				series += x * (data.End[k] - data.Start[k])
			}
		}
	}
	if want := runSegments(t, d); math.Abs(series-want) > 1e-6*want || want == 0 {
		t.Errorf("series hold %.6f accelerator-seconds, the runs %.6f", series, want)
	}
	if code, _, errs := cli("report", dir); code != 0 {
		t.Fatalf("allot report on the export: %s", errs)
	}
	// history.json dates the records: the epoch, and each event on the wall clock.
	var h live.History
	raw, err := os.ReadFile(filepath.Join(dir, "history.json"))
	if err != nil || json.Unmarshal(raw, &h) != nil || h.Epoch == nil || len(h.Events) == 0 {
		t.Fatalf("history.json: %v, want the history with its epoch", err)
	}
	for _, ev := range h.Events {
		if ev.At == nil || !ev.At.Equal(h.Epoch.Add(time.Duration(ev.Time*1e9))) {
			t.Errorf("event %+v: at %v, want epoch + %gs", ev, ev.At, ev.Time)
		}
	}
}

// freeAddr is a local TCP address nothing listens on now.
// freeAddr is a loopback address below the ephemeral range
// (kubetest.FreePort), so no outgoing connection takes it first.
func freeAddr(t *testing.T) string {
	t.Helper()
	p, err := kubetest.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	return "127.0.0.1:" + strconv.Itoa(p)
}

// The dashboard at / of --http is one self-contained page that reloads
// itself; in headless Chromium it draws its charts and logs no error.
func TestDashboardRendersInHeadlessChromiumWithoutConsoleErrors(t *testing.T) {
	chromium(t)
	addr := freeAddr(t)
	d := newDaemonWith(t, liveConfigPath(t), []string{"--http", addr})
	preemptionPair(t, d)
	waiting := d.submit("prod", "low", 2, "STEPS=200", "STEP_S=0.05") // running while the page is read
	d.waitState(waiting, live.StateRunning, 10*time.Second)

	checkDashboard(t, "http://"+addr+"/", []string{"pending / running / preempted now", "0 / 1 / 0", "wait, all jobs: mean", "runtime, mean", "team research now", "team prod now", "borrowed"})
}

// checkDashboard opens a live dashboard in headless Chromium: it loads
// nothing from the network, reloads itself, shows wants, draws its charts
// and logs no error.
func checkDashboard(t *testing.T, url string, wants []string) {
	t.Helper()
	tctx, stop := browser(t)
	defer stop()
	consoleProblems := watchConsole(tctx)
	if err := chromedp.Do(tctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	html, err := chromedp.Run(tctx, chromedp.OuterHTML("html"))
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(src|href|url)\(?=?"?https?://`).FindString(html); m != "" {
		t.Errorf("the dashboard loads something from the network: %s", m)
	}
	if !strings.Contains(html, `http-equiv="refresh"`) {
		t.Error("the dashboard does not reload itself")
	}
	for _, want := range wants {
		if !strings.Contains(html, want) {
			t.Errorf("the dashboard does not show %q", want)
		}
	}
	// One instance type: utilisation is the fleet's black line, so only
	// the charts with team colours are counted for pixels.
	if nodes, err := chromedp.Run(tctx, chromedp.Nodes(chromedp.CSSAll("#chart-utilization figure svg"))); err != nil || len(nodes) != 1 {
		t.Errorf("no utilisation chart (%v)", err)
	}
	if full, err := chromedp.Run(tctx, chromedp.FullScreenshot(60)); err == nil && os.Getenv("ALLOT_DASHBOARD_SHOT") != "" {
		os.WriteFile(os.Getenv("ALLOT_DASHBOARD_SHOT"), full, 0o644)
	}
	for _, id := range []string{"teams", "team-bars", "queue", "preemptions"} {
		nodes, err := chromedp.Run(tctx, chromedp.Nodes(chromedp.CSSAll("#chart-"+id+" figure")))
		if err != nil || len(nodes) != 1 {
			t.Errorf("chart %s: %d figures (%v), want 1", id, len(nodes), err)
			continue
		}
		checkChartDrawn(t, tctx, "chart "+id, nodes[0], false)
	}
	for _, p := range consoleProblems(stop) {
		t.Errorf("%s: %s", url, p)
	}
}
