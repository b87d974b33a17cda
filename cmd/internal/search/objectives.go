package search

import (
	"fmt"
	"slices"
	"strings"

	"github.com/allot-sim/allot/scenarios"
)

// Which way more nodes move an objective (reports.PlanObjective.Steers).
const (
	steerCapacity    = "capacity"
	steerUtilization = "utilization"
	steerChecked     = "checked"
)

// steer says which way more nodes move an objective: a key that more
// capacity lowers (waits, the unstarted share, utilisation) or raises
// (goodput, jobs started, cost), against the objective's bound.
func steer(o scenarios.Objective) string {
	lowers := []string{"wait_s", "wait_all_s", "unstarted_share", "pending_at_end", "preemptions", "utilization", "node_failures"}
	raises := []string{"goodput", "jobs.started", "jobs.completed", "cost.", "capacity"}
	upper := o.Op == "<=" || o.Op == "<"
	for _, k := range lowers {
		if strings.Contains(o.Path, k) {
			if upper {
				return steerCapacity
			}
			return steerUtilization
		}
	}
	for _, k := range raises {
		if strings.Contains(o.Path, k) {
			if upper {
				return steerUtilization
			}
			return steerCapacity
		}
	}
	return steerChecked
}

// searchObjectives are what plan and tune must meet: the scenario's
// objectives, each --objective not among them already, and, unless
// anyStarved, "jobs.unstarted_share <= 1%" so that no answer is bought by
// starving work.
func searchObjectives(s *scenarios.Scenario, texts []string, anyStarved bool) ([]scenarios.Objective, error) {
	objs := slices.Clone(s.Objectives)
	same := func(a, b string) bool {
		return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
	}
	for _, text := range texts {
		if slices.ContainsFunc(objs, func(o scenarios.Objective) bool { return same(o.Text, text) }) {
			continue // the scenario has it already
		}
		o, err := scenarios.ParseObjective(text)
		if err == nil {
			err = s.CheckObjective(o)
		}
		if err != nil {
			return nil, fmt.Errorf("--objective: %w", err)
		}
		objs = append(objs, o)
	}
	if !anyStarved && !slices.ContainsFunc(objs, func(o scenarios.Objective) bool { return o.Path == "jobs.unstarted_share" }) {
		o, _ := scenarios.ParseObjective("jobs.unstarted_share <= 1%")
		objs = append(objs, o)
	}
	return objs, nil
}

// load reads a scenario file, under another policy (a kind or a policy
// file) when one is given.
func load(path, policy string) (*scenarios.Scenario, error) {
	s, err := scenarios.Load(path)
	if err == nil && policy != "" {
		s, err = s.WithPolicy(policy)
	}
	return s, err
}
