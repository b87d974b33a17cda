package scenarios

import (
	"fmt"
	"maps"
	"math"
	"os"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/policies"
	"go.yaml.in/yaml/v3"
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
	MinRuntime   *float64        `yaml:"min_runtime"`
	FairSharing  fairSharingYAML `yaml:"fair_sharing"`
	FeatureGates map[string]bool `yaml:"feature_gates"`
}

// fairSharingYAML is false, or {strategies: [...]}.
type fairSharingYAML struct {
	Enabled    bool
	Strategies []string
}

// strategiesYAML is fairSharingYAML's mapping form.
type strategiesYAML struct {
	Strategies []string `yaml:"strategies"`
}

func (fairSharingYAML) shape(n *yaml.Node) (reflect.Type, string) {
	return scalarOr(n, reflectType[bool](), reflectType[strategiesYAML](), "false, or {strategies: [...]}")
}

func (f *fairSharingYAML) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind == yaml.ScalarNode {
		return n.Decode(&f.Enabled)
	}
	var m strategiesYAML
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
	Name   string                              `yaml:"name"`
	Parent string                              `yaml:"parent"`
	Weight *float64                            `yaml:"weight"`
	Quota  map[string]map[string]snapQuotaYAML `yaml:"quota"`
}

type snapQueueYAML struct {
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

type snapJobYAML struct {
	Name     string   `yaml:"name"`
	Queue    string   `yaml:"queue"`
	Priority int32    `yaml:"priority"`
	Created  float64  `yaml:"created"`
	Admitted float64  `yaml:"admitted"`
	Started  *float64 `yaml:"started"`
	Evicting bool     `yaml:"evicting"`
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
	Q int64
}

func (quantity) selfChecked() {}

func (q *quantity) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a quantity (a number, or like 500m, 3Gi), got %s", describe(n))
	}
	v, err := ParseQuantity(n.Value)
	if err != nil {
		return err
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
	return ParseSnapshot(path, data)
}

// ParseSnapshot validates snapshot YAML; path names the file in errors.
func ParseSnapshot(path string, data []byte) (*SnapshotFile, error) {
	var y snapshotYAML
	at, err := decodeStrict(path, data, &y)
	if err != nil {
		return nil, err
	}
	return buildSnapshot(path, at, &y)
}

func buildSnapshot(file string, at places, y *snapshotYAML) (*SnapshotFile, error) {
	// errAt places an error at a key path, as the scenario builder does.
	errAt := func(path, f string, a ...any) error {
		return &FileError{File: file, Line: at.find(path).line, Path: path, Msg: fmt.Sprintf(f, a...)}
	}
	kind := policies.SnapshotKind(y.Kind)
	switch kind {
	case policies.KindCycle, policies.KindPreemptionTargets, policies.KindSteadyState, policies.KindQueueOrder:
	default:
		if y.Kind == "" {
			return nil, errAt("kind", "required: one of cycle, preemption_targets, steady_state, queue_order")
		}
		return nil, errAt("kind", "%q is not one of cycle, preemption_targets, steady_state, queue_order", y.Kind)
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
	for ci, c := range y.Cohorts {
		where := item("cohorts", c.Name, ci)
		i := addCohort(c.Name)
		if c.Weight != nil {
			m.Cohorts[i].Weight = *c.Weight
		}
		m.Cohorts[i].Quotas = map[int]map[int]policies.Quota{}
		for _, fname := range slices.Sorted(maps.Keys(c.Quota)) {
			byRes := c.Quota[fname]
			f := m.FlavorIndex(fname)
			if f < 0 {
				return nil, errAt(where+".quota."+fname, "unknown flavor %q (flavors: %s)", fname, strings.Join(y.Flavors, ", "))
			}
			m.Cohorts[i].Quotas[f] = map[int]policies.Quota{}
			for r, q := range byRes {
				m.Cohorts[i].Quotas[f][resIdx(r)] = toQuota(q)
			}
		}
	}
	for ci, c := range y.Cohorts {
		if c.Parent != "" {
			p, ok := cohortIdx[c.Parent]
			if !ok {
				return nil, errAt(item("cohorts", c.Name, ci)+".parent", "unknown cohort %q", c.Parent)
			}
			m.Cohorts[cohortIdx[c.Name]].Parent = p
		}
	}
	pol := func(path, v string, def policies.PreemptPolicy) (policies.PreemptPolicy, error) {
		if v == "" {
			return def, nil
		}
		for _, p := range []policies.PreemptPolicy{policies.Never, policies.LowerPriority, policies.LowerOrNewerEqualPriority, policies.Any} {
			if p.String() == v { // Kueue's spelling
				return p, nil
			}
		}
		return 0, errAt(path, "unknown preemption policy %q (Never, LowerPriority, LowerOrNewerEqualPriority or Any)", v)
	}
	for qi, q := range y.Queues {
		where := item("queues", q.Name, qi)
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
			return nil, errAt(where+".strategy", "%q is not BestEffortFIFO or StrictFIFO", q.Strategy)
		}
		var err error
		if spec.WithinQueue, err = pol(where+".preemption.within_queue", q.Preemption.WithinQueue, policies.Never); err != nil {
			return nil, err
		}
		if spec.Reclaim, err = pol(where+".preemption.reclaim_within_cohort", q.Preemption.ReclaimWithinCohort, policies.Never); err != nil {
			return nil, err
		}
		if spec.BorrowWithin, err = pol(where+".preemption.borrow_within_cohort.policy", q.Preemption.BorrowWithinCohort.Policy, policies.Never); err != nil {
			return nil, err
		}
		if t := q.Preemption.BorrowWithinCohort.MaxPriorityThreshold; t != nil {
			spec.BorrowThreshold, spec.HasBorrowThreshold = *t, true
		}
		fg := q.Fungibility
		spec.Fungibility.WhenCanBorrowTryNext = fg.WhenCanBorrow == "TryNextFlavor"
		spec.Fungibility.WhenCanPreemptStop = fg.WhenCanPreempt == "MayStopSearch" || fg.WhenCanPreempt == "Preempt"
		spec.Fungibility.PreemptionOverBorrowing = fg.Preference == "PreemptionOverBorrowing"
		for gi, g := range q.ResourceGroups {
			rg := policies.ResourceGroup{}
			seen := map[int]bool{}
			for fi, fq := range g.Flavors {
				f := m.FlavorIndex(fq.Flavor)
				if f < 0 {
					return nil, errAt(fmt.Sprintf("%s.resource_groups[%d].flavors[%d].flavor", where, gi, fi), "unknown flavor %q (flavors: %s)", fq.Flavor, strings.Join(y.Flavors, ", "))
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
	if y.Settings != nil && y.Settings.MinRuntime != nil {
		if *y.Settings.MinRuntime < 0 {
			return nil, errAt("settings.min_runtime", "must not be negative, got %g", *y.Settings.MinRuntime)
		}
		m.MinRuntime = *y.Settings.MinRuntime
	}
	if y.Settings != nil && y.Settings.FairSharing.Enabled {
		m.FairSharing.Enabled = true
		for i, st := range y.Settings.FairSharing.Strategies {
			switch st {
			case "LessThanOrEqualToFinalShare":
				m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanOrEqualToFinalShare)
			case "LessThanInitialShare":
				m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanInitialShare)
			default:
				return nil, errAt("settings.fair_sharing.strategies"+index(i), "unknown strategy %q (LessThanOrEqualToFinalShare or LessThanInitialShare)", st)
			}
		}
	}
	nR := len(m.Resources)
	// Names break final ties (Kueue UID = name in these cases).
	type placedJob struct {
		j     snapJobYAML
		where string
	}
	var jobs []placedJob
	for _, sec := range []struct {
		name string
		jobs []snapJobYAML
	}{{"running", y.Running}, {"pending", y.Pending}} {
		for i, j := range sec.jobs {
			jobs = append(jobs, placedJob{j, item(sec.name, j.Name, i)})
		}
	}
	seq := map[string]int64{}
	byName := map[string]string{}
	for _, pj := range jobs {
		if first, dup := byName[pj.j.Name]; dup {
			return nil, errAt(pj.where+".name", "job name %q is used twice (also %s)", pj.j.Name, first)
		}
		byName[pj.j.Name] = pj.where
	}
	for i, n := range slices.Sorted(maps.Keys(byName)) {
		seq[n] = int64(i)
	}
	mkJob := func(pj placedJob) (*policies.Workload, error) {
		j, where := pj.j, pj.where
		q := m.QueueIndex(j.Queue)
		if q < 0 {
			return nil, errAt(where+".queue", "unknown queue %q", j.Queue)
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
			return nil, errAt(where+".podsets", "required, at least one podset")
		}
		if len(j.Assignment) > 0 {
			w.ForcedFlavors = map[int]int{}
			for _, r := range slices.Sorted(maps.Keys(j.Assignment)) {
				f := m.FlavorIndex(j.Assignment[r])
				if f < 0 {
					return nil, errAt(where+".assignment."+r, "unknown flavor %q (flavors: %s)", j.Assignment[r], strings.Join(y.Flavors, ", "))
				}
				w.ForcedFlavors[resIdx(r)] = f
			}
		}
		return w, nil
	}
	snap := &policies.Snapshot{Kind: kind, Model: m, Now: latestTime(y)}
	if y.Now != nil {
		snap.Now = *y.Now
	}
	for _, pj := range jobs[:len(y.Running)] {
		w, err := mkJob(pj)
		if err != nil {
			return nil, err
		}
		spec := &m.Queues[w.Queue]
		var asg [][]int
		for pi, ps := range pj.j.PodSets {
			row := make([]int, len(spec.Groups))
			for gi := range row {
				row[gi] = -1
				for _, r := range spec.Groups[gi].Resources {
					if fname, ok := ps.Flavors[m.Resources[r]]; ok && w.Req.PodSets[pi].PerPod[r] > 0 {
						if row[gi] = m.FlavorIndex(fname); row[gi] < 0 {
							psKey := item(pj.where+".podsets", ps.Name, pi)
							return nil, errAt(psKey+".flavors."+m.Resources[r], "unknown flavor %q (flavors: %s)", fname, strings.Join(y.Flavors, ", "))
						}
					}
				}
			}
			asg = append(asg, row)
		}
		rj := policies.RunningJob{W: w, Assignment: asg, AdmittedAt: pj.j.Admitted, Evicting: pj.j.Evicting}
		if pj.j.Started != nil {
			rj.StartedAt, rj.HasStarted = *pj.j.Started, true
		}
		snap.Running = append(snap.Running, rj)
	}
	for _, pj := range jobs[len(y.Running):] {
		w, err := mkJob(pj)
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

// latestTime is a snapshot's default now (spec/snapshot.md): the latest
// created, admitted or started time in the file.
func latestTime(y *snapshotYAML) float64 {
	t := 0.0
	for _, js := range [][]snapJobYAML{y.Running, y.Pending} {
		for _, j := range js {
			t = max(t, j.Created, j.Admitted)
			if j.Started != nil {
				t = max(t, *j.Started)
			}
		}
	}
	return t
}
