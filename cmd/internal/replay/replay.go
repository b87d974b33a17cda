// Package replay runs a scenario's workload through a live daemon and
// through the simulator, and compares the two: the same admissions and
// preemptions in the same order, and the same utilisation. It joins live,
// sim and scenarios, which only the command line may import together
// (ARCHITECTURE.md), so it sits under cmd.
package replay

import (
	"fmt"
	"math"
	"slices"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
)

// Jobs reads a scenario's jobs and refuses what a live run cannot follow
// as the simulator would.
func Jobs(s *scenarios.Scenario) ([]workload.Job, error) {
	switch {
	case s.Fleet.Failures.Enabled():
		return nil, fmt.Errorf("%s: fleet.failures: live replay cannot fail nodes; remove the failure model", s.Name)
	case len(s.Timeline) > 0:
		return nil, fmt.Errorf("%s: timeline: live replay cannot change nodes or quotas while it runs; remove the timeline", s.Name)
	case s.Policy.Backfill:
		return nil, fmt.Errorf("%s: policy.backfill: backfill reads runtime estimates, which live jobs do not give", s.Name)
	}
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return nil, err
	}
	defer in.Source.Close()
	all, err := workload.ReadAll(in.Source)
	if err != nil {
		return nil, err
	}
	built := s.Build()
	var jobs []workload.Job
	for _, j := range all {
		if s.Horizon > 0 && j.Submit >= s.Horizon {
			break
		}
		switch {
		case j.Accelerators != math.Trunc(j.Accelerators):
			return nil, fmt.Errorf("job %s: %g accelerators: live jobs take whole devices", j.ID, j.Accelerators)
		case j.VCPUs > 0 || j.MemoryGiB > 0:
			return nil, fmt.Errorf("job %s: asks for vCPUs or memory, which live jobs cannot ask for", j.ID)
		case len(j.InstanceTypes) > 1 && len(built.Flavors) > 1:
			return nil, fmt.Errorf("job %s: several instance types: a live job names one", j.ID)
		}
		if _, err := speed(built.Flavors, &j); err != nil {
			return nil, err
		}
		j.User = "" // the live core sees no users
		jobs = append(jobs, j)
	}
	if len(jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs to replay", s.Name)
	}
	return jobs, nil
}

// speed is how much longer than its duration a job runs in the simulator
// (its speed on its first listed type over its speed where it runs); the
// fleet's types must agree on it, as a sleeping job cannot tell where it
// runs.
func speed(types []*hardware.InstanceType, j *workload.Job) (float64, error) {
	ref := 1.0
	if len(j.InstanceTypes) > 0 {
		for _, t := range types {
			if t.Name == j.InstanceTypes[0] {
				ref = t.SpeedFor(j.Class)
			}
		}
	}
	f := math.NaN()
	for _, t := range types {
		if len(j.InstanceTypes) > 0 && !slices.Contains(j.InstanceTypes, t.Name) {
			continue
		}
		g := ref / t.SpeedFor(j.Class)
		if !math.IsNaN(f) && math.Abs(g-f) > 1e-9 {
			return 0, fmt.Errorf("job %s: runs at different speeds on %s and others: a sleeping job cannot follow that", j.ID, t.Name)
		}
		f = g
	}
	if math.IsNaN(f) {
		f = 1
	}
	return f, nil
}

// fleetAccelerators counts the accelerators of a scenario's fleet.
func fleetAccelerators(s *scenarios.Scenario) float64 {
	built := s.Build()
	n := 0.0
	for f, t := range built.Flavors {
		n += float64(t.Accelerators * max(0, built.Model.Flavors[f].Nodes))
	}
	return n
}
