package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
	"github.com/spf13/cobra"
)

type tuneFlags struct {
	params     []string
	maximize   string
	minimize   string
	objectives []string
	seeds      int
	output     string
	outDir     string
	asJSON     bool
	workers    int
	rounds     int
	anyStarved bool
	policy     string
	round      roundFlags
}

func newTuneCmd() *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:   "tune SCENARIO --param PATH=RANGE... --maximize|--minimize KEY [--objective EXPR]...",
		Short: "Tune policy settings in simulation for an objective under constraints",
		Long: `Search the policy settings named by --param for the best value of one
summary key (--maximize or --minimize, the mean over seeds) while every
constraint holds on every seed: the scenario's objectives, each
--objective, and 'jobs.unstarted_share <= 1%' unless --allow-unstarted.
Every candidate runs on the same seeds 1..N (common random numbers), so
candidates differ by their settings, not by their luck.

--param takes KEY.PATH=MIN..MAX in the key's own units (a number, a
percentage or a duration) or KEY.PATH=a|b|c, list items named as in error
messages, a glob naming several (teams[*-sweeps].weight=1..8 sets the same
value on each). A range is tried at up to 9 levels (every whole number
when there are fewer).

The search runs in rounds: the middle setting and a spread of others
first, then, from the best setting so far, each setting a step either way,
halving the steps when a round finds nothing better. -o writes the tuned
policy as a policy file that --policy, 'allot compare' and 'allot live
serve --config' take; --out writes a before/after comparison report.
Exit 1 when no candidate meets the constraints.`,
		Example: `  allot tune scenarios/amazon-search.yaml --maximize utilization.p95_bucket \
      --param 'teams[*-sweeps].weight=1..4' --param 'policy.preemption.min_runtime=0s..2h' \
      --seeds 2 --rounds 3 -o tuned.yaml
  allot sim scenarios/amazon-search.yaml --policy tuned.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.params, "param", nil, "PATH=MIN..MAX or PATH=a|b|c: a setting to tune; repeat for several")
	fl.StringVar(&f.maximize, "maximize", "", "summary key to maximise, e.g. utilization.p95_bucket")
	fl.StringVar(&f.minimize, "minimize", "", "summary key to minimise, e.g. wait_all_s.p95")
	fl.StringArrayVar(&f.objectives, "objective", nil, "a constraint, 'SUMMARY.PATH OP VALUE'; repeat for several")
	fl.IntVar(&f.seeds, "seeds", 3, "seeds per candidate (1..N); constraints must hold on every one")
	fl.StringVarP(&f.output, "output", "o", "", "write the tuned policy file here")
	fl.StringVar(&f.outDir, "out", "", "directory for tune.json and a before/after comparison report")
	fl.BoolVar(&f.asJSON, "json", false, "print the result as one JSON object")
	fl.IntVar(&f.workers, "workers", 0, "parallel simulations (default: all cores)")
	fl.IntVar(&f.rounds, "rounds", 10, "rounds of the search at most")
	fl.BoolVar(&f.anyStarved, "allow-unstarted", false, "do not add 'jobs.unstarted_share <= 1%' to the constraints")
	fl.StringVar(&f.policy, "policy", "", "policy file to start from (its settings are tuned) instead of the scenario's")
	addRoundFlags(cmd, &f.round)
	return cmd
}

// tuneParam is one --param: where it writes and the levels it may take.
type tuneParam struct {
	path string
	knob planner.Knob
}

// parseParam reads PATH=MIN..MAX (numbers, percentages or durations) or
// PATH=a|b|c.
func parseParam(s string) (tuneParam, error) {
	path, rng, ok := strings.Cut(s, "=")
	if !ok || path == "" || rng == "" {
		return tuneParam{}, fmt.Errorf("--param %q: want PATH=MIN..MAX or PATH=a|b|c", s)
	}
	p := tuneParam{path: path, knob: planner.Knob{Name: path}}
	lo, hi, isRange := strings.Cut(rng, "..")
	if !isRange {
		p.knob.Levels = strings.Split(rng, "|")
		if slices.Contains(p.knob.Levels, "") {
			return p, fmt.Errorf("--param %q: an empty choice", s)
		}
		return p, nil
	}
	p.knob.Ordered = true
	read, format, err := unitOf(lo)
	if err != nil {
		return p, fmt.Errorf("--param %q: %w", s, err)
	}
	a, errA := read(lo)
	b, errB := read(hi)
	if errA != nil || errB != nil {
		return p, fmt.Errorf("--param %q: MIN and MAX must be in the same units (a number, a percentage like 50%% or a duration like 30m)", s)
	}
	if b < a {
		return p, fmt.Errorf("--param %q: MAX is below MIN", s)
	}
	whole := a == math.Trunc(a) && b == math.Trunc(b)
	n := 9
	if whole && b-a < 9 {
		n = int(b-a) + 1
	}
	for i := range n {
		v := a
		if n > 1 {
			v = a + (b-a)*float64(i)/float64(n-1)
		}
		if whole {
			v = math.Round(v)
		}
		if l := format(v); len(p.knob.Levels) == 0 || p.knob.Levels[len(p.knob.Levels)-1] != l {
			p.knob.Levels = append(p.knob.Levels, l)
		}
	}
	return p, nil
}

// unitOf says how a range bound reads and how a level is written back.
func unitOf(v string) (read func(string) (float64, error), format func(float64) string, err error) {
	num := func(s string) (float64, error) { return strconv.ParseFloat(s, 64) }
	switch {
	case strings.HasSuffix(v, "%"):
		return func(s string) (float64, error) {
				if !strings.HasSuffix(s, "%") {
					return 0, fmt.Errorf("not a percentage")
				}
				return num(strings.TrimSuffix(s, "%"))
			}, func(x float64) string {
				return strconv.FormatFloat(math.Round(x*10)/10, 'f', -1, 64) + "%"
			}, nil
	case strings.IndexFunc(v, func(r rune) bool { return r >= 'a' && r <= 'z' }) >= 0:
		if _, err := scenarios.ParseDuration(v); err != nil {
			return nil, nil, fmt.Errorf("%q is not a number, a percentage or a duration", v)
		}
		return scenarios.ParseDuration, formatDuration, nil
	}
	if _, err := num(v); err != nil {
		return nil, nil, fmt.Errorf("%q is not a number, a percentage or a duration", v)
	}
	return num, func(x float64) string { return strconv.FormatFloat(math.Round(x*1000)/1000, 'f', -1, 64) }, nil
}

// formatDuration writes whole seconds in the largest unit that divides
// them: 2h, 45m, 90s.
func formatDuration(s float64) string {
	n := int64(math.Round(s))
	for _, u := range []struct {
		secs int64
		unit string
	}{{86400, "d"}, {3600, "h"}, {60, "m"}} {
		if n != 0 && n%u.secs == 0 {
			return fmt.Sprintf("%d%s", n/u.secs, u.unit)
		}
	}
	return fmt.Sprintf("%ds", n)
}

// tuner runs `allot tune`.
type tuner struct {
	base     *scenarios.Scenario // the scenario, under --policy if given
	src      []byte              // the file the settings are written into
	srcName  string
	fromFile bool // src is a --policy file, not the scenario
	params   []tuneParam
	key      string
	sign     float64 // +1 maximise, -1 minimise
	objs     []scenarios.Objective
	seeds    []uint64
	workers  int
	progress *progress
	rounds   *roundCache // the merged rounds of a sharded tune (nil: alone)
	sims     int
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

func newTuner(path string, f *tuneFlags) (*tuner, error) {
	t := &tuner{workers: f.workers}
	if t.workers <= 0 {
		t.workers = runtime.GOMAXPROCS(0)
	}
	switch {
	case (f.maximize == "") == (f.minimize == ""):
		return nil, badInput(fmt.Errorf("give one of --maximize KEY or --minimize KEY"))
	case f.maximize != "":
		t.key, t.sign = f.maximize, 1
	default:
		t.key, t.sign = f.minimize, -1
	}
	if f.seeds < 1 {
		return nil, badInput(fmt.Errorf("--seeds: must be at least 1, got %d", f.seeds))
	}
	for i := 1; i <= f.seeds; i++ {
		t.seeds = append(t.seeds, uint64(i))
	}
	base, err := loadScenario(path, f.policy)
	if err != nil {
		return nil, err
	}
	t.base = base
	if err := base.CheckSummaryPath(t.key); err != nil {
		flag := "--maximize"
		if t.sign < 0 {
			flag = "--minimize"
		}
		return nil, badInput(fmt.Errorf("%s: %w", flag, err))
	}
	t.srcName = path
	if f.policy != "" {
		if slices.Contains(scenarios.Kinds, f.policy) {
			return nil, badInput(fmt.Errorf("--policy %q: tune starts from a policy file; to tune the kind, use --param 'policy.kind=%s'", f.policy, strings.Join(scenarios.Kinds, "|")))
		}
		t.srcName, t.fromFile = f.policy, true
	}
	if t.src, err = os.ReadFile(t.srcName); err != nil {
		return nil, badInput(err)
	}
	if len(f.params) == 0 {
		return nil, badInput(fmt.Errorf("--param: name at least one setting to tune, e.g. --param 'teams[*].weight=1..4'"))
	}
	for _, s := range f.params {
		p, err := parseParam(s)
		if err != nil {
			return nil, badInput(err)
		}
		t.params = append(t.params, p)
	}
	if t.objs, err = searchObjectives(base, f.objectives, f.anyStarved); err != nil {
		return nil, badInput(err)
	}
	// Every level of every setting must make a valid policy: try each
	// alone now, so a bad path or value is bad input, not a failed run.
	for _, p := range t.params {
		for _, l := range p.knob.Levels {
			if _, err := t.scenario([]scenarios.Setting{{Path: p.path, Value: l}}); err != nil {
				return nil, badInput(fmt.Errorf("--param %s=%s: %w", p.path, l, err))
			}
		}
	}
	return t, nil
}

// scenario is the base scenario with settings written into its policy.
func (t *tuner) scenario(set []scenarios.Setting) (*scenarios.Scenario, error) {
	data, err := scenarios.EditYAML(t.src, set)
	if err != nil {
		return nil, err
	}
	if t.fromFile {
		return t.base.WithPolicyData(t.srcName, data)
	}
	return scenarios.Parse(t.base.Path, data)
}

func (t *tuner) settings(values []string) []scenarios.Setting {
	out := make([]scenarios.Setting, len(t.params))
	for i, p := range t.params {
		out[i] = scenarios.Setting{Path: p.path, Value: values[i]}
	}
	return out
}

// evaluate runs scenarios (named by keys: the settings, or "shipped") on
// every seed, all runs in parallel.
func (t *tuner) evaluate(names []string, scens []*scenarios.Scenario) ([]*tuneRun, error) {
	runs := make([]*tuneRun, len(scens))
	for i := range runs {
		r := &tuneRun{value: make([]float64, len(t.seeds))}
		for range t.objs {
			r.met = append(r.met, make([]bool, len(t.seeds)))
			r.vals = append(r.vals, make([]float64, len(t.seeds)))
		}
		runs[i] = r
	}
	var keys []string
	for _, name := range names {
		for _, seed := range t.seeds {
			keys = append(keys, fmt.Sprintf("%s %d", name, seed))
		}
	}
	n := len(t.seeds)
	mine, err := t.rounds.split(keys)
	if err != nil {
		return nil, err
	}
	if err := parallel(len(mine), t.workers, func(m int) error {
		j := mine[m]
		return t.runOne(scens[j/n], runs[j/n], j%n)
	}); err != nil {
		return nil, err
	}
	ran := make([]bool, len(keys))
	for _, j := range mine {
		ran[j] = true
	}
	for j, key := range keys {
		r, k := runs[j/n], j%n
		if ran[j] {
			st := storedRun{Key: key, Value: r.value[k]}
			for i := range r.vals {
				st.Values, st.Met = append(st.Values, r.vals[i][k]), append(st.Met, r.met[i][k])
			}
			t.rounds.put(st)
		} else if st, ok := t.rounds.get(key); ok {
			r.value[k] = st.Value
			for i := range r.vals {
				r.vals[i][k], r.met[i][k] = st.Values[i], st.Met[i]
			}
		}
	}
	if err := t.rounds.afterBatch(); err != nil {
		return nil, err
	}
	t.sims += len(keys)
	return runs, nil
}

func (t *tuner) runOne(s *scenarios.Scenario, r *tuneRun, k int) error {
	sum, err := simrun.Summary(s, t.seeds[k])
	if err != nil {
		return err
	}
	vs, err := reports.LookupAll(sum, t.key)
	if err != nil {
		return badInput(fmt.Errorf("--maximize/--minimize: %w", err))
	}
	op := ">="
	if t.sign < 0 {
		op = "<="
	}
	r.value[k] = reports.Worst(vs, op).Value
	for i, o := range t.objs {
		vs, err := reports.LookupAll(sum, o.Path)
		if err != nil {
			return badInput(fmt.Errorf("objective %q: %w", o.Text, err))
		}
		w := reports.Worst(vs, o.Op)
		r.vals[i][k], r.met[i][k] = w.Value, o.Holds(w.Value)
	}
	return nil
}

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

func runTune(cmd *cobra.Command, path string, f *tuneFlags) error {
	t, err := newTuner(path, f)
	if err != nil {
		return err
	}
	simrun.Warn(cmd.ErrOrStderr(), t.base)
	digest, err := searchDigest(path, t.srcName, t.base.TracePath)
	if err != nil {
		return err
	}
	if t.rounds, err = openRounds(cmd, &f.round, "tune", []string{path}, digest); err != nil {
		return err
	}
	t.progress = newProgress(cmd.ErrOrStderr(), f.asJSON, "tuning")
	defer t.progress.done()
	knobs := make([]planner.Knob, len(t.params))
	for i, p := range t.params {
		knobs[i] = p.knob
	}
	tu, err := planner.NewTuner(knobs, f.rounds)
	if err != nil {
		return badInput(err)
	}
	res := &TuneResult{Scenario: t.base.Name, Key: t.key, Direction: "maximize", Seeds: t.seeds}
	if t.sign < 0 {
		res.Direction = "minimize"
	}
	err = planner.RunTuner(tu, func(cs []planner.Candidate) ([]planner.Score, error) {
		scens := make([]*scenarios.Scenario, len(cs))
		for i, c := range cs {
			s, err := t.scenario(t.settings(tu.Settings(c)))
			if err != nil {
				return nil, badInput(err)
			}
			scens[i] = s
		}
		names := make([]string, len(cs))
		for i, c := range cs {
			names[i] = strings.Join(tu.Settings(c), "|")
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
		t.progress.update(float64(tu.Rounds())/float64(f.rounds), fmt.Sprintf("round %d, %d candidates", tu.Rounds(), len(tu.Simulated())))
		return out, nil
	})
	var both []*tuneRun
	best, _, found := tu.Best()
	var tunedScen *scenarios.Scenario
	if err == nil {
		if tunedScen, err = t.scenario(t.settings(tu.Settings(best))); err == nil {
			both, err = t.evaluate([]string{"shipped", strings.Join(tu.Settings(best), "|")}, []*scenarios.Scenario{t.base, tunedScen})
		}
	}
	if handled, err := t.rounds.finish(cmd, f.outDir, err); handled || err != nil {
		return err
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
	if found && f.output != "" {
		data, err := scenarios.EditYAML(t.src, res.Settings)
		if err != nil {
			return err
		}
		header := fmt.Sprintf("Tuned by allot tune on %s: %s %s, constraints met on seeds 1..%d:\n", path, res.Direction, t.key, len(t.seeds))
		for _, o := range t.objs {
			header += "  " + o.Text + "\n"
		}
		header += "Settings:"
		for _, s := range res.Settings {
			header += "\n  " + s.Path + " = " + s.Value
		}
		pf, err := scenarios.PolicyFileYAML(data, header)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(f.output, pf); err != nil {
			return err
		}
		res.PolicyFile = f.output
	}
	if f.outDir != "" {
		if err := t.writeReport(f.outDir, res, tunedScen); err != nil {
			return err
		}
	}
	t.progress.done()
	if f.asJSON {
		if err := printJSON(cmd.OutOrStdout(), res); err != nil {
			return err
		}
	} else {
		printTune(cmd.OutOrStdout(), res)
	}
	if !found {
		return &problemError{"no candidate meets every constraint on every seed"}
	}
	return nil
}

// figure is the mean of a summary key over seeds with its 95% interval,
// within the key's bounds.
func figure(path string, xs []float64) TuneFigure {
	m, ci := reports.MeanCI95(reports.BoundsOf(path), xs)
	return TuneFigure{Value: m, CI95: ci}
}

// writeFileAtomic writes a file whole or not at all.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// writeReport writes tune.json and the shipped-against-tuned comparison.
func (t *tuner) writeReport(dir string, res *TuneResult, tuned *scenarios.Scenario) error {
	plan := &reports.ComparePlan{Seeds: len(t.seeds), Variants: []reports.PlannedVariant{
		{Name: "shipped", Scenario: t.base.Name, Policy: t.base.Policy.Kind, BaseSeed: 1},
		{Name: "tuned", Scenario: t.base.Name, Policy: tuned.Policy.Kind, BaseSeed: 1}}}
	scens := []*scenarios.Scenario{t.base, tuned}
	contribs := make([]*reports.RunContribution, plan.Runs())
	err := parallel(len(contribs), t.workers, func(i int) (err error) {
		contribs[i], err = runOne(scens[i/len(t.seeds)], t.seeds[i%len(t.seeds)])
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

func printTune(w io.Writer, r *TuneResult) {
	verb := "maximise"
	if r.Direction == "minimize" {
		verb = "minimise"
	}
	fmt.Fprintf(w, "%s: %s %s subject to %d constraints on every one of %d seeds (%v)\n\n", r.Scenario, verb, r.Key, len(r.Constraints), len(r.Seeds), r.Seeds)
	if !r.Found {
		fmt.Fprintf(w, "NO candidate meets every constraint; the closest:\n\n")
	}
	rows := [][]string{}
	for _, s := range r.Settings {
		rows = append(rows, []string{s.Path, s.Value})
	}
	writeTable(w, []string{"setting", "tuned value"}, rows)
	fmt.Fprintln(w)
	val := func(path string, f TuneFigure) string {
		s := reports.FormatValue(path, f.Value)
		if f.CI95 != nil {
			s += " (" + reports.FormatValue(path, f.CI95[0]) + " .. " + reports.FormatValue(path, f.CI95[1]) + ")"
		}
		return s
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	rows = [][]string{{r.Key + " (" + verb + ")", val(r.Key, r.Shipped), val(r.Key, r.Tuned)}}
	for _, c := range r.Constraints {
		path := strings.Fields(c.Objective)[0]
		rows = append(rows, []string{c.Objective, val(path, c.Shipped) + " " + met(c.ShippedMet), val(path, c.Tuned) + " " + met(c.TunedMet)})
	}
	writeTable(w, []string{"", "shipped policy", "tuned policy"}, rows)
	fmt.Fprintf(w, "\nmeans over seeds (95%% intervals); a constraint is met when it holds on every seed.\n")
	fmt.Fprintf(w, "%d candidates simulated (%d simulations) in %d rounds.\n", r.Candidates, r.Simulations, r.Rounds)
	if r.PolicyFile != "" {
		fmt.Fprintf(w, "wrote %s (use it with --policy %s, or allot live serve --config)\n", r.PolicyFile, r.PolicyFile)
	}
}
