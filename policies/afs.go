package policies

import (
	"fmt"
	"math"
	"slices"
)

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

// UserUsage is one user's (local queue's) decayed consumption, in
// accelerators, under admission fair sharing.
type UserUsage struct {
	Queue, User int
	Consumed    float64
}

// UserUsages is every user's decayed consumption at now, by queue then
// user; nil when the policy has no admission fair sharing. A shell that
// rebuilds its core keeps these (a finished job's consumption outlives
// it) and gives them back with RestoreUserUsage.
func (c *Core) UserUsages(now float64) []UserUsage {
	if c.afs == nil {
		return nil
	}
	var out []UserUsage
	for q, users := range c.afs.users {
		ids := make([]int, 0, len(users))
		for u := range users {
			ids = append(ids, u)
		}
		slices.Sort(ids)
		for _, u := range ids {
			x := users[u]
			c.afs.advance(x, now)
			out = append(out, UserUsage{Queue: q, User: u, Consumed: x.consumed})
		}
	}
	return out
}

// RestoreUserUsage sets a user's decayed consumption to what it was at a
// time at or before now; from there it decays towards what the user's
// running jobs hold. Call it after AddPlaced of those jobs (whose
// admission it supersedes) and before Schedule.
func (c *Core) RestoreUserUsage(queue, user int, consumed, at float64) error {
	if c.afs == nil {
		return fmt.Errorf("no admission fair sharing in this policy")
	}
	if queue < 0 || queue >= len(c.afs.users) || consumed < 0 || math.IsNaN(consumed) {
		return fmt.Errorf("usage %g of user %d of queue %d: out of range", consumed, user, queue)
	}
	x := c.afs.user(queue, user)
	x.consumed, x.at = consumed, at
	return nil
}
