package policies

import (
	"math"
	"sort"
)

// The fifo and priority policies: one queue for the whole fleet, in arrival
// order (fifo) or by priority then arrival (priority). The head starts on
// the first compatible instance type with room; if it cannot start, nobody
// behind it does, unless backfill is on: then a later job may start if it
// does not delay the head's earliest start (EASY backfilling), judged with
// runtime estimates, which are as wrong as the scenario says users are.

type fifoState struct {
	q levelQueue
}

func newFIFO(arrivalOnly bool) *fifoState {
	return &fifoState{q: levelQueue{ignorePrio: arrivalOnly}}
}

func (f *fifoState) push(w *Workload)   { f.q.push(w) }
func (f *fifoState) remove(w *Workload) { f.q.remove(w) }
func (f *fifoState) len() int           { return f.q.n }

// compatible lists the flavors a job may use, in preference order.
func (c *Core) compatible(w *Workload, buf []int) []int {
	buf = buf[:0]
	if w.Req.Compatible != nil {
		return append(buf, w.Req.Compatible...)
	}
	for f := range c.m.Flavors {
		buf = append(buf, f)
	}
	return buf
}

// placeAnywhere finds the first compatible flavor with room.
func (c *Core) placeAnywhere(w *Workload, ok func(f int, held Qty) bool) (placement, bool) {
	var flv [16]int
	for _, f := range c.compatible(w, flv[:0]) {
		p := c.pools[f]
		n := c.need(w.shape, f)
		if p == nil || !n.ok {
			continue
		}
		if c.m.Reservations && !c.withinReservation(w, f) {
			continue
		}
		pl := placement{nodes: w.place.nodes[:0]}
		if !p.place(f, n.place, &pl) {
			continue
		}
		if ok != nil && !ok(f, pl.heldA) {
			continue
		}
		return pl, true
	}
	return placement{}, false
}

func (c *Core) startPlaced(w *Workload, pl placement, now float64) {
	c.dequeue(w)
	w.lastReason = ""
	// Shared slices: usage and assignments are never written.
	c.commit(w, c.soleAsg[pl.flavor], c.need(w.shape, pl.flavor).soleUsage, pl, now)
	c.plan.Admitted = append(c.plan.Admitted, Admission{W: w})
}

func (c *Core) fifoPass(f *fifoState, now float64) {
	c.cycles++
	for {
		h := f.q.head()
		if h == nil {
			return
		}
		pl, ok := c.placeAnywhere(h, nil)
		if !ok {
			h.lastReason = "head of the queue: waiting for room on a compatible instance type"
			if c.m.Backfill.Enabled {
				c.backfill(f, h, now)
			}
			return
		}
		c.startPlaced(h, pl, now)
	}
}

// estimatedEnd is when a running job is expected to finish.
func (c *Core) estimatedEnd(w *Workload, now float64) float64 {
	sp := c.m.Flavors[w.place.flavor].Speed
	if sp <= 0 {
		sp = 1
	}
	return math.Max(now, w.admittedAt+w.Estimate/sp)
}

// shadow computes, for the blocked head on one flavor, the estimated time
// it could start and the accelerators left over then.
func (c *Core) shadow(h *Workload, f int, now float64) (at float64, extra Qty, ok bool) {
	p := c.pools[f]
	n := c.need(h.shape, f)
	if p == nil || !n.ok {
		return 0, 0, false
	}
	need := n.place.a
	if n.place.whole {
		need = p.capA * Qty(n.place.nodes)
	}
	free := p.freeAccel()
	var cap Qty = p.capA * Qty(p.healthy)
	if need > cap {
		return 0, 0, false
	}
	type ev struct {
		t float64
		a Qty
	}
	var evs []ev
	for qi := range c.queues {
		for _, w := range c.queues[qi].admitted {
			if w.place.flavor == f {
				evs = append(evs, ev{c.estimatedEnd(w, now), w.place.heldA})
			}
		}
	}
	sort.Slice(evs, func(i, j int) bool { return evs[i].t < evs[j].t })
	at = now
	for _, e := range evs {
		if free >= need {
			break
		}
		free += e.a
		at = e.t
	}
	if free < need {
		return 0, 0, false
	}
	return at, free - need, true
}

// backfill starts later jobs that do not delay the blocked head h.
func (c *Core) backfill(fs *fifoState, h *Workload, now float64) {
	resF, shadowAt, extra := -1, math.Inf(1), Qty(0)
	var flv [16]int
	for _, f := range c.compatible(h, flv[:0]) {
		if at, ex, ok := c.shadow(h, f, now); ok && at < shadowAt {
			resF, shadowAt, extra = f, at, ex
		}
	}
	depth := c.m.Backfill.Depth
	failed := map[*shape]bool{}
	var start []*Workload
	var starts []placement
	seen := 0
	fs.q.each(func(w *Workload) bool {
		if w == h {
			return true
		}
		seen++
		if depth > 0 && seen > depth {
			return false
		}
		if failed[w.shape] {
			return true
		}
		anyRoom := false
		pl, ok := c.placeAnywhere(w, func(f int, held Qty) bool {
			anyRoom = true
			if f != resF {
				return true
			}
			sp := c.m.Flavors[f].Speed
			if sp <= 0 {
				sp = 1
			}
			if now+w.Estimate/sp <= shadowAt {
				return true
			}
			if held <= extra {
				extra -= held
				return true
			}
			return false
		})
		if !anyRoom {
			failed[w.shape] = true
			return true
		}
		if ok {
			// Take the nodes now so the next candidate sees them gone.
			c.pools[pl.flavor].occupy(&pl)
			start = append(start, w)
			starts = append(starts, pl)
		}
		return true
	})
	for i, w := range start {
		pl := starts[i]
		c.pools[pl.flavor].release(&pl)
		c.startPlaced(w, pl, now)
	}
}

// withinReservation says whether a job fits its team's reservation on a
// flavor, plus what no team reserved.
func (c *Core) withinReservation(w *Workload, f int) bool {
	n := c.need(w.shape, f)
	qn := c.tree.qNode[w.Queue]
	nR := len(c.m.Resources)
	for r, v := range n.podsets[0] {
		if v > 0 && v > c.tree.queueAvailable(qn, f*nR+r) {
			return false
		}
	}
	return true
}
