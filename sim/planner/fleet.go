package planner

import (
	"fmt"
	"slices"
	"strings"
)

// Dim is one instance type the search varies: node counts Min, Min+Step,
// ..., up to Max, at Price per node-hour.
type Dim struct {
	Type           string
	Min, Max, Step int
	Price          float64
}

// Values is the number of counts the dimension takes.
func (d Dim) Values() int { return (d.Max-d.Min)/d.Step + 1 }

// Count is the node count at index i.
func (d Dim) Count(i int) int { return d.Min + i*d.Step }

// Space is the grid searched: the varied types, and the hourly cost of the
// nodes it does not vary.
type Space struct {
	Dims  []Dim
	Fixed float64
}

// GridPoints is the number of fleets in the full grid.
func (sp Space) GridPoints() int {
	n := 1
	for _, d := range sp.Dims {
		n *= d.Values()
	}
	return n
}

// Point is a fleet: a node count per dimension.
type Point []int

func (p Point) key() string { return intsKey(p) }

// intsKey names a list of whole numbers as a map key: "3,0,12".
func intsKey(xs []int) string {
	var b strings.Builder
	for i, v := range xs {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprint(&b, v)
	}
	return b.String()
}

// Cost is the fleet's hourly cost.
func (sp Space) Cost(p Point) float64 {
	c := sp.Fixed
	for i, d := range sp.Dims {
		c += float64(p[i]) * d.Price
	}
	return c
}

// better orders fleets: cheaper, then fewer nodes, then the smaller counts
// first dimension first, so that the optimum is one fleet.
func (sp Space) better(a, b Point) bool {
	ca, cb := sp.Cost(a), sp.Cost(b)
	if ca != cb {
		return ca < cb
	}
	na, nb := 0, 0
	for i := range a {
		na, nb = na+a[i], nb+b[i]
	}
	if na != nb {
		return na < nb
	}
	return slices.Compare(a, b) < 0
}

// Verdict is what simulating a fleet on every seed said.
type Verdict struct {
	// Capacity: every objective that more nodes help (waits, the
	// unstarted share, goodput) met on every seed.
	Capacity bool
	// Rest: every other objective (utilisation, cost, those whose
	// direction is unknown) met on every seed.
	Rest bool
}

// Met says the fleet meets every objective.
func (v Verdict) Met() bool { return v.Capacity && v.Rest }

// Search finds the cheapest fleet of a Space meeting every objective, in
// rounds. Rows are the combinations of all dimensions but the last; along
// the last, counts are bisected for the fewest nodes that meet the
// capacity objectives, between bounds that the verdicts already recorded
// imply, and never above what the best fleet so far costs.
type Search struct {
	sp    Space
	width int
	known map[string]Verdict
	seen  []Point // in the order first recorded
	rows  []Point // row prefixes, in visiting order
	next  int     // first row not yet started
	live  []*row
	best  Point
	round int
}

// row is the bisection of one row: the fewest nodes of the last dimension,
// as an index in [lo, hi]; hiOK says hi is known to meet the capacity
// objectives.
type row struct {
	prefix Point
	lo, hi int
	hiOK   bool
	begun  bool
}

// NewSearch starts a search over sp that asks for at most width fleets
// per round.
func NewSearch(sp Space, width int) (*Search, error) {
	if len(sp.Dims) == 0 {
		return nil, fmt.Errorf("no instance type to vary")
	}
	for _, d := range sp.Dims {
		switch {
		case d.Step < 1:
			return nil, fmt.Errorf("%s: step must be >= 1, got %d", d.Type, d.Step)
		case d.Min < 0 || d.Max < d.Min:
			return nil, fmt.Errorf("%s: want 0 <= min <= max, got %d..%d", d.Type, d.Min, d.Max)
		case !(d.Price > 0):
			return nil, fmt.Errorf("%s: price must be > 0 to size it by cost, got %g", d.Type, d.Price)
		}
	}
	s := &Search{sp: sp, width: max(width, 1), known: map[string]Verdict{}}
	s.rows = rowOrder(sp.Dims[:len(sp.Dims)-1])
	return s, nil
}

// rowOrder lists every combination of the dimensions' counts coarse to
// fine: the middle of each range first, then the quarters, and so on, so
// that early rows bound later ones from both sides.
func rowOrder(dims []Dim) []Point {
	type ranked struct {
		p     Point
		level int
	}
	all := []ranked{{p: Point{}}}
	for _, d := range dims {
		var grown []ranked
		for _, r := range all {
			for i := range d.Values() {
				grown = append(grown, ranked{p: append(slices.Clone(r.p), d.Count(i)), level: max(r.level, depth(i, d.Values()))})
			}
		}
		all = grown
	}
	slices.SortStableFunc(all, func(a, b ranked) int { return a.level - b.level })
	out := make([]Point, len(all))
	for i, r := range all {
		out[i] = r.p
	}
	return out
}

// depth is the round of halving in which index i of n is first reached:
// the middle at 0, the quarters at 1, ...
func depth(i, n int) int {
	lo, hi := 0, n-1
	for d := 0; ; d++ {
		if lo > hi {
			return d
		}
		mid := (lo + hi) / 2
		switch {
		case i == mid:
			return d
		case i < mid:
			hi = mid - 1
		default:
			lo = mid + 1
		}
	}
}

// Next returns the fleets the next round needs simulated; none when the
// search is over.
func (s *Search) Next() []Point {
	var out []Point
	asked := map[string]bool{}
	for {
		for len(s.live) < s.width && s.next < len(s.rows) {
			s.live = append(s.live, s.start(s.rows[s.next]))
			s.next++
		}
		if len(s.live) == 0 {
			return out
		}
		var keep []*row
		for _, r := range s.live {
			if p, done := s.step(r); !done {
				if !asked[p.key()] {
					asked[p.key()] = true
					out = append(out, p)
				}
				keep = append(keep, r)
			}
		}
		s.live = keep
		if len(out) > 0 {
			s.round++
			return out
		}
	}
}

func (s *Search) start(prefix Point) *row {
	last := s.sp.Dims[len(s.sp.Dims)-1]
	return &row{prefix: prefix, lo: 0, hi: last.Values() - 1}
}

func (s *Search) at(r *row, i int) Point {
	return append(slices.Clone(r.prefix), s.sp.Dims[len(s.sp.Dims)-1].Count(i))
}

// step advances a row as far as recorded verdicts allow: it returns the
// fleet the row needs simulated, or done when the row can hold no fleet
// better than the best so far.
func (s *Search) step(r *row) (need Point, done bool) {
	for {
		s.tighten(r)
		if r.lo > r.hi {
			return nil, true // nothing in the row meets the capacity objectives
		}
		top := r.hi
		if s.best != nil {
			for top >= r.lo && !s.sp.better(s.at(r, top), s.best) {
				top--
			}
		}
		if top < r.lo {
			return nil, true
		}
		if !r.hiOK || top < r.hi {
			// Does anything up to what is worth paying meet the capacity
			// objectives?
			v, ok := s.verdict(s.at(r, top))
			if !ok {
				return s.at(r, top), false
			}
			if !v.Capacity {
				return nil, true
			}
			r.hi, r.hiOK = top, true
			continue
		}
		if r.lo == r.hi {
			s.consider(s.at(r, r.hi))
			return nil, true
		}
		mid := (r.lo + r.hi) / 2
		v, ok := s.verdict(s.at(r, mid))
		if !ok {
			return s.at(r, mid), false
		}
		if v.Capacity {
			r.hi = mid
		} else {
			r.lo = mid + 1
		}
	}
}

// tighten narrows a row by every verdict recorded: a fleet meeting the
// capacity objectives bounds the rows above it from above, one missing
// them bounds the rows below it from below.
func (s *Search) tighten(r *row) {
	last := len(s.sp.Dims) - 1
	d := s.sp.Dims[last]
	for _, p := range s.seen {
		v := s.known[p.key()]
		i := (p[last] - d.Min) / d.Step
		switch {
		case v.Capacity && leq(p[:last], r.prefix) && i < r.hi:
			r.hi, r.hiOK = i, true
		case v.Capacity && leq(p[:last], r.prefix) && i == r.hi:
			r.hiOK = true
		case !v.Capacity && leq(r.prefix, p[:last]) && i+1 > r.lo:
			r.lo = i + 1
		}
	}
	if r.lo > r.hi && r.hiOK {
		r.lo = r.hi // the verdicts disagree with monotonicity; trust hi
	}
}

func leq(a, b Point) bool {
	for i := range a {
		if a[i] > b[i] {
			return false
		}
	}
	return true
}

// verdict is a fleet's recorded verdict.
func (s *Search) verdict(p Point) (Verdict, bool) {
	v, ok := s.known[p.key()]
	return v, ok
}

// consider offers a row's fewest nodes as the answer. A fleet met only by
// inference has a cheaper fleet below it that was simulated: it is never
// the optimum, so only simulated fleets are taken.
func (s *Search) consider(p Point) {
	v, ok := s.known[p.key()]
	if ok && v.Met() && (s.best == nil || s.sp.better(p, s.best)) {
		s.best = p
	}
}

// Record stores the verdicts of simulated fleets.
func (s *Search) Record(ps []Point, vs []Verdict) {
	for i, p := range ps {
		if _, ok := s.known[p.key()]; !ok {
			s.seen = append(s.seen, slices.Clone(p))
		}
		s.known[p.key()] = vs[i]
		if vs[i].Met() && (s.best == nil || s.sp.better(p, s.best)) {
			s.best = slices.Clone(p)
		}
	}
}

// Best is the cheapest fleet found to meet every objective; false when
// none in the grid does.
func (s *Search) Best() (Point, bool) { return s.best, s.best != nil }

// Simulated lists the fleets simulated, in the order recorded.
func (s *Search) Simulated() []Point { return s.seen }

// Rounds is the number of rounds that asked for fleets.
func (s *Search) Rounds() int { return s.round }

// Run drives a search to its end with an evaluator of rounds.
func Run(s *Search, eval func([]Point) ([]Verdict, error)) error {
	for {
		ps := s.Next()
		if len(ps) == 0 {
			return nil
		}
		vs, err := eval(ps)
		if err != nil {
			return err
		}
		s.Record(ps, vs)
	}
}

// Neighbours are the fleets one step cheaper than p in one dimension,
// within the grid: if any of them meets every objective, the runs
// contradict the monotonicity the search assumes.
func (sp Space) Neighbours(p Point) []Point {
	var out []Point
	for i, d := range sp.Dims {
		if p[i]-d.Step >= d.Min {
			q := slices.Clone(p)
			q[i] -= d.Step
			out = append(out, q)
		}
	}
	return out
}

// Grid lists every fleet of the space, first dimension slowest.
func (sp Space) Grid() []Point {
	out := []Point{{}}
	for _, d := range sp.Dims {
		var grown []Point
		for _, p := range out {
			for i := range d.Values() {
				grown = append(grown, append(slices.Clone(p), d.Count(i)))
			}
		}
		out = grown
	}
	return out
}

// Cheapest is the best fleet of a list that meets every objective, by
// the search's own order; false when none does. It is the brute-force
// answer the search must equal on a monotone grid.
func (sp Space) Cheapest(ps []Point, met func(Point) bool) (Point, bool) {
	var best Point
	for _, p := range ps {
		if met(p) && (best == nil || sp.better(p, best)) {
			best = p
		}
	}
	return best, best != nil
}
