package policies

import "math"

// Admission fair sharing: within a team, jobs of users (Kueue LocalQueues)
// who used less recently go first. Each user's consumption is an
// exponentially decayed average of what they hold, with a half-life; a new
// admission adds an immediate penalty so that a burst cannot all go first.

type afsUser struct {
	current  float64
	consumed float64
	at       float64
}

type afsState struct {
	halfLife float64
	penalty  float64 // share of a request added at admission
	users    []map[int]*afsUser
}

// afsSampling is the sampling interval whose decay the entry penalty uses.
const afsSampling = 300.0

func newAFS(queues int, halfLife float64) *afsState {
	a := &afsState{halfLife: halfLife, penalty: 1 - math.Pow(0.5, afsSampling/halfLife)}
	a.users = make([]map[int]*afsUser, queues)
	for i := range a.users {
		a.users[i] = map[int]*afsUser{}
	}
	return a
}

func (a *afsState) user(q, u int) *afsUser {
	x := a.users[q][u]
	if x == nil {
		x = &afsUser{}
		a.users[q][u] = x
	}
	return x
}

func (a *afsState) advance(x *afsUser, now float64) {
	if now > x.at {
		x.consumed = x.current + (x.consumed-x.current)*math.Pow(0.5, (now-x.at)/a.halfLife)
		x.at = now
	}
}

func (a *afsState) score(q, u int, now float64) float64 {
	x := a.user(q, u)
	a.advance(x, now)
	return x.consumed
}

func held(w *Workload) float64 {
	if w.place.heldA > 0 {
		return float64(w.place.heldA) / float64(Milli)
	}
	var s Qty
	for _, u := range w.usage {
		s += u.q
	}
	return float64(s) / float64(Milli)
}

func (a *afsState) admit(w *Workload, now float64) {
	x := a.user(w.Queue, w.User)
	a.advance(x, now)
	h := held(w)
	x.current += h
	x.consumed += h * a.penalty
}

func (a *afsState) release(w *Workload, now float64) {
	x := a.user(w.Queue, w.User)
	a.advance(x, now)
	x.current -= held(w)
}
