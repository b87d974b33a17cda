package policies

// The order in which a fair-sharing search visits target teams: from the
// root, always into the child with the highest dominant resource share
// (the preemptor's own team competing with its share like any other), and
// within a cohort's teams, on equal shares, the team whose next candidate
// comes first in candidate order.

type fairOrdering struct {
	c   *Core
	e   *entry
	src []candSource // by node
	w   *fairWork
	// live lists the queue nodes that may have candidates, ascending (the
	// order of their cohorts' queue lists); nil means every queue.
	live []int
	// lazy marks live nodes whose source is made on first use, for the
	// reclaim policy: a search often ends before it looks at most teams.
	lazy    []bool
	reclaim PreemptPolicy
	// Under a root without child cohorts (flat), byShare holds the live
	// teams, highest share first. A team's share moves only when the search
	// takes one of its jobs, and it only takes from the team it was last
	// given (last), so only that team is moved between calls.
	byShare []teamShare
	sorted  bool
	last    int
}

func (c *Core) newFairOrdering(e *entry, src []candSource, w *fairWork) *fairOrdering {
	clear(w.prunedQ)
	clear(w.prunedC)
	clear(w.ancestor)
	for p := c.tree.nodes[e.qn].parent; p >= 0; p = c.tree.nodes[p].parent {
		w.ancestor[p] = true
	}
	return &fairOrdering{c: c, e: e, src: src, w: w, last: -1}
}

func (o *fairOrdering) has(qn int) bool {
	if o.lazy != nil && o.lazy[qn] {
		o.lazy[qn] = false
		o.src[qn] = o.c.candIterFor(o.c.tree.nodes[qn].queue, o.e, o.reclaim, filterFair)
	}
	s := o.src[qn]
	return s != nil && s.peek() != nil
}

func (o *fairOrdering) head(qn int) *Workload { return o.src[qn].peek() }
func (o *fairOrdering) pop(qn int) *Workload  { return o.src[qn].pop() }

// next returns the next target queue node, or -1 when none is left.
func (o *fairOrdering) next() int {
	t := o.c.tree
	if t.nodes[o.e.qn].parent < 0 {
		if o.has(o.e.qn) {
			return o.e.qn
		}
		return -1
	}
	root := t.rootOf[o.e.qn]
	if t.amongSiblings(o.e.qn) && o.c.on(FlatOrder) {
		o.c.tally(FlatOrder, true)
		return o.nextFlat(root)
	}
	for !o.w.prunedC[root] {
		if qn := o.nextIn(root); qn >= 0 {
			return qn
		}
	}
	return -1
}

func (o *fairOrdering) nextIn(cohort int) int {
	c, t := o.c, o.c.tree
	bestQ, bestC := -1, -1
	var bestQD, bestCD drs
	qs := t.nodes[cohort].queues
	if o.live != nil {
		qs = o.live
	}
	for _, qn := range qs {
		if o.w.prunedQ[qn] || t.nodes[qn].parent != cohort {
			continue
		}
		d := c.shareOf(qn)
		if !d.borrowing && qn != o.e.qn {
			o.w.prunedQ[qn] = true
			continue
		}
		// Candidates are read only for a queue that could lead.
		k := 1
		if bestQ >= 0 {
			if k = cmpDRS(d, bestQD); k < 0 {
				continue
			}
		}
		if !o.has(qn) {
			o.w.prunedQ[qn] = true
			continue
		}
		if bestQ < 0 || k > 0 || c.candidateLess(o.head(qn), o.head(bestQ), o.e.q) {
			bestQ, bestQD = qn, d
		}
	}
	for _, cn := range t.nodes[cohort].cohorts {
		if o.w.prunedC[cn] {
			continue
		}
		d := c.shareOf(cn)
		if !d.borrowing && !o.w.ancestor[cn] {
			o.w.prunedC[cn] = true
			continue
		}
		if bestC < 0 || cmpDRS(d, bestCD) > 0 {
			bestC, bestCD = cn, d
		}
	}
	if bestQ < 0 && bestC < 0 {
		o.w.prunedC[cohort] = true
		return -1
	}
	if bestC >= 0 && (bestQ < 0 || cmpDRS(bestCD, bestQD) >= 0) {
		return o.nextIn(bestC)
	}
	return bestQ
}

// nextFlat is nextIn for a root whose children are all teams: the team with
// the highest share that still has a candidate, and among equal shares the
// one whose candidate comes first. Reading the teams by share, it stops at
// the first share below the leader's.
func (o *fairOrdering) nextFlat(root int) int {
	c := o.c
	if !o.sorted {
		o.sortByShare(root)
	} else if o.last >= 0 && o.src[o.last] != nil {
		o.moveByShare(o.last) // a team whose source is gone is passed over
	}
	best := -1
	var bestD drs
	for _, ts := range o.byShare {
		qn := ts.qn
		if o.w.prunedQ[qn] {
			continue
		}
		d := c.shareOf(qn)
		if best >= 0 && cmpDRS(d, bestD) < 0 {
			break
		}
		if !d.borrowing && qn != o.e.qn {
			o.w.prunedQ[qn] = true
			continue
		}
		if !o.has(qn) {
			o.w.prunedQ[qn] = true
			continue
		}
		if best < 0 || c.candidateLess(o.head(qn), o.head(best), o.e.q) {
			best, bestD = qn, d
		}
	}
	o.last = best
	return best
}

// teamShare is a team in byShare, with its share as a sort key: zero for a
// zero-weight team that borrows (above every other), then key (cmpDRS's
// terms).
type teamShare struct {
	zero bool
	key  float64
	qn   int
}

func shareKey(qn int, d drs) teamShare {
	ts := teamShare{zero: d.borrowing && d.weight == 0, key: d.w, qn: qn}
	if ts.zero {
		ts.key = d.ratio
	}
	return ts
}

// above says whether a's share is higher than b's.
func (a teamShare) above(b teamShare) bool {
	if a.zero != b.zero {
		return a.zero
	}
	return a.key > b.key
}

// sortByShare fills byShare with the live teams, highest share first.
func (o *fairOrdering) sortByShare(root int) {
	qs := o.c.tree.nodes[root].queues
	if o.live != nil {
		qs = o.live
	}
	order := o.w.byShare[:0]
	for _, qn := range qs {
		ts := shareKey(qn, o.c.shareOf(qn))
		i := len(order)
		order = append(order, ts)
		for ; i > 0 && ts.above(order[i-1]); i-- {
			order[i] = order[i-1]
		}
		order[i] = ts
	}
	o.byShare, o.w.byShare = order, order
	o.sorted = true
}

// moveByShare puts team qn back in share order after a take (its share can
// only have fallen).
func (o *fairOrdering) moveByShare(qn int) {
	order := o.byShare
	i := 0
	for order[i].qn != qn {
		i++
	}
	ts := shareKey(qn, o.c.shareOf(qn))
	for ; i > 0 && ts.above(order[i-1]); i-- {
		order[i] = order[i-1]
	}
	for ; i+1 < len(order) && order[i+1].above(ts); i++ {
		order[i] = order[i+1]
	}
	order[i] = ts
}
