package policies

import "math"

// The fairshare policy (AWS Batch fair-share scheduling). Teams are share
// identifiers. The next job comes from the active share with the lowest
// usage per weight, where usage is what its running jobs hold, each faded by
// its age with the share-decay half-life (0: current usage only); within a
// share, higher priority first, then arrival. A share whose head does not
// fit waits for this pass. A compute reservation of r holds r^A of each
// instance type's capacity back for shares that are not active, A being the
// number of active shares. It never preempts.

type shareState struct {
	q       levelQueue
	weight  float64
	running int
	held    Qty
	sum     float64 // Σ held × 2^((start-ref)/h)
	lastEnd float64 // when its last job ended (for activity)
	ever    bool
}

type batchState struct {
	shares  []shareState
	h       float64
	r       float64
	ref     float64
	pending int
	alloc   []Qty // per flavor, accelerators allocated
}

func newBatch(m *Model, c *Core) *batchState {
	b := &batchState{h: m.Batch.DecayHalfLife, r: m.Batch.ComputeReservation}
	b.shares = make([]shareState, len(m.Queues))
	for i, q := range m.Queues {
		b.shares[i].weight = q.Weight
		b.shares[i].lastEnd = math.Inf(-1)
	}
	b.alloc = make([]Qty, len(m.Flavors))
	return b
}

func (b *batchState) push(w *Workload) {
	b.shares[w.Queue].q.push(w)
	b.shares[w.Queue].ever = true
	b.pending++
}

func (b *batchState) remove(w *Workload) {
	if b.shares[w.Queue].q.remove(w) {
		b.pending--
	}
}

func (b *batchState) term(w *Workload) float64 {
	held := float64(w.place.heldA) / float64(Milli)
	if held == 0 {
		held = float64(w.Req.VCPU) / float64(Milli)
	}
	if b.h <= 0 {
		return held
	}
	return held * math.Pow(2, (w.admittedAt-b.ref)/b.h)
}

func (b *batchState) admit(w *Workload, now float64) {
	s := &b.shares[w.Queue]
	if b.h > 0 && (now-b.ref)/b.h > 500 {
		k := math.Pow(2, -(now-b.ref)/b.h)
		for i := range b.shares {
			b.shares[i].sum *= k
		}
		b.ref = now
	}
	w.batchTerm, w.batchRef = b.term(w), b.ref
	s.sum += w.batchTerm
	s.running++
	s.held += w.place.heldA
	if w.place.flavor >= 0 {
		b.alloc[w.place.flavor] += w.place.heldA
	}
}

func (b *batchState) release(w *Workload, now float64) {
	s := &b.shares[w.Queue]
	if b.h > 0 {
		s.sum -= w.batchTerm * math.Pow(2, -(b.ref-w.batchRef)/b.h)
	} else {
		s.sum -= w.batchTerm
	}
	if s.sum < 1e-9 {
		s.sum = math.Max(0, s.sum)
	}
	s.running--
	s.held -= w.place.heldA
	if w.place.flavor >= 0 {
		b.alloc[w.place.flavor] -= w.place.heldA
	}
	s.lastEnd = now
}

// usage is a share's decayed usage at now.
func (b *batchState) usage(i int, now float64) float64 {
	s := &b.shares[i]
	if b.h <= 0 {
		return s.sum
	}
	return s.sum * math.Pow(2, -(now-b.ref)/b.h)
}

func (b *batchState) score(i int, now float64) float64 {
	w := b.shares[i].weight
	u := b.usage(i, now)
	if w <= 0 {
		return math.Inf(1)
	}
	return u / w
}

// active counts shares with work queued or running, or that ended a job
// within the decay window.
func (b *batchState) active(now float64) int {
	n := 0
	for i := range b.shares {
		s := &b.shares[i]
		if s.q.n > 0 || s.running > 0 || (b.h > 0 && now-s.lastEnd < b.h) {
			n++
		}
	}
	return n
}

func (c *Core) batchPass(b *batchState, now float64) {
	c.cycles++
	blocked := make([]bool, len(b.shares))
	reserveFrac := 0.0
	if b.r > 0 {
		reserveFrac = math.Pow(b.r, float64(b.active(now)))
	}
	for {
		best := -1
		bestScore := 0.0
		for i := range b.shares {
			if blocked[i] || b.shares[i].q.n == 0 {
				continue
			}
			// Lowest usage per weight; on a tie, the larger weight (the
			// smaller Batch weightFactor), then the team listed first.
			sc := b.score(i, now)
			if best < 0 || sc < bestScore || (sc == bestScore && b.shares[i].weight > b.shares[best].weight) {
				best, bestScore = i, sc
			}
		}
		if best < 0 {
			return
		}
		h := b.shares[best].q.head()
		pl, ok := c.placeAnywhere(h, func(f int, held Qty) bool {
			if reserveFrac <= 0 {
				return true
			}
			p := c.pools[f]
			capA := float64(p.capA) * float64(len(p.nodes))
			return float64(b.alloc[f]+held) <= capA*(1-reserveFrac)+1e-9
		})
		if !ok {
			h.lastReason = "head of its share: waiting for room (or for the compute reservation)"
			blocked[best] = true
			continue
		}
		c.startPlaced(h, pl, now)
	}
}
