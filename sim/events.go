package sim

// Events at one instant run in kind order: capacity is freed before it is
// handed out, and arrivals come last; then the core is asked for one plan.
type evKind uint8

const (
	evFinish evKind = iota
	evRelease
	evRepair
	evTimeline
	evWake // the core asked to be called again (a protection from preemption ends)
	evFailure
	evArrival
	evEnd
)

type event struct {
	t    float64
	ord  uint64 // kind in the top byte, then push order: ties go by both
	a    int32  // job slot, flavor, or timeline index
	b    int32  // node
	gen  uint32
	kind evKind
}

func (e *event) less(o *event) bool {
	return e.t < o.t || (e.t == o.t && e.ord < o.ord)
}

// eventQueue is a 4-ary min-heap (shallower than a binary one, and its
// children share cache lines) beside one slot for the next arrival: the
// source is read one job ahead, so half the events would otherwise pass
// through the heap only to come straight out.
type eventQueue struct {
	h          []event
	seq        uint64
	arrival    event
	hasArrival bool
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.ord = uint64(e.kind)<<56 | q.seq
	if e.kind == evArrival && !q.hasArrival {
		q.arrival, q.hasArrival = e, true
		return
	}
	q.h = append(q.h, e)
	h := q.h
	i := len(h) - 1
	for i > 0 { // move parents down into the hole until e's place is found
		p := (i - 1) / 4
		if !e.less(&h[p]) {
			break
		}
		h[i] = h[p]
		i = p
	}
	h[i] = e
}

// arrivalFirst says whether the arrival slot holds the least event.
func (q *eventQueue) arrivalFirst() bool {
	return q.hasArrival && (len(q.h) == 0 || q.arrival.less(&q.h[0]))
}

func (q *eventQueue) pop() event {
	if q.arrivalFirst() {
		q.hasArrival = false
		return q.arrival
	}
	h := q.h
	top := h[0]
	n := len(h) - 1
	x := h[n]
	h = h[:n]
	q.h = h
	if n == 0 {
		return top
	}
	i := 0
	for { // move the least child up into the hole until x's place is found
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < min(c+4, n); k++ {
			if h[k].less(&h[m]) {
				m = k
			}
		}
		if !h[m].less(&x) {
			break
		}
		h[i] = h[m]
		i = m
	}
	h[i] = x
	return top
}

func (q *eventQueue) peek() *event {
	if q.arrivalFirst() {
		return &q.arrival
	}
	return &q.h[0]
}

func (q *eventQueue) len() int {
	if q.hasArrival {
		return len(q.h) + 1
	}
	return len(q.h)
}
