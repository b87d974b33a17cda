package sim

import (
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/workload"
)

// Input is everything one run needs.
type Input struct {
	Scenario string
	Policy   string
	Model    *policies.Model
	// Off switches off the core's shortcuts named (allot sim --off and
	// --reference): the same decisions, slower.
	Off policies.ShortcutSet
	// Types are the instance types by flavor index of Model.
	Types []*hardware.InstanceType
	// Catalog knows every type the scenario may name, in the fleet or not:
	// a job may list a known type the fleet has no nodes of.
	Catalog *hardware.Catalog
	// Teams by queue index of Model, with quota in accelerators per flavor.
	Teams []Team
	// Priorities maps a priority class name to its value; "" is 0.
	Priorities map[string]int32
	// PriorityNames lists classes; index 0 is "" (no class).
	PriorityNames []string
	Failures      hardware.Failures
	// NodeFailures, where set for a flavor, is each of its nodes' own
	// failure model (spot groups); other flavors' nodes, and nodes the
	// timeline adds, follow Failures.
	NodeFailures [][]hardware.Failures
	Timeline     []Change
	Preemption   Preemption
	// Estimate multiplies a job's true duration into the runtime estimate
	// backfill uses (one draw per job).
	Estimate workload.Dist
	Source   workload.Source
	// ReadAhead says Source may be read ahead, on a goroutine of its own,
	// while the run goes on (it shares nothing between jobs).
	ReadAhead   bool
	Skipped     func() int // invalid trace rows skipped by the reader
	SkipInvalid bool
	Seed        uint64
	Horizon     float64
	Warmup      float64
	Bucket      float64
	// PoolCohort holds capacity no team's quota covers (-1: none).
	PoolCohort int
	// Progress, if set, is called now and then with the simulated time.
	Progress func(now float64)
	// Start, when set, is the state the run begins in (a forecast's
	// present, each job's Duration what it has left) instead of an empty
	// fleet; Source then serves only later arrivals.
	Start *workload.Present
	// Until, when set, ends the run after a cycle for which it says so.
	Until func(now float64) bool
	// Capture, when set, receives the run's present at its moments.
	Capture *Capture
	// ShortcutCounts, if set, receives the core's shortcut hits and
	// misses at the end of the run.
	ShortcutCounts *policies.ShortcutCounts
}

// Team is a queue of the model, as the run reports it.
type Team struct {
	Name   string
	Quota  []float64 // accelerators per flavor
	Weight float64
}

// Change is a timeline entry resolved to indexes.
type Change struct {
	At        float64
	Flavor    int // capacity change when >= 0
	NodeDelta int
	Team      int // quota change when >= 0
	// Quota per flavor: accelerators, vCPUs, memory (NaN = unchanged).
	Accel, VCPU, Mem []float64
}

// Preemption is the cost model of stopping a job.
type Preemption struct {
	GracePeriod    float64
	CheckpointSave float64
	Restore        float64
	MaxRetries     int // -1 = unlimited
}
