package export

import (
	"math"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/policies/presets"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	config "sigs.k8s.io/kueue/apis/config/v1beta2"
	kueue "sigs.k8s.io/kueue/apis/kueue/v1beta2"
)

// The tables below say, once for both directions, how a scenario's
// setting (its name in the file), the policy core's value and Kueue's
// spelling correspond: allot export kueue reads them left to right, allot
// import kueue right to left.

// table is one mapping: a scenario name, the core's value and Kueue's.
type table[M, K comparable] []struct {
	name  string
	model M
	kueue K
}

// kueueOf is Kueue's spelling of a core value; def where none is listed.
func (t table[M, K]) kueueOf(m M, def K) K {
	for _, row := range t {
		if row.model == m {
			return row.kueue
		}
	}
	return def
}

// nameOf is the scenario's name of Kueue's value, empty standing for
// Kueue's default def; false for a value the table lacks.
func (t table[M, K]) nameOf(k, def K) (string, bool) {
	var empty K
	if k == empty {
		k = def
	}
	for _, row := range t {
		if row.kueue == k {
			return row.name, true
		}
	}
	return "", false
}

// kueuePreemptions maps preempt_within_team, policy.reclaim and
// preempt_while_borrowing onto Kueue's preemption policies.
var kueuePreemptions = table[policies.PreemptPolicy, kueue.PreemptionPolicy]{
	{"never", policies.Never, kueue.PreemptionPolicyNever},
	{"lower-priority", policies.LowerPriority, kueue.PreemptionPolicyLowerPriority},
	{"lower-or-newer-equal", policies.LowerOrNewerEqualPriority, kueue.PreemptionPolicyLowerOrNewerEqualPriority},
	{"any", policies.Any, kueue.PreemptionPolicyAny},
}

// kueueQueueings maps policy.queueing onto a ClusterQueue's
// queueingStrategy.
var kueueQueueings = table[policies.QueueingStrategy, kueue.QueueingStrategy]{
	{"best-effort-fifo", policies.BestEffortFIFO, kueue.BestEffortFIFO},
	{"strict-fifo", policies.StrictFIFO, kueue.StrictFIFO},
}

// kueueBorrowWithin maps policy.preempt_while_borrowing onto a
// ClusterQueue's preemption.borrowWithinCohort.policy.
var kueueBorrowWithin = table[policies.PreemptPolicy, kueue.BorrowWithinCohortPolicy]{
	{"never", policies.Never, kueue.BorrowWithinCohortPolicyNever},
	{"lower-priority", policies.LowerPriority, kueue.BorrowWithinCohortPolicyLowerPriority},
}

// kueueFairStrategies maps policy.fair_sharing_strategies onto the
// Configuration's fairSharing.preemptionStrategies.
var kueueFairStrategies = table[policies.FairStrategy, config.PreemptionStrategy]{
	{"LessThanOrEqualToFinalShare", policies.LessThanOrEqualToFinalShare, config.LessThanOrEqualToFinalShare},
	{"LessThanInitialShare", policies.LessThanInitialShare, config.LessThanInitialShare},
}

// kueueDefaultFairStrategies is Kueue's order when the Configuration
// names none, which is allot's default too.
var kueueDefaultFairStrategies = []config.PreemptionStrategy{config.LessThanOrEqualToFinalShare, config.LessThanInitialShare}

// fallbackNames are policy.fallback's values; presets.Fungibility gives
// each one's model, fungibility its Kueue flavorFungibility.
var fallbackNames = []string{"try-next-type", "borrow-first", "preempt-first"}

func preemptPolicy(p policies.PreemptPolicy) kueue.PreemptionPolicy {
	return kueuePreemptions.kueueOf(p, kueue.PreemptionPolicyNever)
}

// preemptName is the scenario's name of a Kueue preemption policy; an
// empty one is Kueue's default, Never.
func preemptName(p kueue.PreemptionPolicy) (string, bool) {
	return kueuePreemptions.nameOf(p, kueue.PreemptionPolicyNever)
}

// borrowWithinPolicy is Kueue's borrowWithinCohort policy: any model
// policy but Never preempts lower priorities only, as the scenario says.
func borrowWithinPolicy(p policies.PreemptPolicy) kueue.BorrowWithinCohortPolicy {
	return kueueBorrowWithin.kueueOf(p, kueue.BorrowWithinCohortPolicyLowerPriority)
}

// borrowWithinName is policy.preempt_while_borrowing of a
// borrowWithinCohort policy; empty is Kueue's default, Never.
func borrowWithinName(p kueue.BorrowWithinCohortPolicy) (string, bool) {
	return kueueBorrowWithin.nameOf(p, kueue.BorrowWithinCohortPolicyNever)
}

func queueingStrategy(s policies.QueueingStrategy) kueue.QueueingStrategy {
	return kueueQueueings.kueueOf(s, kueue.BestEffortFIFO)
}

// queueingName is policy.queueing of a queueingStrategy; empty is Kueue's
// default, BestEffortFIFO.
func queueingName(s kueue.QueueingStrategy) (string, bool) {
	return kueueQueueings.nameOf(s, kueue.BestEffortFIFO)
}

func fairStrategy(s policies.FairStrategy) config.PreemptionStrategy {
	return kueueFairStrategies.kueueOf(s, config.LessThanOrEqualToFinalShare)
}

func fairStrategyName(s config.PreemptionStrategy) (string, bool) {
	return kueueFairStrategies.nameOf(s, "")
}

// fallbackName is policy.fallback of a flavorFungibility (nil fields as
// Kueue defaults them): the fallback whose export it is, else the nearest
// (the same whenCanBorrow) and exact false.
func fallbackName(f *kueue.FlavorFungibility) (name string, exact bool) {
	got := kueue.FlavorFungibility{WhenCanBorrow: kueue.MayStopSearch, WhenCanPreempt: kueue.TryNextFlavor}
	if f != nil {
		if f.WhenCanBorrow != "" {
			got.WhenCanBorrow = f.WhenCanBorrow
		}
		if f.WhenCanPreempt != "" {
			got.WhenCanPreempt = f.WhenCanPreempt
		}
		got.Preference = f.Preference
	}
	if got.Preference != nil && *got.Preference == kueue.BorrowingOverPreemption {
		got.Preference = nil // Kueue's default preference
	}
	for _, name := range fallbackNames {
		model, _ := presets.Fungibility(name)
		if want := fungibility(model); want.WhenCanBorrow == got.WhenCanBorrow && want.WhenCanPreempt == got.WhenCanPreempt &&
			(want.Preference == nil) == (got.Preference == nil) {
			return name, true
		}
	}
	if got.WhenCanBorrow == kueue.TryNextFlavor {
		if got.Preference != nil {
			return "preempt-first", false
		}
		return "try-next-type", false
	}
	return "borrow-first", false
}

// quantity is a model amount (thousandths of a unit; memory in GiB) as a
// Kubernetes quantity.
func quantity(resName string, q policies.Qty) resource.Quantity {
	if resName == string(corev1.ResourceMemory) {
		return *resource.NewQuantity(int64(math.Round(float64(q)/float64(policies.Milli)*(1<<30))), resource.BinarySI)
	}
	if q%policies.Milli == 0 {
		return *resource.NewQuantity(q/policies.Milli, resource.DecimalSI)
	}
	return *resource.NewMilliQuantity(q, resource.DecimalSI)
}

// resourceQty is quantity the other way: a Kubernetes quantity in the
// model's units, thousandths of a unit (memory: of a GiB).
func resourceQty(name corev1.ResourceName, q resource.Quantity) policies.Qty {
	if name == corev1.ResourceMemory {
		return policies.Qty(math.Round(float64(q.Value()) / (1 << 30) * float64(policies.Milli)))
	}
	return policies.Qty(q.MilliValue())
}
