package reports

import (
	"cmp"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// PlanFile is a plan's JSON in its report directory.
const PlanFile = "plan.json"

// Plan is what `allot plan` found: the cheapest fleet meeting every
// objective over every seed, how sure that is, what the search cost, and
// the cost-vs-wait frontier of the fleets it simulated (spec/cli.md).
type Plan struct {
	Scenario string `json:"scenario"`
	// Found is false when no fleet in the ranges meets every objective;
	// Fleet and the objectives are then the best fleet's the search saw
	// (the one missing fewest objectives, then the largest).
	Found        bool            `json:"found"`
	Fleet        map[string]int  `json:"fleet"`
	CostPerHour  float64         `json:"cost_usd_per_hour"`
	Shipped      map[string]int  `json:"shipped_fleet"`
	ShippedCost  float64         `json:"shipped_cost_usd_per_hour"`
	Prices       []PlanPrice     `json:"prices"`
	Objectives   []PlanObjective `json:"objectives"`
	KPIs         []PlanKPI       `json:"kpis"`
	Seeds        []uint64        `json:"seeds"`
	Simulations  int             `json:"simulations"`
	Fleets       int             `json:"fleets_simulated"`
	GridPoints   int             `json:"grid_points"`
	Rounds       int             `json:"rounds"`
	Ranges       []PlanRange     `json:"ranges"`
	Frontier     []FrontierPoint `json:"frontier"`
	FrontierKey  string          `json:"frontier_objective"`
	Warnings     []string        `json:"warnings"`
	Quarters     []Quarter       `json:"quarters,omitempty"`
	DemandGrowth string          `json:"demand_growth,omitempty"`
}

// PlanPrice is what one node-hour of a type costs the plan: on-demand (or
// the price given), blended with the spot share.
type PlanPrice struct {
	Type        string  `json:"type"`
	PerNodeHour float64 `json:"usd_per_node_hour"`
	Basis       string  `json:"basis"`
}

// PlanRange is one --vary range.
type PlanRange struct {
	Type string `json:"type"`
	Min  int    `json:"min"`
	Max  int    `json:"max"`
	Step int    `json:"step"`
}

// PlanObjective is one objective at the chosen fleet: the mean over seeds
// with its 95% interval, and the margin (how far on the right side of the
// bound, in the objective's units; negative when missed).
type PlanObjective struct {
	Objective  string      `json:"objective"`
	Target     float64     `json:"target"` // the bound, in the summary's units
	Value      float64     `json:"value"`
	CI95       *[2]float64 `json:"ci95"`
	Met        bool        `json:"met"`
	Margin     float64     `json:"margin"`
	MarginCI95 *[2]float64 `json:"margin_ci95"`
	// Steers says how the search used it: "capacity" (more nodes help),
	// "utilization" (fewer nodes help) or "checked" (direction unknown:
	// checked at each fleet simulated, not used to prune).
	Steers string `json:"steers"`
	At     string `json:"at,omitempty"` // a wildcard's worst key on the worst seed
}

// PlanKPI is a headline figure at the chosen fleet, mean over seeds.
type PlanKPI struct {
	Key   string  `json:"key"`
	Value float64 `json:"value"`
}

// FrontierPoint is a fleet on the cost-vs-wait frontier: no fleet
// simulated is both cheaper and quicker. The answer is on it too, even
// where a cheaper fleet is quicker (that one misses another objective).
type FrontierPoint struct {
	Fleet       map[string]int `json:"fleet"`
	CostPerHour float64        `json:"cost_usd_per_hour"`
	Value       float64        `json:"value"`
	Met         bool           `json:"met"`
	Answer      bool           `json:"answer"`
	// Misses are the objectives the fleet misses, in the plan's order.
	Misses []FrontierMiss `json:"misses"`
}

// FrontierMiss is an objective a fleet misses, at the seed where it is
// furthest from its bound.
type FrontierMiss struct {
	Objective   string   `json:"objective"`
	Value       float64  `json:"value"`  // at the worst seed
	Seed        uint64   `json:"seed"`   // the worst seed
	Margin      float64  `json:"margin"` // at the worst seed: how far on the right side of the bound (<= 0)
	MissedSeeds []uint64 `json:"missed_seeds"`
	At          string   `json:"at,omitempty"` // a wildcard's worst key
}

// String says what was missed and by how much, in the objective's units:
// "utilization.p95_bucket >= 80% missed on seed 2: 76.1%, 3.9 pp short".
func (m FrontierMiss) String() string {
	f := strings.Fields(m.Objective)
	path, upper := f[0], len(f) > 1 && strings.HasPrefix(f[1], "<")
	where := "on every seed"
	if len(m.MissedSeeds) > 0 {
		where = "on " + SeedList(m.MissedSeeds)
	}
	value := FormatValue(path, m.Value)
	if m.At != "" {
		value += " (" + m.At + ")"
	}
	if len(m.MissedSeeds) != 1 {
		value += fmt.Sprintf(" at worst (seed %d)", m.Seed)
	}
	by, side := -m.Margin, "short"
	if upper {
		side = "over"
	}
	amount := FormatValue(path, by)
	if UnitOf(path) == UnitFraction {
		amount = fmt.Sprintf("%.1f pp", 100*by)
	}
	return fmt.Sprintf("%s missed %s: %s, %s %s", m.Objective, where, value, amount, side)
}

// Quarter is one step of a growth plan.
type Quarter struct {
	Quarter     int            `json:"quarter"`
	DemandScale float64        `json:"demand_scale"`
	Met         bool           `json:"met"` // the previous quarter's fleet meets every objective
	Add         map[string]int `json:"add"`
	Fleet       map[string]int `json:"fleet"`
	CostPerHour float64        `json:"cost_usd_per_hour"`
	Found       bool           `json:"found"` // a fleet in the ranges meets them
	Wait        float64        `json:"frontier_value"`
}

// FleetString writes a fleet as "72 p5.48xlarge + 90 p4d.24xlarge" in the
// order of types given.
func FleetString(f map[string]int, types []string) string {
	var parts []string
	for _, t := range types {
		if n, ok := f[t]; ok {
			parts = append(parts, fmt.Sprintf("%d %s", n, t))
		}
	}
	return strings.Join(parts, " + ")
}

// Types lists the plan's instance types: the shipped fleet's, in the
// order its prices are listed.
func (p *Plan) Types() []string {
	var out []string
	for _, pr := range p.Prices {
		out = append(out, pr.Type)
	}
	return out
}

// FleetTable is the chosen fleet beside the shipped one.
func (p *Plan) FleetTable() (head []string, rows [][]string) {
	head = []string{"instance type", "nodes", "shipped", "USD per node-hour", "USD per hour"}
	for _, pr := range p.Prices {
		n := p.Fleet[pr.Type]
		rows = append(rows, []string{pr.Type, Thousands(float64(n), 0), Thousands(float64(p.Shipped[pr.Type]), 0),
			Thousands(pr.PerNodeHour, 2), Thousands(float64(n)*pr.PerNodeHour, 2)})
	}
	rows = append(rows, []string{"total", "", "", "", Thousands(p.CostPerHour, 2)})
	return head, rows
}

// ObjectivesTable is each objective at the chosen fleet.
func (p *Plan) ObjectivesTable() (head []string, rows [][]string) {
	head = []string{"objective", "mean", "95% interval", "margin", "met on every seed", "steers"}
	for _, o := range p.Objectives {
		path := strings.Fields(o.Objective)[0]
		ci, mci := "-", "-"
		if o.CI95 != nil {
			ci = FormatValue(path, o.CI95[0]) + " .. " + FormatValue(path, o.CI95[1])
		}
		margin := FormatValue(path, o.Margin)
		if o.MarginCI95 != nil {
			mci = FormatValue(path, o.MarginCI95[0]) + " .. " + FormatValue(path, o.MarginCI95[1])
			margin += " (" + mci + ")"
		}
		met := "yes"
		if !o.Met {
			met = "NO"
		}
		rows = append(rows, []string{o.Objective, FormatValue(path, o.Value), ci, margin, met, o.Steers})
	}
	return head, rows
}

// FrontierTable lists the frontier, cheapest first: each fleet with the
// objectives it misses and by how much.
func (p *Plan) FrontierTable() (head []string, rows [][]string) {
	head = []string{"USD per hour", "fleet", p.FrontierKey, "objectives"}
	path := p.FrontierKey
	for _, f := range p.Frontier {
		verdict := "meets every objective"
		if !f.Met {
			var misses []string
			for _, m := range f.Misses {
				misses = append(misses, m.String())
			}
			verdict = strings.Join(misses, "; ")
		}
		if f.Answer {
			verdict = "the answer: " + verdict
		}
		rows = append(rows, []string{Thousands(f.CostPerHour, 2), FleetString(f.Fleet, p.Types()), FormatValue(path, f.Value), verdict})
	}
	return head, rows
}

// AnswerRow is the frontier's row of the answer; -1 when it has none.
func (p *Plan) AnswerRow() int {
	return slices.IndexFunc(p.Frontier, func(f FrontierPoint) bool { return f.Answer })
}

// QuartersTable is the growth plan, one row per quarter.
func (p *Plan) QuartersTable() (head []string, rows [][]string) {
	head = []string{"quarter", "demand", "fleet before meets all", "add", "fleet", "USD per hour"}
	for _, q := range p.Quarters {
		met := "yes"
		if !q.Met {
			met = "no"
		}
		add := FleetString(nonZero(q.Add), p.Types())
		if add == "" {
			add = "-"
		}
		fleet := FleetString(q.Fleet, p.Types())
		if !q.Found {
			fleet = "none in the ranges meets all"
		}
		rows = append(rows, []string{fmt.Sprintf("Q%d", q.Quarter), fmt.Sprintf("×%.2f", q.DemandScale), met, add, fleet, Thousands(q.CostPerHour, 2)})
	}
	return head, rows
}

func nonZero(m map[string]int) map[string]int {
	out := map[string]int{}
	for k, v := range m {
		if v != 0 {
			out[k] = v
		}
	}
	return out
}

// WritePlan writes plan.json, the charts and the report pages.
func WritePlan(dir string, p *Plan) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(p, "", " ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, PlanFile), append(b, '\n'), 0o644); err != nil {
		return err
	}
	charts, err := planCharts(p)
	if err != nil {
		return err
	}
	if err := writeCharts(dir, charts); err != nil {
		return err
	}
	pg := &page{Title: "Fleet plan: " + p.Scenario, Charts: charts, Warnings: p.Warnings}
	pg.Sub = fmt.Sprintf("%d seeds (%v); %d fleets simulated (%d simulations) of a %s-fleet grid.",
		len(p.Seeds), p.Seeds, p.Fleets, p.Simulations, Thousands(float64(p.GridPoints), 0))
	if p.Found {
		pg.KPIs = append(pg.KPIs, [2]string{"cheapest fleet meeting every objective", FleetString(p.Fleet, p.Types())},
			[2]string{"cost", "$" + Thousands(p.CostPerHour, 2) + " per hour"},
			[2]string{"shipped fleet", FleetString(p.Shipped, p.Types()) + ", $" + Thousands(p.ShippedCost, 2) + " per hour"})
	} else {
		pg.Warnings = append([]string{"no fleet in the ranges meets every objective"}, pg.Warnings...)
	}
	for _, o := range p.Objectives {
		pg.Objectives = append(pg.Objectives, objectiveLine{Text: o.Objective, Met: o.Met})
	}
	head, rows := p.FleetTable()
	pg.Tables = append(pg.Tables, table{Title: "Fleet", Head: head, Rows: rows})
	head, rows = p.ObjectivesTable()
	pg.Tables = append(pg.Tables, table{Title: "Objectives at this fleet (over every seed)", Head: head, Rows: rows})
	if len(p.Quarters) > 0 {
		head, rows = p.QuartersTable()
		pg.Tables = append(pg.Tables, table{Title: "Growth: " + p.DemandGrowth, Head: head, Rows: rows})
	}
	head, rows = p.FrontierTable()
	pg.Tables = append(pg.Tables, table{Title: "Cost against " + p.FrontierKey + " (the frontier of the fleets simulated)", Head: head, Rows: rows})
	return writePages(dir, pg)
}

func planCharts(p *Plan) ([]Chart, error) {
	var out []Chart
	f := newFigure("plan-frontier", "Cost against "+metricName(p.FrontierKey),
		"Each fleet on the frontier: no fleet simulated is both cheaper and better on this objective.")
	unit := UnitOf(p.FrontierKey)
	scale, ylabel := 1.0, metricName(p.FrontierKey)
	if unit == UnitSeconds {
		scale, ylabel = 3600, ylabel+" (hours)"
	} else if unit == UnitFraction {
		scale, ylabel = 0.01, ylabel+" (%)"
	}
	pn := f.addPanel(chartH, "USD per hour", ylabel)
	var met, missed plotter.XYs
	for _, fp := range p.Frontier {
		xy := plotter.XY{X: fp.CostPerHour, Y: fp.Value / scale}
		if fp.Met {
			met = append(met, xy)
		} else {
			missed = append(missed, xy)
		}
	}
	all := append(slices.Clone(met), missed...)
	slices.SortFunc(all, func(a, b plotter.XY) int { return cmp.Compare(a.X, b.X) })
	if len(all) > 1 {
		if err := pn.line("frontier", "other", otherLook(0), all, lineW); err != nil {
			return nil, err
		}
	}
	if len(met) > 0 {
		if err := pn.points("meets every objective", "other", otherLook(1), met, vg.Points(3.5)); err != nil {
			return nil, err
		}
	}
	if len(missed) > 0 {
		if err := pn.points("misses an objective", "other", otherLook(2), missed, vg.Points(3.5)); err != nil {
			return nil, err
		}
	}
	if t, ok := frontierTarget(p); ok && len(p.Frontier) > 0 {
		x0, x1 := p.Frontier[0].CostPerHour, p.Frontier[len(p.Frontier)-1].CostPerHour
		if err := pn.reference("objective", inkGrey, true, plotter.XYs{{X: x0, Y: t / scale}, {X: x1, Y: t / scale}}); err != nil {
			return nil, err
		}
	}
	if p.Found {
		if err := pn.points("chosen fleet", "reference", look{colour: inkBlack}, plotter.XYs{{X: p.CostPerHour, Y: p.ChosenValue() / scale}}, vg.Points(5)); err != nil {
			return nil, err
		}
	}
	pn.yFromZero()
	c, err := f.render()
	if err != nil {
		return nil, err
	}
	out = append(out, c)
	if len(p.Quarters) == 0 {
		return out, nil
	}
	g := newFigure("plan-growth", "Fleet per quarter as demand grows ("+p.DemandGrowth+")", "Nodes of each type the plan holds each quarter.")
	gp := g.addPanel(chartH, "quarter", "nodes")
	for i, t := range p.Types() {
		vals := make([]float64, len(p.Quarters))
		for k, q := range p.Quarters {
			vals[k] = float64(q.Fleet[t])
		}
		gp.bars(t, "other", otherLook(i), vals, i, len(p.Types()))
	}
	gp.yFromZero()
	var names []string
	for _, q := range p.Quarters {
		names = append(names, fmt.Sprintf("Q%d", q.Quarter))
	}
	teamAxis(gp, names)
	c, err = g.render()
	if err != nil {
		return nil, err
	}
	return append(out, c), nil
}

// frontierTarget is the bound of the objective the frontier is drawn
// against, if it is one.
func frontierTarget(p *Plan) (float64, bool) {
	for _, o := range p.Objectives {
		if strings.Fields(o.Objective)[0] == p.FrontierKey {
			return o.Target, true
		}
	}
	return 0, false
}

// ChosenValue is the frontier objective's value at the chosen fleet: its
// frontier point's, else the objective's mean.
func (p *Plan) ChosenValue() float64 {
	for _, fp := range p.Frontier {
		if maps.Equal(fp.Fleet, p.Fleet) {
			return fp.Value
		}
	}
	for _, o := range p.Objectives {
		if strings.Fields(o.Objective)[0] == p.FrontierKey {
			return o.Value
		}
	}
	return 0
}
