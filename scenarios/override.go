package scenarios

import (
	"fmt"
	"os"
	"strings"
)

// policyFileYAML is a policy file: the sections `allot tune` writes and
// live mode reads, and optionally a fleet. A whole scenario is taken too
// (spec/scenario.md): its fleet, objectives, timeline, workload and sim are
// checked like any scenario's, then left out.
type policyFileYAML struct {
	Name            string              `yaml:"name"`
	Description     string              `yaml:"description"`
	Cohorts         []cohortYAML        `yaml:"cohorts"`
	Teams           []teamYAML          `yaml:"teams"`
	PriorityClasses []priorityClassYAML `yaml:"priority_classes"`
	Policy          *policyYAML         `yaml:"policy"`
	// Ignored by --policy: the scenario being run keeps its own.
	Fleet      *fleetYAML      `yaml:"fleet"`
	Objectives []objectiveYAML `yaml:"objectives"`
	Timeline   []timelineYAML  `yaml:"timeline"`
	Workload   *workloadYAML   `yaml:"workload"`
	Sim        *simYAML        `yaml:"sim"`
	// Live mode's access rules: read by live serve, ignored by --policy.
	Live *liveYAML `yaml:"live"`
}

// Kinds lists the policy kinds.
var Kinds = []string{"fifo", "priority", "fairshare", "quota"}

// WithPolicy returns the scenario with its policy replaced: arg is a policy
// kind (the scenario's own policy settings with that kind) or a policy file
// (or a whole scenario) whose policy, teams, cohorts and priority_classes
// sections replace the scenario's.
func (s *Scenario) WithPolicy(arg string) (*Scenario, error) {
	for _, k := range Kinds {
		if arg == k {
			raw := *s.raw
			pol := *raw.Policy
			pol.Kind = k
			raw.Policy = &pol
			return s.rebuild(&raw, s.at)
		}
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "/.") {
			return nil, fmt.Errorf("--policy %q: not a policy kind (%s) nor a file", arg, strings.Join(Kinds, ", "))
		}
		return nil, err
	}
	return s.withPolicyFile(arg, data)
}

// withPolicyFile applies a policy file's sections; file names it in errors.
func (s *Scenario) withPolicyFile(file string, data []byte) (*Scenario, error) {
	var pf policyFileYAML
	at, err := decodeStrict(file, data, &pf)
	if err != nil {
		return nil, err
	}
	if pf.Policy == nil {
		return nil, &FileError{File: file, Line: 1, Path: "policy", Msg: "required in a policy file (at least policy.kind: fifo | priority | fairshare | quota)"}
	}
	raw := *s.raw
	raw.Policy = pf.Policy
	replaced := []string{"policy"}
	if pf.Teams != nil {
		raw.Teams = pf.Teams
		replaced = append(replaced, "teams")
	}
	if pf.Cohorts != nil {
		raw.Cohorts = pf.Cohorts
		replaced = append(replaced, "cohorts")
	}
	if pf.PriorityClasses != nil {
		raw.PriorityClasses = pf.PriorityClasses
		replaced = append(replaced, "priority_classes")
	}
	// Each section is placed in the file it came from.
	merged := s.at.replace(at, replaced...)
	return s.rebuild(&raw, merged)
}

func (s *Scenario) rebuild(raw *fileYAML, at places) (*Scenario, error) {
	// A resized fleet may have dropped a type an objective names: its
	// summary then lacks the key, which the objective reports as missed.
	b := &builder{file: s.Path, dir: s.dir, f: raw, at: at, s: &Scenario{Path: s.Path}, formerTypes: s.summaryNames()["{type}"]}
	return b.build()
}

// WithPolicyData is WithPolicy for a policy file already read (or
// written by `allot tune`); file names it in errors.
func (s *Scenario) WithPolicyData(file string, data []byte) (*Scenario, error) {
	return s.withPolicyFile(file, data)
}
