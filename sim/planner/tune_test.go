package planner

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/require"
)

func levels(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprint(i)
	}
	return out
}

func TestTunerClimbsToTheBestFeasibleSettingOfAUnimodalObjective(t *testing.T) {
	knobs := []Knob{{Name: "x", Levels: levels(17), Ordered: true}, {Name: "y", Levels: levels(17), Ordered: true}, {Name: "mode", Levels: []string{"a", "b", "c"}}}
	tu, err := NewTuner(knobs, 40)
	require.NoError(t, err)
	sims := 0
	require.NoError(t, RunTuner(tu, func(cs []Candidate) ([]Score, error) {
		out := make([]Score, len(cs))
		for i, c := range cs {
			sims++
			x, y := float64(c[0]), float64(c[1])
			v := -(x-11)*(x-11) - (y-3)*(y-3)
			if c[2] == 1 {
				v += 5 // mode b is better everywhere
			}
			// Feasible only with x + y >= 15: the unconstrained best
			// (11, 3) is out; the best feasible is (12, 3) or (11, 4).
			out[i] = Score{Feasible: c[0]+c[1] >= 15, Misses: max(0, 15-c[0]-c[1]), Value: v}
		}
		return out, nil
	}))
	best, score, ok := tu.Best()
	require.True(t, ok)
	require.Equal(t, 4.0, score.Value, "(12, 3) or (11, 4): -1 + 5")
	require.Equal(t, 1, best[2], "mode b")
	require.Equal(t, 15, best[0]+best[1])
	require.Less(t, sims, 17*17*3/4, "candidates simulated")
	require.Equal(t, sims, len(tu.Simulated()))
}

func TestTunerReplayedFromItsScoresAsksForTheSameRounds(t *testing.T) {
	knobs := []Knob{{Name: "x", Levels: levels(9), Ordered: true}, {Name: "y", Levels: levels(5), Ordered: true}}
	score := func(c Candidate) Score {
		return Score{Feasible: c[1] > 0, Value: float64(c[0]*c[1]) - float64(c[0]*c[0])/3}
	}
	first, err := NewTuner(knobs, 10)
	require.NoError(t, err)
	var rounds [][]Candidate
	require.NoError(t, RunTuner(first, func(cs []Candidate) ([]Score, error) {
		rounds = append(rounds, cs)
		out := make([]Score, len(cs))
		for i, c := range cs {
			out[i] = score(c)
		}
		return out, nil
	}))
	again, err := NewTuner(knobs, 10)
	require.NoError(t, err)
	for _, want := range rounds {
		got := again.Next()
		require.Equal(t, want, got)
		ss := make([]Score, len(got))
		for i, c := range got {
			ss[i] = score(c)
		}
		again.Record(got, ss)
	}
	require.Empty(t, again.Next())
	b1, _, _ := first.Best()
	b2, _, _ := again.Best()
	require.Equal(t, b1, b2)
}
