package reports

import (
	"sort"

	"github.com/allot-sim/allot/workload"
)

// makeSummary reckons the run summary over the window, section by
// section.
func (c *Collector) makeSummary() *Summary {
	info := c.info
	s := &Summary{Scenario: info.Scenario, Policy: info.Policy, Seed: info.Seed, WindowS: [2]float64{info.Warmup, info.Horizon}, BucketS: info.Bucket,
		Capacity: Capacity{ByType: map[string]int{}}, ByTeam: map[string]TeamStats{}, ByPriorityClass: map[string]ClassStats{},
		Utilization: Utilization{ByType: map[string]float64{}}, Cost: Cost{UnpricedTypes: []string{}}}
	for t, ti := range info.Types {
		s.Capacity.ByType[ti.Name] = int(c.capStart[t])
		s.Capacity.Accelerators += int(c.capStart[t])
	}
	s.Jobs = c.counts
	s.Jobs.SkippedInvalid = c.end.SkippedInvalid
	s.Preemptions = c.preemptWin
	if len(c.ppj) > 0 {
		s.PreemptionsPerJob = Dist3{P50: c.ppj.percentile(50), P95: c.ppj.percentile(95), Max: c.ppj.percentile(100)}
	}
	s.NodeFailures = c.failWin
	use := c.utilization(s)
	lists, open := c.waits(s)
	c.teams(s, use, lists, open)
	c.classes(s)
	c.cost(s, use.good)
	s.Sim = SimStats{Events: c.end.Events, Cycles: c.end.Cycles, WallS: c.end.WallSeconds}
	c.extra(s)
	return s
}

// windowUse is the window's accelerator-seconds: allocated in all, by team,
// and useful.
type windowUse struct {
	all, good float64
	byTeam    []float64
}

// utilization fills in the utilisation (mean, by bucket, by type) and the
// goodput over the window.
func (c *Collector) utilization(s *Summary) windowUse {
	info, g := c.info, &c.g
	var allocAll, instAll float64
	ratios := make([]float64, 0, g.n-g.first)
	for k := g.first; k < g.n; k++ {
		a, in := 0.0, 0.0
		for t := 0; t < c.nT; t++ {
			in += c.inst[t].b[k]
			for m := 0; m < c.nM; m++ {
				a += c.alloc[t][m].b[k]
			}
		}
		allocAll += a
		instAll += in
		if in > 0 {
			ratios = append(ratios, a/in)
		}
	}
	if instAll > 0 {
		s.Utilization.Mean = allocAll / instAll
	}
	sort.Float64s(ratios)
	if len(ratios) > 0 {
		s.Utilization.P95Bucket = percentile(ratios, 95)
		s.Utilization.MaxBucket = ratios[len(ratios)-1]
	}
	teamAlloc := make([]float64, c.nM)
	for t, ti := range info.Types {
		a := 0.0
		for m := 0; m < c.nM; m++ {
			x := g.window(c.alloc[t][m])
			a += x
			teamAlloc[m] += x
		}
		if in := g.window(c.inst[t]); in > 0 {
			s.Utilization.ByType[ti.Name] = a / in
		} else {
			s.Utilization.ByType[ti.Name] = 0
		}
	}
	good := 0.0
	for k := g.first; k < g.n; k++ {
		good += c.goodput[k]
	}
	if instAll > 0 {
		s.Goodput = good / instAll
	}
	return windowUse{all: allocAll, good: good, byTeam: teamAlloc}
}

// waits fills in the waits of started jobs and of all jobs, and returns
// each team's waits (started jobs) and open waits (jobs never started).
func (c *Collector) waits(s *Summary) (lists, open [][]float64) {
	c.sortWaits()
	lists, open = make([][]float64, c.nM), make([][]float64, c.nM)
	for m := range c.waitTeam {
		lists[m], open[m] = c.waitTeam[m].values(), c.openTeam[m].values()
	}
	s.WaitS = waitStats(lists)
	s.WaitAllS = waitAll(lists, open)
	if s.Jobs.Submitted > 0 {
		s.Jobs.UnstartedShare = float64(s.WaitAllS.Unstarted) / float64(s.Jobs.Submitted)
	}
	return lists, open
}

// teams fills in each team's figures, its usage against its entitlement
// (by quota, else by weight), and the fairness of those ratios.
func (c *Collector) teams(s *Summary, use windowUse, lists, open [][]float64) {
	info, g := c.info, &c.g
	win := info.Horizon - info.Warmup
	quotaSum := make([]float64, c.nM)
	totalQuota, totalWeight := 0.0, 0.0
	for m, tm := range info.Teams {
		for _, q := range tm.Quota {
			quotaSum[m] += q
		}
		totalQuota += quotaSum[m]
		totalWeight += tm.Weight
	}
	var xs []float64
	for m, tm := range info.Teams {
		ts := TeamStats{WaitS: shortWait(lists[m]), WaitAllS: shortWaitAll(lists[m], open[m]), JobsCompleted: c.teamDone[m], Preemptions: c.preemptTeam[m],
			JobsSubmitted: c.teamSub[m], LostAccHours: c.teamLost[m] / 3600}
		if use.all > 0 {
			ts.UsageShare = use.byTeam[m] / use.all
		}
		switch {
		case totalQuota > 0:
			ts.EntitledShare = quotaSum[m] / totalQuota
		case totalWeight > 0:
			ts.EntitledShare = tm.Weight / totalWeight
		}
		for t := 0; t < c.nT; t++ {
			ts.BorrowedMean += g.window(c.borrowed[t][m]) / win
			ts.LentMean += g.window(c.lent[t][m]) / win
		}
		if ts.EntitledShare > 0 {
			x := ts.UsageShare / ts.EntitledShare
			ts.UsageVsEntitled = &x
			xs = append(xs, x)
		}
		s.ByTeam[tm.Name] = ts
	}
	s.Fairness.Jain = jain(xs)
}

// classes fills in the waits and counts of each priority class that had
// jobs submitted.
func (c *Collector) classes(s *Summary) {
	for cls := range c.byClass {
		a := &c.byClass[cls]
		if a.submitted > 0 {
			w := a.waits.values()
			s.ByPriorityClass[className(c.info, int32(cls))] = ClassStats{WaitS: shortWait(w), WaitAllS: shortWaitAll(w, a.open.values()),
				JobsSubmitted: a.submitted, JobsStarted: a.started}
		}
	}
}

// cost fills in what the installed capacity cost over the window, and
// per useful accelerator-hour (good accelerator-seconds); types without a
// price are listed, not counted.
func (c *Collector) cost(s *Summary, good float64) {
	for t, ti := range c.info.Types {
		if !ti.Priced {
			s.Cost.UnpricedTypes = append(s.Cost.UnpricedTypes, ti.Name)
			continue
		}
		if ti.Accelerators > 0 {
			s.Cost.USD += c.g.window(c.inst[t]) / float64(ti.Accelerators) / 3600 * ti.PricePerHour
		}
	}
	if gh := good / 3600; gh > 0 {
		s.Cost.USDPerUsefulAcceleratorHour = s.Cost.USD / gh
	}
}

// extra fills in the figures beyond the headline: lost work, mean queue
// and running jobs, arrival rate, mean runtime.
func (c *Collector) extra(s *Summary) {
	info, g := c.info, &c.g
	win := info.Horizon - info.Warmup
	pend, run := 0.0, 0.0
	for m := 0; m < c.nM; m++ {
		pend += g.window(c.pending[m])
		run += g.window(c.running[m])
	}
	s.Extra = &Extra{LostAcceleratorHours: c.lostWin / 3600, MeanPending: pend / win, MeanRunning: run / win,
		ArrivalRatePerHour: float64(c.counts.Submitted) / (win / 3600)}
	if c.nRuntime > 0 {
		s.Extra.MeanRuntimeS = c.runtime / float64(c.nRuntime)
	}
}

func className(info *workload.RunInfo, cls int32) string {
	if int(cls) < len(info.PriorityClasses) && info.PriorityClasses[cls] != "" {
		return info.PriorityClasses[cls]
	}
	return "none"
}
