package scenarios

import (
	"fmt"
	"maps"
	"slices"
	"sort"
	"strings"

	"github.com/allot-sim/allot/policies"
)

// snapBuilder turns a decoded snapshot file into the core's model and
// state, one section at a time, in the order the errors are reported.
type snapBuilder struct {
	file string
	at   places
	y    *snapshotYAML
	m    *policies.Model
	// cohortIdx indexes m.Cohorts by name: declared ones, then those
	// queues name without declaring.
	cohortIdx map[string]int
	// nR is the number of resources the podsets' requests are sized to.
	nR int
	// seq breaks final ties: the job's rank by name (Kueue UID = name in
	// these cases).
	seq map[string]int64
}

// placedJob is a running or pending job with the key path it is written
// at.
type placedJob struct {
	j     snapJobYAML
	where string
}

func buildSnapshot(file string, at places, y *snapshotYAML) (*SnapshotFile, error) {
	b := &snapBuilder{file: file, at: at, y: y, m: &policies.Model{Kind: policies.KindQuota}, cohortIdx: map[string]int{}}
	kind, err := b.kind()
	if err != nil {
		return nil, err
	}
	b.flavors()
	b.resources()
	for _, step := range []func() error{b.cohorts, b.queues, b.minRuntime, b.fairSharing} {
		if err := step(); err != nil {
			return nil, err
		}
	}
	snap := &policies.Snapshot{Kind: kind, Model: b.m, Now: latestTime(y)}
	if y.Now != nil {
		snap.Now = *y.Now
	}
	if err := b.jobs(snap); err != nil {
		return nil, err
	}
	return &SnapshotFile{ID: y.ID, Title: y.Title, Tests: y.Tests, Snapshot: snap, Expected: expected(y.ExpRaw)}, nil
}

// errAt places an error at a key path, as the scenario builder does.
func (b *snapBuilder) errAt(path, f string, a ...any) error {
	return &FileError{File: b.file, Line: b.at.find(path).line, Path: path, Msg: fmt.Sprintf(f, a...)}
}

// unknownFlavor is the error for a flavor the file does not list.
func (b *snapBuilder) unknownFlavor(path, name string) error {
	return b.errAt(path, "unknown flavor %q (flavors: %s)", name, strings.Join(b.y.Flavors, ", "))
}

// kind is the snapshot's kind, which must be one the core runs.
func (b *snapBuilder) kind() (policies.SnapshotKind, error) {
	kind := policies.SnapshotKind(b.y.Kind)
	switch kind {
	case policies.KindCycle, policies.KindPreemptionTargets, policies.KindSteadyState, policies.KindQueueOrder:
		return kind, nil
	}
	if b.y.Kind == "" {
		return "", b.errAt("kind", "required: one of cycle, preemption_targets, steady_state, queue_order")
	}
	return "", b.errAt("kind", "%q is not one of cycle, preemption_targets, steady_state, queue_order", b.y.Kind)
}

// flavors declares the listed flavors, which have no nodes: a snapshot is
// quota only.
func (b *snapBuilder) flavors() {
	for _, f := range b.y.Flavors {
		b.m.Flavors = append(b.m.Flavors, policies.FlavorSpec{Name: f, Nodes: -1, AccelResource: -1, CPUResource: -1, MemResource: -1, Speed: 1})
	}
}

// resIdx is a resource's index, adding it when new.
func (b *snapBuilder) resIdx(name string) int {
	if i := b.m.ResourceIndex(name); i >= 0 {
		return i
	}
	b.m.Resources = append(b.m.Resources, name)
	return len(b.m.Resources) - 1
}

// resources declares the resources in a stable order: every name the
// queues, cohorts and podsets mention, sorted.
func (b *snapBuilder) resources() {
	y := b.y
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
		b.resIdx(n)
	}
}

// toQuota is a quota in the core's terms: limits only where written.
func toQuota(q snapQuotaYAML) policies.Quota {
	out := policies.Quota{Nominal: q.Nominal.Q}
	if q.BorrowingLimit != nil {
		out.HasBorrow, out.BorrowLimit = true, q.BorrowingLimit.Q
	}
	if q.LendingLimit != nil {
		out.HasLend, out.LendLimit = true, q.LendingLimit.Q
	}
	return out
}

// addCohort is a cohort's index, adding it (without a parent, weight 1)
// when new.
func (b *snapBuilder) addCohort(name string) int {
	if i, ok := b.cohortIdx[name]; ok {
		return i
	}
	b.cohortIdx[name] = len(b.m.Cohorts)
	b.m.Cohorts = append(b.m.Cohorts, policies.CohortSpec{Name: name, Parent: -1, Weight: 1})
	return len(b.m.Cohorts) - 1
}

// cohorts declares the cohorts with their quota, then links each to its
// parent, which must be declared.
func (b *snapBuilder) cohorts() error {
	m := b.m
	for ci, c := range b.y.Cohorts {
		where := item("cohorts", c.Name, ci)
		i := b.addCohort(c.Name)
		if c.Weight != nil {
			m.Cohorts[i].Weight = *c.Weight
		}
		m.Cohorts[i].Quotas = map[int]map[int]policies.Quota{}
		for _, fname := range slices.Sorted(maps.Keys(c.Quota)) {
			byRes := c.Quota[fname]
			f := m.FlavorIndex(fname)
			if f < 0 {
				return b.unknownFlavor(where+".quota."+fname, fname)
			}
			m.Cohorts[i].Quotas[f] = map[int]policies.Quota{}
			for r, q := range byRes {
				m.Cohorts[i].Quotas[f][b.resIdx(r)] = toQuota(q)
			}
		}
	}
	for ci, c := range b.y.Cohorts {
		if c.Parent != "" {
			p, ok := b.cohortIdx[c.Parent]
			if !ok {
				return b.errAt(item("cohorts", c.Name, ci)+".parent", "unknown cohort %q", c.Parent)
			}
			m.Cohorts[b.cohortIdx[c.Name]].Parent = p
		}
	}
	return nil
}

// preemptPolicy reads a preemption policy in Kueue's spelling; "" is def.
func (b *snapBuilder) preemptPolicy(path, v string, def policies.PreemptPolicy) (policies.PreemptPolicy, error) {
	if v == "" {
		return def, nil
	}
	for _, p := range []policies.PreemptPolicy{policies.Never, policies.LowerPriority, policies.LowerOrNewerEqualPriority, policies.Any} {
		if p.String() == v { // Kueue's spelling
			return p, nil
		}
	}
	return 0, b.errAt(path, "unknown preemption policy %q (Never, LowerPriority, LowerOrNewerEqualPriority or Any)", v)
}

// queues declares the cluster queues in file order.
func (b *snapBuilder) queues() error {
	for qi, q := range b.y.Queues {
		spec, err := b.queue(item("queues", q.Name, qi), q)
		if err != nil {
			return err
		}
		b.m.Queues = append(b.m.Queues, spec)
	}
	return nil
}

// queue is one cluster queue: its cohort (declared here when the file
// does not), strategy, preemption, fungibility and resource groups.
func (b *snapBuilder) queue(where string, q snapQueueYAML) (policies.QueueSpec, error) {
	spec := policies.QueueSpec{Name: q.Name, Cohort: -1, Weight: 1, MaxPreemptions: -1}
	if q.Cohort != "" {
		spec.Cohort = b.addCohort(q.Cohort)
	}
	if q.Weight != nil {
		spec.Weight = *q.Weight
	}
	switch q.Strategy {
	case "", "BestEffortFIFO":
	case "StrictFIFO":
		spec.Strategy = policies.StrictFIFO
	default:
		return spec, b.errAt(where+".strategy", "%q is not BestEffortFIFO or StrictFIFO", q.Strategy)
	}
	if err := b.queuePreemption(where, q, &spec); err != nil {
		return spec, err
	}
	fg := q.Fungibility
	spec.Fungibility.WhenCanBorrowTryNext = fg.WhenCanBorrow == "TryNextFlavor"
	spec.Fungibility.WhenCanPreemptStop = fg.WhenCanPreempt == "MayStopSearch" || fg.WhenCanPreempt == "Preempt"
	spec.Fungibility.PreemptionOverBorrowing = fg.Preference == "PreemptionOverBorrowing"
	for gi := range q.ResourceGroups {
		rg, err := b.resourceGroup(fmt.Sprintf("%s.resource_groups[%d]", where, gi), q, gi)
		if err != nil {
			return spec, err
		}
		spec.Groups = append(spec.Groups, rg)
	}
	return spec, nil
}

// queuePreemption reads a queue's preemption section: Never unless set.
func (b *snapBuilder) queuePreemption(where string, q snapQueueYAML, spec *policies.QueueSpec) error {
	var err error
	if spec.WithinQueue, err = b.preemptPolicy(where+".preemption.within_queue", q.Preemption.WithinQueue, policies.Never); err != nil {
		return err
	}
	if spec.Reclaim, err = b.preemptPolicy(where+".preemption.reclaim_within_cohort", q.Preemption.ReclaimWithinCohort, policies.Never); err != nil {
		return err
	}
	if spec.BorrowWithin, err = b.preemptPolicy(where+".preemption.borrow_within_cohort.policy", q.Preemption.BorrowWithinCohort.Policy, policies.Never); err != nil {
		return err
	}
	if t := q.Preemption.BorrowWithinCohort.MaxPriorityThreshold; t != nil {
		spec.BorrowThreshold, spec.HasBorrowThreshold = *t, true
	}
	return nil
}

// resourceGroup is a queue's resource group gi: its flavors in order,
// each with its quotas, and the resources they cover in first-seen order.
func (b *snapBuilder) resourceGroup(where string, q snapQueueYAML, gi int) (policies.ResourceGroup, error) {
	rg := policies.ResourceGroup{}
	seen := map[int]bool{}
	for fi, fq := range q.ResourceGroups[gi].Flavors {
		f := b.m.FlavorIndex(fq.Flavor)
		if f < 0 {
			return rg, b.unknownFlavor(fmt.Sprintf("%s.flavors[%d].flavor", where, fi), fq.Flavor)
		}
		entry := policies.FlavorQuotas{Flavor: f, Quotas: map[int]policies.Quota{}}
		rnames := make([]string, 0, len(fq.Resources))
		for r := range fq.Resources {
			rnames = append(rnames, r)
		}
		sort.Strings(rnames)
		for _, r := range rnames {
			ri := b.resIdx(r)
			entry.Quotas[ri] = toQuota(fq.Resources[r])
			if !seen[ri] {
				seen[ri] = true
				rg.Resources = append(rg.Resources, ri)
			}
		}
		rg.Flavors = append(rg.Flavors, entry)
	}
	return rg, nil
}

// minRuntime reads settings.min_runtime, which must not be negative.
func (b *snapBuilder) minRuntime() error {
	s := b.y.Settings
	if s != nil && s.MinRuntime != nil {
		if *s.MinRuntime < 0 {
			return b.errAt("settings.min_runtime", "must not be negative, got %g", *s.MinRuntime)
		}
		b.m.MinRuntime = *s.MinRuntime
	}
	return nil
}

// fairSharing reads settings.fair_sharing and its strategies.
func (b *snapBuilder) fairSharing() error {
	s := b.y.Settings
	if s == nil || !s.FairSharing.Enabled {
		return nil
	}
	m := b.m
	m.FairSharing.Enabled = true
	for i, st := range s.FairSharing.Strategies {
		switch st {
		case "LessThanOrEqualToFinalShare":
			m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanOrEqualToFinalShare)
		case "LessThanInitialShare":
			m.FairSharing.Strategies = append(m.FairSharing.Strategies, policies.LessThanInitialShare)
		default:
			return b.errAt("settings.fair_sharing.strategies"+index(i), "unknown strategy %q (LessThanOrEqualToFinalShare or LessThanInitialShare)", st)
		}
	}
	return nil
}

// jobs adds the running jobs, then the pending ones, to snap. Job names
// are unique over both.
func (b *snapBuilder) jobs(snap *policies.Snapshot) error {
	y := b.y
	b.nR = len(b.m.Resources)
	var jobs []placedJob
	for _, sec := range []struct {
		name string
		jobs []snapJobYAML
	}{{"running", y.Running}, {"pending", y.Pending}} {
		for i, j := range sec.jobs {
			jobs = append(jobs, placedJob{j, item(sec.name, j.Name, i)})
		}
	}
	if err := b.sequence(jobs); err != nil {
		return err
	}
	for _, pj := range jobs[:len(y.Running)] {
		rj, err := b.running(pj)
		if err != nil {
			return err
		}
		snap.Running = append(snap.Running, rj)
	}
	for _, pj := range jobs[len(y.Running):] {
		w, err := b.workload(pj)
		if err != nil {
			return err
		}
		snap.Pending = append(snap.Pending, w)
	}
	return nil
}

// sequence refuses a job name used twice and ranks the jobs by name:
// names break final ties (Kueue UID = name in these cases).
func (b *snapBuilder) sequence(jobs []placedJob) error {
	byName := map[string]string{}
	for _, pj := range jobs {
		if first, dup := byName[pj.j.Name]; dup {
			return b.errAt(pj.where+".name", "job name %q is used twice (also %s)", pj.j.Name, first)
		}
		byName[pj.j.Name] = pj.where
	}
	b.seq = map[string]int64{}
	for i, n := range slices.Sorted(maps.Keys(byName)) {
		b.seq[n] = int64(i)
	}
	return nil
}

// workload is a job's workload: its queue, priority, order (the eviction
// time after a PodsReadyTimeout), podsets and forced flavors.
func (b *snapBuilder) workload(pj placedJob) (*policies.Workload, error) {
	m := b.m
	j, where := pj.j, pj.where
	q := m.QueueIndex(j.Queue)
	if q < 0 {
		return nil, b.errAt(where+".queue", "unknown queue %q", j.Queue)
	}
	w := &policies.Workload{Name: j.Name, Seq: b.seq[j.Name], Queue: q, Priority: j.Priority, Order: j.Created}
	if j.Evicted != nil && j.Evicted.Reason == "PodsReadyTimeout" {
		w.Order = j.Evicted.At
	}
	for _, ps := range j.PodSets {
		p := policies.PodSet{Name: ps.Name, Count: ps.Count, PerPod: make([]int64, b.nR)}
		if p.Name == "" {
			p.Name = "main"
		}
		if p.Count == 0 {
			p.Count = 1
		}
		for r, v := range ps.PerPod {
			p.PerPod[b.resIdx(r)] = v.Q
		}
		w.Req.PodSets = append(w.Req.PodSets, p)
	}
	if len(w.Req.PodSets) == 0 {
		return nil, b.errAt(where+".podsets", "required, at least one podset")
	}
	if len(j.Assignment) > 0 {
		w.ForcedFlavors = map[int]int{}
		for _, r := range slices.Sorted(maps.Keys(j.Assignment)) {
			f := m.FlavorIndex(j.Assignment[r])
			if f < 0 {
				return nil, b.unknownFlavor(where+".assignment."+r, j.Assignment[r])
			}
			w.ForcedFlavors[b.resIdx(r)] = f
		}
	}
	return w, nil
}

// running is a running job: its workload, the flavor each podset holds in
// each resource group of its queue (-1 where it requests none), and when
// it was admitted and started.
func (b *snapBuilder) running(pj placedJob) (policies.RunningJob, error) {
	m := b.m
	w, err := b.workload(pj)
	if err != nil {
		return policies.RunningJob{}, err
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
						return policies.RunningJob{}, b.unknownFlavor(psKey+".flavors."+m.Resources[r], fname)
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
	return rj, nil
}

// expected is the file's expected outcome; nil when it has none.
func expected(e *expectedYAML) *Expected {
	if e == nil {
		return nil
	}
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
	return ex
}
