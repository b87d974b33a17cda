package livereport

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// The dashboard shows the jobs not yet done and the last finished, above
// the charts, with what users named escaped and made printable.
func TestDashboardPageListsJobsAboveTheCharts(t *testing.T) {
	at := time.Date(2025, 1, 1, 12, 0, 0, 0, time.UTC)
	started, ended := at.Add(-90*time.Second), at.Add(-30*time.Second)
	o := live.Overview{Devices: 4, InUse: 2, Utilization: 0.5, At: at,
		Teams: []live.TeamUsage{{Team: "research", Quota: 4, Allocated: 2, Running: 1}},
		Jobs: []live.View{
			{ID: "1", Name: "<b>x\x1b", Team: "research", State: live.StateRunning, Accelerators: 2, Devices: []string{"0", "1"}, Submitted: started, Started: &started},
			{ID: "2", Name: "done", Team: "research", State: live.StateSucceeded, Submitted: started, Started: &started, Ended: &ended},
		}}
	var b bytes.Buffer
	if err := DashboardPage(&b, &live.History{Name: "t", Policy: "quota"}, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	open, finished := strings.Index(page, `id="jobs-open"`), strings.Index(page, `id="jobs-finished"`)
	if open < 0 || finished < open {
		t.Fatalf("no open then finished jobs:\n%s", page)
	}
	if chart := strings.Index(page, `<section class="chart`); chart >= 0 && chart < finished {
		t.Error("the jobs are below the charts")
	}
	for _, want := range []string{`&lt;b&gt;x\x1b`, "running 90 s", "ran 60 s", "devices in use now"} {
		if !strings.Contains(page, want) {
			t.Errorf("the page has no %q", want)
		}
	}
}
