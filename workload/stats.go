package workload

import (
	"io"
	"math"
	"sort"
)

// TraceStats describes a trace: how much work, when it arrives, and how
// big and long its jobs are.
type TraceStats struct {
	Jobs             int            `json:"jobs"`
	AcceleratorHours float64        `json:"accelerator_hours"`
	CPUOnlyJobs      int            `json:"cpu_only_jobs"`
	FractionalJobs   int            `json:"fractional_jobs"`
	FirstSubmitS     float64        `json:"first_submit_s"`
	LastSubmitS      float64        `json:"last_submit_s"`
	Teams            map[string]int `json:"teams"`
	PriorityClasses  map[string]int `json:"priority_classes"`
	// Arrivals per period over the submit span (Period seconds each).
	PeriodS  float64 `json:"period_s"`
	Arrivals []int   `json:"arrivals"`
	// Accelerator-hours submitted per period.
	Demand   []float64      `json:"demand_accelerator_hours"`
	Sizes    []SizeCount    `json:"sizes"`
	Duration Distribution   `json:"duration_s"`
	Orig     *OrigTimeStats `json:"original,omitempty"`
}

// SizeCount is how many jobs ask for one number of accelerators.
type SizeCount struct {
	Accelerators float64 `json:"accelerators"`
	Jobs         int     `json:"jobs"`
}

// Distribution summarises a sample.
type Distribution struct {
	Mean float64 `json:"mean"`
	P10  float64 `json:"p10"`
	P50  float64 `json:"p50"`
	P90  float64 `json:"p90"`
	P99  float64 `json:"p99"`
	Max  float64 `json:"max"`
}

// OrigTimeStats describes the original schedule, where the trace has one.
type OrigTimeStats struct {
	Jobs     int            `json:"jobs"`
	Wait     Distribution   `json:"wait_s"`
	Statuses map[string]int `json:"statuses"`
}

// Describe reads a whole source and describes it, with at most periods
// arrival buckets.
func Describe(src Source, periods int) (*TraceStats, error) {
	s := &TraceStats{Teams: map[string]int{}, PriorityClasses: map[string]int{}}
	var durs, waits []float64
	sizes := map[float64]int{}
	type arrival struct{ t, ah float64 }
	var arr []arrival
	statuses := map[string]int{}
	for {
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		if s.Jobs == 0 {
			s.FirstSubmitS = j.Submit
		}
		s.Jobs++
		s.LastSubmitS = math.Max(s.LastSubmitS, j.Submit)
		ah := j.Accelerators * j.Duration / 3600
		s.AcceleratorHours += ah
		arr = append(arr, arrival{j.Submit, ah})
		durs = append(durs, j.Duration)
		sizes[j.Accelerators]++
		s.Teams[j.Team]++
		if j.PriorityClass != "" {
			s.PriorityClasses[j.PriorityClass]++
		}
		switch {
		case j.Accelerators == 0:
			s.CPUOnlyJobs++
		case j.Accelerators < 1:
			s.FractionalJobs++
		}
		if !math.IsNaN(j.OrigStart) {
			waits = append(waits, j.OrigStart-j.Submit)
		}
		if j.OrigStatus != "" {
			statuses[j.OrigStatus]++
		}
	}
	for a, n := range sizes {
		s.Sizes = append(s.Sizes, SizeCount{a, n})
	}
	sort.Slice(s.Sizes, func(a, b int) bool { return s.Sizes[a].Accelerators < s.Sizes[b].Accelerators })
	s.Duration = Summarise(durs)
	if len(waits) > 0 || len(statuses) > 0 {
		s.Orig = &OrigTimeStats{Jobs: len(waits), Wait: Summarise(waits), Statuses: statuses}
	}
	if periods < 1 {
		periods = 1
	}
	span := s.LastSubmitS - s.FirstSubmitS
	s.PeriodS = periodFor(span, periods)
	n := int(span/s.PeriodS) + 1
	s.Arrivals, s.Demand = make([]int, n), make([]float64, n)
	for _, a := range arr {
		k := min(n-1, int((a.t-s.FirstSubmitS)/s.PeriodS))
		s.Arrivals[k]++
		s.Demand[k] += a.ah
	}
	return s, nil
}

// periodFor picks a round period (hour, 6 h, day, week) giving at most
// about n buckets over span.
func periodFor(span float64, n int) float64 {
	for _, p := range []float64{60, 600, 3600, 6 * 3600, 86400, 7 * 86400, 28 * 86400} {
		if span/p < float64(n) {
			return p
		}
	}
	return math.Max(1, span/float64(n))
}

// Summarise computes a Distribution (nearest-rank percentiles).
func Summarise(xs []float64) Distribution {
	if len(xs) == 0 {
		return Distribution{}
	}
	v := append([]float64(nil), xs...)
	sort.Float64s(v)
	sum := 0.0
	for _, x := range v {
		sum += x
	}
	pct := func(p float64) float64 {
		i := int(math.Ceil(p*float64(len(v)))) - 1
		return v[max(0, min(len(v)-1, i))]
	}
	return Distribution{Mean: sum / float64(len(v)), P10: pct(0.10), P50: pct(0.50), P90: pct(0.90), P99: pct(0.99), Max: v[len(v)-1]}
}
