package planner

import (
	"fmt"
	"math/rand/v2"
	"slices"
)

// Knob is one setting a tuning searches: the values it may take, in
// order when Ordered (numbers, durations), else a set of choices.
type Knob struct {
	Name    string
	Levels  []string
	Ordered bool
}

// Candidate is a setting of every knob: a level index per knob.
type Candidate []int

func (c Candidate) key() string { return intsKey(c) }

// Score is what simulating a candidate on every seed said: whether every
// constraint held on every seed, how many (constraint, seed) pairs missed,
// and the objective's mean, higher better (a caller minimising negates).
type Score struct {
	Feasible bool
	Misses   int
	Value    float64
}

// better ranks scores: feasible first, then the objective; among the
// infeasible, fewer misses first.
func (a Score) better(b Score) bool {
	switch {
	case a.Feasible != b.Feasible:
		return a.Feasible
	case !a.Feasible && a.Misses != b.Misses:
		return a.Misses < b.Misses
	}
	return a.Value > b.Value
}

// Tuner searches knob settings in rounds, as Search does fleets: a first
// round of the middle setting and a spread of others (a Latin hypercube
// drawn from a fixed seed), then rounds that move each knob of the best
// setting so far by a step, halving the steps when a round finds nothing
// better. The rounds depend only on the scores recorded.
type Tuner struct {
	knobs     []Knob
	known     map[string]Score
	seen      []Candidate
	best      Candidate
	steps     []int
	round     int
	maxRounds int
	started   bool
	lastBest  string
}

// NewTuner starts a tuning of at most maxRounds rounds.
func NewTuner(knobs []Knob, maxRounds int) (*Tuner, error) {
	if len(knobs) == 0 {
		return nil, fmt.Errorf("no setting to tune")
	}
	t := &Tuner{knobs: knobs, known: map[string]Score{}, maxRounds: max(maxRounds, 1)}
	for _, k := range knobs {
		if len(k.Levels) == 0 {
			return nil, fmt.Errorf("%s: no value to try", k.Name)
		}
		t.steps = append(t.steps, max(1, (len(k.Levels)-1)/4))
	}
	return t, nil
}

// Next returns the candidates the next round needs simulated; none when
// the tuning is over.
func (t *Tuner) Next() []Candidate {
	if t.round >= t.maxRounds {
		return nil
	}
	if !t.started {
		t.started = true
		t.round++
		return t.firstRound()
	}
	for {
		if cur := t.best.key(); cur == t.lastBest {
			if !t.shrink() {
				return nil
			}
		}
		t.lastBest = t.best.key()
		out := t.neighbours()
		if len(out) > 0 {
			t.round++
			return out
		}
		if !t.shrink() {
			return nil
		}
	}
}

// firstRound is the middle setting and a Latin hypercube around it.
func (t *Tuner) firstRound() []Candidate {
	mid := make(Candidate, len(t.knobs))
	for i, k := range t.knobs {
		mid[i] = (len(k.Levels) - 1) / 2
	}
	out := []Candidate{mid}
	n := max(4, 2*len(t.knobs))
	r := rand.New(rand.NewPCG(1, 2))
	perms := make([][]int, len(t.knobs))
	for i := range t.knobs {
		perms[i] = r.Perm(n)
	}
	asked := map[string]bool{mid.key(): true}
	for j := range n {
		c := make(Candidate, len(t.knobs))
		for i, k := range t.knobs {
			// Stratum perms[i][j] of n, spread over the levels.
			c[i] = (2*perms[i][j] + 1) * len(k.Levels) / (2 * n)
		}
		if !asked[c.key()] {
			asked[c.key()] = true
			out = append(out, c)
		}
	}
	return out
}

// neighbours are the unsimulated settings one step from the best in one
// knob (every other choice, for an unordered knob).
func (t *Tuner) neighbours() []Candidate {
	var out []Candidate
	add := func(c Candidate) {
		if _, ok := t.known[c.key()]; !ok && !slices.ContainsFunc(out, func(o Candidate) bool { return slices.Equal(o, c) }) {
			out = append(out, c)
		}
	}
	for i, k := range t.knobs {
		if !k.Ordered {
			for l := range k.Levels {
				c := slices.Clone(t.best)
				c[i] = l
				add(c)
			}
			continue
		}
		for _, d := range []int{-t.steps[i], t.steps[i]} {
			if l := t.best[i] + d; l >= 0 && l < len(k.Levels) {
				c := slices.Clone(t.best)
				c[i] = l
				add(c)
			}
		}
	}
	return out
}

// shrink halves every step; false when they are all 1 already.
func (t *Tuner) shrink() bool {
	more := false
	for i, s := range t.steps {
		if s > 1 {
			t.steps[i], more = s/2, true
		}
	}
	t.lastBest = ""
	return more
}

// Record stores the scores of simulated candidates.
func (t *Tuner) Record(cs []Candidate, ss []Score) {
	for i, c := range cs {
		if _, ok := t.known[c.key()]; !ok {
			t.seen = append(t.seen, slices.Clone(c))
		}
		t.known[c.key()] = ss[i]
		if t.best == nil || ss[i].better(t.known[t.best.key()]) {
			t.best = slices.Clone(c)
		}
	}
}

// Best is the best candidate and its score; false when none meets the
// constraints.
func (t *Tuner) Best() (Candidate, Score, bool) {
	if t.best == nil {
		return nil, Score{}, false
	}
	s := t.known[t.best.key()]
	return t.best, s, s.Feasible
}

// Simulated lists the candidates simulated, in the order recorded.
func (t *Tuner) Simulated() []Candidate { return t.seen }

// Rounds is the number of rounds that asked for candidates.
func (t *Tuner) Rounds() int { return t.round }

// Settings names a candidate's values, knob by knob.
func (t *Tuner) Settings(c Candidate) []string {
	out := make([]string, len(c))
	for i, l := range c {
		out[i] = t.knobs[i].Levels[l]
	}
	return out
}

// RunTuner drives a tuning to its end with an evaluator of rounds.
func RunTuner(t *Tuner, eval func([]Candidate) ([]Score, error)) error {
	for {
		cs := t.Next()
		if len(cs) == 0 {
			return nil
		}
		ss, err := eval(cs)
		if err != nil {
			return err
		}
		t.Record(cs, ss)
	}
}
