package reports

import (
	"math"
	"slices"
	"sort"

	"github.com/allot-sim/allot/workload"
)

// ReplayCheck compares a replay of a recorded history (an import's trace,
// with each job's recorded start and end) with the record: utilisation
// over the recorded period, waits by team and priority class, and how
// many jobs the replay admits in the recorded order (allot sim
// --replay-check; docs/import.md says how to read it).
type ReplayCheck struct {
	// RecordS is the recorded period: from the first submit to the last
	// recorded submit, start or end.
	RecordS [2]float64 `json:"record_s"`
	// Jobs are those with a recorded start, which every comparison but
	// utilisation covers.
	Jobs int `json:"jobs_compared"`
	// NotStartedInRecord are jobs the record has no start for (still
	// pending when it was taken): left out of waits and order.
	NotStartedInRecord int `json:"not_started_in_record"`
	// RunningInRecord are compared jobs still running when the record was
	// taken (orig_status running, or a start without an end): their start
	// is known, so they count in waits and order; their time in use runs
	// to the end of the record.
	RunningInRecord int                    `json:"running_in_record"`
	Utilization     ReplayUtilization      `json:"utilization"`
	All             ReplayGroup            `json:"all"`
	ByTeam          map[string]ReplayGroup `json:"by_team"`
	ByPriorityClass map[string]ReplayGroup `json:"by_priority_class"`
}

// ReplayUtilization is the mean share of the installed accelerators in
// use over the recorded period, recorded and simulated.
type ReplayUtilization struct {
	Recorded  float64 `json:"recorded"`
	Simulated float64 `json:"simulated"`
}

// ReplayGroup compares the jobs of one group (all, a team, a class).
type ReplayGroup struct {
	Jobs int `json:"jobs"`
	// NotStartedInReplay are jobs the replay never started: their
	// simulated wait runs to the end of the run (a lower bound) and they
	// come after every started job in the simulated order.
	NotStartedInReplay int `json:"not_started_in_replay"`
	// SameOrderShare is the share of the group's jobs admitted in their
	// team's recorded order: within each team, the most jobs whose
	// simulated first starts keep the order of their recorded starts
	// (ties on either side keep it), summed over the teams (for a class,
	// over its jobs in each team), divided by the group's jobs.
	SameOrderShare float64 `json:"same_order_share"`
	// OutOfOrder is Jobs less those kept in order: the fewest jobs that
	// would have to move.
	OutOfOrder int        `json:"jobs_out_of_order"`
	Wait       ReplayWait `json:"wait_s"`
}

// ReplayWait is the waits (first start − submit) of a group, recorded and
// simulated.
type ReplayWait struct {
	Recorded  WaitQuantiles `json:"recorded"`
	Simulated WaitQuantiles `json:"simulated"`
	// MeanRelativeError is simulated mean ÷ recorded mean − 1; null when
	// the recorded mean is 0.
	MeanRelativeError *float64 `json:"mean_relative_error"`
}

// WaitQuantiles are a mean, a median and a 95th percentile.
type WaitQuantiles struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
}

// ReplayChecker is a sink that gathers a replay check job by job: of each
// job with a recorded start it keeps its two starts and two waits, not
// the job; of the replay, the accelerators in use at each change.
type ReplayChecker struct {
	info            *workload.RunInfo
	jobs            []replayJob
	first, last     float64 // the record's bounds so far
	notStarted      int
	running         int
	recBusy         float64 // accelerator-seconds in use in the record, of jobs that ended
	openAcc, openAt float64 // of jobs running at the record's end: accelerators, Σ accelerators × start
	steps           []useStep
	inUse, inst     float64
}

// replayJob is what the check keeps of one compared job.
type replayJob struct {
	orig, sim      float64 // first starts, recorded and simulated (+Inf: never)
	origWait, wait float64
	team, class    int32
}

// useStep is the replay's accelerators in use and installed from a time on.
type useStep struct{ t, inUse, inst float64 }

// NewReplayChecker returns an empty replay check.
func NewReplayChecker() *ReplayChecker {
	return &ReplayChecker{first: math.Inf(1), last: math.Inf(-1)}
}

// Begin notes the run's teams, classes and installed accelerators.
func (c *ReplayChecker) Begin(info *workload.RunInfo) error {
	c.info = info
	for _, t := range info.Types {
		c.inst += float64(t.Nodes * t.Accelerators)
	}
	c.steps = append(c.steps, useStep{0, 0, c.inst})
	return nil
}

// Event follows the accelerators in use and installed.
func (c *ReplayChecker) Event(e *workload.Event) {
	switch e.Kind {
	case workload.EvStart:
		c.inUse += e.Requested
	case workload.EvStop:
		c.inUse -= e.Requested
	case workload.EvCapacity:
		c.inst += float64(e.Nodes * c.info.Types[e.Type].Accelerators)
	default:
		return
	}
	if n := len(c.steps); c.steps[n-1].t == e.Time {
		c.steps[n-1] = useStep{e.Time, c.inUse, c.inst}
		return
	}
	c.steps = append(c.steps, useStep{e.Time, c.inUse, c.inst})
}

// Job adds one job: to the record's bounds, and with a recorded start to
// the comparison.
func (c *ReplayChecker) Job(r *workload.JobRecord) {
	c.first = math.Min(c.first, r.Submit)
	c.last = math.Max(c.last, r.Submit)
	if math.IsNaN(r.OrigStart) {
		c.notStarted++
		return
	}
	c.last = math.Max(c.last, r.OrigStart)
	if math.IsNaN(r.OrigEnd) || r.OrigStatus == workload.StateRunning {
		c.running++
		c.openAcc += r.Accelerators
		c.openAt += r.Accelerators * r.OrigStart
	} else {
		c.recBusy += r.Accelerators * math.Max(0, r.OrigEnd-r.OrigStart)
	}
	if !math.IsNaN(r.OrigEnd) {
		c.last = math.Max(c.last, r.OrigEnd)
	}
	j := replayJob{orig: r.OrigStart, sim: math.Inf(1), origWait: math.Max(0, r.OrigStart-r.Submit), wait: r.Wait, team: r.Team, class: r.Class}
	if !math.IsNaN(r.FirstStart) {
		j.sim, j.wait = r.FirstStart, r.FirstStart-r.Submit
	}
	c.jobs = append(c.jobs, j)
}

// End has nothing to close: Result computes.
func (c *ReplayChecker) End(*workload.RunEnd) error { return nil }

// Result is the check; nil when no job had a recorded start.
func (c *ReplayChecker) Result() *ReplayCheck {
	if len(c.jobs) == 0 {
		return nil
	}
	rc := &ReplayCheck{RecordS: [2]float64{c.first, c.last}, Jobs: len(c.jobs), NotStartedInRecord: c.notStarted,
		RunningInRecord: c.running, ByTeam: map[string]ReplayGroup{}, ByPriorityClass: map[string]ReplayGroup{}}
	rec := c.recBusy + c.openAcc*c.last - c.openAt
	sim, inst := c.integrate(c.first, c.last)
	if inst > 0 {
		rc.Utilization = ReplayUtilization{Recorded: rec / inst, Simulated: sim / inst}
	}
	kept := c.orderKept()
	all, teams, classes := &groupAcc{}, map[int32]*groupAcc{}, map[int32]*groupAcc{}
	for i := range c.jobs {
		j := &c.jobs[i]
		all.add(j)
		accFor(teams, j.team).add(j)
		accFor(classes, j.class).add(j)
	}
	rc.All = all.result(kept.all)
	for m, g := range teams {
		rc.ByTeam[c.info.Teams[m].Name] = g.result(kept.team[m])
	}
	for cls, g := range classes {
		name := "none"
		if int(cls) < len(c.info.PriorityClasses) && c.info.PriorityClasses[cls] != "" {
			name = c.info.PriorityClasses[cls]
		}
		rc.ByPriorityClass[name] = g.result(kept.class[cls])
	}
	return rc
}

// integrate is the replay's accelerator-seconds in use and installed over
// [from, to].
func (c *ReplayChecker) integrate(from, to float64) (inUse, inst float64) {
	for k, s := range c.steps {
		end := math.Inf(1)
		if k+1 < len(c.steps) {
			end = c.steps[k+1].t
		}
		if w := math.Min(end, to) - math.Max(s.t, from); w > 0 {
			inUse += w * s.inUse
			inst += w * s.inst
		}
	}
	return inUse, inst
}

// groupAcc gathers one group's waits.
type groupAcc struct {
	ow, sw     []float64 // recorded and simulated waits
	notStarted int       // in the replay
}

func accFor(m map[int32]*groupAcc, k int32) *groupAcc {
	if m[k] == nil {
		m[k] = &groupAcc{}
	}
	return m[k]
}

func (g *groupAcc) add(j *replayJob) {
	g.ow, g.sw = append(g.ow, j.origWait), append(g.sw, j.wait)
	if math.IsInf(j.sim, 1) {
		g.notStarted++
	}
}

// result compares the group, kept of its jobs in the recorded order.
func (g *groupAcc) result(kept int) ReplayGroup {
	r := ReplayGroup{Jobs: len(g.ow), NotStartedInReplay: g.notStarted, SameOrderShare: float64(kept) / float64(len(g.ow)), OutOfOrder: len(g.ow) - kept}
	r.Wait.Recorded, r.Wait.Simulated = waitQuantiles(g.ow), waitQuantiles(g.sw)
	if m := r.Wait.Recorded.Mean; m > 0 {
		e := r.Wait.Simulated.Mean/m - 1
		r.Wait.MeanRelativeError = &e
	}
	return r
}

func waitQuantiles(x []float64) WaitQuantiles {
	sort.Float64s(x)
	return WaitQuantiles{Mean: mean(x), P50: percentile(x, 50), P95: percentile(x, 95)}
}

// keptCounts are how many jobs each group keeps in the recorded order:
// a team, the longest run of its jobs whose simulated starts keep the
// order of their recorded starts; all jobs, the sum over the teams; a
// class, the sum over the teams of the longest such run of the team's
// jobs of that class.
type keptCounts struct {
	all         int
	team, class map[int32]int
}

// orderKept sorts the jobs by recorded start, the simulated start
// breaking ties (so that jobs the record cannot tell apart never count as
// out of order), and finds, within each team and each team's class, the
// longest subsequence whose simulated starts do not decrease: patience
// sorting, O(n log n). Order is compared within a team, as its queue
// admits jobs: across teams it is set by when quota frees, to the
// second, which a record's whole seconds cannot pin; each team's waits
// show how the teams fared against each other.
func (c *ReplayChecker) orderKept() keptCounts {
	slices.SortFunc(c.jobs, func(a, b replayJob) int {
		if a.orig != b.orig {
			return cmpFloat(a.orig, b.orig)
		}
		return cmpFloat(a.sim, b.sim)
	})
	team, class := map[int32][]float64{}, map[[2]int32][]float64{}
	for _, j := range c.jobs {
		team[j.team] = extendRun(team[j.team], j.sim)
		tc := [2]int32{j.team, j.class}
		class[tc] = extendRun(class[tc], j.sim)
	}
	k := keptCounts{team: map[int32]int{}, class: map[int32]int{}}
	for m, t := range team {
		k.team[m] = len(t)
		k.all += len(t)
	}
	for tc, t := range class {
		k.class[tc[1]] += len(t)
	}
	return k
}

// extendRun is one step of patience sorting for the longest
// non-decreasing subsequence: tails[i] is the smallest last value of such
// a subsequence of length i+1.
func extendRun(tails []float64, x float64) []float64 {
	i := sort.Search(len(tails), func(i int) bool { return tails[i] > x })
	if i == len(tails) {
		return append(tails, x)
	}
	tails[i] = x
	return tails
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}
