package policies

// The preemption policies (Kueue's withinClusterQueue and
// reclaimWithinCohort values): which running jobs a preemptor may take by
// priority. Every search, bound and memory asks here.

const (
	maxPrio = int32(1<<31 - 1)
	minPrio = -maxPrio - 1
)

// satisfies says whether policy p lets preemptor a preempt b.
func satisfies(p PreemptPolicy, a, b *Workload) bool {
	switch p {
	case Any:
		return true
	case Never:
		return false
	}
	return b.Priority < bound(p, a) && (b.Priority < a.Priority || a.Order < b.Order)
}

// bound is the first priority policy p never lets preemptor take: every
// job it may take is below it (an equal priority under
// LowerOrNewerEqualPriority only when newer, which satisfies decides).
// Walks over a team's jobs stop there.
func bound(p PreemptPolicy, preemptor *Workload) int32 {
	switch p {
	case Never:
		return minPrio
	case LowerPriority:
		return preemptor.Priority
	case LowerOrNewerEqualPriority:
		if preemptor.Priority == maxPrio {
			return maxPrio
		}
		return preemptor.Priority + 1
	}
	return maxPrio
}

// newerOnly is the preemptor when policy p lets it take jobs of its own
// priority only if they were queued after it, else nil (walker.newer).
func newerOnly(p PreemptPolicy, preemptor *Workload) *Workload {
	if p == LowerOrNewerEqualPriority {
		return preemptor
	}
	return nil
}

// borrowBound is the first priority a team's borrowWithinCohort policy
// never lets its preemptor take from another team while it borrows:
// nothing under Never; below the preemptor's priority and at most the
// threshold under LowerPriority.
func borrowBound(spec *QueueSpec, preemptor *Workload) int32 {
	if spec.BorrowWithin == Never {
		return minPrio
	}
	b := preemptor.Priority
	if spec.HasBorrowThreshold && spec.BorrowThreshold < maxPrio {
		b = min(b, spec.BorrowThreshold+1)
	}
	return b
}

// mayTakePriority says whether policy p could let preemptor w take some job
// of priority prio, whatever its order.
func mayTakePriority(p PreemptPolicy, w *Workload, prio int32) bool {
	return p == Any || prio < bound(p, w)
}
