package search

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/sim/planner"
)

// makePlan is the plan a finished search gives.
func (pl *Planner) makePlan(sp planner.Space, s *planner.Search, known map[string]*fleetRun) *reports.Plan {
	p := &reports.Plan{Scenario: pl.base.Name, Shipped: pl.base.NodeCounts(), Prices: pl.prices, Seeds: pl.seeds,
		Simulations: pl.sims, Fleets: pl.fleets, GridPoints: sp.GridPoints(), Rounds: s.Rounds(), FrontierKey: pl.frontier,
		Warnings: slices.Clone(pl.warnings)}
	p.ShippedCost = pl.costOf(p.Shipped)
	for _, d := range sp.Dims {
		p.Ranges = append(p.Ranges, reports.PlanRange{Type: d.Type, Min: d.Min, Max: d.Max, Step: d.Step})
	}
	if best, ok := s.Best(); ok {
		p.Found = true
		pl.describe(p, known[pointKey(best)])
		for i, d := range sp.Dims {
			if best[i] == d.Max && d.Max > d.Min {
				p.Warnings = append(p.Warnings, fmt.Sprintf("the answer has the most %s nodes the range allows (%d): a wider --vary may hold a cheaper fleet", d.Type, d.Max))
			}
		}
	}
	best, _ := s.Best()
	p.Frontier = pl.frontierOf(s.Simulated(), known, best)
	return p
}

// describe fills a plan's fleet, cost, objectives and KPIs from one
// fleet's runs.
func (pl *Planner) describe(p *reports.Plan, r *fleetRun) {
	p.Fleet = pl.fleetOf(r.point)
	p.CostPerHour = r.cost
	p.Objectives = nil
	for i, o := range pl.objs {
		po := reports.PlanObjective{Objective: o.Text, Target: o.Value, Met: !slices.Contains(r.met[i], false), Steers: pl.steers[i]}
		po.Value, po.CI95 = reports.MeanCI95(reports.BoundsOf(o.Path), r.value[i])
		// The margin is the value seen from the bound: its interval is the
		// value's, so it respects the same bounds.
		upper := o.Op == "<=" || o.Op == "<"
		margin := func(v float64) float64 {
			if upper {
				return o.Value - v
			}
			return v - o.Value
		}
		po.Margin = margin(po.Value)
		if ci := po.CI95; ci != nil {
			po.MarginCI95 = &[2]float64{margin(ci[0]), margin(ci[1])}
			if upper {
				po.MarginCI95[0], po.MarginCI95[1] = po.MarginCI95[1], po.MarginCI95[0]
			}
		}
		if worst := r.worstSeed(i, o); strings.Contains(o.Path, "*") {
			po.At = r.at[i][worst]
		}
		p.Objectives = append(p.Objectives, po)
	}
	p.KPIs = nil
	for _, k := range planKPIs {
		p.KPIs = append(p.KPIs, reports.PlanKPI{Key: k, Value: mean(r.kpis[k])})
	}
}

// frontierOf keeps the fleets simulated that no other is both cheaper
// than and better on the frontier objective (mean over seeds), cheapest
// first, and the answer (nil: none) wherever it falls. Fleets that were
// not simulated (a class could not run on them) have no figures to show.
func (pl *Planner) frontierOf(ps []planner.Point, known map[string]*fleetRun, answer planner.Point) []reports.FrontierPoint {
	runs := make([]*fleetRun, 0, len(ps))
	for _, p := range ps {
		if r := known[pointKey(p)]; r.note == "" {
			runs = append(runs, r)
		}
	}
	sort.SliceStable(runs, func(i, j int) bool {
		if runs[i].cost != runs[j].cost {
			return runs[i].cost < runs[j].cost
		}
		return mean(runs[i].frontier) < mean(runs[j].frontier)
	})
	var out []reports.FrontierPoint
	bestSoFar := 0.0
	for _, r := range runs {
		v := mean(r.frontier)
		isAnswer := answer != nil && slices.Equal(r.point, answer)
		if !isAnswer && len(out) > 0 && v >= bestSoFar {
			continue
		}
		if len(out) == 0 || v < bestSoFar {
			bestSoFar = v
		}
		out = append(out, reports.FrontierPoint{Fleet: pl.fleetOf(r.point), CostPerHour: r.cost, Value: v, Met: r.unmet() == 0,
			Answer: isAnswer, Misses: pl.misses(r)})
	}
	return out
}

// misses lists the objectives a fleet misses, each at its worst seed.
func (pl *Planner) misses(r *fleetRun) []reports.FrontierMiss {
	out := []reports.FrontierMiss{}
	for i, o := range pl.objs {
		if !slices.Contains(r.met[i], false) {
			continue
		}
		k := r.worstSeed(i, o)
		m := reports.FrontierMiss{Objective: o.Text, Value: r.value[i][k], Seed: pl.seeds[k], Margin: r.value[i][k] - o.Value, MissedSeeds: []uint64{}}
		if o.Op == "<=" || o.Op == "<" {
			m.Margin = -m.Margin
		}
		if strings.Contains(o.Path, "*") {
			m.At = r.at[i][k]
		}
		for k, met := range r.met[i] {
			if !met {
				m.MissedSeeds = append(m.MissedSeeds, pl.seeds[k])
			}
		}
		out = append(out, m)
	}
	return out
}
