package replay

import (
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
)

// utilGapLimit is the most the two utilisations may differ, in percentage
// points (issue 19).
const utilGapLimit = 2.0

// Result is how a live replay and its simulation compare.
type Result struct {
	missing   []decision    // the sim's, not taken live
	extra     []decision    // taken live, not in the sim
	swapped   [][2]decision // in the other order live, further apart in the sim than the latency
	nearTies  int           // pairs in the other order live, closer than the latency: excused
	drift     []float64     // how far each matched live decision trailed the sim's (workload seconds), sorted
	simUtil   float64       // percent, over the same window
	liveUtil  float64
	utilGap   float64 // percentage points
	failedRun []string
}

// Agree says whether the live run took the simulator's decisions in its
// order (near-ties excused), used the fleet as much, and every job in it
// succeeded.
func (r *Result) Agree() bool {
	return len(r.missing) == 0 && len(r.extra) == 0 && len(r.swapped) == 0 && r.utilGap <= utilGapLimit && len(r.failedRun) == 0
}

// decisionKey names a decision by what it did to which job, and how many
// times it had done so before: the n-th admission of job 7.
type decisionKey struct {
	kind string
	job  int
	n    int
}

func keyed(ds []decision) ([]decisionKey, map[decisionKey]int) {
	seen := map[[2]any]int{}
	keys := make([]decisionKey, len(ds))
	at := make(map[decisionKey]int, len(ds))
	for i, d := range ds {
		c := [2]any{d.Kind, d.Job}
		k := decisionKey{d.Kind, d.Job, seen[c]}
		seen[c]++
		keys[i] = k
		at[k] = i
	}
	return keys, at
}

// Compare matches each of the sim's decisions with the live one of
// the same kind, job and occurrence. Two matched decisions the live run
// took in the other order are excused as a near-tie when the sim took them
// within the daemon's latency of each other (scaled to workload time).
func Compare(sd, ld *Side, k float64) *Result {
	r := &Result{failedRun: ld.failed}
	sk, _ := keyed(sd.list)
	_, lat := keyed(ld.list)
	var both []int // live index of each sim decision also taken live, in sim order
	var simIdx []int
	for i, key := range sk {
		if j, ok := lat[key]; ok {
			both = append(both, j)
			simIdx = append(simIdx, i)
			delete(lat, key)
		} else {
			r.missing = append(r.missing, sd.list[i])
		}
	}
	for _, j := range lat {
		r.extra = append(r.extra, ld.list[j])
	}
	window := ld.lat * k
	for a, j := range both {
		r.drift = append(r.drift, ld.list[j].T-sd.list[simIdx[a]].T)
	}
	slices.Sort(r.drift)
	for a := range both {
		for b := a + 1; b < len(both); b++ {
			if both[b] > both[a] {
				continue
			}
			x, y := sd.list[simIdx[a]], sd.list[simIdx[b]]
			if y.T-x.T <= window {
				r.nearTies++
			} else {
				r.swapped = append(r.swapped, [2]decision{x, y})
			}
		}
	}
	w := math.Max(sd.end, ld.end)
	if w > 0 {
		r.simUtil, r.liveUtil = sd.util(w), ld.util(w)
		r.utilGap = math.Abs(r.simUtil - r.liveUtil)
	}
	return r
}

// Print writes the comparison for a reader: the counts of each side, the
// latency, the drift, each disagreement (the first ten of each kind) and
// the verdict.
func Print(w io.Writer, s *scenarios.Scenario, jobs []workload.Job, k float64, sd, ld *Side, r *Result, wall time.Duration) {
	name := func(d decision) string { return fmt.Sprintf("%s %s at %.0fs", d.Kind, jobs[d.Job].ID, d.T) }
	fmt.Fprintf(w, "%s: policy %s, %d jobs, %g accelerators, speedup %g\n", s.Name, s.Policy.Kind, len(jobs), sd.cap, k)
	fmt.Fprintf(w, "sim:  %d admissions, %d preemptions, utilisation %.2f%%\n", sd.count("admit"), sd.count("preempt"), r.simUtil)
	fmt.Fprintf(w, "live: %d admissions, %d preemptions, utilisation %.2f%% (%.1fs of real processes)\n", ld.count("admit"), ld.count("preempt"), r.liveUtil, ld.wall)
	med := 0.0
	if n := len(ld.lags); n > 0 {
		med = ld.lags[n/2]
	}
	fmt.Fprintf(w, "scheduling latency: %.0f ms at most, median %.0f ms over %d runs (admission to end seen, less the run's sleep), %.0fs of workload time\n",
		1000*ld.lat, 1000*med, len(ld.lags), ld.lat*k)
	fmt.Fprintf(w, "order: %d of %d decisions matched; %d near-ties excused, %d pairs out of order, %d only in sim, %d only live\n",
		len(sd.list)-len(r.missing), len(sd.list), r.nearTies, len(r.swapped), len(r.missing), len(r.extra))
	if n := len(r.drift); n > 0 {
		// Each start late by the latency shortens the work a job does before
		// a preemption, so lateness adds up along chains of jobs.
		fmt.Fprintf(w, "drift: live decisions trailed the simulator's by %.0fs of workload time at the median, %.0fs at most\n", r.drift[n/2], r.drift[n-1])
	}
	fmt.Fprintf(w, "utilisation gap: %.2f percentage points (limit %g)\n", r.utilGap, utilGapLimit)
	const most = 10
	for i, d := range r.missing {
		if i == most {
			fmt.Fprintf(w, "  ... %d more only in sim\n", len(r.missing)-most)
			break
		}
		fmt.Fprintf(w, "  only in sim: %s\n", name(d))
	}
	for i, d := range r.extra {
		if i == most {
			fmt.Fprintf(w, "  ... %d more only live\n", len(r.extra)-most)
			break
		}
		fmt.Fprintf(w, "  only live: %s\n", name(d))
	}
	for i, p := range r.swapped {
		if i == most {
			fmt.Fprintf(w, "  ... %d more pairs out of order\n", len(r.swapped)-most)
			break
		}
		fmt.Fprintf(w, "  out of order live: %s, then %s\n", name(p[1]), name(p[0]))
	}
	for _, f := range r.failedRun {
		fmt.Fprintf(w, "  did not succeed live: %s\n", f)
	}
	verdict := "agree"
	if !r.Agree() {
		verdict = "DISAGREE"
	}
	fmt.Fprintf(w, "live and sim %s (%.1fs in all)\n", verdict, wall.Seconds())
}
