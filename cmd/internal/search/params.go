package search

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// tuneParam is one --param: where it writes and the levels it may take.
type tuneParam struct {
	path string
	knob planner.Knob
}

// parseParam reads PATH=MIN..MAX (numbers, percentages or durations) or
// PATH=a|b|c.
func parseParam(s string) (tuneParam, error) {
	path, rng, ok := strings.Cut(s, "=")
	if !ok || path == "" || rng == "" {
		return tuneParam{}, fmt.Errorf("--param %q: want PATH=MIN..MAX or PATH=a|b|c", s)
	}
	p := tuneParam{path: path, knob: planner.Knob{Name: path}}
	lo, hi, isRange := strings.Cut(rng, "..")
	if !isRange {
		p.knob.Levels = strings.Split(rng, "|")
		if slices.Contains(p.knob.Levels, "") {
			return p, fmt.Errorf("--param %q: an empty choice", s)
		}
		return p, nil
	}
	p.knob.Ordered = true
	read, format, err := unitOf(lo)
	if err != nil {
		return p, fmt.Errorf("--param %q: %w", s, err)
	}
	a, errA := read(lo)
	b, errB := read(hi)
	if errA != nil || errB != nil {
		return p, fmt.Errorf("--param %q: MIN and MAX must be in the same units (a number, a percentage like 50%% or a duration like 30m)", s)
	}
	if b < a {
		return p, fmt.Errorf("--param %q: MAX is below MIN", s)
	}
	whole := a == math.Trunc(a) && b == math.Trunc(b)
	n := 9
	if whole && b-a < 9 {
		n = int(b-a) + 1
	}
	for i := range n {
		v := a
		if n > 1 {
			v = a + (b-a)*float64(i)/float64(n-1)
		}
		if whole {
			v = math.Round(v)
		}
		if l := format(v); len(p.knob.Levels) == 0 || p.knob.Levels[len(p.knob.Levels)-1] != l {
			p.knob.Levels = append(p.knob.Levels, l)
		}
	}
	return p, nil
}

// unitOf says how a range bound reads and how a level is written back.
func unitOf(v string) (read func(string) (float64, error), format func(float64) string, err error) {
	num := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	switch {
	case strings.HasSuffix(v, "%"):
		return func(s string) (float64, error) {
				if !strings.HasSuffix(s, "%") {
					return 0, fmt.Errorf("not a percentage")
				}
				return num(strings.TrimSuffix(s, "%"))
			}, func(x float64) string {
				return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) + "%"
			}, nil
	case strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0:
		if _, err := scenarios.ParseDuration(v); err != nil {
			return nil, nil, fmt.Errorf("%q is not a number, a percentage or a duration", v)
		}
		return scenarios.ParseDuration, formatDuration, nil
	}
	if _, err := num(v); err != nil {
		return nil, nil, fmt.Errorf("%q is not a number, a percentage or a duration", v)
	}
	return num, func(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64) }, nil
}

// formatDuration writes whole seconds in the largest unit that divides
// them: 2h, 45m, 90s.
func formatDuration(s float64) string {
	n := int64(math.Round(s))
	for _, u := range []struct {
		secs int64
		unit string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if n != 0 && n%u.secs == 0 {
			return fmt.Sprintf("%d%s", n/u.secs, u.unit)
		}
	}
	return fmt.Sprintf("%ds", n)
}
