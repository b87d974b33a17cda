// Package importfiles writes an import (scenarios/export's Imported) as
// allot import leaves it: the scenario or policy file, the trace of the
// recorded jobs and warnings.txt, checked by loading before any is kept.
package importfiles

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/atomicfile"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/allot-sim/allot/scenarios/scenfile"
	"github.com/allot-sim/allot/workload"
)

// Written says what Write wrote.
type Written struct {
	Scenario, Trace, Warnings string // paths; Trace "" without jobs
	Jobs                      int
}

// Write writes imp to scenarioPath: with jobs, their trace at tracePath
// ("" = beside the scenario, its name with .parquet) and a workload and
// sim section that replay it over a horizon covering the record; without,
// a policy file. warnings.txt goes beside the scenario. The scenario is
// loaded (trace included) before it is kept, so a file that allot would
// refuse is an error here, not later.
func Write(imp *export.Imported, scenarioPath, tracePath string) (*Written, error) {
	dir := filepath.Dir(scenarioPath)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	f := *imp.File
	w := &Written{Scenario: scenarioPath, Warnings: filepath.Join(dir, "warnings.txt"), Jobs: len(imp.Jobs)}
	if len(imp.Jobs) > 0 {
		if tracePath == "" {
			tracePath = strings.TrimSuffix(scenarioPath, filepath.Ext(scenarioPath)) + ".parquet"
		}
		if err := writeTrace(tracePath, imp); err != nil {
			return nil, err
		}
		rel, err := filepath.Rel(dir, tracePath)
		if err != nil {
			rel, _ = filepath.Abs(tracePath)
		}
		w.Trace = tracePath
		f.Workload = &scenfile.Workload{Trace: filepath.ToSlash(rel)}
		f.Sim = simFor(imp.End)
	}
	header := fmt.Sprintf("Written by allot import from %s. Edit freely;\nwarnings.txt says what did not map and what was assumed.", imp.Source)
	data, err := scenfile.Marshal(&f, header)
	if err != nil {
		return nil, err
	}
	if err := check(scenarioPath, data, f.Workload != nil); err != nil {
		return nil, fmt.Errorf("the import does not load (a defect of the importer; please report it): %w", err)
	}
	if err := atomicfile.Write(scenarioPath, data); err != nil {
		return nil, err
	}
	return w, atomicfile.Write(w.Warnings, warningsText(imp.Warnings))
}

func writeTrace(path string, imp *export.Imported) (err error) {
	tmp := path + ".tmp" + filepath.Ext(path)
	defer func() {
		if err != nil {
			os.Remove(tmp)
		}
	}()
	if _, err := workload.WriteAll(tmp, workload.NewSliceSource(imp.Jobs, imp.Columns), nil); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// simFor replays the record with room to spare: the horizon is the
// record's length and half again (at least a day), in whole hours.
func simFor(end float64) *scenfile.Sim {
	h := math.Ceil(math.Max(end*1.5, end+86400)/3600) * 3600
	bucket := 3600.0
	for _, b := range []float64{60, 300, 900} {
		if h/b <= 2000 {
			bucket = b
			break
		}
	}
	return &scenfile.Sim{Seed: 1, Horizon: scenfile.Dur(h), Warmup: "0s", Bucket: scenfile.Dur(bucket)}
}

func check(path string, data []byte, scenario bool) error {
	if scenario {
		_, err := scenarios.Parse(path, data)
		return err
	}
	_, err := scenarios.ParsePolicy(path, data, func() (string, error) { return "", nil })
	return err
}

func warningsText(lines []string) []byte {
	if len(lines) == 0 {
		return []byte("# Everything mapped.\n")
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}
