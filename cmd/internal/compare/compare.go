// Package compare runs allot compare: every variant (each scenario under
// each policy) over the same seeds, in parallel, as contributions that
// reports assembles into a comparison, or a shard of them that another
// machine's shards complete.
package compare

import (
	"fmt"
	"runtime"
	"sync"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
)

// Plan loads every variant: each scenario under each policy (with none,
// under its own), named by what tells it apart, with the digest of what
// its runs depend on.
func Plan(paths, policies []string, seeds int) (*reports.ComparePlan, []*scenarios.Scenario, error) {
	plan := &reports.ComparePlan{Seeds: seeds}
	var scens []*scenarios.Scenario
	pols := policies
	if len(pols) == 0 {
		pols = []string{""}
	}
	for _, path := range paths {
		for _, p := range pols {
			s, err := simrun.Load(path, p)
			if err != nil {
				return nil, nil, err
			}
			name := s.Name
			switch {
			case len(paths) == 1 && p != "":
				name = p
			case p != "":
				name = s.Name + "/" + p
			}
			digest, err := Digest(s, p)
			if err != nil {
				return nil, nil, err
			}
			plan.Variants = append(plan.Variants, reports.PlannedVariant{Name: name, Scenario: s.Name, Policy: s.Policy.Kind,
				BaseSeed: s.Seed, Digest: digest})
			scens = append(scens, s)
		}
	}
	return plan, scens, nil
}

// Owned are the runs of a plan that shard k of n runs (1 of 1: all).
func Owned(plan *reports.ComparePlan, k, n int) []int {
	var owned []int
	for i := range plan.Runs() {
		if reports.Owns(i, k, n) {
			owned = append(owned, i)
		}
	}
	return owned
}

// Run runs the given runs of a plan on workers goroutines (0: one per
// core), telling progress how far it is, and returns their contributions
// in the same order.
func Run(plan *reports.ComparePlan, scens []*scenarios.Scenario, runs []int, workers int, progress func(frac float64, detail string)) ([]*reports.RunContribution, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]*reports.RunContribution, len(runs))
	var mu sync.Mutex
	done := 0
	err := simrun.Parallel(len(runs), workers, func(j int) error {
		i := runs[j]
		s := scens[i/plan.Seeds]
		var err error
		out[j], err = simrun.Contribution(s, s.Seed+uint64(i%plan.Seeds))
		mu.Lock()
		done++
		progress(float64(done)/float64(len(runs)), fmt.Sprintf("%d of %d runs", done, len(runs)))
		mu.Unlock()
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// WriteShard writes shard k of n of a plan, the contributions of its
// owned runs, into outDir, and returns the file's path.
func WriteShard(outDir string, plan *reports.ComparePlan, k, n int, owned []int, contribs []*reports.RunContribution) (string, error) {
	s := &reports.Shard{Kind: reports.ShardCompare, Plan: *plan, Index: k, Of: n}
	for j, i := range owned {
		s.Runs = append(s.Runs, reports.ShardRun{Run: i, RunContribution: *contribs[j]})
	}
	return reports.WriteShard(outDir, s)
}
