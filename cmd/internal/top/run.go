package top

import (
	"io"
	"os"
	"time"

	"github.com/allot-sim/allot/live"
	tea "github.com/charmbracelet/bubbletea"
	"golang.org/x/term"
)

// Options are allot top's: what it looks at and how often.
type Options struct {
	Remote live.Remote
	Where  string // names the remote in the dashboard
	Every  time.Duration
	Once   bool // one plain frame, then return
}

// LookError is a look through the remote that failed (or a plain frame
// that could not be written), as Plain returns it: the caller words it
// as the remote's answer.
type LookError struct{ Err error }

func (e *LookError) Error() string { return e.Err.Error() }
func (e *LookError) Unwrap() error { return e.Err }

// Run is allot top on out: one plain frame with o.Once; a plain frame
// every o.Every when out is not a terminal; else the dashboard, reading
// its keys from in, until q, Esc or Ctrl-C.
func Run(out io.Writer, in io.Reader, o Options) error {
	fetch := func() Data { return Fetch(o.Remote) }
	d := fetch()
	if d.Err != nil {
		return &LookError{d.Err}
	}
	if o.Once {
		_, err := io.WriteString(out, Frame(d, nil, 0, 0, false))
		return err
	}
	if f, ok := out.(*os.File); !ok || !term.IsTerminal(int(f.Fd())) {
		if err := Plain(out, fetch, d, o.Every); err != nil {
			return &LookError{err}
		}
		return nil
	}
	m := NewModel(fetch, o.Where, o.Every, d)
	_, err := tea.NewProgram(m, tea.WithAltScreen(), tea.WithOutput(out), tea.WithInput(in)).Run()
	return err
}
