package sim

import (
	"math"
	"slices"
	"testing"

	"github.com/allot-sim/allot/workload"
)

// A job keeps what its record passes through from a replayed trace (the
// original start, end and status, and the extra columns) exactly, and a
// synthetic job, which has none of them, keeps no room for them.
func TestAJobKeepsItsTracesOriginalColumnsAndRoomOnlyWhenItHasThem(t *testing.T) {
	nan := math.NaN()
	cases := []struct {
		name  string
		in    workload.Job
		room  bool
		start float64
		end   float64
	}{
		{"replayed", workload.Job{OrigStart: 10, OrigEnd: 70, OrigStatus: "Succeeded", Extra: []string{"a", ""}}, true, 10, 70},
		{"start only", workload.Job{OrigStart: 5, OrigEnd: nan}, true, 5, nan},
		{"extra columns, all empty", workload.Job{OrigStart: nan, OrigEnd: nan, Extra: []string{}}, true, nan, nan},
		{"synthetic", workload.Job{OrigStart: nan, OrigEnd: nan}, false, nan, nan},
	}
	same := func(a, b float64) bool { return a == b || math.IsNaN(a) && math.IsNaN(b) }
	for _, c := range cases {
		c.in.ID, c.in.User, c.in.Class, c.in.Submit, c.in.Accelerators = "j1", "u", "train", 3, 8
		c.in.Duration, c.in.CheckpointInterval = 600, 60
		var a arrival
		a.set(&c.in)
		if (a.orig != nil) != c.room {
			t.Errorf("%s: room for original columns %v, want %v", c.name, a.orig != nil, c.room)
		}
		start, end, status, extra := a.originals()
		if !same(start, c.start) || !same(end, c.end) || status != c.in.OrigStatus ||
			!slices.Equal(extra, c.in.Extra) || (extra == nil) != (c.in.Extra == nil) {
			t.Errorf("%s: original (%v, %v, %q, %#v), want (%v, %v, %q, %#v)", c.name,
				start, end, status, extra, c.start, c.end, c.in.OrigStatus, c.in.Extra)
		}
		if a.ID != "j1" || a.User != "u" || a.Class != "train" || a.Submit != 3 || a.Accelerators != 8 ||
			a.Duration != 600 || a.CheckpointInterval != 60 {
			t.Errorf("%s: kept %+v", c.name, a)
		}
	}
}
