package scenarios

import (
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/policies"
	"gopkg.in/yaml.v3"
)

// The snapshot format of spec/snapshot.md (Kueue vocabulary).

type snapshotYAML struct {
	ID       string                `yaml:"id"`
	Title    string                `yaml:"title"`
	Tests    string                `yaml:"tests"`
	Source   map[string]string     `yaml:"source"`
	Kind     string                `yaml:"kind"`
	Settings *snapSettingsYAML     `yaml:"settings"`
	Flavors  []string              `yaml:"flavors"`
	Cohorts  []snapCohortYAML      `yaml:"cohorts"`
	Queues   []snapQueueYAML       `yaml:"queues"`
	Running  []snapJobYAML         `yaml:"running"`
	Pending  []snapJobYAML         `yaml:"pending"`
	Expected *policies.CycleResult `yaml:"-"`
	ExpRaw   *expectedYAML         `yaml:"expected"`
	Notes    string                `yaml:"notes"`
	Now      *float64              `yaml:"now"`
}

type snapSettingsYAML struct {
	FairSharing  fairSharingYAML `yaml:"fair_sharing"`
	FeatureGates map[string]bool `yaml:"feature_gates"`
}

// fairSharingYAML is false, or {strategies: [...]}.
type fairSharingYAML struct {
	Enabled    bool
	Strategies []string
}

func (fairSharingYAML) selfChecked() {}

func (f *fairSharingYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.Enabled)
	}
	var m struct {
		Strategies []string `yaml:"strategies"`
	}
	if err := n.Decode(&m); err != nil {
		return err
	}
	f.Enabled, f.Strategies = true, m.Strategies
	return nil
}

type snapQuotaYAML struct {
	Nominal        quantity  `yaml:"nominal"`
	BorrowingLimit *quantity `yaml:"borrowing_limit"`
	LendingLimit   *quantity `yaml:"lending_limit"`
}

type snapCohortYAML struct {
	Pos    `yaml:",inline"`
	Name   string                              `yaml:"name"`
	Parent string                              `yaml:"parent"`
	Weight *float64                            `yaml:"weight"`
	Quota  map[string]map[string]snapQuotaYAML `yaml:"quota"`
}

func (x *snapCohortYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain snapCohortYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type snapQueueYAML struct {
	Pos        `yaml:",inline"`
	Name       string   `yaml:"name"`
	Cohort     string   `yaml:"cohort"`
	Strategy   string   `yaml:"strategy"`
	Weight     *float64 `yaml:"weight"`
	Preemption struct {
		WithinQueue         string `yaml:"within_queue"`
		ReclaimWithinCohort string `yaml:"reclaim_within_cohort"`
		BorrowWithinCohort  struct {
			Policy               string `yaml:"policy"`
			MaxPriorityThreshold *int32 `yaml:"max_priority_threshold"`
		} `yaml:"borrow_within_cohort"`
	} `yaml:"preemption"`
	Fungibility struct {
		WhenCanBorrow  string `yaml:"when_can_borrow"`
		WhenCanPreempt string `yaml:"when_can_preempt"`
		Preference     string `yaml:"preference"`
	} `yaml:"fungibility"`
	ResourceGroups []struct {
		Flavors []struct {
			Flavor    string                   `yaml:"flavor"`
			Resources map[string]snapQuotaYAML `yaml:"resources"`
		} `yaml:"flavors"`
	} `yaml:"resource_groups"`
}

func (x *snapQueueYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain snapQueueYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type snapJobYAML struct {
	Pos      `yaml:",inline"`
	Name     string  `yaml:"name"`
	Queue    string  `yaml:"queue"`
	Priority int32   `yaml:"priority"`
	Created  float64 `yaml:"created"`
	Admitted float64 `yaml:"admitted"`
	Evicting bool    `yaml:"evicting"`
	PodSets  []struct {
		Name    string              `yaml:"name"`
		Count   int32               `yaml:"count"`
		PerPod  map[string]quantity `yaml:"per_pod"`
		Flavors map[string]string   `yaml:"flavors"`
	} `yaml:"podsets"`
	Assignment map[string]string `yaml:"assignment"`
	Evicted    *struct {
		Reason string  `yaml:"reason"`
		At     float64 `yaml:"at"`
	} `yaml:"evicted"`
}

func (x *snapJobYAML) UnmarshalYAML(n *yaml.Node) error {
	type plain snapJobYAML
	x.Line = n.Line
	return n.Decode((*plain)(x))
}

type expectedYAML struct {
	Admitted []struct {
		Name    string                       `yaml:"name"`
		Flavors map[string]map[string]string `yaml:"flavors"`
	} `yaml:"admitted"`
	Preempted []struct {
		Name   string `yaml:"name"`
		Reason string `yaml:"reason"`
	} `yaml:"preempted"`
	Pending []struct {
		Name  string `yaml:"name"`
		State string `yaml:"state"`
	} `yaml:"pending"`
	PopOrder []string `yaml:"pop_order"`
}

// quantity is a number or a Kubernetes quantity such as 3Gi or 500m.
type quantity struct {
	Q    int64
	Line int
}

func (quantity) selfChecked() {}

func (q *quantity) UnmarshalYAML(n *yaml.Node) error {
	q.Line = n.Line
	v, err := ParseQuantity(n.Value)
	if err != nil {
		return &yaml.TypeError{Errors: []string{fmt.Sprintf("line %d: %v", n.Line, err)}}
	}
	q.Q = v
	return nil
}

// ParseQuantity parses a Kubernetes-style quantity into thousandths.
func ParseQuantity(s string) (int64, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	suffixes := []struct {
		s string
		m float64
	}{{"Ki", 1 << 10}, {"Mi", 1 << 20}, {"Gi", 1 << 30}, {"Ti", 1 << 40}, {"Pi", 1 << 50},
		{"k", 1e3}, {"M", 1e6}, {"G", 1e9}, {"T", 1e12}, {"P", 1e15}, {"m", 1e-3}}
	for _, x := range suffixes {
		if strings.HasSuffix(s, x.s) {
			mult, s = x.m, strings.TrimSuffix(s, x.s)
			break
		}
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || v < 0 {
		return 0, fmt.Errorf("bad quantity %q (a number, or like 500m, 3Gi)", s)
	}
	return int64(math.Round(v * mult * 1000)), nil
}

// SnapshotFile is a loaded snapshot with its expected outcome.
type SnapshotFile struct {
	ID, Title, Tests string
	Snapshot         *policies.Snapshot
	Expected         *Expected
}

// Expected is a snapshot's expected outcome (ignored by allot cycle unless
// --check).
type Expected struct {
	Admitted  map[string]map[string]map[string]string
	Preempted map[string]string
	Pending   map[string]string
	PopOrder  []string
}

// LoadSnapshot reads a snapshot file.
func LoadSnapshot(path string) (*SnapshotFile, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var y snapshotYAML
	if err := decodeStrict(path, data, &y); err != nil {
		return nil, err
	}
	return buildSnapshot(path, &y)
}

func buildSnapshot(file string, y *snapshotYAML) (*SnapshotFile, error) {
	errf := func(line int, f string, a ...any) error {
		return &FileError{File: file, Line: line, Msg: fmt.Sprintf(f, a...)}
	}
	kind := policies.SnapshotKind(y.Kind)
	switch kind {
	case policies.KindCycle, policies.KindPreemptionTargets, policies.KindSteadyState, policies.KindQueueOrder:
	default:
		return nil, errf(1, "kind: %q is not one of cycle, preemption_targets, steady_state, queue_order", y.Kind)
	}
	m := &policies.Model{Kind: policies.KindQuota}
	for _, f := range y.Flavors {
		m.Flavors = append(m.Flavors, policies.FlavorSpec{Name: f, Nodes: -1, AccelResource: -1, CPUResource: -1, MemResource: -1, Speed: 1})
	}
	resIdx := func(name string) int {
		if i := m.ResourceIndex(name); i >= 0 {
			return i
		}
		m.Resources = append(m.Resources, name)
		return len(m.Resources) - 1
	}
	// Resources in a stable order: every name mentioned, sorted.
	names := map[string]bool{}
	for _, q := range y.Queues {
		for _, g := range q.ResourceGroups {
			for _, f := range g.Flavors {
				for r := range f.Resources {
					names[r] = true
				}
			}
		}
	}
	for _, c := range y.Cohorts {
		for _, byRes := range c.Quota {
			for r := range byRes {
				names[r] = true
			}
		}
	}
	for _, j := range append(append([]snapJobYAML{}, y.Running...), y.Pending...) {
		for _, ps := range j.PodSets {
			for r := range ps.PerPod {
				names[r] = true
			}
		}
	}
	sorted := make([]string, 0, len(names))
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	for _, n := range sorted {
		resIdx(n)
	}
	toQuota := func(q snapQuotaYAML) policies.Quota {
		out := policies.Quota{Nominal: q.Nominal.Q}
		if q.BorrowingLimit != nil {
			out.HasBorrow, out.BorrowLimit = true, q.BorrowingLimit.Q
		}
		if q.LendingLimit != nil {
			out.HasLend, out.LendLimit = true, q.LendingLimit.Q
		}
		return out
	}
	cohortIdx := map[string]int{}
	addCohort := func(name string) int {
		if i, ok := cohortIdx[name]; ok {
			return i
		}
		cohortIdx[name] = len(m.Cohorts)
		m.Cohorts = append(m.Cohorts, policies.CohortSpec{Name: name, Parent: -1, Weight: 1})
		return len(m.Cohorts) - 1
	}
	for _, c := range y.Cohorts {
		i := addCohort(c.Name)
		if c.Weight != nil {
			m.Cohorts[i].Weight = *c.Weight
		}
		m.Cohorts[i].Quotas = map[int]map[int]policies.Quota{}
		for fname, byRes := range c.Quota {
			f := m.FlavorIndex(fname)
			if f < 0 {
				return nil, errf(c.Line, "cohorts[%s].quota: unknown flavor %q", c.Name, fname)
			}
			m.Cohorts[i].Quotas[f] = map[int]policies.Quota{}
			for r, q := range byRes {
				m.Cohorts[i].Quotas[f][resIdx(r)] = toQuota(q)
			}
		}
	}
	for _, c := range y.Cohorts {
		if c.Parent != "" {
			p, ok := cohortIdx[c.Parent]
			if !ok {
				return nil, errf(c.Line, "cohorts[%s].parent: unknown cohort %q", c.Name, c.Parent)
			}
			m.Cohorts[cohortIdx[c.Name]].Parent = p
		}
	}
	pol := func(line int, v string, def policies.PreemptPolicy) (policies.PreemptPolicy, error) {
		switch v {
		case "":
			return def, nil
		case "Never":
			return policies.Never, nil
		case "LowerPriority":
			return policies.LowerPriority, nil
		case "LowerOrNewerEqualPriority":
			return policies.LowerOrNewerEqualPriority, nil
		case "Any":
			return policies.Any, nil
		}
		return 0, errf(line, "unknown preemption policy %q", v)
	}
	for _, q := range y.Queues {
		spec := policies.QueueSpec{Name: q.Name, Cohort: -1, Weight: 1, MaxPreemptions: -1}
		if q.Cohort != "" {
			spec.Cohort = addCohort(q.Cohort)
		}
		if q.Weight != nil {
			spec.Weight = *q.Weight
		}
		switch q.Strategy {
		case "", "BestEffortFIFO":
		case "StrictFIFO":
			spec.Strategy = policies.StrictFIFO
		default:
			return nil, errf(q.Line, "queues[%s].strategy: %q is not BestEffortFIFO or StrictFIFO", q.Name, q.Strategy)
		}
		var err error
		if spec.WithinQueue, err = pol(q.Line, q.Preemption.WithinQueue, policies.Never); err != nil {
			return nil, err
		}
		if spec.Reclaim, err = pol(q.Line, q.Preemption.ReclaimWithinCohort, policies.Never); err != nil {
			return nil, err
		}
		if spec.BorrowWithin, err = pol(q.Line, q.Preemption.BorrowWithinCohort.Policy, policies.Never); err != nil {
			return nil, err
		}
		if t := q.Preemption.BorrowWithinCohort.MaxPriorityThreshold; t != nil {
			spec.BorrowThreshold, spec.HasBorrowThreshold = *t, true
		}
		fg := q.Fungibility
		spec.Fungibility.WhenCanBorrowTryNext = fg.WhenCanBorrow == "TryNextFlavor"
		spec.Fungibility.WhenCanPreemptStop = fg.WhenCanPreempt == "MayStopSearch" || fg.WhenCanPreempt == "Preempt"
		spec.Fungibility.PreemptionOverBorrowing = fg.Preference == "PreemptionOverBorrowing"
		for _, g := range q.ResourceGroups {
			rg := policies.ResourceGroup{}
			seen := map[int]bool{}
			for _, fq := range g.Flavors {
				f := m.FlavorIndex(fq.Flavor)
				if f < 0 {
					return nil, errf(q.Line, "queues[%s]: unknown flavor %q", q.Name, fq.Flavor)
				}
				entry := policies.FlavorQuotas{Flavor: f, Quotas: map[int]policies.Quota{}}
				rnames := make([]string, 0, len(fq.Resources))
				for r := range fq.Resources {
					rnames = append(rnames, r)
				}
				sort.Strings(rnames)
				for _, r := range rnames {
					ri := resIdx(r)
					entry.Quotas[ri] = toQuota(fq.Resources[r])
					if !seen[ri] {
						seen[ri] = true
						rg.Resources = append(rg.Resources, ri)
					}
				}
				rg.Flavors = append(rg.Flavors, entry)
			}
			spec.Groups = append(spec.Groups, rg)
		}
		m.Queues = append(m.Queues, spec)
	}
	if y.Settings != nil && y.Settings.FairSharing.Enabled {
		m.FairSharing.Enabled = true
		for _, st := range y.Settings.FairSharing.Strategies {
			switch st {
			case "LessThanOrEqualToFinalShare":
				m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanOrEqualToFinalShare)
			case "LessThanInitialShare":
				m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanInitialShare)
			default:
				return nil, errf(1, "settings.fair_sharing.strategies: unknown strategy %q", st)
			}
		}
	}
	nR := len(m.Resources)
	// Names break final ties (Kueue UID = name in these cases).
	allNames := []string{}
	for _, j := range append(append([]snapJobYAML{}, y.Running...), y.Pending...) {
		allNames = append(allNames, j.Name)
	}
	sort.Strings(allNames)
	seq := map[string]int64{}
	for i, n := range allNames {
		if _, dup := seq[n]; dup {
			return nil, errf(1, "job name %q is used twice", n)
		}
		seq[n] = int64(i)
	}
	mkJob := func(j snapJobYAML) (*policies.Workload, error) {
		q := m.QueueIndex(j.Queue)
		if q < 0 {
			return nil, errf(j.Line, "job %s: unknown queue %q", j.Name, j.Queue)
		}
		w := &policies.Workload{Name: j.Name, Seq: seq[j.Name], Queue: q, Priority: j.Priority, Order: j.Created}
		if j.Evicted != nil && j.Evicted.Reason == "PodsReadyTimeout" {
			w.Order = j.Evicted.At
		}
		for _, ps := range j.PodSets {
			p := policies.PodSet{Name: ps.Name, Count: ps.Count, PerPod: make([]int64, nR)}
			if p.Name == "" {
				p.Name = "main"
			}
			if p.Count == 0 {
				p.Count = 1
			}
			for r, v := range ps.PerPod {
				p.PerPod[resIdx(r)] = v.Q
			}
			w.Req.PodSets = append(w.Req.PodSets, p)
		}
		if len(w.Req.PodSets) == 0 {
			return nil, errf(j.Line, "job %s: podsets required", j.Name)
		}
		if len(j.Assignment) > 0 {
			w.ForcedFlavors = map[int]int{}
			for r, fname := range j.Assignment {
				f := m.FlavorIndex(fname)
				if f < 0 {
					return nil, errf(j.Line, "job %s: assignment names unknown flavor %q", j.Name, fname)
				}
				w.ForcedFlavors[resIdx(r)] = f
			}
		}
		return w, nil
	}
	snap := &policies.Snapshot{Kind: kind, Model: m}
	if y.Now != nil {
		snap.Now = *y.Now
	}
	for _, j := range y.Running {
		w, err := mkJob(j)
		if err != nil {
			return nil, err
		}
		spec := &m.Queues[w.Queue]
		var asg [][]int
		for pi, ps := range j.PodSets {
			row := make([]int, len(spec.Groups))
			for gi := range row {
				row[gi] = -1
				for _, r := range spec.Groups[gi].Resources {
					if fname, ok := ps.Flavors[m.Resources[r]]; ok && w.Req.PodSets[pi].PerPod[r] > 0 {
						if row[gi] = m.FlavorIndex(fname); row[gi] < 0 {
							return nil, errf(j.Line, "job %s: unknown flavor %q", j.Name, fname)
						}
					}
				}
			}
			asg = append(asg, row)
		}
		snap.Running = append(snap.Running, policies.RunningJob{W: w, Assignment: asg, AdmittedAt: j.Admitted, Evicting: j.Evicting})
	}
	for _, j := range y.Pending {
		w, err := mkJob(j)
		if err != nil {
			return nil, err
		}
		snap.Pending = append(snap.Pending, w)
	}
	out := &SnapshotFile{ID: y.ID, Title: y.Title, Tests: y.Tests, Snapshot: snap}
	if e := y.ExpRaw; e != nil {
		ex := &Expected{Admitted: map[string]map[string]map[string]string{}, Preempted: map[string]string{}, Pending: map[string]string{}, PopOrder: e.PopOrder}
		for _, a := range e.Admitted {
			ex.Admitted[a.Name] = a.Flavors
		}
		for _, p := range e.Preempted {
			ex.Preempted[p.Name] = p.Reason
		}
		for _, p := range e.Pending {
			ex.Pending[p.Name] = p.State
		}
		out.Expected = ex
	}
	return out, nil
}

// Check compares a result with the expected outcome; it returns the
// differences, one per line. An expected pending state "pending" accepts
// any pending state.
func (e *Expected) Check(r *policies.CycleResult) []string {
	var diffs []string
	got := map[string]map[string]map[string]string{}
	for _, a := range r.Admitted {
		got[a.Name] = a.Flavors
		want, ok := e.Admitted[a.Name]
		if !ok {
			diffs = append(diffs, fmt.Sprintf("admitted %s, expected not admitted", a.Name))
			continue
		}
		for ps, byRes := range want {
			for res, f := range byRes {
				if a.Flavors[ps][res] != f {
					diffs = append(diffs, fmt.Sprintf("admitted %s with %s/%s on %q, expected %q", a.Name, ps, res, a.Flavors[ps][res], f))
				}
			}
		}
	}
	for name := range e.Admitted {
		if _, ok := got[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("expected %s admitted, it was not", name))
		}
	}
	gotP := map[string]string{}
	for _, p := range r.Preempted {
		gotP[p.Name] = p.Reason
		if want, ok := e.Preempted[p.Name]; !ok {
			diffs = append(diffs, fmt.Sprintf("preempted %s (%s), expected not preempted", p.Name, p.Reason))
		} else if want != p.Reason {
			diffs = append(diffs, fmt.Sprintf("preempted %s with reason %s, expected %s", p.Name, p.Reason, want))
		}
	}
	for name := range e.Preempted {
		if _, ok := gotP[name]; !ok {
			diffs = append(diffs, fmt.Sprintf("expected %s preempted, it was not", name))
		}
	}
	gotS := map[string]string{}
	for _, p := range r.Pending {
		gotS[p.Name] = p.State
	}
	for name, want := range e.Pending {
		st, ok := gotS[name]
		switch {
		case !ok:
			diffs = append(diffs, fmt.Sprintf("expected %s pending (%s), it is not pending", name, want))
		case want != "pending" && st != want:
			diffs = append(diffs, fmt.Sprintf("%s is %s, expected %s", name, st, want))
		}
	}
	if e.PopOrder != nil && strings.Join(e.PopOrder, ",") != strings.Join(r.PopOrder, ",") {
		diffs = append(diffs, fmt.Sprintf("pop order %v, expected %v", r.PopOrder, e.PopOrder))
	}
	sort.Strings(diffs)
	return diffs
}
