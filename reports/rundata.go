package reports

import (
	"github.com/allot-sim/allot/workload"
)

// RunData is everything a report shows about one run: the summary, time
// series per bucket (averages over the bucket, in accelerators or jobs),
// and the waits behind the wait distributions. It can be built from a
// Collector or read back from a run directory.
type RunData struct {
	Summary *Summary
	Types   []string
	Teams   []string
	// Bucket start and end times (s).
	Start, End []float64
	Installed  [][]float64   // [type][bucket]
	Allocated  [][][]float64 // [type][team][bucket]
	Borrowed   [][][]float64
	Lent       [][][]float64
	Quota      [][][]float64 // [type][team][bucket]
	Pending    [][]float64   // [team][bucket] jobs waiting
	Running    [][]float64   // [team][bucket] jobs running
	Demand     [][]float64   // [team][bucket] accelerators asked by waiting jobs
	Preempts   []float64     // [bucket] preemptions
	LostAccH   []float64     // [bucket] accelerator-hours of work thrown away
	Goodput    []float64     // [bucket] accelerators of kept progress
	Price      []float64     // [type] USD per node-hour (0 = unpriced)
	PerNode    []float64     // [type] accelerators per node
	// Waits of jobs submitted in the window that started, by team and class.
	WaitsByTeam  map[string][]float64
	WaitsByClass map[string][]float64
	Fidelity     *Fidelity
}

// Data returns the run's data (after End).
func (c *Collector) Data() *RunData {
	g := &c.g
	d := &RunData{Summary: c.summary, WaitsByTeam: map[string][]float64{}, WaitsByClass: map[string][]float64{}}
	for _, t := range c.info.Types {
		d.Types = append(d.Types, t.Name)
		d.PerNode = append(d.PerNode, float64(t.Accelerators))
		if t.Priced {
			d.Price = append(d.Price, t.PricePerHour)
		} else {
			d.Price = append(d.Price, 0)
		}
	}
	for _, m := range c.info.Teams {
		d.Teams = append(d.Teams, m.Name)
	}
	width := make([]float64, g.n)
	for k := 0; k < g.n; k++ {
		s, e := g.span(k)
		d.Start, d.End = append(d.Start, s), append(d.End, e)
		width[k] = e - s
	}
	avg := func(b []float64) []float64 {
		out := make([]float64, len(b))
		for k, x := range b {
			if width[k] > 0 {
				out[k] = x / width[k]
			}
		}
		return out
	}
	for t := 0; t < c.nT; t++ {
		d.Installed = append(d.Installed, avg(c.inst[t].b))
		var a, b, l, q [][]float64
		for m := 0; m < c.nM; m++ {
			a = append(a, avg(c.alloc[t][m].b))
			b = append(b, avg(c.borrowed[t][m].b))
			l = append(l, avg(c.lent[t][m].b))
			q = append(q, avg(c.quotaS[t][m].b))
		}
		d.Allocated, d.Borrowed, d.Lent, d.Quota = append(d.Allocated, a), append(d.Borrowed, b), append(d.Lent, l), append(d.Quota, q)
	}
	for m := 0; m < c.nM; m++ {
		d.Pending = append(d.Pending, avg(c.pending[m].b))
		d.Running = append(d.Running, avg(c.running[m].b))
		d.Demand = append(d.Demand, avg(c.demand[m].b))
	}
	d.Preempts = append([]float64(nil), c.preempts...)
	d.LostAccH = make([]float64, g.n)
	for k, x := range c.lost {
		d.LostAccH[k] = x / 3600
	}
	d.Goodput = avg(c.goodput)
	for m := range c.waitTeam {
		d.WaitsByTeam[c.info.Teams[m].Name] = c.waitTeam[m].values() // sorted, read only
	}
	for cls := range c.byClass {
		if a := &c.byClass[cls]; a.started > 0 {
			d.WaitsByClass[className(c.info, int32(cls))] = a.waits.values()
		}
	}
	d.Fidelity = c.fid.result(d)
	return d
}

var _ = workload.EvSubmit
