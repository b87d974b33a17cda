package scenarios

import (
	"fmt"
	"maps"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
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

	// Live is the live section; nil when the file has none.
	Live *Live

	// Warnings are what loads but deserves a word: FILE:LINE: key.path:
	// message, each once.
	Warnings []string

	raw *fileYAML
	at  places
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
	// Namespace holds the team's Jobs on Kubernetes (default: its name).
	Namespace string
	Line      int
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

// dnsLabel is a Kubernetes namespace name (RFC 1123 label).
var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`)

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
	// PlacementTimeout (s): on Kubernetes, a job admitted but not running
	// by then is suspended and requeued (Kueue's waitForPodsReady).
	// PlacementTimeoutSet says the file set it (else it is the default).
	PlacementTimeout    float64
	PlacementTimeoutSet bool
}

// PreemptionModel is what stopping a job costs.
type PreemptionModel struct {
	GracePeriod         float64
	CheckpointSave      float64
	Restore             float64
	MaxRetries          int     // -1 = unlimited
	MinRuntime          float64 // s a running job is protected from preemption after each start
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
	at, err := decodeStrict(path, data, &f)
	if err != nil {
		return nil, err
	}
	b := &builder{file: path, dir: filepath.Dir(path), f: &f, at: at, s: &Scenario{Path: path}}
	return b.build()
}

type builder struct {
	file string // the scenario file
	dir  string
	f    *fileYAML
	at   places // where each key path is written (a policy file's sections in that file)
	s    *Scenario
	// forLive: a file for live serve, where workload and sim may be absent.
	forLive bool
	// formerTypes are the instance types of the scenario rebuilt, which
	// objectives may still name.
	formerTypes []string
}

// errAt is an error at a key path, placed where the path is written, or
// where its nearest written parent is (a required key that is missing).
func (b *builder) errAt(path, format string, args ...any) error {
	return b.wrapAt(path, nil, format, args...)
}

// wrapAt is errAt with a cause.
func (b *builder) wrapAt(path string, cause error, format string, args ...any) error {
	p := b.at.find(path)
	if p.file == "" {
		p.file = b.file
	}
	return &FileError{File: p.file, Line: p.line, Path: path, Msg: fmt.Sprintf(format, args...), Err: cause}
}

func (b *builder) build() (*Scenario, error) {
	f, s := b.f, b.s
	if strings.TrimSpace(f.Name) == "" && b.forLive {
		f.Name = strings.TrimSuffix(filepath.Base(b.file), filepath.Ext(b.file))
	}
	if strings.TrimSpace(f.Name) == "" {
		return nil, b.errAt("name", "required: the scenario's name")
	}
	s.Name, s.Description = f.Name, f.Description
	s.raw, s.at, s.dir = f, b.at, b.dir
	steps := []func() error{b.fleet, b.priorities, b.cohorts, b.teams, b.policy, b.workload, b.sim, b.timeline, b.quotaWarnings, b.objectives, b.live}
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
	for i, it := range fy.InstanceTypes {
		where := item("fleet.instance_types", it.Name, i)
		t := &hardware.InstanceType{Name: it.Name, Accelerator: it.Accelerator, Resource: it.Resource, Custom: true, Speed: 1, Source: "custom type from " + filepath.Base(b.file)}
		if it.Name == "" {
			return b.errAt(where+".name", "required")
		}
		if _, dup := s.Catalog.Lookup(it.Name); dup {
			return b.errAt(where+".name", "%q is already a type (built-in or declared above)", it.Name)
		}
		if it.Accelerators == nil {
			return b.errAt(where+".accelerators", "required (accelerators per node, 0 for CPU-only)")
		}
		if *it.Accelerators < 0 {
			return b.errAt(where+".accelerators", "must be >= 0, got %d", *it.Accelerators)
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
		if t.Accelerators == 0 && t.VCPUs <= 0 {
			return b.errAt(where+".accelerators", "0 accelerators needs vcpus > 0 (a CPU-only type)")
		}
		if it.MemoryGiB != nil {
			t.MemoryGiB = *it.MemoryGiB
		}
		if it.AccelMemoryGiB != nil {
			t.AccelMemoryGiB = *it.AccelMemoryGiB
		}
		if it.PricePerHour != nil {
			if *it.PricePerHour < 0 {
				return b.errAt(where+".price_per_hour", "must be >= 0, got %g", *it.PricePerHour)
			}
			t.PricePerHour, t.Priced = *it.PricePerHour, true
		}
		if it.Speed.Set {
			if it.Speed.ByClass != nil {
				for _, class := range slices.Sorted(maps.Keys(it.Speed.ByClass)) {
					if v := it.Speed.ByClass[class]; !(v > 0) {
						return b.errAt(where+".speed."+class, "must be > 0, got %g", v)
					}
				}
				t.SpeedByClass = it.Speed.ByClass
				if d, ok := it.Speed.ByClass["default"]; ok {
					t.Speed = d // classes the map does not name
				}
			} else {
				if !(it.Speed.Default > 0) {
					return b.errAt(where+".speed", "must be > 0, got %g", it.Speed.Default)
				}
				t.Speed = it.Speed.Default
			}
		}
		if err := s.Catalog.Add(t); err != nil {
			return b.wrapAt(where, err, "%v", err)
		}
	}
	if len(fy.Nodes) == 0 {
		return b.errAt("fleet.nodes", "required, at least one group of nodes")
	}
	for i, g := range fy.Nodes {
		where := fmt.Sprintf("fleet.nodes[%d]", i)
		if g.Type == "" {
			return b.errAt(where+".type", "required: an instance type (see `allot catalog`)")
		}
		if _, ok := s.Catalog.Lookup(g.Type); !ok {
			return b.errAt(where+".type", "unknown instance type %q (see `allot catalog`, or declare it under fleet.instance_types)", g.Type)
		}
		if g.Count == nil {
			return b.errAt(where+".count", "required: a positive number of nodes")
		}
		if *g.Count <= 0 {
			return b.errAt(where+".count", "must be a positive number of nodes, got %d", *g.Count)
		}
		ng := hardware.NodeGroup{Type: g.Type, Count: *g.Count}
		if g.Failures != nil {
			m, err := b.failures(where+".failures", g.Failures)
			if err != nil {
				return err
			}
			ng.Failures = &m
		}
		s.Fleet.Groups = append(s.Fleet.Groups, ng)
	}
	s.Fleet.Catalog = s.Catalog
	if fl := fy.Failures; fl != nil {
		m, err := b.failures("fleet.failures", fl)
		if err != nil {
			return err
		}
		s.Fleet.Failures = m
	}
	return nil
}

// failures reads a failure model: the fleet's, or a node group's own.
func (b *builder) failures(where string, fl *failuresYAML) (hardware.Failures, error) {
	if !fl.NodeMTBF.Set {
		return hardware.Failures{}, b.errAt(where+".node_mtbf", "required with failures (e.g. 2000h)")
	}
	if fl.NodeMTBF.Seconds <= 0 {
		return hardware.Failures{}, b.errAt(where+".node_mtbf", "must be > 0")
	}
	if !fl.RepairTime.Set {
		return hardware.Failures{}, b.errAt(where+".repair_time", "required with failures (e.g. 6h)")
	}
	return hardware.Failures{MTBF: fl.NodeMTBF.Seconds, Repair: fl.RepairTime.Seconds}, nil
}

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
		return b.errAt("policy", "required (at least policy.kind: fifo | priority | fairshare | quota)")
	}
	pol := Policy{EstimateFactor: workload.Fixed(1), Preemption: PreemptionModel{GracePeriod: 30, CheckpointSave: 120, Restore: 300, MaxRetries: -1},
		PlacementTimeout: 300}
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
			if c.v == "" {
				return b.errAt("policy."+c.key, "required: one of %s", strings.Join(c.allowed, ", "))
			}
			return b.errAt("policy."+c.key, "%q is not one of %s", c.v, strings.Join(c.allowed, ", "))
		}
	}
	for i, st := range p.FairSharingStrategies {
		if st != "LessThanOrEqualToFinalShare" && st != "LessThanInitialShare" {
			return b.errAt("policy.fair_sharing_strategies"+index(i), "%q is not LessThanOrEqualToFinalShare or LessThanInitialShare", st)
		}
	}
	pol.FairStrategies = p.FairSharingStrategies
	pol.Backfill = p.Backfill
	pol.BackfillDepth = 1000
	if p.BackfillDepth != nil {
		if *p.BackfillDepth < 0 {
			return b.errAt("policy.backfill_depth", "must be >= 0 (0 = the whole queue), got %d", *p.BackfillDepth)
		}
		pol.BackfillDepth = *p.BackfillDepth
	}
	if re := p.RuntimeEstimate; re != nil {
		if re.Fixed != nil {
			if !(*re.Fixed > 0) {
				return b.errAt("policy.runtime_estimate", "must be > 0, got %g", *re.Fixed)
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
	if cr := p.ComputeReservation; cr.Set {
		if !cr.Percent {
			return b.errAt("policy.compute_reservation", "a percentage from 0%% to 99%%, got the bare number %g", cr.Value)
		}
		if cr.Value >= 1 {
			return b.errAt("policy.compute_reservation", "a percentage from 0%% to 99%%, got %g%%", cr.Value*100)
		}
		pol.ComputeReserve = cr.Value
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
				return b.errAt("policy.preemption.max_retries", "-1 (unlimited) or >= 0, got %d", *pm.MaxRetries)
			}
			pol.Preemption.MaxRetries = *pm.MaxRetries
		}
		pol.Preemption.PreferLeastLostWork = pm.PreferLeastLostWork
		if pm.MinRuntime.Set {
			if pm.MinRuntime.Seconds < 0 {
				return b.errAt("policy.preemption.min_runtime", "must not be negative, got %gs", pm.MinRuntime.Seconds)
			}
			pol.Preemption.MinRuntime = pm.MinRuntime.Seconds
		}
	}
	if pt := p.PlacementTimeout; pt.Set {
		if pt.Seconds <= 0 {
			return b.errAt("policy.placement_timeout", "must be positive, got %gs", pt.Seconds)
		}
		pol.PlacementTimeout, pol.PlacementTimeoutSet = pt.Seconds, true
	}
	b.s.Policy = pol
	return nil
}

// dist converts a distribution; durations need units when dur is true.
func (b *builder) dist(d *distYAML, where string, dur bool) (workload.Dist, error) {
	val := func(v numOrDur, key string) (float64, error) {
		at := where + "." + key
		if !v.Set {
			return 0, b.errAt(at, "required for dist %s", d.Dist)
		}
		if dur {
			x, err := ParseDuration(v.Raw)
			if err != nil {
				return 0, b.wrapAt(at, err, "%v", err)
			}
			return x, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v.Raw), 64)
		if err != nil || math.IsNaN(x) {
			return 0, b.errAt(at, "expected a number, got %q", v.Raw)
		}
		return x, nil
	}
	out := workload.Dist{Kind: d.Dist, Sigma: d.Sigma}
	var err error
	switch d.Dist {
	case "fixed":
		if out.Value, err = val(d.Value, "value"); err == nil && out.Value < 0 {
			err = b.errAt(where+".value", "must be >= 0, got %s", d.Value.Raw)
		}
	case "exponential":
		if out.Mean, err = val(d.Mean, "mean"); err == nil && !(out.Mean > 0) {
			err = b.errAt(where+".mean", "must be > 0, got %s", d.Mean.Raw)
		}
	case "lognormal":
		switch out.Median, err = val(d.Median, "median"); {
		case err != nil:
		case !(out.Median > 0):
			err = b.errAt(where+".median", "must be > 0, got %s", d.Median.Raw)
		case d.Sigma < 0:
			err = b.errAt(where+".sigma", "must be >= 0, got %g", d.Sigma)
		}
	case "uniform":
		if out.Min, err = val(d.Min, "min"); err == nil && out.Min < 0 {
			err = b.errAt(where+".min", "must be >= 0, got %s", d.Min.Raw)
		} else if err == nil {
			if out.Max, err = val(d.Max, "max"); err == nil && out.Max < out.Min {
				err = b.errAt(where+".max", "must be at least min (%s), got %s", d.Min.Raw, d.Max.Raw)
			}
		}
	case "":
		return out, b.errAt(where+".dist", "required (fixed, exponential, lognormal or uniform)")
	default:
		return out, b.errAt(where+".dist", "unknown distribution %q (want fixed, exponential, lognormal or uniform)", d.Dist)
	}
	if err != nil {
		return out, err
	}
	if err := out.Validate(); err != nil {
		return out, b.wrapAt(where, err, "%v", err)
	}
	return out, nil
}
