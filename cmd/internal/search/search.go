// Package search runs the searches of `allot plan` and `allot tune`: it
// reads their options, simulates the fleets and policy settings that
// sim/planner asks for, round by round, and makes the answer. A search
// may be spread over machines (Rounds): each round's runs are split into
// shards and merged back before the next.
//
// It joins scenarios, sim (through simrun) and reports, which only the
// command line may import together (ARCHITECTURE.md), so it sits under
// cmd. It prints nothing of its own: the command passes a progress
// callback and the writers a sharded search reports on.
package search

import (
	"fmt"
	"runtime"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"gonum.org/v1/gonum/stat"
)

// InputError is an error of what a search was given (a flag, a setting,
// an objective), found while it ran; the command reports it as bad input.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Progress hears how far a search has gone: a fraction and a few words.
type Progress func(frac float64, detail string)

// runner simulates the rounds of one search: each candidate on every
// seed, on its workers, or in a search spread over machines the share of
// them this process owns. Plan and tune both evaluate through it.
type runner struct {
	seeds    []uint64
	workers  int
	rounds   *Rounds // the merged rounds of a sharded search (nil: alone)
	progress Progress
	sims     int // simulations asked for, over every round
}

func newRunner(seeds, workers int) runner {
	r := runner{workers: workers}
	if r.workers <= 0 {
		r.workers = runtime.GOMAXPROCS(0)
	}
	for i := 1; i <= seeds; i++ {
		r.seeds = append(r.seeds, uint64(i))
	}
	return r
}

func (r *runner) report(frac float64, detail string) {
	if r.progress != nil {
		r.progress(frac, detail)
	}
}

// round simulates each candidate (named by names; a nil scenario is not
// simulated) on every seed and returns what measure read of each run, per
// candidate and seed. Runs the merged rounds hold already are not
// simulated again; a shard simulates its share of the others, files them
// and ends (errRoundRun).
func (r *runner) round(names []string, scens []*scenarios.Scenario, measure func(*reports.Summary) (storedRun, error)) ([][]storedRun, error) {
	type run struct{ c, k int }
	var runs []run
	var keys []string
	for c, s := range scens {
		if s == nil {
			continue
		}
		for k, seed := range r.seeds {
			runs = append(runs, run{c, k})
			keys = append(keys, fmt.Sprintf("%s %d", names[c], seed))
		}
	}
	mine, err := r.rounds.split(keys)
	if err != nil {
		return nil, err
	}
	got := make([]storedRun, len(runs))
	if err := simrun.Parallel(len(mine), r.workers, func(m int) error {
		j := mine[m]
		sum, err := simrun.Summary(scens[runs[j].c], r.seeds[runs[j].k])
		if err != nil {
			return err
		}
		got[j], err = measure(sum)
		got[j].Key = keys[j]
		return err
	}); err != nil {
		return nil, err
	}
	ran := make([]bool, len(runs))
	for _, j := range mine {
		ran[j] = true
	}
	for j, key := range keys {
		if ran[j] {
			r.rounds.put(got[j])
		} else if st, ok := r.rounds.get(key); ok {
			got[j] = st
		}
	}
	if err := r.rounds.afterBatch(); err != nil {
		return nil, err
	}
	r.sims += len(keys)
	out := make([][]storedRun, len(scens))
	for j, run := range runs {
		if out[run.c] == nil {
			out[run.c] = make([]storedRun, len(r.seeds))
		}
		out[run.c][run.k] = got[j]
	}
	return out, nil
}

func mean(xs []float64) float64 { return stat.Mean(xs, nil) }

func abs(x int) int { return max(x, -x) }
