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
	q.push(event{t: 9, kind: evArrival, a: 40}) // a second arrival waits in the heap
	q.push(event{t: 12, kind: evArrival, a: 41})
	var got []int32
	last := event{t: -1}
	for q.len() > 0 {
		e := q.pop()
		if e.less(&last) {
			t.Fatalf("event %d at %g popped after %d at %g", e.a, e.t, last.a, last.t)
		}
		last = e
		got = append(got, e.a)
	}
	want := []int32{3, 2, 5, 4, 1, 6, 40}
	for i, w := range want {
		if got[i] != w {
			t.Fatalf("order %v, want it to start %v", got[:len(want)], want)
		}
	}
	if len(got) != 41 {
		t.Fatalf("%d events popped, want 41", len(got))
	}
}

// The hold model of a simulation's queue: about as many finish events as
// jobs running (1,300 in the 1M-job bench), each pop followed by a push of
// a later event.
func BenchmarkEventQueueHold1400(b *testing.B) {
	var q eventQueue
	x := uint64(88172645463325252)
	rnd := func() float64 { // xorshift: no allocation, same stream each run
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		return float64(x%1_000_000) / 100
	}
	for i := range 1400 {
		q.push(event{t: rnd(), kind: evFinish, a: int32(i)})
	}
	b.ResetTimer()
	for range b.N {
		e := q.pop()
		q.push(event{t: e.t + rnd(), kind: evKind(e.a % 2 * 5), a: e.a})
	}
}
