// Package simrun runs a loaded scenario in the simulator: the scenario
// wired to the simulator's input for one seed, the run summarised, its
// objectives checked. It joins scenarios, sim and reports, which only the
// command line may import together (ARCHITECTURE.md), so it sits under cmd.
package simrun

import (
	"errors"
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

// Input wires a loaded scenario to the simulator for one seed.
func Input(s *scenarios.Scenario, seed uint64) (*sim.Input, error) {
	built := s.Build()
	in := &sim.Input{
		Scenario: s.Name, Policy: s.Policy.Kind, Model: built.Model, Types: built.Flavors, Catalog: s.Catalog,
		Priorities: map[string]int32{"": 0}, PriorityNames: []string{""}, Failures: s.Fleet.Failures,
		Preemption: sim.Preemption{GracePeriod: s.Policy.Preemption.GracePeriod, CheckpointSave: s.Policy.Preemption.CheckpointSave,
			Restore: s.Policy.Preemption.Restore, MaxRetries: s.Policy.Preemption.MaxRetries},
		Estimate: s.Policy.EstimateFactor, SkipInvalid: s.SkipInvalid, Seed: seed, Horizon: s.Horizon, Warmup: s.Warmup,
		Bucket: s.Bucket, PoolCohort: built.PoolCohort,
	}
	if s.Policy.Kind == "fairshare" && s.Policy.QuotaShares {
		in.Policy = "fairshare+quota_shares"
	}
	for _, p := range s.Priority {
		in.Priorities[p.Name] = int32(p.Value)
		in.PriorityNames = append(in.PriorityNames, p.Name)
	}
	for _, it := range built.Flavors {
		in.NodeFailures = append(in.NodeFailures, s.Fleet.NodeFailures(it.Name))
	}
	for _, t := range s.Teams {
		team := sim.Team{Name: t.Name, Weight: t.Weight, Quota: make([]float64, len(built.Flavors))}
		for f, it := range built.Flavors {
			team.Quota[f] = t.Quota[it.Name].Accelerators
		}
		in.Teams = append(in.Teams, team)
	}
	for _, ch := range s.Timeline {
		c := sim.Change{At: ch.At, Flavor: -1, Team: -1}
		if ch.NodeType != "" {
			c.Flavor, c.NodeDelta = built.FlavorIndex(ch.NodeType), ch.NodeDelta
		} else {
			c.Team = s.TeamIndex(ch.Team)
			n := len(built.Flavors)
			c.Accel, c.VCPU, c.Mem = nanSlice(n), nanSlice(n), nanSlice(n)
			for typ, q := range ch.Quota {
				f := built.FlavorIndex(typ)
				c.Accel[f], c.VCPU[f], c.Mem[f] = q.Accelerators, q.VCPUs, q.MemoryGiB
			}
		}
		in.Timeline = append(in.Timeline, c)
	}
	if s.TracePath != "" {
		r, err := workload.OpenTrace(s.TracePath, workload.TraceOptions{SkipInvalid: s.SkipInvalid})
		if err != nil {
			return nil, err
		}
		in.Source, in.Skipped = r, r.Skipped
	} else {
		in.Source, in.ReadAhead = s.Synthetic.Source(seed), true
	}
	return in, nil
}

func nanSlice(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = math.NaN()
	}
	return out
}

// Once runs a scenario on one seed into a collector.
func Once(s *scenarios.Scenario, seed uint64) (*reports.Collector, error) {
	in, err := Input(s, seed)
	if err != nil {
		return nil, err
	}
	defer in.Source.Close()
	col := reports.NewCollector()
	if err := sim.Run(in, col); err != nil {
		return nil, PlaceJobError(s, err)
	}
	return col, nil
}

// Summary runs a scenario on one seed and returns its summary.
func Summary(s *scenarios.Scenario, seed uint64) (*reports.Summary, error) {
	col, err := Once(s, seed)
	if err != nil {
		return nil, err
	}
	return col.Summary(), nil
}

// Contribution runs a scenario on one seed, its objectives checked, as
// one run of a comparison.
func Contribution(s *scenarios.Scenario, seed uint64) (*reports.RunContribution, error) {
	col, err := Once(s, seed)
	if err != nil {
		return nil, err
	}
	CheckObjectives(col.Summary(), s.Objectives)
	return reports.Contribution(seed, col.Data()), nil
}

// PlaceJobError names the trace file and row of a job the scenario could
// not take in, as every other bad trace row is named.
func PlaceJobError(s *scenarios.Scenario, err error) error {
	var je *sim.JobError
	if !errors.As(err, &je) || s.TracePath == "" {
		return err
	}
	row, rerr := workload.RowOf(s.TracePath, je.ID, workload.TraceOptions{SkipInvalid: s.SkipInvalid})
	if rerr != nil {
		return err
	}
	return &workload.FieldError{File: s.TracePath, Line: row, Unit: "row", Field: je.Column, Reason: fmt.Sprintf("job %q: %s", je.ID, je.Why), Err: err}
}

// CheckObjectives evaluates a scenario's objectives against a summary and
// records them in it.
func CheckObjectives(s *reports.Summary, objs []scenarios.Objective) (allMet bool) {
	allMet = true
	s.Objectives = nil
	for _, o := range objs {
		r := reports.ObjectiveResult{Objective: o.Text, Path: o.Path, Op: o.Op, Target: o.Value}
		if vs, err := reports.LookupAll(s, o.Path); err != nil {
			r.Error = err.Error()
		} else {
			w := reports.Worst(vs, o.Op)
			r.Value, r.Met = w.Value, o.Holds(w.Value)
			if strings.Contains(o.Path, "*") {
				r.At = w.Path
			}
		}
		allMet = allMet && r.Met
		s.Objectives = append(s.Objectives, r)
	}
	return allMet
}

// Unmet says which objectives a run missed: "N of M objectives not met:
// A; B".
func Unmet(rs []reports.ObjectiveResult) string {
	var missed []string
	for _, r := range rs {
		if !r.Met {
			missed = append(missed, r.Objective)
		}
	}
	return fmt.Sprintf("%d of %d objectives not met: %s", len(missed), len(rs), strings.Join(missed, "; "))
}

// Warn prints what loaded scenarios warn of on w (standard
// error), each warning once however many variants share it.
func Warn(w io.Writer, scens ...*scenarios.Scenario) {
	seen := map[string]bool{}
	for _, s := range scens {
		for _, m := range s.Warnings {
			if !seen[m] {
				seen[m] = true
				fmt.Fprintln(w, "warning: "+m)
			}
		}
	}
}

// Load loads a scenario and applies a --policy override (a policy kind or
// a policy file; "" keeps the scenario's).
func Load(path, policy string) (*scenarios.Scenario, error) {
	s, err := scenarios.Load(path)
	if err != nil {
		return nil, err
	}
	if policy != "" {
		return s.WithPolicy(policy)
	}
	return s, nil
}
