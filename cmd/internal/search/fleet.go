package search

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/buildinfo"
	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// PlanOptions are the settings of `allot plan`, as its flags give them.
type PlanOptions struct {
	Path        string   // the scenario file
	Policy      string   // a policy kind or file instead of the scenario's
	Objectives  []string // --objective
	Vary        []string // TYPE=MIN..MAX[/STEP]
	Seeds       int
	Workers     int // parallel simulations (0: all cores)
	Width       int // fleets per round
	Quotas      string
	Prices      []string // TYPE=USD
	Discount    string
	SpotShare   string
	SpotOff     string // --spot-discount
	SpotMTBF    string // --spot-interruptions
	SpotReplace string
	Growth      string // --demand-growth
	Quarters    int
	Scales      string // --demand-scales
	AnyStarved  bool   // --allow-unstarted
}

// Planner runs `allot plan`: it owns the scenario, the objectives and
// the prices, and simulates the fleets a planner.Search asks for.
type Planner struct {
	runner
	base     *scenarios.Scenario
	objs     []scenarios.Objective
	steers   []string
	dims     []planner.Dim // the --vary ranges, priced
	prices   []reports.PlanPrice
	price    map[string]float64
	rule     scenarios.QuotaRule
	spot     float64
	spotFail hardware.Failures
	width    int
	scales   []float64
	growth   string
	frontier string  // the objective path the frontier is drawn against
	scale    float64 // the demand scale being planned
	fleets   int     // fleets simulated, over every search
	warnings []string
	inputs   []string // the files the plan reads, for its Digest
}

// planKPIs are the headline figures reported at the chosen fleet.
var planKPIs = []string{"utilization.mean", "utilization.p95_bucket", "goodput", "wait_all_s.p95", "preemptions_per_job", "jobs.unstarted_share", "cost.usd_per_useful_accelerator_hour"}

// NewPlanner loads the scenario and reads the options. Every error is one
// of the options or of the files they name.
func NewPlanner(o PlanOptions) (*Planner, error) {
	s, err := load(o.Path, o.Policy)
	if err != nil {
		return nil, err
	}
	pl := &Planner{base: s, width: o.Width, price: map[string]float64{}, warnings: []string{}, scale: 1}
	pl.inputs = []string{o.Path, "", s.TracePath}
	if o.Policy != "" && !slices.Contains(scenarios.Kinds, o.Policy) {
		pl.inputs[1] = o.Policy // a policy file
	}
	if o.Seeds < 1 {
		return nil, fmt.Errorf("--seeds: must be at least 1, got %d", o.Seeds)
	}
	pl.runner = newRunner(o.Seeds, o.Workers)
	switch o.Quotas {
	case "scale":
		pl.rule = scenarios.QuotasScale
	case "keep":
		pl.rule = scenarios.QuotasKeep
	default:
		return nil, fmt.Errorf("--quotas %q: want scale or keep", o.Quotas)
	}
	if err := pl.readObjectives(&o); err != nil {
		return nil, err
	}
	if err := pl.readPrices(&o); err != nil {
		return nil, err
	}
	if err := pl.readVary(o.Vary); err != nil {
		return nil, err
	}
	if pl.scales, pl.growth, err = demandScales(&o); err != nil {
		return nil, err
	}
	return pl, nil
}

// Scenario is the scenario planned for, under --policy if given.
func (pl *Planner) Scenario() *scenarios.Scenario { return pl.base }

// Digest fingerprints what the plan reads and the build (Digest), so
// that rounds of another plan or build are not merged into its state.
func (pl *Planner) Digest() (string, error) { return Digest(buildinfo.ID(), pl.inputs...) }

func (pl *Planner) readObjectives(o *PlanOptions) error {
	var err error
	if pl.objs, err = searchObjectives(pl.base, o.Objectives, o.AnyStarved); err != nil {
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

// readVary reads the --vary ranges, each of a priced type of the fleet.
func (pl *Planner) readVary(vary []string) error {
	if len(vary) == 0 {
		return fmt.Errorf("--vary: name at least one instance type to size, e.g. --vary p5.48xlarge=0..120")
	}
	counts := pl.base.NodeCounts()
	for _, v := range vary {
		d, err := parseVary(v)
		if err != nil {
			return err
		}
		if _, ok := counts[d.Type]; !ok {
			return fmt.Errorf("--vary %q: the fleet of %s has no %s nodes (fleet.nodes)", v, pl.base.Path, d.Type)
		}
		if slices.ContainsFunc(pl.dims, func(o planner.Dim) bool { return o.Type == d.Type }) {
			return fmt.Errorf("--vary %q: %s is varied twice", v, d.Type)
		}
		d.Price = pl.price[d.Type]
		if !(d.Price > 0) {
			return fmt.Errorf("--vary %q: %s has no price to size it by; give one with --price %s=USD", v, d.Type, d.Type)
		}
		pl.dims = append(pl.dims, d)
	}
	return nil
}

// space is the search grid; mins raises the ranges' lower ends (a growth
// plan never sells nodes).
func (pl *Planner) space(mins map[string]int) planner.Space {
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
func (pl *Planner) fleetOf(p planner.Point) map[string]int {
	out := pl.base.NodeCounts()
	for i, d := range pl.dims {
		out[d.Type] = p[i]
	}
	return out
}

func (pl *Planner) costOf(fleet map[string]int) float64 {
	c := 0.0
	for _, typ := range slices.Sorted(maps.Keys(fleet)) {
		c += float64(fleet[typ]) * pl.price[typ]
	}
	return c
}

func (pl *Planner) types() []string {
	var out []string
	for _, p := range pl.prices {
		out = append(out, p.Type)
	}
	return out
}
