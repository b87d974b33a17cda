package search

import (
	"fmt"
	"maps"
	"slices"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// Run plans: the cheapest fleet of the ranges, or, with demand scales,
// the fleet quarter by quarter. rounds (nil: alone) holds the merged
// rounds of a search spread over machines; the search may stop for a
// round, which rounds.Finish handles.
func (pl *Planner) Run(rounds *Rounds, progress Progress) (*reports.Plan, error) {
	pl.rounds, pl.progress = rounds, progress
	if len(pl.scales) > 0 {
		return pl.growthPlan()
	}
	return pl.plan(pl.base, pl.space(nil))
}

// search runs one fleet search on a scenario (the base one, or one with
// scaled demand) and returns it with every run it made.
func (pl *Planner) search(scen *scenarios.Scenario, sp planner.Space) (*planner.Search, map[string]*fleetRun, error) {
	s, err := planner.NewSearch(sp, pl.width)
	if err != nil {
		return nil, nil, &InputError{err}
	}
	known := map[string]*fleetRun{}
	eval := func(ps []planner.Point) ([]planner.Verdict, error) {
		runs, err := pl.evaluate(scen, ps, known)
		if err != nil {
			return nil, err
		}
		vs := make([]planner.Verdict, len(runs))
		for i, r := range runs {
			vs[i] = r.verdict(pl.steers)
		}
		pl.report(float64(pl.fleets%200)/200, fmt.Sprintf("%d fleets simulated", pl.fleets))
		return vs, nil
	}
	if err := planner.Run(s, eval); err != nil {
		return nil, nil, err
	}
	// The fleets one step cheaper than the answer check the monotonicity
	// the search assumed: one meeting every objective becomes the answer,
	// and the fleets one step cheaper than it are checked in turn.
	first, ok := s.Best()
	for best := first; ok; {
		var check []planner.Point
		for _, q := range sp.Neighbours(best) {
			if _, done := known[pointKey(q)]; !done {
				check = append(check, q)
			}
		}
		if len(check) == 0 {
			break
		}
		vs, err := eval(check)
		if err != nil {
			return nil, nil, err
		}
		s.Record(check, vs)
		nb, _ := s.Best()
		if slices.Equal(nb, best) {
			break
		}
		best = nb
	}
	if last, _ := s.Best(); ok && !slices.Equal(last, first) {
		pl.warnSettled(sp, first, last)
	}
	return s, known, nil
}

// warnSettled says the answer moved from where the search settled, to a
// cheaper fleet that meets every objective too.
func (pl *Planner) warnSettled(sp planner.Space, first, last planner.Point) {
	steps := 0
	for i, d := range sp.Dims {
		steps += abs(first[i]-last[i]) / d.Step
	}
	cheaper := "one step cheaper"
	if steps > 1 {
		cheaper = fmt.Sprintf("%d steps cheaper", steps)
	}
	pl.warnings = append(pl.warnings, fmt.Sprintf("the search settled on %s; %s, %s, meets every objective too and is the answer: at these seeds more nodes did not always help, as the search assumes (more --seeds would settle it)",
		reports.FleetString(pl.fleetOf(first), pl.types()), reports.FleetString(pl.fleetOf(last), pl.types()), cheaper))
}

// plan finds the cheapest fleet of sp for one scenario.
func (pl *Planner) plan(scen *scenarios.Scenario, sp planner.Space) (*reports.Plan, error) {
	s, known, err := pl.search(scen, sp)
	if err != nil {
		return nil, err
	}
	p := pl.makePlan(sp, s, known)
	if !p.Found {
		// Say how far the largest fleet is from the objectives.
		top := make(planner.Point, len(sp.Dims))
		for i, d := range sp.Dims {
			top[i] = d.Max
		}
		if _, ok := known[pointKey(top)]; !ok {
			if _, err := pl.evaluate(scen, []planner.Point{top}, known); err != nil {
				return nil, err
			}
		}
		pl.describe(p, known[pointKey(top)])
		p.Simulations, p.Fleets = pl.sims, pl.fleets
	}
	return p, nil
}

// growthPlan plans quarter by quarter: each quarter's demand on the fleet
// the quarter before left, adding the cheapest nodes that meet every
// objective again when it no longer does.
func (pl *Planner) growthPlan() (*reports.Plan, error) {
	fleet := pl.base.NodeCounts()
	out := &reports.Plan{Scenario: pl.base.Name, Shipped: pl.base.NodeCounts(), Prices: pl.prices, Seeds: pl.seeds, FrontierKey: pl.frontier, DemandGrowth: pl.growth}
	out.ShippedCost = pl.costOf(out.Shipped)
	for _, d := range pl.dims {
		out.Ranges = append(out.Ranges, reports.PlanRange{Type: d.Type, Min: d.Min, Max: d.Max, Step: d.Step})
	}
	for q, k := range pl.scales {
		pl.scale = k
		scen, err := pl.base.WithDemandScale(k)
		if err != nil {
			return nil, &InputError{err}
		}
		sp := pl.space(fleet)
		held := make(planner.Point, len(pl.dims))
		for i, d := range pl.dims {
			held[i] = fleet[d.Type]
		}
		known := map[string]*fleetRun{}
		runs, err := pl.evaluate(scen, []planner.Point{held}, known)
		if err != nil {
			return nil, err
		}
		qr := reports.Quarter{Quarter: q, DemandScale: k, Met: runs[0].unmet() == 0, Found: true, Fleet: maps.Clone(fleet), Add: map[string]int{},
			Wait: mean(runs[0].frontier)}
		var p *reports.Plan
		if !qr.Met && !runs[0].verdict(pl.steers).Capacity {
			if p, err = pl.plan(scen, sp); err != nil {
				return nil, err
			}
			qr.Found = p.Found
			if p.Found {
				for typ, n := range p.Fleet {
					qr.Add[typ] = n - fleet[typ]
				}
				fleet = p.Fleet
				qr.Fleet = maps.Clone(fleet)
				qr.Wait = p.ChosenValue()
			}
		}
		qr.CostPerHour = pl.costOf(qr.Fleet)
		if p == nil {
			p = &reports.Plan{Found: true}
			pl.describe(p, runs[0])
			p.Frontier = pl.frontierOf([]planner.Point{held}, known, held)
		}
		out.Found, out.Fleet, out.CostPerHour, out.Objectives, out.KPIs, out.Frontier = qr.Found, qr.Fleet, qr.CostPerHour, p.Objectives, p.KPIs, p.Frontier
		out.GridPoints += sp.GridPoints()
		out.Rounds += p.Rounds
		out.Quarters = append(out.Quarters, qr)
		if !qr.Found {
			break
		}
	}
	out.Simulations, out.Fleets, out.Warnings = pl.sims, pl.fleets, pl.warnings
	return out, nil
}
