package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
	tea "github.com/charmbracelet/bubbletea"
)

// Each team's bar shows its own quota in use (█), what it borrows beyond
// it (▓) and its idle quota (░), one cell per device, so a borrower and a
// lender read apart without colour.
func TestTopBarsShowOwnQuotaBorrowedAndIdleQuotaPerTeam(t *testing.T) {
	d := topData{o: live.Overview{Devices: 4, InUse: 4, Utilization: 1, Teams: []live.TeamUsage{
		{Team: "research", Quota: 2, Allocated: 3, Borrowed: 1, Running: 2},
		{Team: "prod", Quota: 2, Allocated: 1, Lent: 1, Running: 1, Pending: 1},
	}}}
	frame := topFrame(d, []float64{0, 0.5, 1}, 0, 0, true)
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
	if plain := topFrame(d, nil, 0, 0, false); strings.ContainsAny(plain, "█▓░▁") {
		t.Errorf("the plain frame has bars:\n%s", plain)
	}
}

// A frame taller than the terminal keeps its head and says how many lines
// it left out.
func TestTopFrameFitsTheTerminal(t *testing.T) {
	d := topData{o: live.Overview{Devices: 4, Teams: []live.TeamUsage{{Team: "a"}}}, at: time.Unix(100, 0)}
	for i := range 30 {
		d.jobs = append(d.jobs, live.View{ID: string(rune('a' + i%26)), State: live.StatePending, Submitted: time.Unix(90, 0)})
	}
	frame := topFrame(d, nil, 40, 12, true)
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

// On a terminal, top redraws from a real daemon at every interval until q.
func TestTopRedrawsFromTheDaemonUntilQ(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	id := d.submit("research", "low", 3, "STEPS=200", "STEP_S=0.05")
	d.waitState(id, live.StateRunning, 10*time.Second)
	c := live.NewSocketRemote(d.sock)
	first := fetchTop(c)
	if first.err != nil {
		t.Fatal(first.err)
	}
	m := &topModel{fetch: func() topData { return fetchTop(c) }, where: d.sock, every: 50 * time.Millisecond, d: first, util: []float64{first.o.Utilization}}
	in, keys := io.Pipe()
	var out bytes.Buffer
	p := tea.NewProgram(m, tea.WithInput(in), tea.WithOutput(&out))
	go func() {
		time.Sleep(600 * time.Millisecond)
		keys.Write([]byte("q"))
	}()
	done := make(chan error, 1)
	go func() { _, err := p.Run(); done <- err }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		p.Kill()
		t.Fatal("top did not quit on q")
	}
	if len(m.util) < 4 {
		t.Errorf("%d looks in 600 ms at a 50 ms interval, want at least 4", len(m.util))
	}
	for _, want := range []string{"devices 3/4 in use (75%)", "research", "running", "0,1,2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the dashboard never showed %q:\n%s", want, out.String())
		}
	}
}
