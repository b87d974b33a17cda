package show

import (
	"fmt"
	"io"
	"os"
	"strings"

	"golang.org/x/term"
)

// Progress draws a bar on a terminal; it is silent when not a terminal.
type Progress struct {
	w     io.Writer
	on    bool
	label string
	last  int
}

// NewProgress is a bar labelled label on w, drawn only when w is a
// terminal and quiet is false.
func NewProgress(w io.Writer, quiet bool, label string) *Progress {
	f, ok := w.(*os.File)
	return &Progress{w: w, on: !quiet && ok && term.IsTerminal(int(f.Fd())), label: label, last: -1}
}

// Update redraws the bar at frac of the way, with detail beside it, when
// the whole percentage changed.
func (p *Progress) Update(frac float64, detail string) {
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

// Done clears the bar's line, if it drew one.
func (p *Progress) Done() {
	if p.on && p.last >= 0 {
		fmt.Fprint(p.w, "\r\033[K")
	}
}
