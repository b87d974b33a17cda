package search

import (
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// TuneResult is what `allot tune --json` prints and tune.json holds.
type TuneResult struct {
	Scenario    string              `json:"scenario"`
	Key         string              `json:"key"`
	Direction   string              `json:"direction"` // maximize | minimize
	Found       bool                `json:"found"`
	Settings    []scenarios.Setting `json:"settings"`
	Shipped     TuneFigure          `json:"shipped"`
	Tuned       TuneFigure          `json:"tuned"`
	Constraints []TuneConstraint    `json:"constraints"`
	Seeds       []uint64            `json:"seeds"`
	Candidates  int                 `json:"candidates"`
	Simulations int                 `json:"simulations"`
	Rounds      int                 `json:"rounds"`
	PolicyFile  string              `json:"policy_file,omitempty"`
	Tried       []TuneCandidate     `json:"tried"`
}

// TuneFigure is the key's mean over seeds with its 95% interval.
type TuneFigure struct {
	Value float64     `json:"value"`
	CI95  *[2]float64 `json:"ci95"`
}

// TuneConstraint is a constraint under the shipped and the tuned policy.
type TuneConstraint struct {
	Objective  string     `json:"objective"`
	Shipped    TuneFigure `json:"shipped"`
	ShippedMet bool       `json:"shipped_met"`
	Tuned      TuneFigure `json:"tuned"`
	TunedMet   bool       `json:"tuned_met"`
}

// TuneCandidate is one candidate simulated.
type TuneCandidate struct {
	Values   []string `json:"values"`
	Value    float64  `json:"value"`
	Feasible bool     `json:"feasible"`
	Misses   int      `json:"misses"`
}

// Run tunes: it searches the settings, then simulates the shipped and
// the best settings again side by side. rounds (nil: alone) holds the
// merged rounds of a search spread over machines; the search may stop
// for a round, which rounds.Finish handles.
func (t *Tuner) Run(rounds *Rounds, progress Progress) (*TuneResult, error) {
	t.rounds, t.progress = rounds, progress
	knobs := make([]planner.Knob, len(t.params))
	for i, p := range t.params {
		knobs[i] = p.knob
	}
	tu, err := planner.NewTuner(knobs, t.maxRounds)
	if err != nil {
		return nil, &InputError{err}
	}
	res := &TuneResult{Scenario: t.base.Name, Key: t.key, Direction: "maximize", Seeds: t.seeds}
	if t.sign < 0 {
		res.Direction = "minimize"
	}
	err = planner.RunTuner(tu, func(cs []planner.Candidate) ([]planner.Score, error) {
		scens := make([]*scenarios.Scenario, len(cs))
		names := make([]string, len(cs))
		for i, c := range cs {
			s, err := t.scenario(t.settings(tu.Settings(c)))
			if err != nil {
				return nil, &InputError{err}
			}
			scens[i], names[i] = s, strings.Join(tu.Settings(c), "|")
		}
		runs, err := t.evaluate(names, scens)
		if err != nil {
			return nil, err
		}
		out := make([]planner.Score, len(runs))
		for i, r := range runs {
			out[i] = r.score(t.sign)
			res.Tried = append(res.Tried, TuneCandidate{Values: tu.Settings(cs[i]), Value: mean(r.value), Feasible: out[i].Feasible, Misses: out[i].Misses})
		}
		t.report(float64(tu.Rounds())/float64(t.maxRounds), fmt.Sprintf("round %d, %d candidates", tu.Rounds(), len(tu.Simulated())))
		return out, nil
	})
	if err != nil {
		return nil, err
	}
	best, _, found := tu.Best()
	if t.tuned, err = t.scenario(t.settings(tu.Settings(best))); err != nil {
		return nil, err
	}
	both, err := t.evaluate([]string{"shipped", strings.Join(tu.Settings(best), "|")}, []*scenarios.Scenario{t.base, t.tuned})
	if err != nil {
		return nil, err
	}
	res.Found, res.Settings = found, t.settings(tu.Settings(best))
	res.Candidates, res.Rounds = len(tu.Simulated()), tu.Rounds()
	res.Shipped, res.Tuned = figure(t.key, both[0].value), figure(t.key, both[1].value)
	for i, o := range t.objs {
		res.Constraints = append(res.Constraints, TuneConstraint{Objective: o.Text,
			Shipped: figure(o.Path, both[0].vals[i]), ShippedMet: !slices.Contains(both[0].met[i], false),
			Tuned: figure(o.Path, both[1].vals[i]), TunedMet: !slices.Contains(both[1].met[i], false)})
	}
	res.Simulations = t.sims
	return res, nil
}

// figure is the mean of a summary key over seeds with its 95% interval,
// within the key's bounds.
func figure(path string, xs []float64) TuneFigure {
	m, ci := reports.MeanCI95(reports.BoundsOf(path), xs)
	return TuneFigure{Value: m, CI95: ci}
}

// PolicyFile is the tuned policy as a policy file, its header saying how
// it was tuned.
func (t *Tuner) PolicyFile(res *TuneResult) ([]byte, error) {
	data, err := scenarios.EditYAML(t.src, res.Settings)
	if err != nil {
		return nil, err
	}
	header := fmt.Sprintf("Tuned by allot tune on %s: %s %s, constraints met on seeds 1..%d:\n", t.path, res.Direction, t.key, len(t.seeds))
	for _, o := range t.objs {
		header += "  " + o.Text + "\n"
	}
	header += "Settings:"
	for _, s := range res.Settings {
		header += "\n  " + s.Path + " = " + s.Value
	}
	return scenarios.PolicyFileYAML(data, header)
}

// WriteReport writes tune.json and the comparison of the shipped policy
// against the tuned one into dir.
func (t *Tuner) WriteReport(dir string, res *TuneResult) error {
	plan := &reports.ComparePlan{Seeds: len(t.seeds), Variants: []reports.PlannedVariant{
		{Name: "shipped", Scenario: t.base.Name, Policy: t.base.Policy.Kind, BaseSeed: 1},
		{Name: "tuned", Scenario: t.base.Name, Policy: t.tuned.Policy.Kind, BaseSeed: 1}}}
	scens := []*scenarios.Scenario{t.base, t.tuned}
	contribs := make([]*reports.RunContribution, plan.Runs())
	err := simrun.Parallel(len(contribs), t.workers, func(i int) (err error) {
		contribs[i], err = simrun.Contribution(scens[i/len(t.seeds)], t.seeds[i%len(t.seeds)])
		return err
	})
	if err != nil {
		return err
	}
	c, err := reports.Assemble(plan, contribs)
	if err != nil {
		return err
	}
	if err := reports.WriteComparison(dir, c); err != nil {
		return err
	}
	data, err := json.MarshalIndent(res, "", " ")
	if err != nil {
		return err
	}
	data = append(data, '\n')
	return os.WriteFile(dir+"/tune.json", data, 0o644)
}
