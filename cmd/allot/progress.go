package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// progress draws a bar on a terminal; it is silent when not a terminal.
type progress struct {
	w     io.Writer
	on    bool
	label string
	last  int
}

func newProgress(w io.Writer, quiet bool, label string) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, on: !quiet && ok && term.IsTerminal(int(f.Fd())), label: label, last: -1}
}

func (p *progress) update(frac float64, detail string) {
	if !p.on {
		return
	}
	pct := int(frac * 100)
	if pct == p.last {
		return
	}
	p.last = pct
	const width = 30
	n := int(frac * width)
	if n > width {
		n = width
	}
	fmt.Fprintf(p.w, "\r%s [%s%s] %3d%% %s ", p.label, strings.Repeat("=", n), strings.Repeat(" ", width-n), pct, detail)
}

func (p *progress) done() {
	if p.on && p.last >= 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

// fmtDays formats simulated seconds as days.
func fmtDays(s float64) string { return fmt.Sprintf("%.1fd", s/86400) }
