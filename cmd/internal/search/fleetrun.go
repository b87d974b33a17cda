package search

import (
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// fleetRun is what the seeds of one fleet said: per objective and seed,
// the value (the worst key of a wildcard) and whether it was met.
type fleetRun struct {
	point    planner.Point
	value    [][]float64
	at       [][]string
	met      [][]bool
	frontier []float64
	kpis     map[string][]float64
	cost     float64
	note     string // why nothing was simulated
}

func (pl *Planner) newRun(p planner.Point) *fleetRun {
	n := len(pl.seeds)
	r := &fleetRun{point: p, cost: pl.costOf(pl.fleetOf(p)), kpis: map[string][]float64{}, frontier: make([]float64, n)}
	for range pl.objs {
		r.value = append(r.value, make([]float64, n))
		r.at = append(r.at, make([]string, n))
		r.met = append(r.met, make([]bool, n))
	}
	for _, k := range planKPIs {
		r.kpis[k] = make([]float64, n)
	}
	return r
}

// starved files a fleet on which a class can never run: every
// objective missed, nothing simulated.
func (r *fleetRun) starved(objs []scenarios.Objective, why error) {
	for i := range objs {
		for k := range r.value[i] {
			r.value[i][k], r.met[i][k] = math.NaN(), false
		}
	}
	for k := range r.frontier {
		r.frontier[k] = math.Inf(1)
	}
	r.note = why.Error()
}

func (r *fleetRun) verdict(steers []string) planner.Verdict {
	v := planner.Verdict{Capacity: true, Rest: true}
	for i, ms := range r.met {
		all := !slices.Contains(ms, false)
		if steers[i] == steerCapacity {
			v.Capacity = v.Capacity && all
		} else {
			v.Rest = v.Rest && all
		}
	}
	return v
}

// unmet counts the objectives missed on some seed.
func (r *fleetRun) unmet() int {
	n := 0
	for _, ms := range r.met {
		if slices.Contains(ms, false) {
			n++
		}
	}
	return n
}

// load files seed k of a fleet's runs.
func (r *fleetRun) load(st storedRun, k int) {
	r.frontier[k] = st.Frontier
	for i := range r.value {
		r.value[i][k], r.met[i][k], r.at[i][k] = st.Values[i], st.Met[i], st.At[i]
	}
	for i, key := range planKPIs {
		r.kpis[key][k] = st.KPIs[i]
	}
}

// worstSeed is the seed (as an index) on which objective i is furthest on
// the wrong side of its bound; ties go to the first.
func (r *fleetRun) worstSeed(i int, o scenarios.Objective) int {
	upper := o.Op == "<=" || o.Op == "<"
	worst := 0
	for k, v := range r.value[i] {
		if (upper && v > r.value[i][worst]) || (!upper && v < r.value[i][worst]) {
			worst = k
		}
	}
	return worst
}

func pointKey(p planner.Point) string { return fmt.Sprint([]int(p)) }

// evaluate simulates a round's fleets on every seed, all runs in parallel.
func (pl *Planner) evaluate(scen *scenarios.Scenario, ps []planner.Point, known map[string]*fleetRun) ([]*fleetRun, error) {
	runs := make([]*fleetRun, len(ps))
	scens := make([]*scenarios.Scenario, len(ps))
	names := make([]string, len(ps))
	for i, p := range ps {
		sc, err := scen.WithFleet(pl.fleetOf(p), pl.rule)
		if err == nil && pl.spot > 0 {
			sc, err = sc.WithSpotShare(pl.spot, pl.spotFail)
		}
		none := errors.Is(err, scenarios.ErrFleetTooSmall)
		if err != nil && !none {
			return nil, &InputError{fmt.Errorf("fleet %s: %w", reports.FleetString(pl.fleetOf(p), pl.types()), err)}
		}
		runs[i], names[i] = pl.newRun(p), fmt.Sprintf("%g %v", pl.scale, []int(p))
		if none {
			runs[i].starved(pl.objs, err) // no job of a class could start: nothing to simulate
		} else {
			scens[i] = sc
		}
	}
	got, err := pl.round(names, scens, pl.measure)
	if err != nil {
		return nil, err
	}
	for i, sts := range got {
		for k, st := range sts {
			runs[i].load(st, k)
		}
	}
	for _, sc := range scens {
		if sc != nil {
			pl.fleets++
		}
	}
	for i, p := range ps {
		known[pointKey(p)] = runs[i]
	}
	return runs, nil
}

// measure reads a fleet's run: each objective, the frontier objective and
// the headline figures.
func (pl *Planner) measure(sum *reports.Summary) (storedRun, error) {
	var st storedRun
	for _, o := range pl.objs {
		vs, err := reports.LookupAll(sum, o.Path)
		if err != nil {
			return st, &InputError{fmt.Errorf("objective %q: %w", o.Text, err)}
		}
		w := reports.Worst(vs, o.Op)
		st.Values, st.Met, st.At = append(st.Values, w.Value), append(st.Met, o.Holds(w.Value)), append(st.At, w.Path)
	}
	if vs, err := reports.LookupAll(sum, pl.frontier); err == nil {
		st.Frontier = reports.Worst(vs, "<=").Value
	}
	for _, key := range planKPIs {
		v := 0.0 // a key the run lacks
		if x, err := reports.Lookup(sum, key); err == nil {
			v = x
		}
		st.KPIs = append(st.KPIs, v)
	}
	return st, nil
}
