package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-sim/allot/live"
	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/lipgloss"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

func newTopCmd() *cobra.Command {
	var socket string
	var once bool
	var every time.Duration
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:   "top [--once] [--interval D]",
		Short: "The live machine at a glance: utilisation, teams, jobs (--once: one frame)",
		Long: `Utilisation now and over the last minutes; per team the devices allocated
against its quota, borrowed from others' idle quota and lent to them, with
its pending, running and preempted jobs; mean wait (submit to first start)
and runtime; then the jobs not yet done, running first. On a terminal it
redraws every --interval until q, Esc or Ctrl-C; piped, it prints a plain
frame every --interval; --once prints one plain frame and exits.`,
		Example: `  allot top --once
  allot top --interval 5s`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if every <= 0 {
				return &usageError{cmd: cmd.CommandPath(), msg: "--interval must be positive"}
			}
			r, where, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			fetch := func() topData { return fetchTop(r) }
			d := fetch()
			if d.err != nil {
				return clientErr(d.err)
			}
			out := cmd.OutOrStdout()
			if once {
				_, err := io.WriteString(out, topFrame(d, nil, 0, 0, false))
				return err
			}
			if f, ok := out.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
				return topPlain(out, fetch, d, every)
			}
			m := &topModel{fetch: fetch, where: where, every: every, d: d, util: []float64{d.o.Utilization}}
			_, err = tea.NewProgram(m, tea.WithAltScreen(), tea.WithOutput(out), tea.WithInput(cmd.InOrStdin())).Run()
			return err
		},
	}
	cmd.Flags().BoolVar(&once, "once", false, "print one plain frame and exit")
	cmd.Flags().DurationVar(&every, "interval", time.Second, "time between refreshes")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	addPolicyFlag(cmd, &kt)
	return cmd
}

// topData is one look at the daemon (or the cluster).
type topData struct {
	o    live.Overview
	jobs []live.View // not yet done
	at   time.Time
	err  error
}

// fetchTop is one look through a remote.
func fetchTop(r live.Remote) topData {
	d := topData{at: time.Now()}
	d.o, d.jobs, d.err = r.Top()
	return d
}

// topPlain prints a frame every interval, for a pipe (top -b).
func topPlain(w io.Writer, fetch func() topData, d topData, every time.Duration) error {
	for {
		if d.err != nil {
			return clientErr(d.err)
		}
		if _, err := io.WriteString(w, topFrame(d, nil, 0, 0, false)+"\n"); err != nil {
			return err
		}
		time.Sleep(every)
		d = fetch()
	}
}

// topModel is the terminal dashboard, on bubbletea.
type topModel struct {
	fetch         func() topData
	where         string
	every         time.Duration
	d             topData
	util          []float64 // utilisation at each refresh, oldest first
	width, height int
}

type topTick struct{}

func (m *topModel) Init() tea.Cmd { return m.tick() }

func (m *topModel) tick() tea.Cmd {
	return tea.Tick(m.every, func(time.Time) tea.Msg { return topTick{} })
}

func (m *topModel) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyMsg:
		switch msg.String() {
		case "q", "esc", "ctrl+c":
			return m, tea.Quit
		}
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
	case topTick:
		return m, func() tea.Msg { return m.fetch() }
	case topData:
		if msg.err == nil {
			m.util = append(m.util, msg.o.Utilization)
			if len(m.util) > 512 {
				m.util = m.util[len(m.util)-512:]
			}
			m.d = msg
		} else {
			m.d.err = msg.err // keep the last good look, say why it is stale
		}
		return m, m.tick()
	}
	return m, nil
}

func (m *topModel) View() string {
	head := fmt.Sprintf("allot top  %s  %s  (q to quit)", m.where, m.d.at.Format("15:04:05"))
	if m.d.err != nil {
		head += "\n" + lipgloss.NewStyle().Foreground(lipgloss.Color("9")).Render("daemon unreachable, showing the last answer: "+live.Printable(m.d.err.Error()))
	}
	return head + "\n\n" + topFrame(m.d, m.util, m.width, m.height-3, true)
}

var (
	styleOwn      = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleBorrowed = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleIdle     = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	styleHead     = lipgloss.NewStyle().Bold(true)
)

// topFrame renders one look: with styled, utilisation and per-team bars
// and the utilisation history; width and height (0: unbounded) clip it.
func topFrame(d topData, util []float64, width, height int, styled bool) string {
	o := &d.o
	var b strings.Builder
	fmt.Fprintf(&b, "devices %d/%d in use (%.0f%%)   mean wait %.1fs   mean runtime %.1fs\n", o.InUse, o.Devices, 100*o.Utilization, o.MeanWaitS, o.MeanRuntimeS)
	if styled {
		cells := min(max(o.Devices, 10), 60)
		used := 0
		if o.Devices > 0 {
			used = (o.InUse*cells + o.Devices/2) / o.Devices
		}
		b.WriteString(styleOwn.Render(strings.Repeat("█", used)) + styleIdle.Render(strings.Repeat("░", cells-used)) + "\n")
		if len(util) > 1 {
			n := min(len(util), max(10, width-24))
			fmt.Fprintf(&b, "%s  utilisation, last %d looks\n", sparkline(util[len(util)-n:]), n)
		}
	}
	b.WriteString("\n")
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TEAM\tQUOTA\tALLOCATED\tBORROWED\tLENT\tPENDING\tRUNNING\tPREEMPTED\t")
	for _, t := range o.Teams {
		bar := ""
		if styled {
			bar = teamBar(t, o.Devices)
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%d\t%d\t%d\t%d\t%d\t%s\n", live.Printable(t.Team), t.Quota, t.Allocated, t.Borrowed, t.Lent, t.Pending, t.Running, t.Preempted, bar)
	}
	tw.Flush()
	if len(d.jobs) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tTEAM\tCLASS\tSTATE\tACC\tDEVICES\tFOR\tREASON")
		p := live.Printable // names and reasons are others' text, on this terminal
		for _, v := range d.jobs {
			since := v.Submitted
			if v.State == live.StateRunning && v.Started != nil {
				since = *v.Started
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p(v.ID), p(v.Name), p(v.Team), p(v.PriorityClass), p(v.State), v.Accelerators,
				p(strings.Join(v.Devices, ",")), d.at.Sub(since).Round(time.Second), p(v.Reason))
		}
		tw.Flush()
	}
	s := b.String()
	if styled {
		s = styleHeadLines(s)
	}
	return clip(s, width, height)
}

// styleHeadLines sets the tables' header lines in bold.
func styleHeadLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, "TEAM ") || strings.HasPrefix(l, "ID ") {
			lines[i] = styleHead.Render(l)
		}
	}
	return strings.Join(lines, "\n")
}

// teamBar draws a team's devices, one cell each (scaled past 40): its own
// quota in use (█), then borrowed (▓), then its idle quota (░); the glyphs
// tell them apart without colour.
func teamBar(t live.TeamUsage, devices int) string {
	scale := func(n int) int {
		if devices <= 40 {
			return n
		}
		return (n*40 + devices/2) / devices
	}
	own := min(t.Allocated, t.Quota)
	return styleOwn.Render(strings.Repeat("█", scale(own))) +
		styleBorrowed.Render(strings.Repeat("▓", scale(t.Borrowed))) +
		styleIdle.Render(strings.Repeat("░", scale(max(0, t.Quota-t.Allocated))))
}

// sparkline draws fractions in [0, 1] as eighth-blocks.
func sparkline(xs []float64) string {
	const ticks = "▁▂▃▄▅▆▇█"
	r := []rune(ticks)
	var b strings.Builder
	for _, x := range xs {
		i := int(x*float64(len(r)-1) + 0.5)
		b.WriteRune(r[min(max(i, 0), len(r)-1)])
	}
	return b.String()
}

// clip cuts lines to width and keeps at most height lines (0: no limit).
func clip(s string, width, height int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if height > 0 && len(lines) > height {
		more := len(lines) - height + 1
		lines = append(lines[:height-1], fmt.Sprintf("… %d more lines", more))
	}
	if width > 0 {
		for i, l := range lines {
			if lipgloss.Width(l) > width {
				lines[i] = lipgloss.NewStyle().MaxWidth(width).Render(l)
			}
		}
	}
	return strings.Join(lines, "\n") + "\n"
}
