package reports

// series integrates a piecewise-constant rate over time into buckets.
// Integration is lazy: a value is settled only when its rate changes.
type series struct {
	rate float64
	last float64
	b    []float64
}

// grid is the bucket layout of a run: bucket k covers [t0+k·w, t0+(k+1)·w),
// with the window start on a boundary.
type grid struct {
	t0, w, end float64
	n          int
	first      int // first bucket inside the window
}

func newGrid(warmup, horizon, w float64) grid {
	k := 0
	for float64(k)*w < warmup {
		k++
	}
	t0 := warmup - float64(k)*w
	n := k
	for t0+float64(n)*w < horizon {
		n++
	}
	return grid{t0: t0, w: w, end: horizon, n: n, first: k}
}

func (g *grid) newSeries() *series { return &series{b: make([]float64, g.n)} }

// span returns the start and end of bucket k, clipped to the run.
func (g *grid) span(k int) (float64, float64) {
	s := g.t0 + float64(k)*g.w
	e := s + g.w
	if e > g.end {
		e = g.end
	}
	if s < 0 {
		s = 0
	}
	return s, e
}

// addRange adds rate × time over [from, to) into the buckets.
func (g *grid) addRange(b []float64, from, to, rate float64) {
	if rate == 0 || to <= from {
		return
	}
	if from < g.t0 {
		from = g.t0
	}
	if to > g.end {
		to = g.end
	}
	if from >= to {
		return
	}
	k := int((from - g.t0) / g.w)
	if k < 0 {
		k = 0
	}
	be := g.t0 + float64(k+1)*g.w
	if be <= from { // float edge
		k++
		be = g.t0 + float64(k+1)*g.w
	}
	for k < g.n {
		e := min(to, be)
		b[k] += rate * (e - from)
		if e >= to {
			return
		}
		// The next piece starts on a boundary, in the next bucket: the
		// division would give k+1, or k with the edge fix taking it on.
		from, k = e, k+1
		be = g.t0 + float64(k+1)*g.w
	}
}

// set changes the rate at time t.
func (g *grid) set(s *series, t, rate float64) {
	if rate == s.rate {
		return // the open segment simply continues
	}
	g.addRange(s.b, s.last, t, s.rate)
	s.last, s.rate = t, rate
}

// add changes the rate by delta at time t.
func (g *grid) add(s *series, t, delta float64) { g.set(s, t, s.rate+delta) }

// flush settles a series up to the end of the run.
func (g *grid) flush(s *series) {
	g.addRange(s.b, s.last, g.end, s.rate)
	s.last = g.end
}

// window sums a series over the window buckets.
func (g *grid) window(s *series) float64 {
	sum := 0.0
	for k := g.first; k < g.n; k++ {
		sum += s.b[k]
	}
	return sum
}
