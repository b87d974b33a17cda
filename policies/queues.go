package policies

// Each team's pending jobs are kept in sub-queues, one per (request shape,
// user); every sub-queue is a heap in the team's order. The team's head is
// the best top among its sub-queues. A sub-queue whose head could not be
// admitted is parked as a whole (its jobs have the same request, so they
// would not fit either) until capacity is freed in the cohort tree: this is
// Kueue's inadmissible list with scheduling-equivalence hashing, and it keeps
// a scheduling cycle from rescanning every pending job.

type subKey struct{ shape, user int }

type subQueue struct {
	key    subKey
	shape  *shape
	user   int
	h      []*Workload
	parked int64 // generation of the cohort tree when parked; -1 = active
	filled int   // index in the queue's filled list; -1 while empty
}

type queueState struct {
	subs     []*subQueue
	filled   []*subQueue // the sub-queues with jobs, in no order: what a head is chosen from
	byKey    map[subKey]*subQueue
	sticky   *Workload // issued preemptions and waits for them
	pending  int
	admitted []*Workload
	seqSum   uint64 // the allotcheck build's sum of the admitted jobs' hashed Seqs (stateDigest)
	victims  victimIndex
	// sizes counts running jobs by their usage of each flavor-resource,
	// smallest first.
	sizes [][]sizeCount // by flavor-resource
	multi int           // running jobs that use several flavor-resources
	// noVictims: the policy never preempts (fifo, priority), so the
	// candidate index and sizes are not kept.
	noVictims bool
}

// noSmaller says whether no running job of the team uses less than q of
// fr, counting only jobs that use fr alone (so it holds only while none
// uses several).
func (q *queueState) noSmaller(fr int, size Qty) bool {
	if fr >= len(q.sizes) {
		return false
	}
	sz := q.sizes[fr]
	return q.multi == 0 && len(sz) > 0 && size <= sz[0].q
}

// waitsBefore is the waiting order, the one rule every queue and every
// ranking of heads ends with: higher priority first (unless firstCome),
// then earlier queue order, then lower Seq.
func waitsBefore(a, b *Workload, firstCome bool) bool {
	if !firstCome && a.Priority != b.Priority {
		return a.Priority > b.Priority
	}
	if a.Order != b.Order {
		return a.Order < b.Order
	}
	return a.Seq < b.Seq
}

func heapUp(h []*Workload, i int, firstCome bool) {
	for i > 0 {
		p := (i - 1) / 2
		if !waitsBefore(h[i], h[p], firstCome) {
			break
		}
		h[i], h[p] = h[p], h[i]
		h[i].heapIdx, h[p].heapIdx = int32(i), int32(p)
		i = p
	}
}

func heapDown(h []*Workload, i int, firstCome bool) {
	n := len(h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if r := l + 1; r < n && waitsBefore(h[r], h[l], firstCome) {
			m = r
		}
		if !waitsBefore(h[m], h[i], firstCome) {
			return
		}
		h[i], h[m] = h[m], h[i]
		h[i].heapIdx, h[m].heapIdx = int32(i), int32(m)
		i = m
	}
}

func heapPush(h []*Workload, w *Workload, firstCome bool) []*Workload {
	w.heapIdx = int32(len(h))
	h = append(h, w)
	heapUp(h, len(h)-1, firstCome)
	return h
}

func heapRemove(h []*Workload, w *Workload, firstCome bool) []*Workload {
	i := int(w.heapIdx)
	last := len(h) - 1
	if i != last {
		h[i] = h[last]
		h[i].heapIdx = int32(i)
	}
	h[last] = nil
	h = h[:last]
	if i < len(h) {
		heapDown(h, i, firstCome)
		heapUp(h, i, firstCome)
	}
	w.heapIdx = -1
	return h
}

// push adds a pending job to its queue; it reports whether the job became
// the top of its sub-queue (and so un-parks it).
func (q *queueState) push(w *Workload, firstCome bool) {
	k := subKey{w.shape.id, w.User}
	s := q.byKey[k]
	if s == nil {
		s = &subQueue{key: k, shape: w.shape, user: w.User, parked: -1, filled: -1}
		q.byKey[k] = s
		q.subs = append(q.subs, s)
	}
	s.h = heapPush(s.h, w, firstCome)
	if s.filled < 0 {
		s.filled = len(q.filled)
		q.filled = append(q.filled, s)
	}
	w.sub = s
	q.pending++
	if s.h[0] == w {
		s.parked = -1
	}
}

func (q *queueState) remove(w *Workload, firstCome bool) {
	s := w.sub
	if s == nil {
		return
	}
	s.h = heapRemove(s.h, w, firstCome)
	if len(s.h) == 0 { // out of the filled list: the last takes its place
		last := q.filled[len(q.filled)-1]
		q.filled[s.filled], last.filled = last, s.filled
		q.filled[len(q.filled)-1] = nil
		q.filled = q.filled[:len(q.filled)-1]
		s.filled = -1
	}
	w.sub = nil
	q.pending--
	if q.sticky == w {
		q.sticky = nil
	}
}

func (q *queueState) addAdmitted(w *Workload, nR int) {
	w.queuePos = int32(len(q.admitted))
	q.admitted = append(q.admitted, w)
	if checking {
		q.seqSum += uint64(w.Seq)*0x9e3779b97f4a7c15 + 1
	}
	if q.noVictims {
		return
	}
	q.victims.add(w, nR)
	for _, u := range w.usage {
		for len(q.sizes) <= u.fr {
			q.sizes = append(q.sizes, nil)
		}
		q.sizes[u.fr] = addSize(q.sizes[u.fr], u.q, 1)
	}
	if len(w.usage) > 1 {
		q.multi++
	}
}

func (q *queueState) removeAdmitted(w *Workload) {
	i := w.queuePos
	last := len(q.admitted) - 1
	q.admitted[i] = q.admitted[last]
	q.admitted[i].queuePos = i
	q.admitted[last] = nil
	q.admitted = q.admitted[:last]
	w.queuePos = -1
	if checking {
		q.seqSum -= uint64(w.Seq)*0x9e3779b97f4a7c15 + 1
	}
	if q.noVictims {
		return
	}
	q.victims.remove(w)
	for _, u := range w.usage {
		q.sizes[u.fr] = addSize(q.sizes[u.fr], u.q, -1)
	}
	if len(w.usage) > 1 {
		q.multi--
	}
}

type sizeCount struct {
	q Qty
	n int32
}

// addSize adds d jobs of size q to a sorted list of counts.
func addSize(s []sizeCount, q Qty, d int32) []sizeCount {
	i := 0
	for i < len(s) && s[i].q < q {
		i++
	}
	if i < len(s) && s[i].q == q {
		if s[i].n += d; s[i].n <= 0 {
			s = append(s[:i], s[i+1:]...)
		}
		return s
	}
	if d > 0 {
		s = append(s, sizeCount{})
		copy(s[i+1:], s[i:])
		s[i] = sizeCount{q, d}
	}
	return s
}
