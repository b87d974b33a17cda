package scenarios

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/workload"
)

// Scenario is a loaded, validated scenario file.
type Scenario struct {
	Path        string
	Name        string
	Description string

	Catalog  *hardware.Catalog
	Fleet    hardware.Fleet
	Cohorts  []Cohort
	Teams    []Team
	Priority []PriorityClass
	Policy   Policy

	Objectives []Objective
	Timeline   []Change

	TracePath   string // absolute; "" for synthetic
	SkipInvalid bool
	Synthetic   *workload.Synthetic

	Seed    uint64
	Horizon float64
	Warmup  float64
	Bucket  float64

	raw *fileYAML
	dir string
}

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
	Line              int
}

// PriorityClass names a priority value.
type PriorityClass struct {
	Name  string
	Value int
}

// Change is one timeline entry.
type Change struct {
	At        float64
	NodeType  string // capacity change when set
	NodeDelta int
	Team      string // quota change when set
	Quota     map[string]Quota
	Line      int
}

// Policy is the policy section with defaults applied.
type Policy struct {
	Kind             string
	Backfill         bool
	BackfillDepth    int
	EstimateFactor   workload.Dist // runtime estimate = duration × a draw
	Queueing         string        // best-effort-fifo | strict-fifo
	Admission        string        // task-ranking | first-come
	IdleAllocation   string        // fair-share | first-come
	FairStrategies   []string
	Reclaim          string // any | lower-priority | never
	PreemptWhileBorr string // never | lower-priority
	BorrowThreshold  *int
	Fallback         string // try-next-type | borrow-first | preempt-first
	UsageHalfLife    float64
	ShareDecay       float64
	ComputeReserve   float64 // fraction
	QuotaShares      bool
	Reservations     string // fifo, priority: hard (quota is a fixed reservation) | none
	Preemption       PreemptionModel
}

// PreemptionModel is what stopping a job costs.
type PreemptionModel struct {
	GracePeriod         float64
	CheckpointSave      float64
	Restore             float64
	MaxRetries          int // -1 = unlimited
	PreferLeastLostWork bool
}

// PriorityValue returns a class's value (0 for "").
func (s *Scenario) PriorityValue(class string) (int, bool) {
	if class == "" {
		return 0, true
	}
	for _, p := range s.Priority {
		if p.Name == class {
			return p.Value, true
		}
	}
	return 0, false
}

// TeamIndex finds a team.
func (s *Scenario) TeamIndex(name string) int {
	for i, t := range s.Teams {
		if t.Name == name {
			return i
		}
	}
	return -1
}

// Load reads and validates a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse validates scenario YAML; path names the file in errors and anchors
// relative trace paths.
func Parse(path string, data []byte) (*Scenario, error) {
	var f fileYAML
	if err := decodeStrict(path, data, &f); err != nil {
		return nil, err
	}
	b := &builder{file: path, dir: filepath.Dir(path), f: &f, s: &Scenario{Path: path}}
	return b.build()
}

type builder struct {
	file string
	dir  string
	f    *fileYAML
	s    *Scenario
}

func (b *builder) errf(line int, format string, args ...any) error {
	return &FileError{File: b.file, Line: line, Msg: fmt.Sprintf(format, args...)}
}

func (b *builder) build() (*Scenario, error) {
	f, s := b.f, b.s
	if strings.TrimSpace(f.Name) == "" {
		return nil, b.errf(1, "name: required")
	}
	s.Name, s.Description = f.Name, f.Description
	s.raw, s.dir = f, b.dir
	steps := []func() error{b.fleet, b.priorities, b.cohorts, b.teams, b.policy, b.workload, b.sim, b.timeline, b.objectives}
	for _, step := range steps {
		if err := step(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (b *builder) fleet() error {
	fy, s := &b.f.Fleet, b.s
	s.Catalog = hardware.Builtin()
	for _, it := range fy.InstanceTypes {
		t := &hardware.InstanceType{Name: it.Name, Accelerator: it.Accelerator, Resource: it.Resource, Custom: true, Speed: 1, Source: "custom type from " + filepath.Base(b.file)}
		if it.Name == "" {
			return b.errf(it.Line, "fleet.instance_types: name is required")
		}
		if _, dup := s.Catalog.Lookup(it.Name); dup {
			return b.errf(it.Line, "fleet.instance_types: %q is already a type (built-in or declared above)", it.Name)
		}
		if it.Accelerators == nil {
			return b.errf(it.Line, "fleet.instance_types[%s].accelerators: required (accelerators per node, 0 for CPU-only)", it.Name)
		}
		t.Accelerators = *it.Accelerators
		if t.Accelerator == "" {
			t.Accelerator = "generic"
		}
		if t.Resource == "" {
			t.Resource = hardware.DefaultResource(t.Accelerator)
		}
		if it.VCPUs != nil {
			t.VCPUs = *it.VCPUs
		}
		if it.MemoryGiB != nil {
			t.MemoryGiB = *it.MemoryGiB
		}
		if it.AccelMemoryGiB != nil {
			t.AccelMemoryGiB = *it.AccelMemoryGiB
		}
		if it.PricePerHour != nil {
			t.PricePerHour, t.Priced = *it.PricePerHour, true
		}
		if it.Speed.Set {
			if it.Speed.ByClass != nil {
				t.SpeedByClass = it.Speed.ByClass
				if d, ok := it.Speed.ByClass["default"]; ok {
					t.Speed = d // classes the map does not name
				}
			} else {
				t.Speed = it.Speed.Default
			}
		}
		if err := s.Catalog.Add(t); err != nil {
			return b.errf(it.Line, "fleet.instance_types: %v", err)
		}
	}
	if len(fy.Nodes) == 0 {
		return b.errf(1, "fleet.nodes: required, at least one group of nodes")
	}
	for i, g := range fy.Nodes {
		if _, ok := s.Catalog.Lookup(g.Type); !ok {
			return b.errf(g.Line, "fleet.nodes[%d].type: unknown instance type %q (see `allot catalog`, or declare it under fleet.instance_types)", i, g.Type)
		}
		if g.Count == nil || *g.Count <= 0 {
			return b.errf(g.Line, "fleet.nodes[%d].count: must be a positive number of nodes", i)
		}
		s.Fleet.Groups = append(s.Fleet.Groups, hardware.NodeGroup{Type: g.Type, Count: *g.Count})
	}
	s.Fleet.Catalog = s.Catalog
	if fy.Failures != nil {
		if !fy.Failures.NodeMTBF.Set || fy.Failures.NodeMTBF.Seconds <= 0 {
			return b.errf(fy.Failures.NodeMTBF.Line, "fleet.failures.node_mtbf: required and > 0")
		}
		if !fy.Failures.RepairTime.Set {
			return b.errf(fy.Failures.NodeMTBF.Line, "fleet.failures.repair_time: required")
		}
		s.Fleet.Failures = hardware.Failures{MTBF: fy.Failures.NodeMTBF.Seconds, Repair: fy.Failures.RepairTime.Seconds}
	}
	return nil
}

func (b *builder) priorities() error {
	seen := map[string]bool{}
	for _, p := range b.f.PriorityClasses {
		if p.Name == "" {
			return b.errf(p.Line, "priority_classes: name is required")
		}
		if seen[p.Name] {
			return b.errf(p.Line, "priority_classes: %q is defined twice", p.Name)
		}
		if p.Value == nil {
			return b.errf(p.Line, "priority_classes[%s].value: required", p.Name)
		}
		seen[p.Name] = true
		b.s.Priority = append(b.s.Priority, PriorityClass{p.Name, *p.Value})
	}
	return nil
}

func (b *builder) quotaMap(line int, where string, m map[string]quotaYAML) (map[string]Quota, error) {
	out := map[string]Quota{}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, typ := range keys {
		q := m[typ]
		if _, ok := b.s.Catalog.Lookup(typ); !ok {
			return nil, b.errf(q.Line, "%s.quota: unknown instance type %q", where, typ)
		}
		if b.s.Fleet.Nodes(typ) == 0 {
			return nil, b.errf(q.Line, "%s.quota: instance type %q has no nodes in the fleet", where, typ)
		}
		v := Quota{VCPUs: math.NaN(), MemoryGiB: math.NaN()}
		if q.Accelerators != nil {
			v.Accelerators = *q.Accelerators
		}
		if q.VCPUs != nil {
			v.VCPUs = *q.VCPUs
		}
		if q.MemoryGiB != nil {
			v.MemoryGiB = *q.MemoryGiB
		}
		if v.Accelerators < 0 || v.VCPUs < 0 || v.MemoryGiB < 0 {
			return nil, b.errf(q.Line, "%s.quota.%s: must be >= 0", where, typ)
		}
		out[typ] = v
	}
	_ = line
	return out, nil
}

func (b *builder) cohorts() error {
	seen := map[string]int{}
	for _, c := range b.f.Cohorts {
		if c.Name == "" {
			return b.errf(c.Line, "cohorts: name is required")
		}
		if _, dup := seen[c.Name]; dup {
			return b.errf(c.Line, "cohorts: %q is defined twice", c.Name)
		}
		seen[c.Name] = c.Line
		w := 1.0
		if c.Weight != nil {
			w = *c.Weight
		}
		if w < 0 {
			return b.errf(c.Line, "cohorts[%s].weight: must be >= 0", c.Name)
		}
		q, err := b.quotaMap(c.Line, "cohorts["+c.Name+"]", c.Quota)
		if err != nil {
			return err
		}
		b.s.Cohorts = append(b.s.Cohorts, Cohort{Name: c.Name, Parent: c.Parent, Weight: w, Quota: q})
	}
	for _, c := range b.f.Cohorts {
		if c.Parent != "" {
			if _, ok := seen[c.Parent]; !ok {
				return b.errf(c.Line, "cohorts[%s].parent: unknown cohort %q", c.Name, c.Parent)
			}
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
				return b.errf(c.Line, "cohorts[%s].parent: the parents form a cycle", c.Name)
			}
		}
	}
	return nil
}

func (b *builder) teams() error {
	if len(b.f.Teams) == 0 {
		return b.errf(1, "teams: required, at least one team")
	}
	seen := map[string]bool{}
	cohorts := map[string]bool{"default": true}
	for _, c := range b.s.Cohorts {
		cohorts[c.Name] = true
	}
	for _, t := range b.f.Teams {
		if t.Name == "" {
			return b.errf(t.Line, "teams: name is required")
		}
		if seen[t.Name] {
			return b.errf(t.Line, "teams: %q is defined twice", t.Name)
		}
		seen[t.Name] = true
		team := Team{Name: t.Name, Cohort: t.Cohort, Weight: 1, Lend: true, LendingLimit: 1, Borrow: true,
			BorrowLimit: math.NaN(), PreemptWithinTeam: "lower-priority", Line: t.Line}
		if team.Cohort == "" {
			team.Cohort = "default"
		}
		if !cohorts[team.Cohort] {
			return b.errf(t.Line, "teams[%s].cohort: unknown cohort %q (declare it under cohorts)", t.Name, team.Cohort)
		}
		q, err := b.quotaMap(t.Line, "teams["+t.Name+"]", t.Quota)
		if err != nil {
			return err
		}
		team.Quota = q
		if t.Weight != nil {
			if *t.Weight < 0 {
				return b.errf(t.Line, "teams[%s].weight: must be >= 0, got %g", t.Name, *t.Weight)
			}
			team.Weight = *t.Weight
		}
		if t.Lend != nil {
			team.Lend = *t.Lend
		}
		if t.Borrow != nil {
			team.Borrow = *t.Borrow
		}
		if t.LendingLimit.Set {
			if !t.LendingLimit.Percent || t.LendingLimit.Value > 1 {
				return b.errf(t.LendingLimit.Line, "teams[%s].lending_limit: a percentage from 0%% to 100%%", t.Name)
			}
			team.LendingLimit = t.LendingLimit.Value
		}
		if t.BorrowLimit.Set {
			team.BorrowLimit, team.BorrowLimitPct = t.BorrowLimit.Value, t.BorrowLimit.Percent
		}
		switch t.PreemptWithinTeam {
		case "", "lower-priority":
		case "never", "lower-or-newer-equal":
			team.PreemptWithinTeam = t.PreemptWithinTeam
		default:
			return b.errf(t.Line, "teams[%s].preempt_within_team: %q is not one of never, lower-priority, lower-or-newer-equal", t.Name, t.PreemptWithinTeam)
		}
		b.s.Teams = append(b.s.Teams, team)
	}
	return nil
}

func oneOf(v string, def string, allowed ...string) (string, bool) {
	if v == "" {
		return def, true
	}
	for _, a := range allowed {
		if v == a {
			return v, true
		}
	}
	return v, false
}

func (b *builder) policy() error {
	p := b.f.Policy
	if p == nil {
		return b.errf(1, "policy: required (at least policy.kind: fifo | priority | fairshare | quota)")
	}
	pol := Policy{EstimateFactor: workload.Fixed(1), Preemption: PreemptionModel{GracePeriod: 30, CheckpointSave: 120, Restore: 300, MaxRetries: -1}}
	var ok bool
	checks := []struct {
		dst     *string
		v, def  string
		key     string
		allowed []string
	}{
		{&pol.Kind, p.Kind, "", "kind", []string{"fifo", "priority", "fairshare", "quota"}},
		{&pol.Queueing, p.Queueing, "best-effort-fifo", "queueing", []string{"best-effort-fifo", "strict-fifo"}},
		{&pol.Admission, p.Admission, "task-ranking", "admission", []string{"task-ranking", "first-come"}},
		{&pol.IdleAllocation, p.IdleAllocation, "fair-share", "idle_allocation", []string{"fair-share", "first-come"}},
		{&pol.Reclaim, p.Reclaim, "any", "reclaim", []string{"any", "lower-priority", "never"}},
		{&pol.PreemptWhileBorr, p.PreemptWhileBorrowing, "never", "preempt_while_borrowing", []string{"never", "lower-priority"}},
		{&pol.Fallback, p.Fallback, "try-next-type", "fallback", []string{"try-next-type", "borrow-first", "preempt-first"}},
		{&pol.Reservations, p.Reservations, "hard", "reservations", []string{"hard", "none"}},
	}
	for _, c := range checks {
		if *c.dst, ok = oneOf(c.v, c.def, c.allowed...); !ok || *c.dst == "" {
			return b.errf(p.Line, "policy.%s: %q is not one of %s", c.key, c.v, strings.Join(c.allowed, ", "))
		}
	}
	for _, st := range p.FairSharingStrategies {
		if st != "LessThanOrEqualToFinalShare" && st != "LessThanInitialShare" {
			return b.errf(p.Line, "policy.fair_sharing_strategies: %q is not LessThanOrEqualToFinalShare or LessThanInitialShare", st)
		}
	}
	pol.FairStrategies = p.FairSharingStrategies
	pol.Backfill = p.Backfill
	pol.BackfillDepth = 1000
	if p.BackfillDepth != nil {
		if *p.BackfillDepth < 0 {
			return b.errf(p.Line, "policy.backfill_depth: must be >= 0 (0 = the whole queue)")
		}
		pol.BackfillDepth = *p.BackfillDepth
	}
	if re := p.RuntimeEstimate; re != nil {
		if re.Fixed != nil {
			if *re.Fixed <= 0 {
				return b.errf(re.Line, "policy.runtime_estimate: must be > 0")
			}
			pol.EstimateFactor = workload.Fixed(*re.Fixed)
		} else {
			d, err := b.dist(re.Dist, "policy.runtime_estimate", false)
			if err != nil {
				return err
			}
			pol.EstimateFactor = d
		}
	}
	pol.BorrowThreshold = p.BorrowPriorityThreshold
	pol.UsageHalfLife = p.UsageHalfLife.Seconds
	pol.ShareDecay = p.ShareDecay.Seconds
	if p.ComputeReservation.Set {
		if !p.ComputeReservation.Percent || p.ComputeReservation.Value >= 1 {
			return b.errf(p.ComputeReservation.Line, "policy.compute_reservation: a percentage from 0%% to 99%%")
		}
		pol.ComputeReserve = p.ComputeReservation.Value
	}
	pol.QuotaShares = p.QuotaShares
	if pm := p.Preemption; pm != nil {
		if pm.GracePeriod.Set {
			pol.Preemption.GracePeriod = pm.GracePeriod.Seconds
		}
		if pm.CheckpointSave.Set {
			pol.Preemption.CheckpointSave = pm.CheckpointSave.Seconds
		}
		if pm.Restore.Set {
			pol.Preemption.Restore = pm.Restore.Seconds
		}
		if pm.MaxRetries != nil {
			if *pm.MaxRetries < -1 {
				return b.errf(p.Line, "policy.preemption.max_retries: -1 (unlimited) or >= 0")
			}
			pol.Preemption.MaxRetries = *pm.MaxRetries
		}
		pol.Preemption.PreferLeastLostWork = pm.PreferLeastLostWork
	}
	b.s.Policy = pol
	return nil
}

// dist converts a distribution; durations need units when dur is true.
func (b *builder) dist(d *distYAML, where string, dur bool) (workload.Dist, error) {
	val := func(v numOrDur, key string) (float64, error) {
		if !v.Set {
			return 0, b.errf(d.Line, "%s.%s: required for dist %s", where, key, d.Dist)
		}
		if dur {
			x, err := ParseDuration(v.Raw)
			if err != nil {
				return 0, b.errf(v.Line, "%s.%s: %v", where, key, err)
			}
			return x, nil
		}
		var x float64
		if _, err := fmt.Sscanf(v.Raw, "%g", &x); err != nil || strings.ContainsAny(v.Raw, "smhd") {
			return 0, b.errf(v.Line, "%s.%s: expected a number, got %q", where, key, v.Raw)
		}
		return x, nil
	}
	out := workload.Dist{Kind: d.Dist, Sigma: d.Sigma}
	var err error
	switch d.Dist {
	case "fixed":
		out.Value, err = val(d.Value, "value")
	case "exponential":
		out.Mean, err = val(d.Mean, "mean")
	case "lognormal":
		out.Median, err = val(d.Median, "median")
	case "uniform":
		if out.Min, err = val(d.Min, "min"); err == nil {
			out.Max, err = val(d.Max, "max")
		}
	case "":
		return out, b.errf(d.Line, "%s.dist: required (fixed, exponential, lognormal or uniform)", where)
	}
	if err != nil {
		return out, err
	}
	if err := out.Validate(); err != nil {
		return out, b.errf(d.Line, "%s: %v", where, err)
	}
	return out, nil
}
