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
	ord  uint64 // kind in the top byte, then push order: ties go by both
	a    int32  // job slot, flavor, or timeline index
	b    int32  // node
	gen  uint32
	kind evKind
}

func (e *event) less(o *event) bool {
	if e.t != o.t {
		return e.t < o.t
	}
	return e.ord < o.ord
}

// eventQueue is a 4-ary min-heap: shallower than a binary one, and its
// children share cache lines.
type eventQueue struct {
	h   []event
	seq uint64
}

func (q *eventQueue) push(e event) {
	q.seq++
	e.ord = uint64(e.kind)<<56 | q.seq
	q.h = append(q.h, e)
	i := len(q.h) - 1
	for i > 0 {
		p := (i - 1) / 4
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
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		for k := c + 1; k < c+4 && k < n; k++ {
			if q.h[k].less(&q.h[m]) {
				m = k
			}
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
