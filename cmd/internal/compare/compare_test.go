package compare

import (
	"slices"
	"testing"

	"github.com/allot-sim/allot/reports"
)

// The shards of a plan own every run exactly once between them, and one
// shard owns them all.
func TestOwnedSplitsEveryRunOnceAmongShards(t *testing.T) {
	plan := &reports.ComparePlan{Seeds: 3, Variants: make([]reports.PlannedVariant, 3)}
	var all []int
	for k := 1; k <= 4; k++ {
		all = append(all, Owned(plan, k, 4)...)
	}
	slices.Sort(all)
	if want := Owned(plan, 1, 1); !slices.Equal(all, want) || len(want) != plan.Runs() {
		t.Errorf("shards own %v, one shard %v; want each of %d runs once", all, want, plan.Runs())
	}
}
