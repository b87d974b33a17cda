package reports

import (
	"math"
	"runtime"
	"sort"
	"sync"

	"github.com/allot-sim/allot/workload"
)

// Collector is a sink that keeps per-bucket time series (allocated,
// borrowed and lent accelerators per instance type and team, installed
// capacity, goodput, pending and running jobs) and per-job figures, and
// makes the run summary from them.
type Collector struct {
	info *workload.RunInfo
	g    grid
	nT   int
	nM   int

	held      [][]float64     // [type][team]
	quota     [][]float64     // [type][team], like held: a tally reads both along teams
	installed []float64       // [type] accelerators
	lentF     []*fracIntegral // [type] integral of the share of idle quota lent out
	lentSeg   [][]lentSegment // [type][team]
	alloc     [][]*series     // [type][team]
	borrowed  [][]*series
	lent      [][]*series
	quotaS    [][]*series // [type][team] quota over time
	inst      []*series
	goodput   []float64
	pending   []*series // [team] pending jobs
	running   []*series // [team] running jobs
	demand    []*series // [team] accelerators asked by pending jobs
	preempts  []float64 // [bucket] preemptions
	lost      []float64 // [bucket] accelerator-seconds of work thrown away

	capStart []float64 // installed accelerators at the window start

	preemptWin  int
	preemptTeam []int
	failWin     int

	waitTeam []samples  // waits of the team's jobs that started
	openTeam []samples  // open waits of the team's jobs never started
	byClass  []classAcc // by priority class index, grown as classes come
	ppj      countHist  // preemptions per job
	counts   JobCounts
	teamDone []int
	teamSub  []int
	teamLost []float64
	lostWin  float64
	runtime  float64 // sum of end - first start of completed jobs
	nRuntime int
	end      workload.RunEnd
	summary  *Summary
	fid      *fidelityAcc
}

// NewCollector returns an empty collector.
func NewCollector() *Collector { return &Collector{} }

func (c *Collector) Begin(info *workload.RunInfo) error {
	c.info = info
	c.g = newGrid(info.Warmup, info.Horizon, info.Bucket)
	starts, ends := make([]float64, c.g.n), make([]float64, c.g.n)
	for k := range starts {
		starts[k], ends[k] = c.g.span(k)
	}
	c.fid = newFidelityAcc(starts, ends)
	c.nT, c.nM = len(info.Types), len(info.Teams)
	mk := func() [][]*series {
		out := make([][]*series, c.nT)
		for t := range out {
			out[t] = make([]*series, c.nM)
			for m := range out[t] {
				out[t][m] = c.g.newSeries()
			}
		}
		return out
	}
	c.alloc, c.borrowed, c.lent, c.quotaS = mk(), mk(), mk(), mk()
	c.held = make([][]float64, c.nT)
	c.installed = make([]float64, c.nT)
	c.lentF = make([]*fracIntegral, c.nT)
	c.lentSeg = make([][]lentSegment, c.nT)
	for t := range c.lentF {
		c.lentF[t] = newFracIntegral(&c.g)
		c.lentSeg[t] = make([]lentSegment, c.nM)
	}
	c.inst = make([]*series, c.nT)
	c.capStart = make([]float64, c.nT)
	for t, ti := range info.Types {
		c.held[t] = make([]float64, c.nM)
		c.installed[t] = float64(ti.Nodes * ti.Accelerators)
		c.inst[t] = c.g.newSeries()
		c.g.set(c.inst[t], 0, c.installed[t])
		c.capStart[t] = c.installed[t]
	}
	c.quota = make([][]float64, c.nT)
	for t := range c.quota {
		c.quota[t] = make([]float64, c.nM)
	}
	for m, tm := range info.Teams {
		for t, q := range tm.Quota {
			c.quota[t][m] = q
			c.g.set(c.quotaS[t][m], 0, q)
		}
	}
	for t := range info.Types {
		c.retally(t, 0, -1)
	}
	c.goodput = make([]float64, c.g.n)
	c.preempts = make([]float64, c.g.n)
	c.lost = make([]float64, c.g.n)
	for range info.Teams {
		c.pending = append(c.pending, c.g.newSeries())
		c.running = append(c.running, c.g.newSeries())
		c.demand = append(c.demand, c.g.newSeries())
	}
	c.preemptTeam = make([]int, c.nM)
	c.waitTeam = make([]samples, c.nM)
	c.openTeam = make([]samples, c.nM)
	c.teamDone = make([]int, c.nM)
	c.teamSub = make([]int, c.nM)
	c.teamLost = make([]float64, c.nM)
	return nil
}

func (c *Collector) inWindow(t float64) bool { return t >= c.info.Warmup && t < c.info.Horizon }

// retally recomputes borrowed and lent on one type: a team borrows what it
// holds above its quota; borrowing comes first from capacity no quota
// covers, the rest from idle quota, lent in proportion to each team's idle.
func (c *Collector) retally(t int, now float64, team int) {
	sumQuota, borrowed, idle := 0.0, 0.0, 0.0
	quota, held := c.quota[t], c.held[t]
	held = held[:len(quota)]
	for m, q := range quota {
		h := held[m]
		sumQuota += q
		if h > q {
			borrowed += h - q
		} else {
			idle += q - h
		}
	}
	pool := max(0, c.installed[t]-sumQuota)
	beyond := max(0, borrowed-pool)
	frac := 0.0
	if idle > 0 {
		frac = min(1, beyond/idle)
	}
	fi := c.lentF[t]
	fi.advance(now, frac)
	if team >= 0 {
		c.settleTeam(t, team, now)
		return
	}
	for m := 0; m < c.nM; m++ {
		c.settleTeam(t, m, now)
	}
}

// settleTeam records team m's borrowed and lent on type t from now on.
func (c *Collector) settleTeam(t, m int, now float64) {
	q, h := c.quota[t][m], c.held[t][m]
	c.g.set(c.borrowed[t][m], now, max(0, h-q))
	seg := &c.lentSeg[t][m]
	c.lentF[t].close(seg, c.lent[t][m].b)
	c.lentF[t].open(seg, max(0, q-h))
}

func (c *Collector) bucketOf(t float64) int {
	k := int((t - c.g.t0) / c.g.w)
	if k < 0 || k >= c.g.n {
		return -1
	}
	return k
}

func (c *Collector) Event(e *workload.Event) {
	switch e.Kind {
	case workload.EvSubmit:
		c.g.add(c.pending[e.Team], e.Time, 1)
		c.g.add(c.demand[e.Team], e.Time, e.Requested)
	case workload.EvStart:
		c.g.add(c.pending[e.Team], e.Time, -1)
		c.g.add(c.demand[e.Team], e.Time, -e.Requested)
		c.g.add(c.running[e.Team], e.Time, 1)
		c.held[e.Type][e.Team] += e.Held
		c.g.set(c.alloc[e.Type][e.Team], e.Time, c.held[e.Type][e.Team])
		c.retally(int(e.Type), e.Time, int(e.Team))
	case workload.EvStop:
		c.g.add(c.running[e.Team], e.Time, -1)
		if e.Requeued {
			c.g.add(c.pending[e.Team], e.Time, 1)
			c.g.add(c.demand[e.Team], e.Time, e.Requested)
		}
		c.held[e.Type][e.Team] -= e.Held
		if c.held[e.Type][e.Team] < 1e-9 {
			c.held[e.Type][e.Team] = math.Max(0, c.held[e.Type][e.Team])
		}
		c.g.set(c.alloc[e.Type][e.Team], e.Time, c.held[e.Type][e.Team])
		c.retally(int(e.Type), e.Time, int(e.Team))
		c.g.addRange(c.goodput, e.ProgressStart, e.KeptEnd, e.Requested)
		if lost := (e.ProgressEnd - e.KeptEnd) * e.Requested; lost > 0 {
			if k := c.bucketOf(e.Time); k >= 0 {
				c.lost[k] += lost
			}
			if c.inWindow(e.Time) {
				c.lostWin += lost
				c.teamLost[e.Team] += lost
			}
		}
	case workload.EvPreempt:
		if k := c.bucketOf(e.Time); k >= 0 {
			c.preempts[k]++
		}
		if c.inWindow(e.Time) {
			c.preemptWin++
			c.preemptTeam[e.Team]++
		}
	case workload.EvNodeDown:
		if c.inWindow(e.Time) {
			c.failWin++
		}
	case workload.EvCapacity:
		t := int(e.Type)
		c.installed[t] += float64(e.Nodes * c.info.Types[t].Accelerators)
		c.g.set(c.inst[t], e.Time, c.installed[t])
		if e.Time <= c.info.Warmup {
			c.capStart[t] = c.installed[t]
		}
		c.retally(t, e.Time, -1)
	case workload.EvQuota:
		c.quota[e.Type][e.Team] = e.Quota
		c.g.set(c.quotaS[e.Type][e.Team], e.Time, e.Quota)
		c.retally(int(e.Type), e.Time, -1)
	}
}

func (c *Collector) Job(r *workload.JobRecord) {
	if !math.IsNaN(r.OrigStart) && !math.IsNaN(r.OrigEnd) {
		c.fid.add(r.Submit, r.OrigStart, r.OrigEnd, r.Accelerators, r.FirstStart, r.End, r.Wait)
	}
	if !c.inWindow(r.Submit) {
		return
	}
	c.counts.Submitted++
	c.teamSub[r.Team]++
	cls := c.class(r.Class)
	cls.submitted++
	c.ppj.add(r.Preemptions)
	switch r.State {
	case workload.StateCompleted:
		c.counts.Completed++
		c.teamDone[r.Team]++
		c.runtime += r.End - r.FirstStart
		c.nRuntime++
	case workload.StateFailed:
		c.counts.Failed++
	case workload.StateRunning:
		c.counts.RunningAtEnd++
	case workload.StatePending:
		c.counts.PendingAtEnd++
	}
	if !math.IsNaN(r.FirstStart) {
		c.counts.Started++
		cls.started++
		c.waitTeam[r.Team].add(r.Wait)
		cls.waits.add(r.Wait)
	} else {
		c.openTeam[r.Team].add(r.Wait)
		cls.open.add(r.Wait)
	}
}

// classAcc is what the summary keeps of one priority class.
type classAcc struct {
	submitted, started int
	waits              samples // of the jobs that started
	open               samples // open waits of the jobs never started
}

func (c *Collector) class(cls int32) *classAcc {
	if int(cls) >= len(c.byClass) {
		c.byClass = append(c.byClass, make([]classAcc, int(cls)+1-len(c.byClass))...)
	}
	return &c.byClass[cls]
}

func (c *Collector) End(end *workload.RunEnd) error {
	c.end = *end
	for t := 0; t < c.nT; t++ {
		fi := c.lentF[t]
		fi.advance(c.g.end, 0)
		for m := 0; m < c.nM; m++ {
			fi.close(&c.lentSeg[t][m], c.lent[t][m].b)
		}
		c.g.flush(c.inst[t])
		for m := 0; m < c.nM; m++ {
			c.g.flush(c.alloc[t][m])
			c.g.flush(c.borrowed[t][m])
			c.g.flush(c.lent[t][m])
			c.g.flush(c.quotaS[t][m])
		}
	}
	for m := 0; m < c.nM; m++ {
		c.g.flush(c.pending[m])
		c.g.flush(c.running[m])
		c.g.flush(c.demand[m])
	}
	c.summary = c.makeSummary()
	if c.fid.jobs > 0 {
		c.summary.Fidelity = c.Data().Fidelity
	}
	return nil
}

// sortWaits sorts every list of waits, the largest first, on as many
// goroutines as there are cores: at the end of a run nothing else runs.
func (c *Collector) sortWaits() {
	var all []*samples
	for m := range c.waitTeam {
		all = append(all, &c.waitTeam[m], &c.openTeam[m])
	}
	for cls := range c.byClass {
		all = append(all, &c.byClass[cls].waits, &c.byClass[cls].open)
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].n > all[j].n })
	next := make(chan *samples, len(all))
	for _, s := range all {
		next <- s
	}
	close(next)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(all)) {
		wg.Go(func() {
			var scratch []uint64 // sized by the first list, the largest
			for s := range next {
				s.sortedWith(&scratch)
			}
		})
	}
	wg.Wait()
}

// Summary returns the run summary (after End).
func (c *Collector) Summary() *Summary { return c.summary }

// AllocatedAccSeconds is the accelerator-seconds held over the whole run.
func (c *Collector) AllocatedAccSeconds() float64 {
	sum := 0.0
	for t := range c.alloc {
		for m := range c.alloc[t] {
			for _, x := range c.alloc[t][m].b {
				sum += x
			}
		}
	}
	return sum
}
