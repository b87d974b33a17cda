package reports

// Lent capacity: a team lends the share frac of its idle quota, where frac
// (the part of all idle quota that others borrow beyond the unassigned
// pool) changes at every start and stop of the type, while a team's idle
// quota changes only at its own. Integrating frac once per type and each
// team's idle quota against it keeps the accounting O(1) per event instead
// of touching every team's series.

// fracIntegral is the running integral F(t) of one type's lent fraction.
type fracIntegral struct {
	g     *grid
	last  float64   // time of the last change
	rate  float64   // frac since last
	cum   float64   // F(last)
	start []float64 // F at each bucket start, known up to last
	known int       // buckets whose start is known
}

func newFracIntegral(g *grid) *fracIntegral {
	f := &fracIntegral{g: g, last: g.t0, start: make([]float64, g.n+1)}
	f.known = 1 // F(t0) = 0
	return f
}

// advance moves F to time t (≥ last) and sets the rate from t on.
func (f *fracIntegral) advance(t, rate float64) {
	t = min(max(t, f.g.t0), f.g.end)
	for f.known <= f.g.n {
		b := f.g.t0 + float64(f.known)*f.g.w
		if b > t {
			break
		}
		f.start[f.known] = f.cum + (b-f.last)*f.rate
		f.known++
	}
	if t > f.last {
		f.cum += (t - f.last) * f.rate
		f.last = t
	}
	f.rate = rate
}

// lentSegment is one team's idle quota since a time.
type lentSegment struct {
	from, fFrom float64 // start and F(start)
	idle        float64
}

// close adds idle × ∫frac over [seg.from, f.last) into the team's buckets.
func (f *fracIntegral) close(seg *lentSegment, b []float64) {
	if seg.idle == 0 || f.last <= seg.from {
		return
	}
	g := f.g
	k := min(g.n-1, max(0, int((seg.from-g.t0)/g.w)))
	kEnd := min(g.n-1, max(0, int((f.last-g.t0)/g.w)))
	lo := seg.fFrom
	for ; k < kEnd; k++ {
		b[k] += seg.idle * (f.start[k+1] - lo)
		lo = f.start[k+1]
	}
	b[k] += seg.idle * (f.cum - lo)
}

// open starts a new segment at f.last.
func (f *fracIntegral) open(seg *lentSegment, idle float64) {
	*seg = lentSegment{from: f.last, fFrom: f.cum, idle: idle}
}
