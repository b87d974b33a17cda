package search

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/buildinfo"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// TuneOptions are the settings of `allot tune`, as its flags give them.
type TuneOptions struct {
	Path       string   // the scenario file
	Policy     string   // a policy file to start from instead of the scenario's
	Params     []string // PATH=MIN..MAX or PATH=a|b|c
	Maximize   string
	Minimize   string
	Objectives []string // --objective: constraints
	Seeds      int
	Workers    int  // parallel simulations (0: all cores)
	Rounds     int  // rounds of the search at most
	AnyStarved bool // --allow-unstarted
}

// Tuner runs `allot tune`.
type Tuner struct {
	runner
	path      string              // the scenario file
	base      *scenarios.Scenario // the scenario, under --policy if given
	src       []byte              // the file the settings are written into
	srcName   string
	fromFile  bool // src is a --policy file, not the scenario
	params    []tuneParam
	key       string
	sign      float64 // +1 maximise, -1 minimise
	objs      []scenarios.Objective
	maxRounds int                 // rounds of the search at most
	tuned     *scenarios.Scenario // the best settings' scenario, once run
}

// tuneRun is one candidate on every seed.
type tuneRun struct {
	value []float64 // the key per seed
	met   [][]bool  // per constraint, per seed
	vals  [][]float64
}

func (r *tuneRun) score(sign float64) planner.Score {
	s := planner.Score{Feasible: true, Value: sign * mean(r.value)}
	for _, ms := range r.met {
		for _, ok := range ms {
			if !ok {
				s.Feasible = false
				s.Misses++
			}
		}
	}
	return s
}

// NewTuner loads the scenario and reads the options, trying every level
// of every setting. Every error is one of the options or of the files
// they name.
func NewTuner(o TuneOptions) (*Tuner, error) {
	t := &Tuner{path: o.Path, maxRounds: o.Rounds}
	switch {
	case (o.Maximize == "") == (o.Minimize == ""):
		return nil, fmt.Errorf("give one of --maximize KEY or --minimize KEY")
	case o.Maximize != "":
		t.key, t.sign = o.Maximize, 1
	default:
		t.key, t.sign = o.Minimize, -1
	}
	if o.Seeds < 1 {
		return nil, fmt.Errorf("--seeds: must be at least 1, got %d", o.Seeds)
	}
	t.runner = newRunner(o.Seeds, o.Workers)
	base, err := load(o.Path, o.Policy)
	if err != nil {
		return nil, err
	}
	t.base = base
	if err := base.CheckSummaryPath(t.key); err != nil {
		flag := "--maximize"
		if t.sign < 0 {
			flag = "--minimize"
		}
		return nil, fmt.Errorf("%s: %w", flag, err)
	}
	t.srcName = o.Path
	if o.Policy != "" {
		if slices.Contains(scenarios.Kinds, o.Policy) {
			return nil, fmt.Errorf("--policy %q: tune starts from a policy file; to tune the kind, use --param 'policy.kind=%s'", o.Policy, strings.Join(scenarios.Kinds, "|"))
		}
		t.srcName, t.fromFile = o.Policy, true
	}
	if t.src, err = os.ReadFile(t.srcName); err != nil {
		return nil, err
	}
	if err := t.readParams(o.Params); err != nil {
		return nil, err
	}
	if t.objs, err = searchObjectives(base, o.Objectives, o.AnyStarved); err != nil {
		return nil, err
	}
	// Every level of every setting must make a valid policy: try each
	// alone now, so a bad path or value is bad input, not a failed run.
	for _, p := range t.params {
		for _, l := range p.knob.Levels {
			if _, err := t.scenario([]scenarios.Setting{{Path: p.path, Value: l}}); err != nil {
				return nil, fmt.Errorf("--param %s=%s: %w", p.path, l, err)
			}
		}
	}
	return t, nil
}

func (t *Tuner) readParams(params []string) error {
	if len(params) == 0 {
		return fmt.Errorf("--param: name at least one setting to tune, e.g. --param 'teams[*].weight=1..4'")
	}
	for _, s := range params {
		p, err := parseParam(s)
		if err != nil {
			return err
		}
		t.params = append(t.params, p)
	}
	return nil
}

// Scenario is the scenario tuned, under --policy if given.
func (t *Tuner) Scenario() *scenarios.Scenario { return t.base }

// Source is the file the settings are written into: the --policy file,
// else the scenario.
func (t *Tuner) Source() string { return t.srcName }

// Digest fingerprints what the tuning reads and the build (Digest), so
// that rounds of another tuning or build are not merged into its state.
func (t *Tuner) Digest() (string, error) {
	return Digest(buildinfo.ID(), t.path, t.srcName, t.base.TracePath)
}

// scenario is the base scenario with settings written into its policy.
func (t *Tuner) scenario(set []scenarios.Setting) (*scenarios.Scenario, error) {
	data, err := scenarios.EditYAML(t.src, set)
	if err != nil {
		return nil, err
	}
	if t.fromFile {
		return t.base.WithPolicyData(t.srcName, data)
	}
	return scenarios.Parse(t.base.Path, data)
}

func (t *Tuner) settings(values []string) []scenarios.Setting {
	out := make([]scenarios.Setting, len(t.params))
	for i, p := range t.params {
		out[i] = scenarios.Setting{Path: p.path, Value: values[i]}
	}
	return out
}

// evaluate runs scenarios (named by keys: the settings, or "shipped") on
// every seed, all runs in parallel.
func (t *Tuner) evaluate(names []string, scens []*scenarios.Scenario) ([]*tuneRun, error) {
	got, err := t.round(names, scens, t.measure)
	if err != nil {
		return nil, err
	}
	runs := make([]*tuneRun, len(scens))
	for c, sts := range got {
		r := &tuneRun{value: make([]float64, len(t.seeds))}
		for range t.objs {
			r.met = append(r.met, make([]bool, len(t.seeds)))
			r.vals = append(r.vals, make([]float64, len(t.seeds)))
		}
		for k, st := range sts {
			r.value[k] = st.Value
			for i := range r.vals {
				r.vals[i][k], r.met[i][k] = st.Values[i], st.Met[i]
			}
		}
		runs[c] = r
	}
	return runs, nil
}

// measure reads a candidate's run: the key tuned and each constraint.
func (t *Tuner) measure(sum *reports.Summary) (storedRun, error) {
	var st storedRun
	vs, err := reports.LookupAll(sum, t.key)
	if err != nil {
		return st, &InputError{fmt.Errorf("--maximize/--minimize: %w", err)}
	}
	op := ">="
	if t.sign < 0 {
		op = "<="
	}
	st.Value = reports.Worst(vs, op).Value
	for _, o := range t.objs {
		vs, err := reports.LookupAll(sum, o.Path)
		if err != nil {
			return st, &InputError{fmt.Errorf("objective %q: %w", o.Text, err)}
		}
		w := reports.Worst(vs, o.Op)
		st.Values, st.Met = append(st.Values, w.Value), append(st.Met, o.Holds(w.Value))
	}
	return st, nil
}
