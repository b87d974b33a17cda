package policies

import (
	"fmt"
	"slices"
	"sort"
)

// SnapshotKind says what to run on a snapshot (spec/snapshot.md).
type SnapshotKind string

// Snapshot kinds.
const (
	KindCycle             SnapshotKind = "cycle"
	KindPreemptionTargets SnapshotKind = "preemption_targets"
	KindSteadyState       SnapshotKind = "steady_state"
	KindQueueOrder        SnapshotKind = "queue_order"
)

// Snapshot is a state for the core to decide on once.
type Snapshot struct {
	Kind    SnapshotKind
	Model   *Model
	Now     float64
	Running []RunningJob
	Pending []*Workload
}

// RunningJob is an admitted job of a snapshot.
type RunningJob struct {
	W          *Workload
	Assignment [][]int // podset -> resource group -> flavor
	AdmittedAt float64
	// StartedAt is the job's last (re)start (min_runtime counts from it);
	// HasStarted false means AdmittedAt.
	StartedAt  float64
	HasStarted bool
	Evicting   bool
}

// CycleResult is the plan of a snapshot run, by job name.
type CycleResult struct {
	Admitted  []AdmittedJob  `json:"admitted"`
	Preempted []PreemptedJob `json:"preempted"`
	Pending   []PendingJob   `json:"pending"`
	PopOrder  []string       `json:"pop_order,omitempty"`
}

// AdmittedJob is a job admitted with its flavor per podset and resource.
type AdmittedJob struct {
	Name    string                       `json:"name"`
	Flavors map[string]map[string]string `json:"flavors"`
}

// PreemptedJob is a job chosen for preemption.
type PreemptedJob struct {
	Name   string `json:"name"`
	Reason string `json:"reason"`
}

// PendingJob is a job left pending, with why.
type PendingJob struct {
	Name   string `json:"name"`
	State  string `json:"state"`
	Reason string `json:"reason"`
}

// Cycle runs exactly one scheduling cycle of the quota policy.
func (c *Core) Cycle(now float64) *Plan {
	c.now = now
	c.plan.reset()
	c.expireProtections(now)
	c.quotaCycle(now)
	return &c.plan
}

// RunSnapshot builds a core from a snapshot and runs it.
func RunSnapshot(s *Snapshot) (*CycleResult, error) {
	return RunSnapshotWith(s, func(decide func()) { decide() })
}

// RunSnapshotWith is RunSnapshot with the decision (the cycles, after the
// snapshot is loaded into a core and before the result is described)
// called through wrap, so that a caller can time it: time is the caller's.
func RunSnapshotWith(s *Snapshot, wrap func(decide func())) (*CycleResult, error) {
	c, err := NewCore(s.Model)
	if err != nil {
		return nil, err
	}
	res := &CycleResult{Admitted: []AdmittedJob{}, Preempted: []PreemptedJob{}, Pending: []PendingJob{}}
	if s.Kind == KindQueueOrder {
		for _, w := range s.Pending {
			if err := c.Submit(w); err != nil {
				return nil, err
			}
		}
		for q := range c.queues {
			for {
				h := c.headForPop(q)
				if h == nil {
					break
				}
				res.PopOrder = append(res.PopOrder, h.Name)
				c.dequeue(h)
			}
		}
		return res, nil
	}
	for _, r := range s.Running {
		if err := c.AddAdmitted(r.W, r.Assignment, r.AdmittedAt, r.Evicting); err != nil {
			return nil, err
		}
		if r.HasStarted {
			c.SetStarted(r.W, r.StartedAt)
		}
	}
	for _, w := range s.Pending {
		if err := c.Submit(w); err != nil {
			return nil, err
		}
	}
	c.now = s.Now
	c.expireProtections(s.Now) // protections ended by now, as a shell's Schedule would
	admitted := map[*Workload]bool{}
	preempted := map[*Workload]string{}
	var plans []Plan // copied out of the core's reused plan, read after the timing
	switch s.Kind {
	case KindCycle, KindPreemptionTargets, KindSteadyState:
	default:
		return nil, fmt.Errorf("unknown snapshot kind %q", s.Kind)
	}
	var one *Plan
	wrap(func() {
		if s.Kind != KindSteadyState {
			one = c.Cycle(s.Now)
			return
		}
		for i := 0; i < 10000; i++ {
			c.plan.reset()
			progress := c.quotaCycle(s.Now)
			plans = append(plans, copyPlan(&c.plan))
			for _, pr := range c.plan.Preempted {
				c.Requeue(pr.W, s.Now)
			}
			if !progress && len(c.plan.Preempted) == 0 {
				break
			}
		}
	})
	if one != nil {
		plans = append(plans, *one)
	}
	for _, p := range plans {
		for _, a := range p.Admitted {
			admitted[a.W] = true
		}
		for _, pr := range p.Preempted {
			preempted[pr.W] = pr.Reason
			delete(admitted, pr.W)
		}
	}
	for w := range admitted {
		res.Admitted = append(res.Admitted, AdmittedJob{Name: w.Name, Flavors: c.flavorsByName(w)})
	}
	for w, r := range preempted {
		res.Preempted = append(res.Preempted, PreemptedJob{Name: w.Name, Reason: r})
	}
	for _, w := range s.Pending {
		if w.state != statePending {
			continue
		}
		st, why := c.Why(w)
		res.Pending = append(res.Pending, PendingJob{Name: w.Name, State: st, Reason: why})
	}
	sort.Slice(res.Admitted, func(i, j int) bool { return res.Admitted[i].Name < res.Admitted[j].Name })
	sort.Slice(res.Preempted, func(i, j int) bool { return res.Preempted[i].Name < res.Preempted[j].Name })
	sort.Slice(res.Pending, func(i, j int) bool { return res.Pending[i].Name < res.Pending[j].Name })
	return res, nil
}

func copyPlan(p *Plan) Plan {
	return Plan{Admitted: slices.Clone(p.Admitted), Preempted: slices.Clone(p.Preempted)}
}

// headForPop is the next job of a queue in queue order, ignoring parking.
func (c *Core) headForPop(q int) *Workload {
	qs := &c.queues[q]
	var best *Workload
	for _, s := range qs.subs {
		if len(s.h) == 0 {
			continue
		}
		if top := s.h[0]; best == nil || c.queueBefore(q, top, best) {
			best = top
		}
	}
	return best
}

func (c *Core) flavorsByName(w *Workload) map[string]map[string]string {
	out := map[string]map[string]string{}
	spec := &c.m.Queues[w.Queue]
	nR := len(c.m.Resources)
	for pi, groups := range w.assignment {
		name := "main"
		if !w.shape.generic {
			name = w.shape.req.PodSets[pi].Name
		}
		m := map[string]string{}
		for gi, f := range groups {
			if f < 0 {
				continue
			}
			for _, r := range spec.Groups[gi].Resources {
				for _, u := range w.usage {
					if u.fr == f*nR+r {
						m[c.m.Resources[r]] = c.m.Flavors[f].Name
					}
				}
			}
		}
		out[name] = m
	}
	return out
}
