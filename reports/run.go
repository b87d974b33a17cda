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
// dir; jobs.parquet, if the run wrote one there, adds the replay fidelity.
func WriteRun(dir string, d *RunData) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if _, err := os.Stat(filepath.Join(dir, JobsFile)); err == nil {
		f, err := computeFidelity(filepath.Join(dir, JobsFile), d)
		if err != nil {
			return err
		}
		d.Fidelity, d.Summary.Fidelity = f, f
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

// computeFidelity compares the jobs that carry original times with their
// replay; it returns nil when no job does.
func computeFidelity(jobs string, d *RunData) (*Fidelity, error) {
	f := &Fidelity{OrigInUse: make([]float64, len(d.Start)), SimInUse: make([]float64, len(d.Start))}
	var ow, sw, oc, sc []float64
	width := func(k int) float64 { return d.End[k] - d.Start[k] }
	addRange := func(dst []float64, from, to, rate float64) {
		for k := range d.Start {
			lo, hi := math.Max(from, d.Start[k]), math.Min(to, d.End[k])
			if hi > lo && width(k) > 0 {
				dst[k] += rate * (hi - lo) / width(k)
			}
		}
	}
	err := ReadJobs(jobs, func(r *JobRow) error {
		if r.OrigStart == nil || r.OrigEnd == nil {
			return nil
		}
		f.Jobs++
		addRange(f.OrigInUse, *r.OrigStart, *r.OrigEnd, r.Accelerators)
		ow = append(ow, math.Max(0, *r.OrigStart-r.Submit))
		oc = append(oc, math.Max(0, *r.OrigEnd-r.Submit))
		if r.FirstStart != nil {
			sw = append(sw, r.Wait)
		}
		if r.End != nil {
			sc = append(sc, *r.End-r.Submit)
		}
		return nil
	})
	if err != nil || f.Jobs == 0 {
		return nil, err
	}
	for t := range d.Types {
		for m := range d.Teams {
			for k := range d.Start {
				f.SimInUse[k] += d.Allocated[t][m][k]
			}
		}
	}
	f.Wait, f.Complete = compare(ow, sw), compare(oc, sc)
	n, sum := 0, 0.0
	for k := windowStart(d); k < len(d.Start); k++ {
		inst := 0.0
		for t := range d.Types {
			inst += d.Installed[t][k]
		}
		if inst > 0 {
			sum += math.Abs(f.OrigInUse[k]-f.SimInUse[k]) / inst
			n++
		}
	}
	if n > 0 {
		f.UtilizationMAE = sum / float64(n)
	}
	return f, nil
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
