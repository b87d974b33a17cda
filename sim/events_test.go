package sim

import "testing"

// At one instant capacity is freed before it is handed out and arrivals
// come last; events of one kind keep the order they were scheduled in.
func TestEventsAtOneInstantRunByKindThenInScheduleOrder(t *testing.T) {
	var q eventQueue
	q.push(event{t: 5, kind: evArrival, a: 1})
	q.push(event{t: 5, kind: evFinish, a: 2})
	q.push(event{t: 3, kind: evArrival, a: 3})
	q.push(event{t: 5, kind: evRelease, a: 4})
	q.push(event{t: 5, kind: evFinish, a: 5})
	q.push(event{t: 9, kind: evFinish, a: 6})
	for i := int32(7); i < 40; i++ { // enough to fill several heap levels
		q.push(event{t: 10 + float64(i%5), kind: evKind(i % 3), a: i})
	}
	var got []int32
	last := event{t: -1}
	for len(q.h) > 0 {
		e := q.pop()
		if e.less(&last) {
			t.Fatalf("event %d at %g popped after %d at %g", e.a, e.t, last.a, last.t)
		}
		last = e
		got = append(got, e.a)
	}
	want := []int32{3, 2, 5, 4, 1, 6}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("order %v, want it to start %v", got[:len(want)], want)
		}
	}
	if len(got) != 39 {
		t.Fatalf("%d events popped, want 39", len(got))
	}
}
