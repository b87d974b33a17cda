package main

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
	"golang.org/x/sync/errgroup"
	"gonum.org/v1/gonum/stat"
)

// fleetPlanner runs `allot plan`: it owns the scenario, the objectives and
// the prices, and simulates the fleets a planner.Search asks for.
type fleetPlanner struct {
	base     *scenarios.Scenario
	objs     []scenarios.Objective
	steers   []string
	dims     []planner.Dim // the --vary ranges, priced
	prices   []reports.PlanPrice
	price    map[string]float64
	seeds    []uint64
	rule     scenarios.QuotaRule
	spot     float64
	spotFail hardware.Failures
	workers  int
	width    int
	scales   []float64
	growth   string
	frontier string // the objective path the frontier is drawn against
	progress *progress
	rounds   *roundCache // the merged rounds of a sharded plan (nil: alone)
	scale    float64     // the demand scale being planned
	sims     int         // simulations run, over every search
	fleets   int         // fleets simulated, over every search
	warnings []string
}

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

const (
	steerCapacity    = "capacity"
	steerUtilization = "utilization"
	steerChecked     = "checked"
)

// steer says which way more nodes move an objective: a key that more
// capacity lowers (waits, the unstarted share, utilisation) or raises
// (goodput, jobs started, cost), against the objective's bound.
func steer(o scenarios.Objective) string {
	lowers := []string{"wait_s", "wait_all_s", "unstarted_share", "pending_at_end", "preemptions", "utilization", "node_failures"}
	raises := []string{"goodput", "jobs.started", "jobs.completed", "cost.", "capacity"}
	upper := o.Op == "<=" || o.Op == "<"
	for _, k := range lowers {
		if strings.Contains(o.Path, k) {
			if upper {
				return steerCapacity
			}
			return steerUtilization
		}
	}
	for _, k := range raises {
		if strings.Contains(o.Path, k) {
			if upper {
				return steerUtilization
			}
			return steerCapacity
		}
	}
	return steerChecked
}

// searchObjectives are what plan and tune must meet: the scenario's
// objectives, each --objective not among them already, and, unless
// anyStarved, "jobs.unstarted_share <= 1%" so that no answer is bought by
// starving work.
func searchObjectives(s *scenarios.Scenario, texts []string, anyStarved bool) ([]scenarios.Objective, error) {
	objs := slices.Clone(s.Objectives)
	same := func(a, b string) bool {
		return strings.Join(strings.Fields(a), " ") == strings.Join(strings.Fields(b), " ")
	}
	for _, text := range texts {
		if slices.ContainsFunc(objs, func(o scenarios.Objective) bool { return same(o.Text, text) }) {
			continue // the scenario has it already
		}
		o, err := scenarios.ParseObjective(text)
		if err == nil {
			err = s.CheckObjective(o)
		}
		if err != nil {
			return nil, fmt.Errorf("--objective: %w", err)
		}
		objs = append(objs, o)
	}
	if !anyStarved && !slices.ContainsFunc(objs, func(o scenarios.Objective) bool { return o.Path == "jobs.unstarted_share" }) {
		o, _ := scenarios.ParseObjective("jobs.unstarted_share <= 1%")
		objs = append(objs, o)
	}
	return objs, nil
}

// planKPIs are the headline figures reported at the chosen fleet.
var planKPIs = []string{"utilization.mean", "utilization.p95_bucket", "goodput", "wait_all_s.p95", "preemptions_per_job", "jobs.unstarted_share", "cost.usd_per_useful_accelerator_hour"}

func newFleetPlanner(path string, f *planFlags) (*fleetPlanner, error) {
	s, err := loadScenario(path, f.policy)
	if err != nil {
		return nil, err
	}
	pl := &fleetPlanner{base: s, workers: f.workers, width: f.width, price: map[string]float64{}, warnings: []string{}, scale: 1}
	if pl.workers <= 0 {
		pl.workers = runtime.GOMAXPROCS(0)
	}
	if f.seeds < 1 {
		return nil, badInput(fmt.Errorf("--seeds: must be at least 1, got %d", f.seeds))
	}
	for i := 1; i <= f.seeds; i++ {
		pl.seeds = append(pl.seeds, uint64(i))
	}
	switch f.quotas {
	case "scale":
		pl.rule = scenarios.QuotasScale
	case "keep":
		pl.rule = scenarios.QuotasKeep
	default:
		return nil, badInput(fmt.Errorf("--quotas %q: want scale or keep", f.quotas))
	}
	if err := pl.readObjectives(f); err != nil {
		return nil, badInput(err)
	}
	if err := pl.readPrices(f); err != nil {
		return nil, badInput(err)
	}
	if len(f.vary) == 0 {
		return nil, badInput(fmt.Errorf("--vary: name at least one instance type to size, e.g. --vary p5.48xlarge=0..120"))
	}
	counts := s.NodeCounts()
	for _, v := range f.vary {
		d, err := parseVary(v)
		if err != nil {
			return nil, badInput(err)
		}
		if _, ok := counts[d.Type]; !ok {
			return nil, badInput(fmt.Errorf("--vary %q: the fleet of %s has no %s nodes (fleet.nodes)", v, s.Path, d.Type))
		}
		if slices.ContainsFunc(pl.dims, func(o planner.Dim) bool { return o.Type == d.Type }) {
			return nil, badInput(fmt.Errorf("--vary %q: %s is varied twice", v, d.Type))
		}
		d.Price = pl.price[d.Type]
		if !(d.Price > 0) {
			return nil, badInput(fmt.Errorf("--vary %q: %s has no price to size it by; give one with --price %s=USD", v, d.Type, d.Type))
		}
		pl.dims = append(pl.dims, d)
	}
	if pl.scales, pl.growth, err = demandScales(f); err != nil {
		return nil, badInput(err)
	}
	return pl, nil
}

func (pl *fleetPlanner) readObjectives(f *planFlags) error {
	var err error
	if pl.objs, err = searchObjectives(pl.base, f.objectives, f.anyStarved); err != nil {
		return err
	}
	if len(pl.objs) == 0 {
		return fmt.Errorf("no objective to plan for: the scenario has none and no --objective was given")
	}
	for _, o := range pl.objs {
		pl.steers = append(pl.steers, steer(o))
		if pl.frontier == "" && strings.Contains(o.Path, "wait") {
			pl.frontier = o.Path
		}
	}
	if !slices.Contains(pl.steers, steerCapacity) {
		return fmt.Errorf("no objective that more nodes help (a wait, jobs.unstarted_share, goodput): the cheapest fleet would be the smallest")
	}
	if pl.frontier == "" {
		pl.frontier = "wait_all_s.p95"
	}
	return nil
}

// readPrices sets every fleet type's price per node-hour: --price, else
// on-demand less --discount, blended with the spot share.
func (pl *fleetPlanner) readPrices(f *planFlags) error {
	given := map[string]float64{}
	for _, p := range f.prices {
		typ, usd, ok := strings.Cut(p, "=")
		v, err := parseFloat(usd)
		if !ok || err != nil || v < 0 {
			return fmt.Errorf("--price %q: want TYPE=USD per node-hour, e.g. p5.48xlarge=38.5", p)
		}
		if _, ok := pl.base.Catalog.Lookup(typ); !ok {
			return fmt.Errorf("--price %q: unknown instance type %q", p, typ)
		}
		given[typ] = v
	}
	off := 0.0
	if f.discount != "" {
		var err error
		if off, err = parsePercent("--discount", f.discount); err != nil {
			return err
		}
	}
	spotOff := 0.0
	if f.spotShare != "" {
		var err error
		if pl.spot, err = parsePercent("--spot-share", f.spotShare); err != nil {
			return err
		}
		if f.spotOff == "" || f.spotMTBF == "" {
			return fmt.Errorf("--spot-share needs --spot-discount (its price) and --spot-interruptions (its interruption rate)")
		}
		if spotOff, err = parsePercent("--spot-discount", f.spotOff); err != nil {
			return err
		}
		mtbf, err := scenarios.ParseDuration(f.spotMTBF)
		if err != nil || mtbf <= 0 {
			return fmt.Errorf("--spot-interruptions %q: want the mean time between interruptions of a node, e.g. 20d", f.spotMTBF)
		}
		repl, err := scenarios.ParseDuration(f.spotReplace)
		if err != nil || repl < 0 {
			return fmt.Errorf("--spot-replace %q: want a duration, e.g. 1h", f.spotReplace)
		}
		pl.spotFail = hardware.Failures{MTBF: mtbf, Repair: repl}
	}
	for _, t := range pl.base.Fleet.Types() {
		od, basis := t.PricePerHour, "on-demand"
		if !t.Priced {
			od, basis = 0, "unpriced"
		}
		if v, ok := given[t.Name]; ok {
			od, basis = v, "--price"
		} else if off > 0 && t.Priced {
			od, basis = od*(1-off), fmt.Sprintf("on-demand less %s", f.discount)
		}
		price := od
		if pl.spot > 0 && t.Priced {
			spot := t.PricePerHour * (1 - spotOff)
			price = (1-pl.spot)*od + pl.spot*spot
			basis += fmt.Sprintf(", %s spot at %s off", f.spotShare, f.spotOff)
		}
		pl.price[t.Name] = price
		pl.prices = append(pl.prices, reports.PlanPrice{Type: t.Name, PerNodeHour: price, Basis: basis})
		if basis == "unpriced" {
			pl.warnings = append(pl.warnings, fmt.Sprintf("%s has no price: its nodes add nothing to the cost", t.Name))
		}
	}
	return nil
}

func parseFloat(s string) (float64, error) {
	var v float64
	_, err := fmt.Sscanf(s, "%g", &v)
	return v, err
}

// space is the search grid; mins raises the ranges' lower ends (a growth
// plan never sells nodes).
func (pl *fleetPlanner) space(mins map[string]int) planner.Space {
	sp := planner.Space{}
	for _, d := range pl.dims {
		if m, ok := mins[d.Type]; ok && m > d.Min {
			// Round up onto the grid, and keep it within the range.
			d.Min += (m - d.Min + d.Step - 1) / d.Step * d.Step
			d.Max = max(d.Max, d.Min)
		}
		sp.Dims = append(sp.Dims, d)
	}
	for typ, n := range pl.base.NodeCounts() {
		if !slices.ContainsFunc(pl.dims, func(d planner.Dim) bool { return d.Type == typ }) {
			sp.Fixed += float64(n) * pl.price[typ]
		}
	}
	return sp
}

// fleetOf is a point's fleet: every type of the scenario's fleet.
func (pl *fleetPlanner) fleetOf(p planner.Point) map[string]int {
	out := pl.base.NodeCounts()
	for i, d := range pl.dims {
		out[d.Type] = p[i]
	}
	return out
}

func (pl *fleetPlanner) costOf(fleet map[string]int) float64 {
	c := 0.0
	for _, typ := range slices.Sorted(maps.Keys(fleet)) {
		c += float64(fleet[typ]) * pl.price[typ]
	}
	return c
}

// evaluate simulates a round's fleets on every seed, all runs in parallel.
func (pl *fleetPlanner) evaluate(scen *scenarios.Scenario, ps []planner.Point, known map[string]*fleetRun) ([]*fleetRun, error) {
	type job struct{ p, s int }
	runs := make([]*fleetRun, len(ps))
	scens := make([]*scenarios.Scenario, len(ps))
	for i, p := range ps {
		sc, err := scen.WithFleet(pl.fleetOf(p), pl.rule)
		if err == nil && pl.spot > 0 {
			sc, err = sc.WithSpotShare(pl.spot, pl.spotFail)
		}
		none := errors.Is(err, scenarios.ErrFleetTooSmall)
		if err != nil && !none {
			return nil, badInput(fmt.Errorf("fleet %s: %w", reports.FleetString(pl.fleetOf(p), pl.types()), err))
		}
		scens[i] = sc
		r := &fleetRun{point: p, cost: pl.costOf(pl.fleetOf(p)), kpis: map[string][]float64{}, frontier: make([]float64, len(pl.seeds))}
		for range pl.objs {
			r.value = append(r.value, make([]float64, len(pl.seeds)))
			r.at = append(r.at, make([]string, len(pl.seeds)))
			r.met = append(r.met, make([]bool, len(pl.seeds)))
		}
		for _, k := range planKPIs {
			r.kpis[k] = make([]float64, len(pl.seeds))
		}
		runs[i] = r
		if none {
			r.starved(pl.objs, err)
			scens[i] = nil
		}
	}
	var jobs []job
	var keys []string
	for i, p := range ps {
		if scens[i] == nil {
			continue // no job of a class could start: nothing to simulate
		}
		for s := range pl.seeds {
			jobs = append(jobs, job{i, s})
			keys = append(keys, fmt.Sprintf("%g %v %d", pl.scale, []int(p), pl.seeds[s]))
		}
	}
	mine, err := pl.rounds.split(keys)
	if err != nil {
		return nil, err
	}
	if err := parallel(len(mine), pl.workers, func(m int) error {
		j := jobs[mine[m]]
		return pl.runFleet(scens[j.p], runs[j.p], j.s)
	}); err != nil {
		return nil, err
	}
	ran := make([]bool, len(jobs))
	for _, j := range mine {
		ran[j] = true
	}
	for j, jb := range jobs {
		r := runs[jb.p]
		if ran[j] {
			pl.rounds.put(r.stored(keys[j], jb.s))
		} else if st, ok := pl.rounds.get(keys[j]); ok {
			r.load(st, jb.s)
		}
	}
	if err := pl.rounds.afterBatch(); err != nil {
		return nil, err
	}
	pl.sims += len(jobs)
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

// stored is seed k of a fleet's runs, as a round keeps it.
func (r *fleetRun) stored(key string, k int) storedRun {
	st := storedRun{Key: key, Frontier: r.frontier[k]}
	for i := range r.value {
		st.Values, st.Met, st.At = append(st.Values, r.value[i][k]), append(st.Met, r.met[i][k]), append(st.At, r.at[i][k])
	}
	for _, key := range planKPIs {
		st.KPIs = append(st.KPIs, r.kpis[key][k])
	}
	return st
}

// load files seed k of a fleet's runs from a merged round.
func (r *fleetRun) load(st storedRun, k int) {
	r.frontier[k] = st.Frontier
	for i := range r.value {
		r.value[i][k], r.met[i][k], r.at[i][k] = st.Values[i], st.Met[i], st.At[i]
	}
	for i, key := range planKPIs {
		r.kpis[key][k] = st.KPIs[i]
	}
}

// parallel runs f(0..n-1) on workers goroutines; the first error wins.
func parallel(n, workers int, f func(int) error) error {
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for j := range n {
		g.Go(func() error { return f(j) })
	}
	return g.Wait()
}

func pointKey(p planner.Point) string { return fmt.Sprint([]int(p)) }

// runFleet simulates one fleet on one seed and files what it says.
func (pl *fleetPlanner) runFleet(s *scenarios.Scenario, r *fleetRun, k int) error {
	sum, err := simrun.Summary(s, pl.seeds[k])
	if err != nil {
		return err
	}
	for i, o := range pl.objs {
		vs, err := reports.LookupAll(sum, o.Path)
		if err != nil {
			return badInput(fmt.Errorf("objective %q: %w", o.Text, err))
		}
		w := reports.Worst(vs, o.Op)
		r.value[i][k], r.met[i][k], r.at[i][k] = w.Value, o.Holds(w.Value), w.Path
	}
	if vs, err := reports.LookupAll(sum, pl.frontier); err == nil {
		r.frontier[k] = reports.Worst(vs, "<=").Value
	}
	for _, key := range planKPIs {
		if v, err := reports.Lookup(sum, key); err == nil {
			r.kpis[key][k] = v
		}
	}
	return nil
}

func (pl *fleetPlanner) types() []string {
	var out []string
	for _, p := range pl.prices {
		out = append(out, p.Type)
	}
	return out
}

// search runs one fleet search on a scenario (the base one, or one with
// scaled demand) and returns it with every run it made.
func (pl *fleetPlanner) search(scen *scenarios.Scenario, sp planner.Space) (*planner.Search, map[string]*fleetRun, error) {
	s, err := planner.NewSearch(sp, pl.width)
	if err != nil {
		return nil, nil, badInput(err)
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
		pl.progress.update(float64(pl.fleets%200)/200, fmt.Sprintf("%d fleets simulated", pl.fleets))
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
	return s, known, nil
}

// plan finds the cheapest fleet of sp for one scenario.
func (pl *fleetPlanner) plan(scen *scenarios.Scenario, sp planner.Space) (*reports.Plan, error) {
	s, known, err := pl.search(scen, sp)
	if err != nil {
		return nil, err
	}
	p := pl.report(sp, s, known)
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

// report is the plan a finished search gives.
func (pl *fleetPlanner) report(sp planner.Space, s *planner.Search, known map[string]*fleetRun) *reports.Plan {
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
func (pl *fleetPlanner) describe(p *reports.Plan, r *fleetRun) {
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

// frontierOf keeps the fleets simulated that no other is both cheaper
// than and better on the frontier objective (mean over seeds), cheapest
// first, and the answer (nil: none) wherever it falls. Fleets that were
// not simulated (a class could not run on them) have no figures to show.
func (pl *fleetPlanner) frontierOf(ps []planner.Point, known map[string]*fleetRun, answer planner.Point) []reports.FrontierPoint {
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
func (pl *fleetPlanner) misses(r *fleetRun) []reports.FrontierMiss {
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

func mean(xs []float64) float64 { return stat.Mean(xs, nil) }

// growthPlan plans quarter by quarter: each quarter's demand on the fleet
// the quarter before left, adding the cheapest nodes that meet every
// objective again when it no longer does.
func (pl *fleetPlanner) growthPlan() (*reports.Plan, error) {
	fleet := pl.base.NodeCounts()
	var out *reports.Plan
	for q, k := range pl.scales {
		pl.scale = k
		scen, err := pl.base.WithDemandScale(k)
		if err != nil {
			return nil, badInput(err)
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
		if out == nil {
			out = &reports.Plan{Scenario: pl.base.Name, Shipped: pl.base.NodeCounts(), Prices: pl.prices, Seeds: pl.seeds, FrontierKey: pl.frontier, DemandGrowth: pl.growth}
			out.ShippedCost = pl.costOf(out.Shipped)
			for _, d := range pl.dims {
				out.Ranges = append(out.Ranges, reports.PlanRange{Type: d.Type, Min: d.Min, Max: d.Max, Step: d.Step})
			}
		}
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
