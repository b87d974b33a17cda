package export

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sim/allot/scenarios/scenfile"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// Allot's defaults for what a preempted job costs, which Kueue does not
// know (they are the jobs' own): the import assumes them, saying so.
const (
	assumedGrace      = "30s" // Kubernetes' terminationGracePeriodSeconds default
	assumedCheckpoint = "2m"
	assumedRestore    = "5m"
)

// policy is the policy section: Kueue's quota semantics, the settings
// every ClusterQueue carries (one value for all teams in allot: the most
// common, the others warned) and the Configuration's.
func (im *kueueImport) policy() {
	p := scenfile.Policy{Kind: "quota", Admission: "task-ranking", Preemption: &scenfile.Preemption{GracePeriod: assumedGrace,
		CheckpointSave: assumedCheckpoint, Restore: assumedRestore, MaxRetries: scenfile.Ptr(-1), MinRuntime: "0s"}}
	im.w.add("policy.preemption", "", "a preempted job's grace period, checkpoint and restore times are the jobs' own, not Kueue's: allot's defaults assumed (grace_period %s, Kubernetes' terminationGracePeriodSeconds default; checkpoint_save %s; restore %s)",
		assumedGrace, assumedCheckpoint, assumedRestore)
	im.w.add("policy", "", "what Kueue does, which its objects do not say: admission task-ranking (priority, then creation), no backfill, "+
		"preemption.max_retries -1 (requeued without limit), min_runtime 0s (no protection after a start), no prefer_least_lost_work")
	var all, shared vote
	for _, cq := range im.o.ClusterQueues {
		sp := &cq.Spec
		obj := "ClusterQueue " + cq.Name
		q, ok := queueingName(sp.QueueingStrategy)
		if !ok {
			im.w.add(obj, "spec.queueingStrategy", "%s is not a Kueue strategy: best-effort-fifo assumed", sp.QueueingStrategy)
			q = "best-effort-fifo"
		}
		all.cast("queueing", obj, "spec.queueingStrategy", q)
		fb, exact := fallbackName(sp.FlavorFungibility)
		if !exact {
			im.w.add(obj, "spec.flavorFungibility", "%s: no fallback of allot's is exactly this; %s assumed", fungibilityText(sp.FlavorFungibility), fb)
		}
		all.cast("fallback", obj, "spec.flavorFungibility", fb)
		if sp.CohortName == "" {
			continue // preemption in a cohort: moot without one
		}
		pre := sp.Preemption
		if pre == nil {
			pre = &kueue.ClusterQueuePreemption{}
		}
		rc, ok := preemptName(pre.ReclaimWithinCohort)
		if !ok || rc == "lower-or-newer-equal" {
			im.w.add(obj, "spec.preemption.reclaimWithinCohort", "%s is not a reclaim policy: lower-priority assumed", pre.ReclaimWithinCohort)
			rc = "lower-priority"
		}
		shared.cast("reclaim", obj, "spec.preemption.reclaimWithinCohort", rc)
		bw := "never"
		if b := pre.BorrowWithinCohort; b != nil {
			if bw, ok = borrowWithinName(b.Policy); !ok {
				im.w.add(obj, "spec.preemption.borrowWithinCohort.policy", "%s is not a Kueue policy: never assumed", b.Policy)
				bw = "never"
			}
			if bw != "never" && b.MaxPriorityThreshold != nil {
				bw += fmt.Sprintf(" up to %d", *b.MaxPriorityThreshold)
			}
		}
		shared.cast("preempt_while_borrowing", obj, "spec.preemption.borrowWithinCohort", bw)
	}
	p.Queueing = all.winner(im, "queueing", "best-effort-fifo")
	p.Fallback = all.winner(im, "fallback", "borrow-first")
	p.Reclaim = shared.winner(im, "reclaim", "never")
	bw := shared.winner(im, "preempt_while_borrowing", "never")
	if name, th, ok := strings.Cut(bw, " up to "); ok {
		var v int
		fmt.Sscan(th, &v)
		bw, p.BorrowPriorityThreshold = name, scenfile.Ptr(v)
	}
	p.PreemptWhileBorrowing = bw
	im.config(&p)
	im.admissionScopes(p.UsageHalfLife != "")
	im.file.Policy = p
}

// vote counts each ClusterQueue's value of policy-wide settings.
type vote struct {
	counts map[string]map[string]int
	casts  map[string][]struct{ obj, field, value string }
}

func (v *vote) cast(setting, obj, field, value string) {
	if v.counts == nil {
		v.counts, v.casts = map[string]map[string]int{}, map[string][]struct{ obj, field, value string }{}
	}
	if v.counts[setting] == nil {
		v.counts[setting] = map[string]int{}
	}
	v.counts[setting][value]++
	v.casts[setting] = append(v.casts[setting], struct{ obj, field, value string }{obj, field, value})
}

// winner is the value most ClusterQueues have (the first met of equals;
// def when none voted); each other one is a warning.
func (v *vote) winner(im *kueueImport, setting, def string) string {
	best, n := def, 0
	for _, c := range v.casts[setting] {
		if k := v.counts[setting][c.value]; k > n {
			best, n = c.value, k
		}
	}
	for _, c := range v.casts[setting] {
		if c.value != best {
			im.w.add(c.obj, c.field, "%s, but allot has one policy.%s for every team: %s assumed (the most common value)", c.value, setting, best)
		}
	}
	return best
}

func fungibilityText(f *kueue.FlavorFungibility) string {
	if f == nil {
		return "default"
	}
	s := fmt.Sprintf("whenCanBorrow %s, whenCanPreempt %s", f.WhenCanBorrow, f.WhenCanPreempt)
	if f.Preference != nil {
		s += ", preference " + string(*f.Preference)
	}
	return s
}

// admissionScopes warns of ClusterQueues whose admission fair sharing is
// not what usage_half_life gives every team.
func (im *kueueImport) admissionScopes(afs bool) {
	for _, cq := range im.o.ClusterQueues {
		sc := cq.Spec.AdmissionScope
		obj := "ClusterQueue " + cq.Name
		switch {
		case sc == nil:
		case afs && sc.AdmissionMode == kueue.NoAdmissionFairSharing:
			im.w.add(obj, "spec.admissionScope.admissionMode", "NoAdmissionFairSharing: allot's usage_half_life orders every team's users by usage")
		case !afs && sc.AdmissionMode == kueue.UsageBasedAdmissionFairSharing:
			im.w.add(obj, "spec.admissionScope.admissionMode", "UsageBasedAdmissionFairSharing without the Configuration's admissionFairSharing: no effect")
		}
	}
}

// priorityClasses are the WorkloadPriorityClasses, then the
// PriorityClasses the Workloads name.
func (im *kueueImport) priorityClasses() {
	values := map[string]int32{}
	for _, pc := range im.o.WorkloadPriorityClasses {
		values[pc.Name] = pc.Value
		im.file.PriorityClasses = append(im.file.PriorityClasses, scenfile.PriorityClass{Name: pc.Name, Value: int(pc.Value)})
	}
	used := map[string]bool{}
	for _, wl := range im.o.Workloads {
		if r := wl.Spec.PriorityClassRef; r != nil && r.Kind == kueue.PodPriorityClassKind {
			used[r.Name] = true
		}
	}
	for _, pc := range im.o.PriorityClasses {
		if pc.GlobalDefault {
			im.w.add("PriorityClass "+pc.Name, "globalDefault", "a Workload that names no class gets its value from the Workload's own priority")
		}
		if !used[pc.Name] {
			im.w.add("PriorityClass "+pc.Name, "value", "no Workload read names it: not made a priority class (Kueue orders by WorkloadPriorityClasses)")
			continue
		}
		if v, ok := values[pc.Name]; ok {
			if v != pc.Value {
				im.w.add("PriorityClass "+pc.Name, "value", "%d, where the WorkloadPriorityClass of that name has %d: allot has one class of a name; %d assumed", pc.Value, v, v)
			}
			continue
		}
		values[pc.Name] = pc.Value
		im.file.PriorityClasses = append(im.file.PriorityClasses, scenfile.PriorityClass{Name: pc.Name, Value: int(pc.Value)})
	}
	for _, name := range slices.Sorted(maps.Keys(used)) {
		if _, ok := values[name]; !ok {
			im.w.add("Workloads", "spec.priorityClassRef", "PriorityClass %s was not read: its Workloads' priority values are used", name)
		}
	}
}
