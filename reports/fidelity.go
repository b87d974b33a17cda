package reports

import (
	"math"
	"sort"
)

// Fidelity compares a replay with what the traced system did: the
// original and simulated allocation over time, and the distributions of
// waits and completion (end − submit) times.
type Fidelity struct {
	Jobs int `json:"jobs_compared"`
	// Mean accelerators in use per bucket, originally and in the replay.
	OrigInUse []float64 `json:"-"`
	SimInUse  []float64 `json:"-"`
	Wait      Compared  `json:"wait_s"`
	Complete  Compared  `json:"completion_s"`
	// UtilizationMAE is the mean absolute error of the bucket utilisation.
	UtilizationMAE float64 `json:"utilization_mae"`
}

// Compared is one distribution, original against simulated.
type Compared struct {
	MeanErr float64   `json:"mean_relative_error"`
	KS      float64   `json:"ks_distance"`
	Orig    Quantiles `json:"original"`
	Sim     Quantiles `json:"simulated"`
}

// Quantiles summarise a distribution.
type Quantiles struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
}

// fidelityAcc gathers the comparison job by job, so that a run of any size
// keeps only the samples, not the jobs.
type fidelityAcc struct {
	start, end     []float64 // bucket bounds
	orig           []float64 // accelerator-seconds in use originally, per bucket
	ow, sw, oc, sc []float64 // waits and completion times, original and simulated
	jobs           int
}

func newFidelityAcc(start, end []float64) *fidelityAcc {
	return &fidelityAcc{start: start, end: end, orig: make([]float64, len(start))}
}

// add records one job with original times; first and end are NaN when the
// replay never started or ended it.
func (a *fidelityAcc) add(submit, origStart, origEnd, acc, first, end, wait float64) {
	a.jobs++
	// Buckets overlapping [origStart, origEnd): the first whose end is
	// past the start, on while they begin before the end.
	k := sort.SearchFloat64s(a.end, origStart)
	for ; k < len(a.start) && a.start[k] < origEnd; k++ {
		if lo, hi := math.Max(origStart, a.start[k]), math.Min(origEnd, a.end[k]); hi > lo {
			a.orig[k] += acc * (hi - lo)
		}
	}
	a.ow = append(a.ow, math.Max(0, origStart-submit))
	a.oc = append(a.oc, math.Max(0, origEnd-submit))
	if !math.IsNaN(first) {
		a.sw = append(a.sw, wait)
	}
	if !math.IsNaN(end) {
		a.sc = append(a.sc, end-submit)
	}
}

// result compares with the replay's allocation in d; nil with no jobs.
func (a *fidelityAcc) result(d *RunData) *Fidelity {
	if a.jobs == 0 {
		return nil
	}
	f := &Fidelity{Jobs: a.jobs, OrigInUse: make([]float64, len(d.Start)), SimInUse: make([]float64, len(d.Start))}
	for k := range d.Start {
		if w := d.End[k] - d.Start[k]; w > 0 {
			f.OrigInUse[k] = a.orig[k] / w
		}
		for t := range d.Types {
			for m := range d.Teams {
				f.SimInUse[k] += d.Allocated[t][m][k]
			}
		}
	}
	f.Wait, f.Complete = compare(a.ow, a.sw), compare(a.oc, a.sc)
	n, sum := 0, 0.0
	for k := windowStart(d); k < len(d.Start); k++ {
		inst := 0.0
		for t := range d.Types {
			inst += d.Installed[t][k]
		}
		if inst > 0 {
			sum += math.Abs(f.OrigInUse[k]-f.SimInUse[k]) / inst
			n++
		}
	}
	if n > 0 {
		f.UtilizationMAE = sum / float64(n)
	}
	return f
}
