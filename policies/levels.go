package policies

import "sort"

// levelQueue is a queue ordered by priority (descending), then queue-order
// timestamp and sequence. Each priority level is a slice in arrival order
// with a moving front, so arrivals and admissions at the head are O(1); a
// requeued job is inserted at its original position.
type levelQueue struct {
	levels     []*level
	ignorePrio bool
	n          int
}

type level struct {
	prio  int32
	items []*Workload
	start int
}

// orderLess is the waiting order within one priority level.
func orderLess(a, b *Workload) bool { return waitsBefore(a, b, true) }

func (q *levelQueue) level(p int32, create bool) *level {
	if q.ignorePrio {
		p = 0
	}
	i := sort.Search(len(q.levels), func(i int) bool { return q.levels[i].prio <= p })
	if i < len(q.levels) && q.levels[i].prio == p {
		return q.levels[i]
	}
	if !create {
		return nil
	}
	l := &level{prio: p}
	q.levels = append(q.levels, nil)
	copy(q.levels[i+1:], q.levels[i:])
	q.levels[i] = l
	return l
}

func (q *levelQueue) push(w *Workload) {
	l := q.level(w.Priority, true)
	q.n++
	live := l.items[l.start:]
	if len(live) == 0 || !orderLess(w, live[len(live)-1]) {
		l.items = append(l.items, w)
		return
	}
	i := l.start + sort.Search(len(live), func(i int) bool { return orderLess(w, live[i]) })
	l.items = append(l.items, nil)
	copy(l.items[i+1:], l.items[i:])
	l.items[i] = w
}

func (q *levelQueue) remove(w *Workload) bool {
	l := q.level(w.Priority, false)
	if l == nil {
		return false
	}
	live := l.items[l.start:]
	i := sort.Search(len(live), func(i int) bool { return !orderLess(live[i], w) })
	for ; i < len(live) && live[i] != w; i++ {
	}
	if i >= len(live) {
		return false
	}
	q.n--
	if i == 0 {
		l.items[l.start] = nil
		l.start++
		if l.start > 64 && l.start*2 > len(l.items) {
			k := copy(l.items, l.items[l.start:])
			clear(l.items[k:])
			l.items = l.items[:k]
			l.start = 0
		}
		return true
	}
	j := l.start + i
	copy(l.items[j:], l.items[j+1:])
	l.items[len(l.items)-1] = nil
	l.items = l.items[:len(l.items)-1]
	return true
}

func (q *levelQueue) head() *Workload {
	for _, l := range q.levels {
		if l.start < len(l.items) {
			return l.items[l.start]
		}
	}
	return nil
}

// each visits the queue in order until fn returns false.
func (q *levelQueue) each(fn func(*Workload) bool) {
	for _, l := range q.levels {
		for _, w := range l.items[l.start:] {
			if !fn(w) {
				return
			}
		}
	}
}
