package export

import (
	"fmt"
	"math"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/policies"
	btypes "github.com/aws/aws-sdk-go-v2/service/batch/types"
	stypes "github.com/aws/aws-sdk-go-v2/service/sagemaker/types"
)

// The mapping tables between allot's settings and the AWS engines'. The
// exporters read them one way and the importers the other, so that one
// place says how a field maps.

// twoWay is a table of allot's values and an engine's, one to one.
type twoWay[A, E comparable] []struct {
	allot  A
	engine E
}

// toEngine is the engine's value of a; false when the table lacks it.
func (t twoWay[A, E]) toEngine(a A) (E, bool) {
	for _, p := range t {
		if p.allot == a {
			return p.engine, true
		}
	}
	var zero E
	return zero, false
}

// toAllot is allot's value of e; false when the table lacks it.
func (t twoWay[A, E]) toAllot(e E) (A, bool) {
	for _, p := range t {
		if p.engine == e {
			return p.allot, true
		}
	}
	var zero A
	return zero, false
}

// engines lists the engine's values, for errors.
func (t twoWay[A, E]) engines() string {
	var out []string
	for _, p := range t {
		out = append(out, fmt.Sprint(p.engine))
	}
	return strings.Join(out, ", ")
}

// sharing is whether a team lends its idle quota and borrows others'.
type sharing struct{ lend, borrow bool }

// hpStrategies is HyperPod's ResourceSharingConfig.Strategy (lend false
// with borrow true has none: DontLend, with a warning).
var hpStrategies = twoWay[sharing, stypes.ResourceSharingStrategy]{
	{sharing{true, true}, stypes.ResourceSharingStrategyLendandborrow},
	{sharing{true, false}, stypes.ResourceSharingStrategyLend},
	{sharing{false, false}, stypes.ResourceSharingStrategyDontlend},
}

// batchStrategies is a Batch quota share's resource sharing strategy.
var batchStrategies = twoWay[sharing, btypes.QuotaShareResourceSharingStrategy]{
	{sharing{true, true}, btypes.QuotaShareResourceSharingStrategyLendAndBorrow},
	{sharing{true, false}, btypes.QuotaShareResourceSharingStrategyLend},
	{sharing{false, false}, btypes.QuotaShareResourceSharingStrategyReserve},
}

// hpPreemptTeamTasks is preempt_within_team as HyperPod's PreemptTeamTasks
// (lower-or-newer-equal has none: LowerPriority, with a warning).
var hpPreemptTeamTasks = twoWay[policies.PreemptPolicy, stypes.PreemptTeamTasks]{
	{policies.Never, stypes.PreemptTeamTasksNever},
	{policies.LowerPriority, stypes.PreemptTeamTasksLowerpriority},
}

// batchInShare is preempt_within_team as a quota share's in-share
// preemption: any preemption within the team is ENABLED.
var batchInShare = twoWay[bool, btypes.QuotaShareInSharePreemptionState]{
	{false, btypes.QuotaShareInSharePreemptionStateDisabled},
	{true, btypes.QuotaShareInSharePreemptionStateEnabled},
}

// hpFairShare is idle_allocation fair-share (true) or first-come as
// HyperPod's FairShare.
var hpFairShare = twoWay[bool, stypes.FairShare]{
	{true, stypes.FairShareEnabled},
	{false, stypes.FairShareDisabled},
}

// preemptNames are the scenario file's names of the preemption policies.
var preemptNames = twoWay[policies.PreemptPolicy, string]{
	{policies.Never, "never"},
	{policies.LowerPriority, "lower-priority"},
	{policies.LowerOrNewerEqualPriority, "lower-or-newer-equal"},
	{policies.Any, "any"},
}

// mlType is a SageMaker instance type (HyperPod's, a quota share's
// capacity unit) of one of allot's: "ml." and the name, once.
func mlType(name string) string { return "ml." + strings.TrimPrefix(name, "ml.") }

// fromMLType is allot's name of a SageMaker instance type: the catalog's
// type without "ml." where the catalog has it (ml.p5.48xlarge is
// p5.48xlarge), else the name as it is (ml.g5.8xlarge, a custom type).
func fromMLType(unit string, cat *hardware.Catalog) string {
	if base := strings.TrimPrefix(unit, "ml."); base != unit {
		if _, ok := cat.Lookup(base); ok {
			return base
		}
	}
	return unit
}

// batchWeightFactor is a team's weight as Batch's weightFactor, its
// inverse (a share with a higher weightFactor gets less); weight 0, which
// has no inverse, is 1.
func batchWeightFactor(weight float64) float64 {
	if weight > 0 {
		return 1 / weight
	}
	return 1
}

// batchWeight is the weight of a weightFactor: its inverse, to the six
// significant digits a float32 holds, so that weight 3 (weightFactor
// 0.33333334) comes back as 3.
func batchWeight(factor float32) float64 {
	w := 1 / float64(factor)
	mag := math.Pow(10, 5-math.Floor(math.Log10(w)))
	return math.Round(w*mag) / mag
}
