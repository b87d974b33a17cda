package policies

// Preemption reasons, as Kueue names them.
const (
	ReasonInClusterQueue                = "InClusterQueue"
	ReasonInCohortReclamation           = "InCohortReclamation"
	ReasonInCohortFairSharing           = "InCohortFairSharing"
	ReasonInCohortReclaimWhileBorrowing = "InCohortReclaimWhileBorrowing"
)

// Pending states of a job after a cycle (spec/snapshot.md).
const (
	StateWaitingForPreemption = "waiting_for_preemption"
	StateActive               = "active"
	StateInadmissible         = "inadmissible"
	StatePending              = "pending"
)

// Admission starts a job: its flavor and, where nodes are modelled, nodes
// (see Workload.Flavor, Workload.Nodes).
type Admission struct {
	W         *Workload
	Borrowing bool
}

// Preemption stops a running job to make room for another.
type Preemption struct {
	W      *Workload
	By     *Workload
	Reason string
}

// Plan is what one call to Schedule decided. The core reuses it: it is
// valid until the next call.
type Plan struct {
	Admitted  []Admission
	Preempted []Preemption
	// WakeAt, when Wake, is when the core wants to be asked again though
	// nothing else happens: jobs wait, and a running job's protection from
	// preemption (min_runtime) ends then.
	WakeAt float64
	Wake   bool
}

func (p *Plan) reset() {
	for i := range p.Admitted {
		p.Admitted[i] = Admission{}
	}
	for i := range p.Preempted {
		p.Preempted[i] = Preemption{}
	}
	p.Admitted = p.Admitted[:0]
	p.Preempted = p.Preempted[:0]
	p.WakeAt, p.Wake = 0, false
}

// Schedule runs the policy at time now until nothing more can change, and
// returns what to start and what to preempt.
func (c *Core) Schedule(now float64) *Plan {
	c.now = now
	if checking {
		c.checkNoBypass(scheduleStart{})
	}
	c.plan.reset()
	c.expireProtections(now)
	c.eng.schedule(now)
	if len(c.protection) > 0 && c.Pending() > 0 {
		c.plan.WakeAt, c.plan.Wake = c.nextExpiry()
	}
	return &c.plan
}

// reason is the job's last reason, formatting a set-aside one on demand.
func (c *Core) reason(w *Workload) string {
	if w.lastReason != "" || w.aside == nil {
		return w.lastReason
	}
	e := entry{whys: w.aside.whys, nWhy: w.aside.n, mode: w.aside.mode}
	return c.reasonText(&e)
}

// Why returns the state and a readable reason for a pending job, as of the
// last cycle that looked at it.
func (c *Core) Why(w *Workload) (state, reason string) {
	if w.state != statePending {
		return "", ""
	}
	if w.lastReason == "" {
		w.lastReason = c.reason(w)
	}
	if w.waiting {
		return StateWaitingForPreemption, w.lastReason
	}
	if c.eng.oneQueue() {
		if w.lastReason == "" {
			return StateActive, "waiting behind earlier jobs in the queue"
		}
		return StateActive, w.lastReason
	}
	if s := w.sub; s != nil && c.parked(w.Queue, s) {
		r := w.lastReason
		if r == "" && len(s.h) > 0 {
			r = c.reason(s.h[0])
			if r != "" {
				r = "same request as " + jobName(s.h[0]) + ": " + r
			}
		}
		return StateInadmissible, r
	}
	r := w.lastReason
	if r == "" {
		r = "not yet considered: waiting behind earlier jobs of its team"
	}
	return StateActive, r
}

func jobName(w *Workload) string {
	if w.Name != "" {
		return w.Name
	}
	return "an earlier job"
}
