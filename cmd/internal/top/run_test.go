package top

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/allot-sim/allot/live"
)

// looks is a remote whose Top answers from a list, then fails.
type looks struct {
	live.Remote
	overviews []live.Overview
}

var errGone = errors.New("the daemon is gone")

func (l *looks) Top() (live.Overview, []live.View, error) {
	if len(l.overviews) == 0 {
		return live.Overview{}, nil, errGone
	}
	o := l.overviews[0]
	l.overviews = l.overviews[1:]
	return o, nil, nil
}

// --once prints one plain frame; piped, a plain frame a look until a
// look fails, which is returned as a LookError, as is a first look that
// fails.
func TestRunPrintsPlainFramesUntilALookFails(t *testing.T) {
	var out bytes.Buffer
	one := Frame(Data{Overview: live.Overview{Devices: 4}}, nil, 0, 0, false)
	o := Options{Remote: &looks{overviews: []live.Overview{{Devices: 4}, {Devices: 4}}}, Every: time.Millisecond, Once: true}
	if err := Run(&out, nil, o); err != nil || out.String() != one {
		t.Errorf("--once: %v, %q", err, out.String())
	}
	out.Reset()
	o.Once = false
	o.Remote = &looks{overviews: []live.Overview{{Devices: 4}, {Devices: 4}}}
	err := Run(&out, nil, o)
	var le *LookError
	if !errors.As(err, &le) || !errors.Is(err, errGone) {
		t.Errorf("piped: %v, want a LookError", err)
	}
	if strings.Count(out.String(), one) != 2 {
		t.Errorf("piped: want 2 frames, got\n%s", out.String())
	}
	if err := Run(&out, nil, Options{Remote: &looks{}, Every: time.Millisecond}); !errors.As(err, &le) {
		t.Errorf("a first look that fails: %v, want a LookError", err)
	}
}
