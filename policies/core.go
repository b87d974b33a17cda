package policies

import (
	"fmt"
	"math"
)

// Core is the scheduling state machine. It is not safe for concurrent use;
// each simulation or live controller owns one.
type Core struct {
	m      *Model
	tree   *quotaTree
	pools  []*pool // per flavor; nil when the flavor's nodes are not modelled
	queues []queueState
	shapes map[string]*shape
	// smallShapes finds the shapes of common requests without a string key.
	smallShapes map[smallKey]*shape
	gen         []int64 // per tree root: bumped when capacity is freed under it

	plan   Plan
	cycles int64
	now    float64

	// per-cycle scratch
	claimed  []claimedUsage
	reserved []reservation
	scratch  scratch
	// spareEntries are entries no one keeps: memos of jobs that left the
	// queue or were nominated anew, and (when nominations are not kept)
	// the last cycle's.
	spareEntries []*entry
	soleAsg      [][][]int // by flavor: every podset on that flavor, shared by whole-job starts
	noAsg        [][]int   // one podset on no flavor, shared by sole nominations that found none
	soleFR       [][]int   // by flavor-resource: the one-element list of it, shared by nominations
	withPending  []uint64  // bit q set while queue q has pending jobs: a cycle visits only those

	fw *fairWork
	// Scratch reused by every cycle.
	entryBuf []*entry
	headBuf  []*Workload
	doneBuf  []bool
	rankBuf  []ranked
	orderBuf []*entry // a classical cycle's heads in processing order
	byNode   []int
	sub      entry // a one-flavor search's entry: only the fields a search reads are kept current (searchFlavor)
	// ownStop: the last first test stopped at the job's own team's limits.
	ownStop bool
	keyBuf  []byte
	arena   arena
	// protection: when running jobs may be preempted again (minruntime.go)
	protection protections
	// protOrdered: every job started when admitted, so a level's jobs
	// lose their protection newest last (walkStart).
	protOrdered bool
	// off holds the shortcuts switched off (WithShortcutsOff); counts
	// their hits and misses while on.
	off    ShortcutSet
	counts ShortcutCounts
	// stateVer changes whenever anything a nomination reads changes:
	// usage, running jobs, evictions, nodes, quotas.
	stateVer uint64
	// addedThisCycle says whether a head processed in this cycle has added
	// usage (admitted or reserved) since the cycle's nominations.
	addedThisCycle bool
	settled        settledCycle
	// bypass is what the allotcheck build knows of the state at the last
	// Core.changed (check.go).
	bypass bypassCheck
	// grown lists the latest admissions: what a remembered quick test must
	// look at again (quickMemo).
	grown      growthLog
	changes    changeLog // what kept nominations, searches and quick tests check (stillholds.go)
	took       takes     // the last search's takes, for the search memory
	spareQuick []*quickMemo
	spareMemos []*headMemo
	// spareSearches holds memos of heads that left their queue.
	spareSearches []*searchMemo
	afs           *afsState
	eng           engine // the policy kind's queue and decisions, with its state (engine.go)
}

type reservation struct {
	node  int
	usage []frQty
}

type scratch struct {
	rem      []frQty
	rem2     []frQty
	targets  []target
	replay   []target       // a replayed search's takes; never outlives it
	teams    []int          // teams changed since a version (changedSince)
	subUsage []frQty        // a one-flavor search's usage; never outlives it
	rated    []ratedFlavor  // chooseFlavor's ratings of one podset's flavors
	slots    [2]ratedFlavor // chooseFlavor's when it rates one flavor at a time
	frs      []int
	frsNeed  []int
	asg      [][]int
	cells    []int
	bound    []boundTake // couldFit's removals; never outlive it
	sources  sourcesOf   // a classical search's teams
	merges   mergeIter
}

// Option is a switch of how a core computes, never of what it decides.
type Option func(*Core)

// WithShortcutsOff switches off the shortcuts in set (allot sim --off;
// AllShortcuts for --reference): the same decisions, slower.
func WithShortcutsOff(set ShortcutSet) Option { return func(c *Core) { c.off |= set } }

// NewCore builds a core for a model. The model must not change afterwards
// except through the core's methods.
func NewCore(m *Model, opts ...Option) (*Core, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	c := &Core{m: m, shapes: map[string]*shape{}, smallShapes: map[smallKey]*shape{}, protOrdered: true}
	for _, o := range opts {
		o(c)
	}
	c.tree = newQuotaTree(m)
	c.gen = make([]int64, len(c.tree.nodes))
	c.queues = make([]queueState, len(m.Queues))
	c.withPending = make([]uint64, (len(m.Queues)+63)/64)
	c.changes = newChangeLog(len(m.Queues), len(m.Flavors))
	for i := range c.queues {
		c.queues[i].noVictims = m.Kind == KindFIFO || m.Kind == KindPriority
		c.queues[i].byKey = map[subKey]*subQueue{}
	}
	c.pools = make([]*pool, len(m.Flavors))
	c.noAsg = [][]int{{-1}}
	c.soleAsg = make([][][]int, len(m.Flavors))
	for f := range c.soleAsg {
		c.soleAsg[f] = [][]int{{f}}
	}
	c.soleFR = make([][]int, len(m.Flavors)*len(m.Resources))
	for fr := range c.soleFR {
		c.soleFR[fr] = []int{fr}
	}
	if m.NodesModelled {
		for i, f := range m.Flavors {
			if f.Nodes >= 0 {
				c.pools[i] = newPool(f.NodeAccel, f.NodeVCPU, f.NodeMem, f.Nodes)
			}
		}
	}
	if m.AdmissionFairSharingHalfLife > 0 {
		c.afs = newAFS(len(m.Queues), m.AdmissionFairSharingHalfLife)
	}
	eng, ok := newEngine(c, m.Kind)
	if !ok {
		return nil, fmt.Errorf("unknown policy kind %q", m.Kind)
	}
	c.eng = eng
	return c, nil
}

// Model returns the core's model.
func (c *Core) Model() *Model { return c.m }

// Cycles counts scheduling cycles run so far.
func (c *Core) Cycles() int64 { return c.cycles }

func (c *Core) internShape(r *Request) *shape {
	k, small := smallKeyOf(r)
	if small {
		if s, ok := c.smallShapes[k]; ok {
			return s
		}
	}
	c.keyBuf = r.appendKey(c.keyBuf[:0])
	if s, ok := c.shapes[string(c.keyBuf)]; ok { // no allocation to look up
		return s
	}
	s := &shape{id: len(c.shapes), req: *r, generic: len(r.PodSets) == 0, perFlavor: make([]flavorNeed, len(c.m.Flavors))}
	c.shapes[string(c.keyBuf)] = s
	if small {
		c.smallShapes[k] = s
	}
	return s
}

// smallKey is a Request's key without building a string, for the common
// request: no podsets and up to eight compatible flavors, each below 255,
// packed in order one byte apiece (a flavor f as f+1, so that no list is
// read as another).
type smallKey struct {
	accel, vcpu, mem Qty
	compat           uint64
}

func smallKeyOf(r *Request) (smallKey, bool) {
	if len(r.PodSets) > 0 || len(r.Compatible) > 8 {
		return smallKey{}, false
	}
	k := smallKey{accel: r.Accel, vcpu: r.VCPU, mem: r.Mem}
	for i, f := range r.Compatible {
		if f < 0 || f >= 255 {
			return smallKey{}, false
		}
		k.compat |= uint64(f+1) << (8 * i)
	}
	return k, true
}

// need returns what a shape asks of one flavor (computed once).
// It is small enough to inline: nominations ask it at every step.
func (c *Core) need(s *shape, f int) *flavorNeed {
	n := &s.perFlavor[f]
	if !n.computed {
		c.fillNeed(s, f, n)
	}
	return n
}

//go:noinline (kept out of need, so that need inlines)
func (c *Core) fillNeed(s *shape, f int, n *flavorNeed) {
	n.computed = true
	c.computeNeed(s, f, n)
	if n.ok && len(n.podsets) == 1 {
		nR := len(c.m.Resources)
		for r, v := range n.podsets[0] {
			if v > 0 {
				n.soleUsage = append(n.soleUsage, frQty{f*nR + r, v})
			}
		}
	}
}

func (c *Core) computeNeed(s *shape, f int, n *flavorNeed) {
	fs := &c.m.Flavors[f]
	nR := len(c.m.Resources)
	if !s.generic {
		n.ok = true
		for _, ps := range s.req.PodSets {
			v := make([]Qty, nR)
			for r, q := range ps.PerPod {
				v[r] = q * Qty(ps.Count)
			}
			n.podsets = append(n.podsets, v)
		}
		return
	}
	a, cpu, mem := s.req.Accel, s.req.VCPU, s.req.Mem
	if p := c.pools[f]; p != nil {
		pn, ok := p.need(a, cpu, mem)
		if !ok {
			return
		}
		n.place = pn
		if pn.whole {
			k := Qty(pn.nodes)
			a, cpu, mem = p.capA*k, p.capC*k, p.capM*k
		}
	}
	if a > 0 && fs.AccelResource < 0 {
		return
	}
	v := make([]Qty, nR)
	if fs.AccelResource >= 0 {
		v[fs.AccelResource] = a
	}
	if fs.CPUResource >= 0 {
		v[fs.CPUResource] = cpu
	}
	if fs.MemResource >= 0 {
		v[fs.MemResource] = mem
	}
	n.ok = true
	n.podsets = [][]Qty{v}
}

// Submit queues a new job.
func (c *Core) Submit(w *Workload) error {
	if w.Queue < 0 || w.Queue >= len(c.queues) {
		return fmt.Errorf("job %s: unknown queue %d", w.Name, w.Queue)
	}
	w.shape = c.internShape(&w.Req)
	w.state = statePending
	w.queuePos, w.heapIdx = -1, -1
	c.enqueue(w)
	return nil
}

func (c *Core) enqueue(w *Workload) { c.eng.push(w) }

func (c *Core) dequeue(w *Workload) {
	c.forget(w)
	c.eng.remove(w)
}

// AddAdmitted records a job that already holds quota (a snapshot's running
// jobs): assignment is the flavor per podset per resource group.
func (c *Core) AddAdmitted(w *Workload, assignment [][]int, admittedAt float64, evicting bool) error {
	if w.Queue < 0 || w.Queue >= len(c.queues) {
		return fmt.Errorf("job %s: unknown queue %d", w.Name, w.Queue)
	}
	w.shape = c.internShape(&w.Req)
	w.queuePos, w.heapIdx = -1, -1
	usage, err := c.usageOf(w, assignment)
	if err != nil {
		return err
	}
	c.commit(w, assignment, usage, placement{flavor: -1}, admittedAt)
	if evicting {
		w.state = stateEvicting
		c.queues[w.Queue].victims.markEvicting(w) // commit stamped the team
	}
	return nil
}

// usageOf sums a job's quota usage for an assignment.
func (c *Core) usageOf(w *Workload, assignment [][]int) ([]frQty, error) {
	q := &c.m.Queues[w.Queue]
	nR := len(c.m.Resources)
	acc := map[int]Qty{}
	var order []int
	for pi := range assignment {
		for gi, f := range assignment[pi] {
			if f < 0 {
				continue
			}
			n := c.need(w.shape, f)
			if !n.ok {
				return nil, fmt.Errorf("job %s cannot run on flavor %s", w.Name, c.m.Flavors[f].Name)
			}
			for _, r := range q.Groups[gi].Resources {
				if v := n.podsets[pi][r]; v > 0 {
					fr := f*nR + r
					if _, ok := acc[fr]; !ok {
						order = append(order, fr)
					}
					acc[fr] += v
				}
			}
		}
	}
	out := make([]frQty, 0, len(order))
	for _, fr := range order {
		out = append(out, frQty{fr, acc[fr]})
	}
	return out, nil
}

// commit admits a job: quota usage, nodes, and the team's admitted list.
func (c *Core) commit(w *Workload, assignment [][]int, usage []frQty, pl placement, now float64) {
	w.assignment = assignment
	w.usage = usage
	w.place = pl
	w.admittedAt = now
	c.protect(w, now)
	w.state = stateAdmitted
	w.waiting = false
	c.changed(change{kind: jobAdmitted, w: w})
	if c.tree != nil && len(c.tree.qNode) > w.Queue {
		c.tree.addAll(c.tree.qNode[w.Queue], usage)
	}
	if pl.flavor >= 0 && c.pools[pl.flavor] != nil && len(pl.nodes) > 0 {
		c.pools[pl.flavor].occupy(&w.place)
	}
	if pl.flavor < 0 && len(usage) > 0 && w.place.heldA == 0 {
		w.place.heldA = accelOf(c.m, usage)
	}
	c.queues[w.Queue].addAdmitted(w, len(c.m.Resources))
	if c.afs != nil {
		c.afs.admit(w, now)
	}
	c.eng.admitted(w, now)
}

func accelOf(m *Model, usage []frQty) Qty {
	nR := len(m.Resources)
	var s Qty
	for _, u := range usage {
		f, r := u.fr/nR, u.fr%nR
		if m.Flavors[f].AccelResource == r {
			s += u.q
		}
	}
	return s
}

// release undoes commit.
func (c *Core) release(w *Workload) {
	c.changed(change{kind: jobReleased, w: w})
	if c.tree != nil {
		c.tree.removeAll(c.tree.qNode[w.Queue], w.usage)
	}
	if pl := &w.place; pl.flavor >= 0 && c.pools[pl.flavor] != nil && len(pl.nodes) > 0 {
		c.pools[pl.flavor].release(pl)
	}
	c.queues[w.Queue].removeAdmitted(w)
	if c.afs != nil {
		c.afs.release(w, c.now)
	}
	c.eng.released(w, c.now)
	w.usage = nil
	w.place = placement{flavor: -1, nodes: w.place.nodes[:0]}
}

// Finish removes a job for good (completed, failed or cancelled).
func (c *Core) Finish(w *Workload, now float64) {
	c.now = now
	switch w.state {
	case stateAdmitted, stateEvicting:
		c.release(w)
	case statePending:
		c.dequeue(w)
	}
	w.state = stateGone
}

// Requeue releases a running job (its eviction completed, or its node
// failed) and puts it back in its queue with its original queue position.
func (c *Core) Requeue(w *Workload, now float64) {
	c.now = now
	if w.state == stateAdmitted || w.state == stateEvicting {
		c.release(w)
	}
	w.state = statePending
	w.assignment = nil
	c.enqueue(w)
}

// SetNodeHealthy marks a node of a flavor up or down. Jobs on a node that
// goes down must be requeued or finished by the caller first.
func (c *Core) SetNodeHealthy(flavor int, node int32, up bool) {
	c.changed(change{kind: nodesChanged, flavor: flavor})
	if p := c.pools[flavor]; p != nil {
		p.setHealthy(node, up)
		if up {
			c.changed(change{kind: capacityGrown})
		}
	}
}

// AddNodes grows a flavor's pool by n healthy nodes and returns the index of
// the first new node.
func (c *Core) AddNodes(flavor, n int) int32 {
	p := c.pools[flavor]
	if p == nil {
		return -1
	}
	first := int32(len(p.nodes))
	p.grow(n)
	c.m.Flavors[flavor].Nodes += n
	c.changed(change{kind: capacityGrown})
	return first
}

// JobsOnNode lists the admitted jobs that occupy a node.
func (c *Core) JobsOnNode(flavor int, node int32) []*Workload {
	var out []*Workload
	for qi := range c.queues {
		for _, w := range c.queues[qi].admitted {
			if w.place.flavor != flavor {
				continue
			}
			for _, n := range w.place.nodes {
				if n == node {
					out = append(out, w)
					break
				}
			}
		}
	}
	return out
}

// PickNodesToRemove chooses n healthy nodes of a flavor to take out of the
// fleet, free ones first, and marks them down; the caller requeues jobs on them.
func (c *Core) PickNodesToRemove(flavor, n int) []int32 {
	p := c.pools[flavor]
	if p == nil {
		return nil
	}
	var out []int32
	for len(out) < n {
		i := p.highestFree()
		if i < 0 {
			break
		}
		p.setHealthy(i, false)
		out = append(out, i)
	}
	c.changed(change{kind: nodesChanged, flavor: flavor})
	for i := int32(len(p.nodes)) - 1; i >= 0 && len(out) < n; i-- {
		if p.nodes[i].healthy {
			p.setHealthy(i, false)
			out = append(out, i)
		}
	}
	c.m.Flavors[flavor].Nodes -= len(out)
	return out
}

// SetQuota changes a queue's nominal quota of one flavor and resource.
func (c *Core) SetQuota(queue, flavor, resource int, nominal Qty) {
	fr := flavor*len(c.m.Resources) + resource
	n := c.tree.qNode[queue]
	c.tree.nodes[n].cells[fr].quota.Nominal = nominal
	c.tree.nodes[n].declared[fr] = true
	for gi := range c.m.Queues[queue].Groups {
		for fi := range c.m.Queues[queue].Groups[gi].Flavors {
			fq := &c.m.Queues[queue].Groups[gi].Flavors[fi]
			if fq.Flavor == flavor {
				q := fq.Quotas[resource]
				q.Nominal = nominal
				fq.Quotas[resource] = q
			}
		}
	}
	c.tree.recompute()
	c.changed(change{kind: capacityGrown})
}

// Pending counts jobs waiting in the queues.
func (c *Core) Pending() int { return c.eng.pending() }

// LostWork is the running time a job would lose if stopped now: the time
// since its last periodic checkpoint (or since it started, without one).
func (w *Workload) LostWork(now float64) float64 {
	run := now - w.RunStart
	if run <= 0 {
		return 0
	}
	if w.CheckpointInterval > 0 {
		return math.Mod(run, w.CheckpointInterval)
	}
	return run
}

// AddCohortQuota changes a cohort's own (shared pool) nominal quota of one
// flavor and resource by delta, not below zero.
func (c *Core) AddCohortQuota(cohort, flavor, resource int, delta Qty) {
	if cohort < 0 || cohort >= len(c.tree.cNode) {
		return
	}
	fr := flavor*len(c.m.Resources) + resource
	nd := &c.tree.nodes[c.tree.cNode[cohort]]
	nd.cells[fr].quota.Nominal = max(0, nd.cells[fr].quota.Nominal+delta)
	nd.declared[fr] = true
	c.tree.recompute()
	c.changed(change{kind: capacityGrown})
}

// isClaimed says whether a preemptor claimed the job as a victim this cycle.
func (c *Core) isClaimed(w *Workload) bool { return w.claimedIn == c.cycles && c.cycles > 0 }
