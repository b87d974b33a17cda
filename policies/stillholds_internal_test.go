package policies

import (
	"slices"
	"testing"
)

// The teams changed since a version are read off the ring of the latest
// changes while it reaches back that far, and off every team's stamp when
// it does not: team 4 changed once, at version 1, before 70 changes of
// teams 0 to 3 pushed it out of the ring.
func TestTeamsChangedSinceAreReadOffTheRingOrEveryTeam(t *testing.T) {
	ch := newChangeLog(5, 1)
	ch.note(4, 1)
	for v := uint64(2); v <= 71; v++ {
		ch.note(int(v%4), v)
	}
	for _, tc := range []struct {
		since uint64
		want  []int
	}{
		{71, nil},
		{70, []int{3}},            // 71 % 4
		{67, []int{0, 1, 2, 3}},   // versions 68 to 71
		{8, []int{0, 1, 2, 3}},    // 63 changes back: still in the ring
		{7, []int{0, 1, 2, 3}},    // 64 back: the ring's oldest, at 8, is newer
		{1, []int{0, 1, 2, 3}},    // past the ring: every team's stamp
		{0, []int{0, 1, 2, 3, 4}}, // team 4's change, at 1, counts
	} {
		got := ch.changedSince(tc.since, nil)
		slices.Sort(got)
		got = slices.Compact(got)
		if !slices.Equal(got, tc.want) {
			t.Errorf("since %d: %v, want %v", tc.since, got, tc.want)
		}
	}
	// A log the ring holds whole is read off it alone: 40 changes, the
	// first two of teams 2 and 3, the rest of team 0.
	small := newChangeLog(5, 1)
	small.note(2, 1)
	small.note(3, 2)
	for v := uint64(3); v <= 40; v++ {
		small.note(0, v)
	}
	got := small.changedSince(0, nil)
	slices.Sort(got)
	if got = slices.Compact(got); !slices.Equal(got, []int{0, 2, 3}) {
		t.Errorf("a log the ring holds whole: %v, want [0 2 3]", got)
	}
}
