package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/cmd/internal/top"
	"github.com/allot-sim/allot/live"
	tea "github.com/charmbracelet/bubbletea"
)

// On a terminal, top redraws from a real daemon at every interval until q.
func TestTopRedrawsFromTheDaemonUntilQ(t *testing.T) {
	d := newDaemon(t, liveConfigPath(t))
	id := d.submit("research", "low", 3, "STEPS=200", "STEP_S=0.05")
	d.waitState(id, live.StateRunning, 10*time.Second)
	c := live.NewSocketRemote(d.sock)
	first := top.Fetch(c)
	if first.Err != nil {
		t.Fatal(first.Err)
	}
	m := top.NewModel(func() top.Data { return top.Fetch(c) }, d.sock, 50*time.Millisecond, first)
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
	if m.Looks() < 4 {
		t.Errorf("%d looks in 600 ms at a 50 ms interval, want at least 4", m.Looks())
	}
	for _, want := range []string{"devices 3/4 in use (75%)", "research", "running", "0,1,2"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the dashboard never showed %q:\n%s", want, out.String())
		}
	}
}
