package oracle

import (
	"slices"

	"github.com/allot-sim/allot/policies"
)

// Job is a job as the oracle reads it.
type Job struct {
	ID       int64 // the core's sequence number: the last tie of candidate order
	Queue    int
	Priority int32
	Order    float64 // queue-order timestamp
	Admitted float64
	Evicting bool
	Usage    map[int]policies.Qty // quota held or asked, by flavor-resource
}

// Target is a victim and the reason Kueue would give.
type Target struct {
	ID     int64
	Reason string
}

// class is a candidate's standing toward the preemptor (§5.2).
type class int

const (
	withinCQ class = iota
	hierarchical
	reclaimWithoutBorrowing
	reclaimWhileBorrowing
)

func (k class) reason() string {
	switch k {
	case withinCQ:
		return policies.ReasonInClusterQueue
	case reclaimWhileBorrowing:
		return policies.ReasonInCohortReclaimWhileBorrowing
	}
	return policies.ReasonInCohortReclamation
}

type candidate struct {
	job   *Job
	class class
	lca   int // the cohort node where its path meets the preemptor's; -1 for its own queue
}

// state is the usage of every flavor-resource's tree.
type state struct {
	trees map[int]*tree
}

func newState(m *policies.Model, running []Job, frs []int) *state {
	s := &state{trees: map[int]*tree{}}
	for _, fr := range frs {
		t := newTree(m, fr)
		for _, j := range running {
			t.own[j.Queue] += j.Usage[fr]
		}
		s.trees[fr] = t
	}
	return s
}

func (s *state) remove(j *Job, sign policies.Qty) {
	for fr, t := range s.trees {
		t.own[j.Queue] -= sign * j.Usage[fr]
	}
}

// withinNominal: node n uses no more than its subtree quota on every fr.
func (s *state) withinNominal(n int, frs []int) bool {
	for _, fr := range frs {
		if s.trees[fr].overQuota(n) {
			return false
		}
	}
	return true
}

// fits says whether p's request fits its queue: what the tree lets it
// take, and with allowBorrow false, no more than its own quota.
func (s *state) fits(p *Job, allowBorrow bool) bool {
	for fr, req := range p.Usage {
		t := s.trees[fr]
		if req > max(0, t.available(p.Queue)) {
			return false
		}
		if !allowBorrow && t.usage(p.Queue)+req > t.subtreeQuota(p.Queue) {
			return false
		}
	}
	return true
}

func satisfies(pol policies.PreemptPolicy, p, j *Job) bool {
	switch pol {
	case policies.LowerPriority:
		return j.Priority < p.Priority
	case policies.LowerOrNewerEqualPriority:
		return j.Priority < p.Priority || (j.Priority == p.Priority && p.Order < j.Order)
	case policies.Any:
		return true
	}
	return false
}

// Targets returns the victims classical preemption takes for preemptor p
// among the running jobs, in model m (quota only, one flavor per job):
// nil when p fits without, or no set of victims makes room.
func Targets(m *policies.Model, running []Job, p Job) []Target {
	var frs []int
	for fr := range p.Usage {
		frs = append(frs, fr)
	}
	slices.Sort(frs)
	s := newState(m, running, frs)
	var need []int // the flavor-resources where p does not fit
	for _, fr := range frs {
		if p.Usage[fr] > max(0, s.trees[fr].available(p.Queue)) {
			need = append(need, fr)
		}
	}
	if len(need) == 0 {
		return nil
	}
	spec := &m.Queues[p.Queue]
	cands := candidates(running, sources(s, spec, &p, frs, need), spec, &p, need)
	if len(cands) == 0 {
		return nil
	}
	sortCandidates(cands, &p)
	for _, allowBorrow := range passes(s, spec, &p, cands, need) {
		if out := takeUntilFits(s, &p, cands, need, allowBorrow); out != nil {
			return out
		}
	}
	return nil
}

// source is a queue jobs may be taken from (§5.2): lca is the cohort
// where it meets the preemptor's path (-1 for the preemptor's own queue),
// adv whether the preemptor has the hierarchical advantage there.
type source struct {
	queue, lca int
	adv        bool
}

// sources lists the queues jobs may be taken from (§5.2): the
// preemptor's own, then, walking up its cohorts, every other queue that
// is not within its quota on what p needs.
func sources(s *state, spec *policies.QueueSpec, p *Job, frs, need []int) []source {
	t0 := s.trees[frs[0]] // every tree has the same shape
	var out []source
	if spec.WithinQueue != policies.Never {
		out = append(out, source{p.Queue, -1, false})
	}
	if spec.Reclaim == policies.Never || t0.parent[p.Queue] < 0 {
		return out
	}
	// p has the advantage at a cohort when it fits within quota below
	// it: in its own queue, or at a cohort passed on the way up (what it
	// still lacks after the local quota below fits that subtree's quota).
	rem := map[int]policies.Qty{}
	adv := true
	for _, fr := range frs {
		t := s.trees[fr]
		if t.usage(p.Queue)+p.Usage[fr] > t.subtreeQuota(p.Queue) {
			adv = false
		}
		rem[fr] = max(0, p.Usage[fr]-max(0, t.localQuota(p.Queue)-t.usage(p.Queue)))
	}
	prev := p.Queue
	for cur := t0.parent[p.Queue]; cur >= 0; cur = t0.parent[cur] {
		out = s.collect(out, t0, p.Queue, need, source{cur, cur, adv}, prev)
		fitsHere := true
		for _, fr := range frs {
			t := s.trees[fr]
			if t.usage(cur)+rem[fr] > t.subtreeQuota(cur) {
				fitsHere = false
			}
			rem[fr] = max(0, rem[fr]-max(0, t.localQuota(cur)-t.usage(cur)))
		}
		adv = adv || fitsHere
		prev = cur
	}
	return out
}

// collect adds to out the queues under node at.queue (at.lca and at.adv
// passed on), but for the subtree skip and the preemptor's queue own,
// that are not within their quota on need.
func (s *state) collect(out []source, t0 *tree, own int, need []int, at source, skip int) []source {
	for _, ch := range t0.children[at.queue] {
		if ch == skip || ch == own || s.withinNominal(ch, need) {
			continue
		}
		if ch < t0.nQueues {
			out = append(out, source{ch, at.lca, at.adv})
		} else {
			out = s.collect(out, t0, own, need, source{ch, at.lca, at.adv}, skip)
		}
	}
	return out
}

// candidates lists, source by source, the running jobs of each that use
// what p needs and that the queue's policy lets p preempt, each
// classified (§5.2).
func candidates(running []Job, srcs []source, spec *policies.QueueSpec, p *Job, need []int) []candidate {
	var cands []candidate
	for _, src := range srcs {
		pol := spec.Reclaim
		if src.queue == p.Queue {
			pol = spec.WithinQueue
		}
		for i := range running {
			j := &running[i]
			if j.Queue != src.queue || !usesAny(j, need) || !satisfies(pol, p, j) {
				continue
			}
			cands = append(cands, candidate{j, classify(spec, p, j, src), src.lca})
		}
	}
	return cands
}

// classify is a candidate's standing toward the preemptor (§5.2).
func classify(spec *policies.QueueSpec, p, j *Job, src source) class {
	switch {
	case j.Queue == p.Queue:
		return withinCQ
	case src.adv:
		return hierarchical
	case spec.BorrowWithin == policies.Never:
		return reclaimWithoutBorrowing
	case j.Priority >= p.Priority || (spec.HasBorrowThreshold && j.Priority > spec.BorrowThreshold):
		return reclaimWithoutBorrowing
	}
	return reclaimWhileBorrowing
}

// sortCandidates puts the candidates in the order they are taken (§5.3):
// evicted first; then teams with the advantage, other teams, the
// preemptor's own; within each, lower priority, the latest admitted, the
// lowest sequence.
func sortCandidates(cands []candidate, p *Job) {
	group := func(c candidate) int {
		g := 2
		switch {
		case c.class == hierarchical:
			g = 0
		case c.job.Queue != p.Queue:
			g = 1
		}
		if !c.job.Evicting {
			g += 3
		}
		return g
	}
	slices.SortStableFunc(cands, func(a, b candidate) int {
		if ga, gb := group(a), group(b); ga != gb {
			return ga - gb
		}
		if a.job.Priority != b.job.Priority {
			return int(a.job.Priority - b.job.Priority)
		}
		if a.job.Admitted != b.job.Admitted {
			if a.job.Admitted > b.job.Admitted {
				return -1
			}
			return 1
		}
		if a.job.ID < b.job.ID {
			return -1
		}
		return 1
	})
}

// passes are the walks over the candidates (§5.4), each saying whether
// p may borrow once its victims are gone: first yes, then no; yes alone
// where every candidate is of p's own queue, or borrowing within the
// cohort is forbidden and p is at or over nominal on what it needs;
// first no, then yes, where it is forbidden and no candidate gives the
// advantage.
func passes(s *state, spec *policies.QueueSpec, p *Job, cands []candidate, need []int) []bool {
	hasHier, hasOther := false, false
	for _, c := range cands {
		hasHier = hasHier || c.class == hierarchical
		hasOther = hasOther || c.job.Queue != p.Queue
	}
	bwcForbidden := spec.BorrowWithin == policies.Never
	underNominal := true
	for _, fr := range need {
		t := s.trees[fr]
		if t.nominal[p.Queue] <= t.usage(p.Queue) {
			underNominal = false
		}
	}
	switch {
	case !hasOther || (bwcForbidden && !underNominal):
		return []bool{true}
	case bwcForbidden && !hasHier:
		return []bool{false, true}
	}
	return []bool{true, false}
}

// takeUntilFits is one pass (§5.4): it removes candidates in order, those
// of other queues only while they still borrow (and, when p may borrow,
// not those reclaimed without borrowing), until p fits; then it puts back
// every victim, latest first, that p fits without. Nil, and the usage as
// it was, when p never fits.
func takeUntilFits(s *state, p *Job, cands []candidate, need []int, allowBorrow bool) []Target {
	var taken []candidate
	for _, c := range cands {
		if c.job.Queue != p.Queue {
			if allowBorrow && c.class == reclaimWithoutBorrowing {
				continue
			}
			if !stillBorrowing(s, c, need) {
				continue
			}
		}
		s.remove(c.job, 1)
		taken = append(taken, c)
		if s.fits(p, allowBorrow) {
			for i := len(taken) - 2; i >= 0; i-- {
				s.remove(taken[i].job, -1)
				if s.fits(p, allowBorrow) {
					taken = slices.Delete(taken, i, i+1)
				} else {
					s.remove(taken[i].job, 1)
				}
			}
			out := make([]Target, 0, len(taken))
			for _, c := range taken {
				out = append(out, Target{c.job.ID, c.class.reason()})
			}
			return out
		}
	}
	for _, c := range taken {
		s.remove(c.job, -1)
	}
	return nil
}

// stillBorrowing: the candidate's queue, and every cohort on its path below
// where it meets the preemptor's, still use more than their quota.
func stillBorrowing(s *state, c candidate, need []int) bool {
	t := s.trees[need[0]]
	for n := c.job.Queue; n >= 0 && n != c.lca; n = t.parent[n] {
		if s.withinNominal(n, need) {
			return false
		}
	}
	return true
}

func usesAny(j *Job, frs []int) bool {
	for _, fr := range frs {
		if j.Usage[fr] > 0 {
			return true
		}
	}
	return false
}
