package live

import (
	"fmt"
	"slices"

	"github.com/allot-sim/allot/policies"
)

// WorkloadSpec is one live job's scheduling fields, as a backend reads
// them from where it keeps its jobs (the local store, a Kubernetes Job).
// Config.Workload makes the core's workload of it: the one conversion both
// backends use, so that a field the core reads is set on both or neither.
type WorkloadSpec struct {
	// ID names the job to the core (its reasons and plans).
	ID string
	// Seq is the final tie-break between otherwise equal jobs.
	Seq           int64
	Team          string
	PriorityClass string
	// Accelerators is the job's total: all its pods together (a gang is
	// admitted whole; placing its pods is the cluster's).
	Accelerators int
	// VCPUs and MemoryGiB are its totals of cpu and memory (GiB), all its
	// pods together. The core counts them where the policy's quotas name
	// vCPUs or memory, and ignores them elsewhere.
	VCPUs, MemoryGiB float64
	// InstanceType is the only instance type it may run on ("": any).
	InstanceType string
	// Order is its place in the queue (controller seconds): when it was
	// submitted, kept across preemptions.
	Order float64
	// RunStart is when its current run was admitted (controller seconds;
	// that of its last run while it waits), and CheckpointInterval (s) how
	// often it says it checkpoints (0: it does not say): the core weighs
	// the work a preemption would lose by them (prefer_least_lost_work).
	RunStart           float64
	CheckpointInterval float64
	// User numbers the job's user within its team for admission fair
	// sharing; the backend numbers its users (0 where it has none).
	User int
}

// What an UnknownError names.
const (
	UnknownTeam          = "team"
	UnknownPriorityClass = "priority class"
	UnknownInstanceType  = "instance type"
)

// UnknownError is a job naming a team, priority class or instance type
// the configuration does not have.
type UnknownError struct {
	What string // UnknownTeam, UnknownPriorityClass or UnknownInstanceType
	Name string
}

func (e *UnknownError) Error() string { return fmt.Sprintf("unknown %s %q", e.What, e.Name) }

// Workload is the core's workload of a job under cfg. It fails with an
// *UnknownError when the job's team, priority class or instance type is
// not in cfg.
//
// Every exported field of policies.Workload is either set here or left on
// purpose (TestWorkloadAdapterSetsEveryFieldOfTheCoresWorkload lists those).
func (cfg *Config) Workload(s WorkloadSpec) (*policies.Workload, error) {
	q := slices.Index(cfg.Teams, s.Team)
	if q < 0 {
		return nil, &UnknownError{UnknownTeam, s.Team}
	}
	prio, ok := cfg.Priorities[s.PriorityClass]
	if !ok {
		return nil, &UnknownError{UnknownPriorityClass, s.PriorityClass}
	}
	w := &policies.Workload{Name: s.ID, Seq: s.Seq, Queue: q, Priority: prio, Order: s.Order, User: s.User,
		Req:      policies.Request{Accel: policies.Qty(s.Accelerators) * policies.Milli, VCPU: policies.ToQty(s.VCPUs), Mem: policies.ToQty(s.MemoryGiB)},
		RunStart: s.RunStart, CheckpointInterval: s.CheckpointInterval}
	if s.InstanceType != "" {
		f := cfg.Model.FlavorIndex(s.InstanceType)
		if f < 0 {
			return nil, &UnknownError{UnknownInstanceType, s.InstanceType}
		}
		w.Req.Compatible = []int{f}
	}
	return w, nil
}

// Spec is a stored job's scheduling fields (the local backend's jobs).
// The local backend has no users for admission fair sharing: User is 0;
// its jobs ask for accelerators only: VCPUs and MemoryGiB are 0.
func (j *Job) Spec() WorkloadSpec {
	return WorkloadSpec{ID: j.ID, Seq: j.Seq, Team: j.Team, PriorityClass: j.PriorityClass, Accelerators: j.Accelerators,
		InstanceType: j.InstanceType, Order: j.Order, RunStart: j.RunStart, CheckpointInterval: j.CheckpointInterval}
}
