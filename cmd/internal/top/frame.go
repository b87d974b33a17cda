package top

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/allot-sim/allot/live"
	"github.com/charmbracelet/lipgloss"
)

var (
	styleOwn      = lipgloss.NewStyle().Foreground(lipgloss.Color("2"))
	styleBorrowed = lipgloss.NewStyle().Foreground(lipgloss.Color("3"))
	styleIdle     = lipgloss.NewStyle().Foreground(lipgloss.Color("8"))
	styleHead     = lipgloss.NewStyle().Bold(true)
)

// Frame renders one look: with styled, utilisation and per-team bars
// and the utilisation history; width and height (0: unbounded) clip it.
func Frame(d Data, util []float64, width, height int, styled bool) string {
	o := &d.Overview
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
	if len(d.Jobs) > 0 {
		b.WriteString("\n")
		tw = tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tNAME\tTEAM\tCLASS\tSTATE\tACC\tDEVICES\tFOR\tREASON")
		p := live.Printable // names and reasons are others' text, on this terminal
		for _, v := range d.Jobs {
			since := v.Submitted
			if v.State == live.StateRunning && v.Started != nil {
				since = *v.Started
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p(v.ID), p(v.Name), p(v.Team), p(v.PriorityClass), p(v.State), v.Accelerators,
				p(strings.Join(v.Devices, ",")), d.At.Sub(since).Round(time.Second), p(v.Reason))
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
