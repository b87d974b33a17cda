package main

import (
	"fmt"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
)

// loadScenario loads a scenario and applies a --policy override
// (simrun.Load); what it refuses is bad input.
func loadScenario(path, policy string) (*scenarios.Scenario, error) {
	s, err := simrun.Load(path, policy)
	if err != nil {
		return nil, badInput(err)
	}
	return s, nil
}

// unmetObjectives is the finding of a run that missed objectives: exit 1,
// after everything was printed.
func unmetObjectives(rs []reports.ObjectiveResult) error {
	var missed []string
	for _, r := range rs {
		if !r.Met {
			missed = append(missed, r.Objective)
		}
	}
	return &problemError{fmt.Sprintf("%d of %d objectives not met: %s", len(missed), len(rs), strings.Join(missed, "; "))}
}

// dirPrefix is a directory as the start of a path: "out/" for "out" and for
// "out/", never "out//".
func dirPrefix(dir string) string { return strings.TrimSuffix(dir, "/") + "/" }
