package reports

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPercentileIsNearestRank(t *testing.T) {
	xs := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	assert.Equal(t, 5.0, percentile(xs, 50))
	assert.Equal(t, 10.0, percentile(xs, 95), "ceil(9.5) = 10th value")
	assert.Equal(t, 9.0, percentile(xs, 90))
	assert.Equal(t, 1.0, percentile(xs, 0))
	assert.Equal(t, 0.0, percentile(nil, 50))
}

func TestCountHistPercentilesMatchTheSortedList(t *testing.T) {
	counts := []int{0, 0, 0, 0, 1, 1, 2, 5, 5, 9, 0, 3}
	var h countHist
	var xs []float64
	for _, c := range counts {
		h.add(c)
		xs = append(xs, float64(c))
	}
	sortFloats(xs)
	for _, p := range []float64{0, 10, 50, 90, 95, 99, 100} {
		assert.Equal(t, percentile(xs, p), h.percentile(p), "p%g", p)
	}
}

func sortFloats(xs []float64) {
	s := samples{}
	for _, x := range xs {
		s.add(x)
	}
	copy(xs, s.values())
}

func TestSamplesKeepEveryValueAcrossChunks(t *testing.T) {
	var s samples
	n := 100000
	for i := n; i > 0; i-- {
		s.add(float64(i))
	}
	v := s.values()
	require.Len(t, v, n)
	assert.Equal(t, 1.0, v[0])
	assert.Equal(t, float64(n), v[n-1])
	assert.Greater(t, len(v), 256*4, "more than the first chunks")
}

func TestJainIsOneForEqualSharesAndOneOverNForOneWinner(t *testing.T) {
	assert.InDelta(t, 1.0, jain([]float64{2, 2, 2, 2}), 1e-12)
	assert.InDelta(t, 0.25, jain([]float64{1, 0, 0, 0}), 1e-12)
	assert.Equal(t, 0.0, jain(nil))
}

func TestKSDistanceOfSamplesIsTheLargestCDFGap(t *testing.T) {
	assert.Equal(t, 0.0, ksDistance([]float64{1, 2, 3}, []float64{1, 2, 3}))
	assert.Equal(t, 1.0, ksDistance([]float64{1, 2}, []float64{5, 6}))
	assert.InDelta(t, 0.5, ksDistance([]float64{1, 2, 3, 4}, []float64{3, 4, 5, 6}), 1e-12)
	assert.True(t, math.IsNaN(ksDistance(nil, []float64{1})))
}

func TestGridAddRangeSplitsAcrossBuckets(t *testing.T) {
	g := newGrid(0, 100, 10)
	b := make([]float64, g.n)
	g.addRange(b, 5, 25, 2) // 5 s in bucket 0, 10 in 1, 5 in 2, at rate 2
	assert.Equal(t, []float64{10, 20, 10, 0, 0, 0, 0, 0, 0, 0}, b)
	s := g.newSeries()
	g.set(s, 0, 1)
	g.set(s, 15, 1) // unchanged rate: the segment continues
	g.set(s, 30, 3)
	g.flush(s)
	assert.Equal(t, []float64{10, 10, 10, 30, 30, 30, 30, 30, 30, 30}, s.b)
}

// The lent integral equals the brute-force sum of idle × frac over time.
func TestLentIntegralMatchesIdleTimesFractionOverTime(t *testing.T) {
	g := newGrid(0, 100, 10)
	f := newFracIntegral(&g)
	var seg lentSegment
	got := make([]float64, g.n)
	want := make([]float64, g.n)
	type step struct{ t, frac, idle float64 }
	steps := []step{{0, 0.5, 4}, {7, 0.25, 4}, {23, 0.25, 2}, {23, 1, 2}, {61, 0, 6}, {99, 0.5, 6}}
	f.open(&seg, 0)
	for i, s := range steps {
		f.advance(s.t, s.frac)
		if i == 0 || s.idle != steps[i-1].idle {
			f.close(&seg, got)
			f.open(&seg, s.idle)
		}
		end := 100.0
		if i+1 < len(steps) {
			end = steps[i+1].t
		}
		g.addRange(want, s.t, end, s.frac*s.idle)
	}
	f.advance(100, 0)
	f.close(&seg, got)
	for k := range want {
		assert.InDelta(t, want[k], got[k], 1e-9, "bucket %d", k)
	}
}

func TestWaitStatsOfSortedListsAreThoseOfTheirMerge(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, sizes := range [][]int{{}, {0, 0}, {1}, {3, 0, 7}, {500, 1, 20000, 0, 333}} {
		var lists [][]float64
		var all []float64
		for _, n := range sizes {
			l := make([]float64, n)
			for i := range l {
				if rng.IntN(10) >= 6 { // most waits are 0
					l[i] = math.Round(rng.ExpFloat64()*3600*100) / 100
				}
			}
			slices.Sort(l)
			lists = append(lists, l)
			all = append(all, l...)
		}
		slices.Sort(all)
		var want WaitStats
		if n := len(all); n > 0 {
			want = WaitStats{Mean: mean(all), P50: percentile(all, 50), P95: percentile(all, 95), P99: percentile(all, 99), Max: all[n-1]}
		}
		got := waitStats(lists)
		assert.Equal(t, math.Float64bits(want.Mean), math.Float64bits(got.Mean), "mean of %v: sums in ascending order", sizes)
		assert.Equal(t, want, got, "sizes %v", sizes)
	}
}

// The end of a 1M-job run sums 20 teams' sorted waits, most of them 0.
func BenchmarkWaitStats20x50k(b *testing.B) {
	x := uint64(88172645463325252)
	lists := make([][]float64, 20)
	for i := range lists {
		l := make([]float64, 50000)
		for k := range l {
			x ^= x << 13
			x ^= x >> 7
			x ^= x << 17
			if x%10 >= 6 {
				l[k] = float64(x % 100000)
			}
		}
		slices.Sort(l)
		lists[i] = l
	}
	b.ResetTimer()
	for range b.N {
		waitStats(lists)
	}
}

// addRangeByDivision is addRange as it was first written: each piece's
// bucket found by a division. The faster one must put every piece in the
// same bucket, to the bit, so that outputs do not move.
func addRangeByDivision(g *grid, b []float64, from, to, rate float64) {
	if rate == 0 || to <= from {
		return
	}
	from, to = max(from, g.t0), min(to, g.end)
	for from < to {
		k := int((from - g.t0) / g.w)
		if k >= g.n {
			return
		}
		k = max(k, 0)
		be := g.t0 + float64(k+1)*g.w
		if be <= from { // float edge
			if k++; k >= g.n {
				return
			}
			be = g.t0 + float64(k+1)*g.w
		}
		e := min(to, be)
		b[k] += rate * (e - from)
		from = e
	}
}

func TestAddRangePutsEveryPieceInTheBucketADivisionWould(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, g := range []grid{newGrid(0, 3600*50, 3600), newGrid(7200, 1e6, 600), newGrid(0.1, 99.7, 0.3)} {
		got, want := make([]float64, g.n), make([]float64, g.n)
		span := g.end - g.t0
		for i := 0; i < 20000; i++ {
			from := g.t0 - span*0.05 + rng.Float64()*span*1.1
			to := from + rng.ExpFloat64()*g.w*float64(1+rng.IntN(5))
			if i%3 == 0 { // start or end on a boundary, as computed
				from = g.t0 + float64(rng.IntN(g.n+1))*g.w
			}
			if i%5 == 0 {
				to = g.t0 + float64(rng.IntN(g.n+1))*g.w
			}
			rate := rng.Float64() * 8
			g.addRange(got, from, to, rate)
			addRangeByDivision(&g, want, from, to, rate)
		}
		for k := range want {
			if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
				t.Fatalf("grid %+v bucket %d: %v, want %v", g, k, got[k], want[k])
			}
		}
	}
}

func TestRadixSortOrdersFloatsAsSortFloat64sDoes(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{0, 1, 4095, 4096, 50000} {
		xs := make([]float64, n)
		for i := range xs {
			switch i % 7 {
			case 0:
				xs[i] = -rng.ExpFloat64() * 1e3
			case 1:
				xs[i] = math.Inf(1 - 2*(i%2))
			case 2:
				xs[i] = float64(rng.IntN(5)) // repeats
			case 3:
				xs[i] = math.NaN()
			default:
				xs[i] = rng.ExpFloat64() * 3600
			}
		}
		want := slices.Clone(xs)
		slices.SortFunc(want, func(a, b float64) int { // sort.Float64s's order
			switch {
			case a < b || (math.IsNaN(a) && !math.IsNaN(b)):
				return -1
			case b < a || (math.IsNaN(b) && !math.IsNaN(a)):
				return 1
			}
			return 0
		})
		var scratch []uint64
		sortFloat64s(xs, &scratch)
		for i := range want {
			if math.Float64bits(xs[i]) != math.Float64bits(want[i]) && !(math.IsNaN(xs[i]) && math.IsNaN(want[i])) {
				t.Fatalf("n=%d: at %d got %v, want %v", n, i, xs[i], want[i])
			}
		}
	}
}
