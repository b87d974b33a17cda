package policies

import (
	"strconv"
)

// PodSet is a group of identical pods of one job.
type PodSet struct {
	Name   string
	Count  int32
	PerPod []Qty // dense over Model.Resources
}

// Request is what a job asks for. A job either names its resources per
// podset (PodSets, as a snapshot does) or asks for a total of accelerators,
// vCPUs and memory that each flavor maps onto its own resources (the
// simulator's jobs).
type Request struct {
	PodSets []PodSet
	// Generic form, used when PodSets is empty.
	Accel, VCPU, Mem Qty
	// Compatible lists the flavors the job may use, preferred first; nil
	// means every flavor of the queue, in the queue's order.
	Compatible []int
}

// appendKey appends an encoding of the request that equal requests share.
func (r *Request) appendKey(b []byte) []byte {
	for _, ps := range r.PodSets {
		b = append(b, ps.Name...)
		b = append(b, ':')
		b = strconv.AppendInt(b, int64(ps.Count), 10)
		for _, q := range ps.PerPod {
			b = append(b, ',')
			b = strconv.AppendInt(b, q, 10)
		}
		b = append(b, ';')
	}
	b = strconv.AppendInt(b, r.Accel, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, r.VCPU, 10)
	b = append(b, '/')
	b = strconv.AppendInt(b, r.Mem, 10)
	b = append(b, '|')
	for _, f := range r.Compatible {
		b = strconv.AppendInt(b, int64(f), 10)
		b = append(b, ',')
	}
	return b
}

// shape is an interned Request: jobs with equal requests share one, which
// lets the core treat them as equivalent (Kueue's scheduling-equivalence).
type shape struct {
	id      int
	req     Request
	generic bool
	// per flavor: can it go there at all, and its requests per podset there
	perFlavor []flavorNeed
	orders    []groupOrder // flavorOrder's answers, by the group's flavors
}

// groupOrder is the flavors a shape may try, in order, of a group whose
// flavors are group.
type groupOrder struct {
	group   []int
	flavors []int
}

type flavorNeed struct {
	computed bool
	ok       bool
	// podset index -> dense request over resources (count × per pod, or the
	// held amounts on that flavor's nodes for the generic form)
	podsets [][]Qty
	place   placeNeed
	// soleUsage is a one-podset shape's usage of this flavor, shared by
	// every such job started whole on it (usage slices are never written).
	soleUsage []frQty
}

// placeNeed is what a job occupies on a flavor's nodes.
type placeNeed struct {
	whole   bool
	nodes   int // whole nodes needed
	a, c, m Qty // sub-node request
}

// Workload is a job as the core sees it. The shell owns it and passes the
// same pointer back in every call about that job.
//
// Fields are laid out by when the core reads them: the first two cache
// lines hold what a victim search walks and what a job's release touches,
// so that a job long admitted, cold in the cache, costs few misses.
type Workload struct {
	prev, next *Workload // in the team's victim index
	usage      []frQty   // admitted quota usage
	Queue      int
	Seq        int64 // final tie-break (arrival order, or name order)
	Priority   int32
	state      wlState
	inLevel    bool
	waiting    bool // issued preemptions, sticky head
	typesKnown uint8
	admittedAt float64
	startedAt  float64 // last (re)start, for the minimum runtime
	claimedIn  int64   // cycle in which a preemptor claimed it
	vflavor    int32
	queuePos   int32 // index in queue's admitted list
	heapIdx    int32
	// Tag is the shell's own handle for the job (the simulator's slot).
	Tag   int32
	sub   *subQueue
	shape *shape
	// Order is the queue-order timestamp: creation time, kept across
	// preemptions so a preempted job goes back near the front.
	Order float64
	place placement

	Name string
	User int // local queue for admission fair sharing
	Req  Request
	// Estimate is the expected running time (s) for backfill; the shell may
	// leave it 0 when backfill is off.
	Estimate float64
	// CheckpointInterval and RunStart let the core compute the work a
	// running job would lose if preempted now.
	CheckpointInterval float64
	RunStart           float64
	// ForcedFlavors pins flavors per resource (snapshot preemption_targets).
	ForcedFlavors map[int]int

	assignment [][]int // podset -> group -> flavor (admitted)
	lastReason string
	aside      *setAside // why it could not go, formatted on demand
	memo       *headMemo // the shortcuts' memories while it waits (memo.go); no rule reads it
	types      uint64    // the types it may take, as bits (typesOf)
	batchTerm  float64
	batchRef   float64
}

type wlState uint8

const (
	statePending wlState = iota
	stateAdmitted
	stateEvicting
	stateGone
)

// Admitted says whether the job holds quota and nodes.
func (w *Workload) Admitted() bool { return w.state == stateAdmitted || w.state == stateEvicting }

// Flavor returns the flavor of the first podset's first group (-1 if none).
func (w *Workload) Flavor() int {
	if len(w.assignment) == 0 || len(w.assignment[0]) == 0 {
		return -1
	}
	for _, f := range w.assignment[0] {
		if f >= 0 {
			return f
		}
	}
	return -1
}

// Assignment returns the flavor per podset per resource group.
func (w *Workload) Assignment() [][]int { return w.assignment }

// Nodes returns the node indices the job occupies on its flavor.
func (w *Workload) Nodes() []int32 { return w.place.nodes }

// Spare is what a workload that is done leaves for a new one to reuse: the
// list its placement was written into. A caller that keeps its workloads'
// memory from job to job (the simulator) hands it on, so that admissions
// allocate nothing once the lists are long enough.
type Spare struct{ nodes []int32 }

// Spare returns w's reusable memory. w must be done (finished, or never
// submitted), and is not used again.
func (w *Workload) Spare() Spare { return Spare{w.place.nodes[:0]} }

// Reuse gives a workload not yet submitted the memory a done one left.
func (w *Workload) Reuse(s Spare) { w.place.nodes = s.nodes[:0] }

// Held returns the accelerators the job holds on its nodes (or in quota).
func (w *Workload) Held() Qty { return w.place.heldA }

// usesFR says whether the job holds quota of a flavor-resource.
func (w *Workload) usesFR(fr int) bool { return usesFR(w.usage, fr) }

// QuotaOf returns the quota the job holds of a flavor-resource
// (fr = flavor × len(Model.Resources) + resource).
func (w *Workload) QuotaOf(fr int) Qty {
	for _, u := range w.usage {
		if u.fr == fr {
			return u.q
		}
	}
	return 0
}

// AdmittedAt is when the job was last admitted (candidate order reads it).
func (w *Workload) AdmittedAt() float64 { return w.admittedAt }

// Evicting says whether the job was told to stop and still holds quota.
func (w *Workload) Evicting() bool { return w.state == stateEvicting }

// setAside is why a job was last set aside.
type setAside struct {
	whys [4]why
	n    int
	mode mode
}
