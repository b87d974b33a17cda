// Package traces does the work of allot trace: a scenario's synthetic
// workload written as a canonical trace, a public trace imported with a
// scenario beside it, and a changed copy of a trace. It joins scenarios,
// workload and its importers.
package traces

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
	"github.com/allot-sim/allot/workload/importers"
)

// Gen writes a scenario's synthetic workload for seed to out (.parquet
// or .csv), telling progress how far it is every 10,000 jobs, and
// returns how many jobs it wrote.
func Gen(s *scenarios.Scenario, seed uint64, out string, progress func(frac float64, detail string)) (int, error) {
	return workload.WriteAll(out, s.Synthetic.Source(seed), func(n int, j *workload.Job) {
		if n%10000 == 0 {
			progress(j.Submit/maxf(s.Synthetic.Until, s.Horizon), fmt.Sprintf("%d jobs", n))
		}
	})
}

// maxf is the larger of a and b; b when either is NaN.
func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}

// Import is what allot trace import reads and writes.
type Import struct {
	Format  string   // the importer's name
	Inputs  []string // its files
	Options importers.Options
	Out     string // the canonical trace to write
	// Scenario is the scenario to write beside it ("": Out with .yaml),
	// starting with Policy; NoScenario writes none.
	Scenario   string
	Policy     string
	NoScenario bool
}

// Run imports the trace into Out and, unless NoScenario or the import
// found no fleet, writes a scenario that replays it; it returns the
// import and the scenario written ("" for none).
func (im *Import) Run() (*importers.Result, string, error) {
	f, err := importers.Lookup(im.Format)
	if err != nil {
		return nil, "", err
	}
	res, err := f.Import(im.Inputs, im.Options)
	if err != nil {
		return nil, "", err
	}
	if _, err := workload.WriteAll(im.Out, workload.NewSliceSource(res.Jobs, nil), nil); err != nil {
		return nil, "", err
	}
	scenario := im.Scenario
	if scenario == "" {
		scenario = strings.TrimSuffix(im.Out, filepath.Ext(im.Out)) + ".yaml"
	}
	if len(res.Nodes) == 0 || im.NoScenario {
		return res, "", nil
	}
	rel, err := filepath.Rel(filepath.Dir(scenario), im.Out)
	if err != nil {
		rel = im.Out
	}
	name := strings.TrimSuffix(filepath.Base(scenario), filepath.Ext(scenario))
	body := scenarios.Draft(res, scenarios.DraftOptions{Name: name, TracePath: rel, Policy: im.Policy})
	if err := os.WriteFile(scenario, body, 0o644); err != nil {
		return nil, "", err
	}
	return res, scenario, nil
}

// Window reads a window, START:END in durations such as 120d (END may be
// empty: to the end), into t.
func Window(t *workload.Transform, window string) error {
	from, to, ok := strings.Cut(window, ":")
	var err error
	if !ok {
		return fmt.Errorf("%q: want START:END, like 120d:150d (END may be empty)", window)
	}
	if t.From, err = scenarios.ParseDuration(from); err != nil {
		return fmt.Errorf("start: %w", err)
	}
	if to != "" {
		if t.To, err = scenarios.ParseDuration(to); err != nil {
			return fmt.Errorf("end: %w", err)
		}
	}
	return nil
}

// Transform writes the trace in, changed by t, to out and returns how
// many jobs it wrote.
func Transform(in, out string, t *workload.Transform) (int, error) {
	src, err := workload.OpenTrace(in, workload.TraceOptions{})
	if err != nil {
		return 0, err
	}
	defer src.Close()
	return workload.WriteAll(out, t.Apply(src), nil)
}
