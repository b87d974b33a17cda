package scenarios

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// policyFileYAML is a policy file: the sections `allot tune` writes and
// live mode reads.
type policyFileYAML struct {
	Name            string              `yaml:"name"`
	Description     string              `yaml:"description"`
	Cohorts         []cohortYAML        `yaml:"cohorts"`
	Teams           []teamYAML          `yaml:"teams"`
	PriorityClasses []priorityClassYAML `yaml:"priority_classes"`
	Policy          *policyYAML         `yaml:"policy"`
}

// Kinds lists the policy kinds.
var Kinds = []string{"fifo", "priority", "fairshare", "quota"}

// WithPolicy returns the scenario with its policy replaced: arg is a policy
// kind (the scenario's own policy settings with that kind) or a policy file
// whose policy, teams, cohorts and priority_classes sections replace the
// scenario's.
func (s *Scenario) WithPolicy(arg string) (*Scenario, error) {
	for _, k := range Kinds {
		if arg == k {
			raw := *s.raw
			pol := *raw.Policy
			pol.Kind = k
			raw.Policy = &pol
			return s.rebuild(&raw, s.Path)
		}
	}
	data, err := os.ReadFile(arg)
	if err != nil {
		if os.IsNotExist(err) && !strings.ContainsAny(arg, "/.") {
			return nil, fmt.Errorf("--policy %q: not a policy kind (%s) nor a file", arg, strings.Join(Kinds, ", "))
		}
		return nil, err
	}
	var pf policyFileYAML
	if err := decodeStrict(arg, data, &pf); err != nil {
		return nil, err
	}
	if pf.Policy == nil {
		return nil, &FileError{File: arg, Line: 1, Msg: "policy: required in a policy file"}
	}
	raw := *s.raw
	raw.Policy = pf.Policy
	if pf.Teams != nil {
		raw.Teams = pf.Teams
	}
	if pf.Cohorts != nil {
		raw.Cohorts = pf.Cohorts
	}
	if pf.PriorityClasses != nil {
		raw.PriorityClasses = pf.PriorityClasses
	}
	return s.rebuild(&raw, arg)
}

func (s *Scenario) rebuild(raw *fileYAML, file string) (*Scenario, error) {
	b := &builder{file: file, dir: s.dir, f: raw, s: &Scenario{Path: s.Path}}
	if file != s.Path {
		b.dir = filepath.Dir(s.Path)
	}
	return b.build()
}
