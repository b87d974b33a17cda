package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// Files of a run directory.
const (
	SummaryFile    = "summary.json"
	JobsFile       = "jobs.parquet"
	SeriesFile     = "timeseries.parquet"
	ReportHTMLFile = "report.html"
	ReportMDFile   = "report.md"
	ChartDir       = "charts"
)

// WriteRun writes a finished run's summary, time series and report into
// dir (jobs.parquet is streamed there during the run by a JobsWriter).
func WriteRun(dir string, d *RunData) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := writeJSONFile(filepath.Join(dir, SummaryFile), d.Summary); err != nil {
		return err
	}
	if err := WriteSeries(filepath.Join(dir, SeriesFile), d); err != nil {
		return err
	}
	return RenderRun(dir, d)
}

// LoadRun reads a run directory back (summary, series and job waits).
func LoadRun(dir string) (*RunData, error) {
	var s Summary
	b, err := os.ReadFile(filepath.Join(dir, SummaryFile))
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &s); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(dir, SummaryFile), err)
	}
	d, err := ReadSeries(filepath.Join(dir, SeriesFile))
	if err != nil {
		return nil, err
	}
	d.Summary = &s
	d.WaitsByTeam, d.WaitsByClass = map[string][]float64{}, map[string][]float64{}
	jobs := filepath.Join(dir, JobsFile)
	if _, err := os.Stat(jobs); err == nil {
		err := ReadJobs(jobs, func(r *JobRow) error {
			if r.Submit >= s.WindowS[0] && r.Submit < s.WindowS[1] && r.FirstStart != nil {
				d.WaitsByTeam[r.Team] = append(d.WaitsByTeam[r.Team], r.Wait)
				d.WaitsByClass[r.PriorityClass] = append(d.WaitsByClass[r.PriorityClass], r.Wait)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		for _, m := range []map[string][]float64{d.WaitsByTeam, d.WaitsByClass} {
			for k := range m {
				sort.Float64s(m[k])
			}
		}
		if d.Fidelity, err = computeFidelity(jobs, d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// RenderRun writes the charts, report.md and report.html of a run.
func RenderRun(dir string, d *RunData) error {
	charts, err := RunCharts(d)
	if err != nil {
		return err
	}
	if err := writeCharts(dir, charts); err != nil {
		return err
	}
	p := runPage(d, charts)
	return writePages(dir, p)
}

func writeCharts(dir string, charts []Chart) error {
	cd := filepath.Join(dir, ChartDir)
	if err := os.MkdirAll(cd, 0o755); err != nil {
		return err
	}
	for _, c := range charts {
		if c.SVG == "" { // left out; the report says why
			if err := os.Remove(filepath.Join(cd, c.ID+".svg")); err != nil && !os.IsNotExist(err) {
				return err
			}
			continue
		}
		if err := os.WriteFile(filepath.Join(cd, c.ID+".svg"), []byte(c.SVG), 0o644); err != nil {
			return err
		}
	}
	return nil
}

func writePages(dir string, p *page) error {
	hf, err := os.Create(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		return err
	}
	if err := p.writeHTML(hf); err != nil {
		hf.Close()
		return err
	}
	if err := hf.Close(); err != nil {
		return err
	}
	mf, err := os.Create(filepath.Join(dir, ReportMDFile))
	if err != nil {
		return err
	}
	if err := p.writeMarkdown(mf, ChartDir); err != nil {
		mf.Close()
		return err
	}
	return mf.Close()
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// computeFidelity compares the jobs of jobs.parquet that carry original
// times with their replay (for runs read back from disk).
func computeFidelity(jobs string, d *RunData) (*Fidelity, error) {
	a := newFidelityAcc(d.Start, d.End)
	err := ReadJobs(jobs, func(r *JobRow) error {
		if r.OrigStart == nil || r.OrigEnd == nil {
			return nil
		}
		first, end := math.NaN(), math.NaN()
		if r.FirstStart != nil {
			first = *r.FirstStart
		}
		if r.End != nil {
			end = *r.End
		}
		a.add(r.Submit, *r.OrigStart, *r.OrigEnd, r.Accelerators, first, end, r.Wait)
		return nil
	})
	if err != nil {
		return nil, err
	}
	return a.result(d), nil
}

func quantiles(x []float64) Quantiles {
	if len(x) == 0 {
		return Quantiles{}
	}
	return Quantiles{Mean: mean(x), P50: percentile(x, 50), P90: percentile(x, 90), P99: percentile(x, 99)}
}

// compare describes two samples and their Kolmogorov–Smirnov distance.
func compare(orig, sim []float64) Compared {
	sort.Float64s(orig)
	sort.Float64s(sim)
	c := Compared{Orig: quantiles(orig), Sim: quantiles(sim), KS: ksDistance(orig, sim)}
	if c.Orig.Mean > 0 {
		c.MeanErr = (c.Sim.Mean - c.Orig.Mean) / c.Orig.Mean
	}
	return c
}

// ksDistance is the largest gap between two empirical CDFs (sorted input).
func ksDistance(a, b []float64) float64 {
	if len(a) == 0 || len(b) == 0 {
		return math.NaN()
	}
	i, j, d := 0, 0, 0.0
	for i < len(a) && j < len(b) {
		x := math.Min(a[i], b[j])
		for i < len(a) && a[i] <= x {
			i++
		}
		for j < len(b) && b[j] <= x {
			j++
		}
		d = math.Max(d, math.Abs(float64(i)/float64(len(a))-float64(j)/float64(len(b))))
	}
	return d
}
