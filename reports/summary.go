package reports

import (
	"math"
	"sort"
)

// Summary is the run summary of spec/summary.md; field order is the JSON
// order. All KPIs are measured on the window [warmup, horizon).
type Summary struct {
	Scenario          string                `json:"scenario"`
	Policy            string                `json:"policy"`
	Seed              uint64                `json:"seed"`
	WindowS           [2]float64            `json:"window_s"`
	BucketS           float64               `json:"bucket_s"`
	Capacity          Capacity              `json:"capacity"`
	Jobs              JobCounts             `json:"jobs"`
	Preemptions       int                   `json:"preemptions"`
	PreemptionsPerJob Dist3                 `json:"preemptions_per_job"`
	NodeFailures      int                   `json:"node_failures"`
	Utilization       Utilization           `json:"utilization"`
	Goodput           float64               `json:"goodput"`
	WaitS             WaitStats             `json:"wait_s"`
	WaitAllS          WaitAllStats          `json:"wait_all_s"`
	ByTeam            map[string]TeamStats  `json:"by_team"`
	ByPriorityClass   map[string]ClassStats `json:"by_priority_class"`
	Fairness          Fairness              `json:"fairness"`
	Cost              Cost                  `json:"cost"`
	Sim               SimStats              `json:"sim"`
	Extra             *Extra                `json:"extra,omitempty"`
	Objectives        []ObjectiveResult     `json:"objectives,omitempty"`
	Fidelity          *Fidelity             `json:"fidelity,omitempty"`
	// ReplayCheck is there only when asked for (allot sim --replay-check).
	ReplayCheck *ReplayCheck `json:"replay_check,omitempty"`
}

// Capacity is the installed accelerators at the start of the window.
type Capacity struct {
	Accelerators int            `json:"accelerators"`
	ByType       map[string]int `json:"by_type"`
}

// JobCounts counts jobs submitted in the window by what became of them.
type JobCounts struct {
	Submitted      int `json:"submitted"`
	Started        int `json:"started"`
	Completed      int `json:"completed"`
	Failed         int `json:"failed"`
	RunningAtEnd   int `json:"running_at_end"`
	PendingAtEnd   int `json:"pending_at_end"`
	SkippedInvalid int `json:"skipped_invalid"`
	// UnstartedShare is the share of the window's jobs that never started:
	// a policy that starves work cannot hide it behind a short wait_s.
	UnstartedShare float64 `json:"unstarted_share"`
}

// Dist3 is a median, 95th percentile and maximum.
type Dist3 struct {
	P50 float64 `json:"p50"`
	P95 float64 `json:"p95"`
	Max float64 `json:"max"`
}

// Utilization is allocated ÷ installed accelerator-seconds.
type Utilization struct {
	Mean      float64            `json:"mean"`
	P95Bucket float64            `json:"p95_bucket"`
	MaxBucket float64            `json:"max_bucket"`
	ByType    map[string]float64 `json:"by_type"`
}

// WaitStats describes waits in seconds.
type WaitStats struct {
	Mean float64 `json:"mean"`
	P50  float64 `json:"p50"`
	P95  float64 `json:"p95"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// WaitAllStats describes the waits of every job submitted in the window: a
// job never started counts its wait up to the horizon, so with Unstarted
// above 0 these are lower bounds.
type WaitAllStats struct {
	Mean      float64 `json:"mean"`
	P50       float64 `json:"p50"`
	P95       float64 `json:"p95"`
	P99       float64 `json:"p99"`
	Max       float64 `json:"max"`
	Unstarted int     `json:"unstarted"`
}

// ShortWaitAll is the per-team and per-class WaitAllStats.
type ShortWaitAll struct {
	Mean      float64 `json:"mean"`
	P95       float64 `json:"p95"`
	Max       float64 `json:"max"`
	Unstarted int     `json:"unstarted"`
}

// ShortWait is the per-team and per-class wait summary.
type ShortWait struct {
	Mean float64 `json:"mean"`
	P95  float64 `json:"p95"`
	Max  float64 `json:"max"`
}

// TeamStats is one team's share of the run.
type TeamStats struct {
	WaitS    ShortWait    `json:"wait_s"`
	WaitAllS ShortWaitAll `json:"wait_all_s"`
	// UsageVsEntitled is UsageShare ÷ EntitledShare, absent where the
	// team is entitled to nothing.
	UsageVsEntitled *float64 `json:"usage_vs_entitled,omitempty"`
	UsageShare      float64  `json:"usage_share"`
	EntitledShare   float64  `json:"entitled_share"`
	BorrowedMean    float64  `json:"borrowed_mean"`
	LentMean        float64  `json:"lent_mean"`
	JobsCompleted   int      `json:"jobs_completed"`
	Preemptions     int      `json:"preemptions"`
	JobsSubmitted   int      `json:"jobs_submitted"`
	LostAccHours    float64  `json:"lost_accelerator_hours"`
}

// ClassStats is one priority class's waits.
type ClassStats struct {
	WaitS         ShortWait    `json:"wait_s"`
	WaitAllS      ShortWaitAll `json:"wait_all_s"`
	JobsSubmitted int          `json:"jobs_submitted"`
	JobsStarted   int          `json:"jobs_started"`
}

// Fairness is Jain's index of usage against entitlement.
type Fairness struct {
	Jain float64 `json:"jain"`
}

// Cost prices the installed fleet over the window.
type Cost struct {
	USD                         float64  `json:"usd"`
	USDPerUsefulAcceleratorHour float64  `json:"usd_per_useful_accelerator_hour"`
	UnpricedTypes               []string `json:"unpriced_types"`
}

// SimStats is about the run itself; WallS is the only field that differs
// between two runs of the same file and seed.
type SimStats struct {
	Events int64   `json:"events"`
	Cycles int64   `json:"cycles"`
	WallS  float64 `json:"wall_s"`
}

// Extra holds figures beyond the contract.
type Extra struct {
	LostAcceleratorHours float64 `json:"lost_accelerator_hours"`
	MeanPending          float64 `json:"mean_pending_jobs"`
	MeanRunning          float64 `json:"mean_running_jobs"`
	ArrivalRatePerHour   float64 `json:"arrival_rate_per_hour"`
	MeanRuntimeS         float64 `json:"mean_runtime_s"`
}

// ObjectiveResult is an objective checked against the summary.
type ObjectiveResult struct {
	Objective string  `json:"objective"`
	Value     float64 `json:"value"`
	Met       bool    `json:"met"`
	// Path, Op and Target are the objective's parts, so that it can be
	// written in its own units from the summary alone.
	Path   string  `json:"path"`
	Op     string  `json:"op"`
	Target float64 `json:"target"`
	// At is the key a wildcard objective's value was read from: the worst
	// of its matches.
	At string `json:"at,omitempty"`
	// Error says why the value could not be read (Met is then false).
	Error string `json:"error,omitempty"`
}

// percentile is the nearest-rank p-th percentile of sorted values.
func percentile(sorted []float64, p float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[rankIndex(len(sorted), p)]
}

// rankIndex is where the nearest-rank p-th percentile of n sorted values
// sits (n > 0), counting from 0.
func rankIndex(n int, p float64) int {
	return max(0, min(n, int(math.Ceil(p/100*float64(n))))-1)
}

func mean(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

func shortWait(w []float64) ShortWait {
	sort.Float64s(w)
	if len(w) == 0 {
		return ShortWait{}
	}
	return ShortWait{Mean: mean(w), P95: percentile(w, 95), Max: w[len(w)-1]}
}

// jain is Jain's fairness index of xs.
func jain(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s, s2 := 0.0, 0.0
	for _, x := range xs {
		s += x
		s2 += x * x
	}
	if s2 == 0 {
		return 0
	}
	return s * s / (float64(len(xs)) * s2)
}

// waitAll summarises the waits of started jobs together with the open waits
// of jobs never started, all held in ascending lists.
func waitAll(started, unstarted [][]float64) WaitAllStats {
	lists := append(append(make([][]float64, 0, len(started)+len(unstarted)), started...), unstarted...)
	ws := waitStats(lists)
	n := 0
	for _, l := range unstarted {
		n += len(l)
	}
	return WaitAllStats{Mean: ws.Mean, P50: ws.P50, P95: ws.P95, P99: ws.P99, Max: ws.Max, Unstarted: n}
}

// shortWaitAll is waitAll for one team or class.
func shortWaitAll(started, unstarted []float64) ShortWaitAll {
	ws := waitAll([][]float64{started}, [][]float64{unstarted})
	return ShortWaitAll{Mean: ws.Mean, P95: ws.P95, Max: ws.Max, Unstarted: ws.Unstarted}
}
