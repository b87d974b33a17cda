package top

import (
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// Each team's bar shows its own quota in use (█), what it borrows beyond
// it (▓) and its idle quota (░), one cell per device, so a borrower and a
// lender read apart without colour.
func TestTopBarsShowOwnQuotaBorrowedAndIdleQuotaPerTeam(t *testing.T) {
	d := Data{Overview: live.Overview{Devices: 4, InUse: 4, Utilization: 1, Teams: []live.TeamUsage{
		{Team: "research", Quota: 2, Allocated: 3, Borrowed: 1, Running: 2},
		{Team: "prod", Quota: 2, Allocated: 1, Lent: 1, Running: 1, Pending: 1},
	}}}
	frame := Frame(d, []float64{0, 0.5, 1}, 0, 0, true)
	lines := strings.Split(frame, "\n")
	want := map[string]string{"research": "██▓", "prod": "█░"}
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		if bar, ok := want[f[0]]; ok {
			if got := f[len(f)-1]; got != bar {
				t.Errorf("%s's bar is %q, want %q\n%s", f[0], got, bar, frame)
			}
			delete(want, f[0])
		}
	}
	if len(want) > 0 {
		t.Errorf("no row for %v in\n%s", want, frame)
	}
	if !strings.Contains(frame, "▁▅█  utilisation, last 3 looks") {
		t.Errorf("no utilisation history in\n%s", frame)
	}
	if plain := Frame(d, nil, 0, 0, false); strings.ContainsAny(plain, "█▓░▁") {
		t.Errorf("the plain frame has bars:\n%s", plain)
	}
}

// A frame taller than the terminal keeps its head and says how many lines
// it left out.
func TestTopFrameFitsTheTerminal(t *testing.T) {
	d := Data{Overview: live.Overview{Devices: 4, Teams: []live.TeamUsage{{Team: "a"}}}, At: time.Unix(100, 0)}
	for i := range 30 {
		d.Jobs = append(d.Jobs, live.View{ID: string(rune('a' + i%26)), State: live.StatePending, Submitted: time.Unix(90, 0)})
	}
	frame := Frame(d, nil, 40, 12, true)
	lines := strings.Split(strings.TrimSuffix(frame, "\n"), "\n")
	if len(lines) != 12 || lines[11] != "… 26 more lines" {
		t.Errorf("%d lines, last %q; want 12 ending in \"… 26 more lines\"\n%s", len(lines), lines[len(lines)-1], frame)
	}
	for _, l := range lines {
		if n := len([]rune(l)); n > 40 {
			t.Errorf("line of %d columns on a 40-column terminal: %q", n, l)
		}
	}
}
