package sim

// Events at one instant run in kind order: capacity is freed before it is
// handed out, and arrivals come last; then the core is asked for one plan.
type evKind uint8

const (
	evFinish evKind = iota
	evRelease
	evRepair
	evTimeline
	evFailure
	evArrival
	evEnd
)

type event struct {
	t    float64
	kind evKind
	seq  uint64
	a    int32 // job slot, flavor, or timeline index
	b    int32 // node
	gen  uint32
}

func (e *event) less(o *event) bool {
	if e.t != o.t {
		return e.t < o.t
	}
	if e.kind != o.kind {
		return e.kind < o.kind
	}
	return e.seq < o.seq
}

type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.seq = q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !q.h[i].less(&q.h[p]) {
			break
		}
		q.h[i], q.h[p] = q.h[p], q.h[i]
		i = p
	}
}

func (q *eventQueue) pop() event {
	top := q.h[0]
	last := len(q.h) - 1
	q.h[0] = q.h[last]
	q.h = q.h[:last]
	i, n := 0, last
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && q.h[r].less(&q.h[l]) {
			m = r
		}
		if !q.h[m].less(&q.h[i]) {
			break
		}
		q.h[i], q.h[m] = q.h[m], q.h[i]
		i = m
	}
	return top
}

func (q *eventQueue) peek() *event { return &q.h[0] }
func (q *eventQueue) len() int     { return len(q.h) }
