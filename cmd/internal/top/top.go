// Package top is allot top's view of live mode: one look at a
// live.Remote (the daemon or a cluster), drawn as a plain frame for a
// pipe or as a dashboard on a terminal that redraws itself (bubbletea).
package top

import (
	"fmt"
	"io"
	"time"

	"github.com/allot-sim/allot/live"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
)

// Data is one look at the daemon (or the cluster).
type Data struct {
	Overview live.Overview
	Jobs     []live.View // not yet done
	At       time.Time
	Err      error
}

// Fetch is one look through a remote.
func Fetch(r live.Remote) Data {
	d := Data{At: time.Now()}
	d.Overview, d.Jobs, d.Err = r.Top()
	return d
}

// Plain prints a plain frame every interval, for a pipe (top -b), until
// a look or a write fails, and returns that error (a look's as the
// remote gave it).
func Plain(w io.Writer, fetch func() Data, d Data, every time.Duration) error {
	for {
		if d.Err != nil {
			return d.Err
		}
		if _, err := io.WriteString(w, Frame(d, nil, 0, 0, false)+"\n"); err != nil {
			return err
		}
		time.Sleep(every)
		d = fetch()
	}
}

// Model is the terminal dashboard, on bubbletea: it looks again every
// interval and quits on q, Esc or Ctrl-C.
type Model struct {
	fetch         func() Data
	where         string
	every         time.Duration
	d             Data
	util          []float64 // utilisation at each refresh, oldest first
	width, height int
}

// NewModel is the dashboard of the remote where names, looking through
// fetch every interval, starting from the look d.
func NewModel(fetch func() Data, where string, every time.Duration, d Data) *Model {
	return &Model{fetch: fetch, where: where, every: every, d: d, util: []float64{d.Overview.Utilization}}
}

// Looks is how many looks the utilisation history holds (at most 512).
func (m *Model) Looks() int { return len(m.util) }

type tick struct{}

// Init starts the clock.
func (m *Model) Init() tea.Cmd { return m.tick() }

func (m *Model) tick() tea.Cmd {
	return tea.Tick(m.every, func(time.Time) tea.Msg { return tick{} })
}

// Update looks again at each tick and keeps the last good look.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c":
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case tick:
		return m, func() tea.Msg { return m.fetch() }
	case Data:
		if msg.Err == nil {
			m.util = append(m.util, msg.Overview.Utilization)
			if len(m.util) > 512 {
				m.util = m.util[len(m.util)-512:]
			}
			m.d = msg
		} else {
			m.d.Err = msg.Err // keep the last good look, say why it is stale
		}
		return m, m.tick()
	}
	return m, nil
}

// View draws the last look, styled, to the terminal's size.
func (m *Model) View() string {
	head := fmt.Sprintf("allot top  %s  %s  (q to quit)", m.where, m.d.At.Format("15:04:05"))
	if m.d.Err != nil {
		head += "\n" + lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Render("daemon unreachable, showing the last answer: "+live.Printable(m.d.Err.Error()))
	}
	return head + "\n\n" + Frame(m.d, m.util, m.width, m.height-3, true)
}
