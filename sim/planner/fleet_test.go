package planner

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"
)

// monotoneCase is a grid whose capacity verdict is an up-set (the union of
// cones above random fleets) and whose other verdict is a down-set (the
// union of cones below random fleets), as the search assumes.
type monotoneCase struct {
	sp        Space
	up, down  []Point
	simulated int
}

func (c *monotoneCase) verdict(p Point) Verdict {
	v := Verdict{}
	for _, u := range c.up {
		v.Capacity = v.Capacity || leq(u, p)
	}
	for _, d := range c.down {
		v.Rest = v.Rest || leq(p, d)
	}
	return v
}

func randomCase(r *rand.Rand) *monotoneCase {
	c := &monotoneCase{}
	dims := 1 + r.IntN(3)
	for i := range dims {
		step := 1 + r.IntN(3)
		lo := r.IntN(4)
		c.sp.Dims = append(c.sp.Dims, Dim{Type: string(rune('a' + i)), Min: lo, Max: lo + step*r.IntN(12), Step: step, Price: float64(1 + r.IntN(9))})
	}
	c.sp.Fixed = float64(r.IntN(5))
	grid := c.sp.Grid()
	for range 1 + r.IntN(4) {
		c.up = append(c.up, grid[r.IntN(len(grid))])
	}
	for range 1 + r.IntN(4) {
		c.down = append(c.down, grid[r.IntN(len(grid))])
	}
	if r.IntN(4) == 0 {
		c.down = append(c.down, grid[len(grid)-1]) // no down-set constraint
	}
	return c
}

func (c *monotoneCase) search(t *testing.T, width int) (Point, bool, *Search) {
	s, err := NewSearch(c.sp, width)
	require.NoError(t, err)
	require.NoError(t, Run(s, func(ps []Point) ([]Verdict, error) {
		c.simulated += len(ps)
		out := make([]Verdict, len(ps))
		for i, p := range ps {
			out[i] = c.verdict(p)
		}
		return out, nil
	}))
	best, ok := s.Best()
	return best, ok, s
}

func TestSearchFindsTheBruteForceOptimumOnMonotoneGrids(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	for n := range 3000 {
		c := randomCase(r)
		want, wantOK := c.sp.Cheapest(c.sp.Grid(), func(p Point) bool { return c.verdict(p).Met() })
		for _, width := range []int{1, 4} {
			got, ok, _ := c.search(t, width)
			require.Equal(t, wantOK, ok, "case %d width %d: %+v up %v down %v", n, width, c.sp, c.up, c.down)
			require.Equal(t, want, got, "case %d width %d: %+v up %v down %v", n, width, c.sp, c.up, c.down)
		}
	}
}

func TestSearchSimulatesFarFewerFleetsThanTheGrid(t *testing.T) {
	// Two types of 121 and 151 counts: an 18,271-point grid whose
	// capacity frontier is the line 3a + 2b >= 400.
	sp := Space{Dims: []Dim{{Type: "p5", Min: 0, Max: 120, Step: 1, Price: 55.04}, {Type: "p4d", Min: 0, Max: 150, Step: 1, Price: 21.96}}}
	s, err := NewSearch(sp, 4)
	require.NoError(t, err)
	sims := 0
	require.NoError(t, Run(s, func(ps []Point) ([]Verdict, error) {
		sims += len(ps)
		out := make([]Verdict, len(ps))
		for i, p := range ps {
			out[i] = Verdict{Capacity: 3*p[0]+2*p[1] >= 400, Rest: true}
		}
		return out, nil
	}))
	best, ok := s.Best()
	require.True(t, ok)
	// 3a + 2b >= 400 at the least cost: b is cheaper per unit of capacity
	// (21.96/2 < 55.04/3): 34 P5 (102) and 149 P4d (298).
	require.Equal(t, Point{34, 149}, best)
	require.Equal(t, 18271, sp.GridPoints())
	t.Logf("%d fleets simulated of %d", sims, sp.GridPoints())
	require.LessOrEqual(t, sims, 100, "fleets simulated")
	require.Equal(t, sims, len(s.Simulated()))
}

func TestSearchReplayedFromItsVerdictsAsksForTheSameRounds(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	c := randomCase(r)
	for len(c.sp.Dims) < 2 {
		c = randomCase(r)
	}
	first, err := NewSearch(c.sp, 3)
	require.NoError(t, err)
	var rounds [][]Point
	require.NoError(t, Run(first, func(ps []Point) ([]Verdict, error) {
		rounds = append(rounds, ps)
		out := make([]Verdict, len(ps))
		for i, p := range ps {
			out[i] = c.verdict(p)
		}
		return out, nil
	}))
	again, err := NewSearch(c.sp, 3)
	require.NoError(t, err)
	for _, want := range rounds {
		got := again.Next()
		require.Equal(t, want, got)
		vs := make([]Verdict, len(got))
		for i, p := range got {
			vs[i] = c.verdict(p)
		}
		again.Record(got, vs)
	}
	require.Empty(t, again.Next())
}

func TestNewSearchRejectsAnUnpricedType(t *testing.T) {
	_, err := NewSearch(Space{Dims: []Dim{{Type: "p5e.48xlarge", Min: 0, Max: 4, Step: 1}}}, 1)
	require.EqualError(t, err, "p5e.48xlarge: price must be > 0 to size it by cost, got 0")
}
