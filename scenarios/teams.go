package scenarios

import (
	"maps"
	"math"
	"regexp"
	"slices"
)

// Cohort is a sharing group.
type Cohort struct {
	Name   string
	Parent string
	Weight float64
	Quota  map[string]Quota // instance type -> extra shared quota
}

// Quota is guaranteed capacity on one instance type. VCPUs and MemoryGiB
// are NaN when the file leaves them out.
type Quota struct {
	Accelerators float64
	VCPUs        float64
	MemoryGiB    float64
}

// Team is a group sharing the fleet: a queue with quota.
type Team struct {
	Name   string
	Cohort string
	Quota  map[string]Quota
	Weight float64
	Lend   bool
	// LendingLimit is the share of quota it lends at most (1 = all).
	LendingLimit float64
	Borrow       bool
	// BorrowLimit caps what it borrows: a share of its quota per type
	// (BorrowLimitPct) or absolute accelerators; NaN = unlimited.
	BorrowLimit       float64
	BorrowLimitPct    bool
	PreemptWithinTeam string // never | lower-priority | lower-or-newer-equal
	// Namespace holds the team's Jobs on Kubernetes (default: its name).
	Namespace string
	Line      int
}

// PriorityClass names a priority value.
type PriorityClass struct {
	Name  string
	Value int
}

// dnsLabel is a Kubernetes namespace name (RFC 1123 label).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

func (b *builder) priorities() error {
	for i, p := range b.f.PriorityClasses {
		where := item("priority_classes", p.Name, i)
		if p.Name == "" {
			return b.errAt(where+".name", "required")
		}
		if p.Value == nil {
			return b.errAt(where+".value", "required: a whole number, higher is more important")
		}
		b.s.Priority = append(b.s.Priority, PriorityClass{p.Name, *p.Value})
	}
	return nil
}

func (b *builder) quotaMap(where string, m map[string]quotaYAML) (map[string]Quota, error) {
	out := map[string]Quota{}
	for _, typ := range slices.Sorted(maps.Keys(m)) {
		q, at := m[typ], where+".quota."+typ
		if _, ok := b.s.Catalog.Lookup(typ); !ok {
			return nil, b.errAt(at, "unknown instance type %q", typ)
		}
		if b.s.Fleet.Nodes(typ) == 0 {
			return nil, b.errAt(at, "instance type %q has no nodes in the fleet", typ)
		}
		v := Quota{VCPUs: math.NaN(), MemoryGiB: math.NaN()}
		for _, f := range []struct {
			src *float64
			dst *float64
			key string
		}{{q.Accelerators, &v.Accelerators, "accelerators"}, {q.VCPUs, &v.VCPUs, "vcpus"}, {q.MemoryGiB, &v.MemoryGiB, "memory_gib"}} {
			if f.src == nil {
				continue
			}
			if *f.src < 0 {
				return nil, b.errAt(at, "%s must be >= 0, got %g", f.key, *f.src)
			}
			*f.dst = *f.src
		}
		out[typ] = v
	}
	return out, nil
}

func (b *builder) cohorts() error {
	seen := map[string]bool{}
	for i, c := range b.f.Cohorts {
		where := item("cohorts", c.Name, i)
		if c.Name == "" {
			return b.errAt(where+".name", "required")
		}
		seen[c.Name] = true
		w := 1.0
		if c.Weight != nil {
			w = *c.Weight
		}
		if w < 0 {
			return b.errAt(where+".weight", "must be >= 0, got %g", w)
		}
		q, err := b.quotaMap(where, c.Quota)
		if err != nil {
			return err
		}
		b.s.Cohorts = append(b.s.Cohorts, Cohort{Name: c.Name, Parent: c.Parent, Weight: w, Quota: q})
	}
	for _, c := range b.f.Cohorts {
		if c.Parent != "" && !seen[c.Parent] {
			return b.errAt("cohorts["+c.Name+"].parent", "unknown cohort %q", c.Parent)
		}
	}
	// cycles
	parent := map[string]string{}
	for _, c := range b.s.Cohorts {
		parent[c.Name] = c.Parent
	}
	for _, c := range b.f.Cohorts {
		at, steps := c.Name, 0
		for at != "" {
			at = parent[at]
			if steps++; steps > len(parent) {
				return b.errAt("cohorts["+c.Name+"].parent", "the parents form a cycle")
			}
		}
	}
	return nil
}

func (b *builder) teams() error {
	if len(b.f.Teams) == 0 {
		return b.errAt("teams", "required, at least one team")
	}
	cohorts := map[string]bool{"default": true}
	for _, c := range b.s.Cohorts {
		cohorts[c.Name] = true
	}
	for i, t := range b.f.Teams {
		where := item("teams", t.Name, i)
		if t.Name == "" {
			return b.errAt(where+".name", "required")
		}
		team := Team{Name: t.Name, Cohort: t.Cohort, Weight: 1, Lend: true, LendingLimit: 1, Borrow: true,
			BorrowLimit: math.NaN(), PreemptWithinTeam: "lower-priority", Line: b.at.find(where).line}
		if team.Cohort == "" {
			team.Cohort = "default"
		}
		if !cohorts[team.Cohort] {
			return b.errAt(where+".cohort", "unknown cohort %q (declare it under cohorts)", team.Cohort)
		}
		q, err := b.quotaMap(where, t.Quota)
		if err != nil {
			return err
		}
		team.Quota = q
		if t.Weight != nil {
			if *t.Weight < 0 {
				return b.errAt(where+".weight", "must be >= 0, got %g", *t.Weight)
			}
			team.Weight = *t.Weight
		}
		if t.Lend != nil {
			team.Lend = *t.Lend
		}
		if t.Borrow != nil {
			team.Borrow = *t.Borrow
		}
		if l := t.LendingLimit; l.Set {
			if !l.Percent {
				return b.errAt(where+".lending_limit", "a percentage from 0%% to 100%%, got the bare number %g", l.Value)
			}
			if l.Value > 1 {
				return b.errAt(where+".lending_limit", "a percentage from 0%% to 100%%, got %g%%", l.Value*100)
			}
			team.LendingLimit = l.Value
		}
		if l := t.BorrowLimit; l.Set {
			if !l.Percent && l.Value > 0 && l.Value < 1 {
				return b.errAt(where+".borrow_limit", "%g is between 0 and 1; a bare number is accelerators (0 or at least 1): did you mean \"%.4g%%\"?", l.Value, l.Value*100)
			}
			team.BorrowLimit, team.BorrowLimitPct = l.Value, l.Percent
		}
		team.Namespace = t.Namespace
		if team.Namespace == "" {
			team.Namespace = t.Name
		} else if !dnsLabel.MatchString(team.Namespace) {
			return b.errAt(where+".namespace", "%q is not a Kubernetes namespace name (lower-case letters, digits and '-', at most 63)", team.Namespace)
		}
		switch t.PreemptWithinTeam {
		case "", "lower-priority":
		case "never", "lower-or-newer-equal":
			team.PreemptWithinTeam = t.PreemptWithinTeam
		default:
			return b.errAt(where+".preempt_within_team", "%q is not one of never, lower-priority, lower-or-newer-equal", t.PreemptWithinTeam)
		}
		b.s.Teams = append(b.s.Teams, team)
	}
	return nil
}
