package workload

import (
	"encoding/json"
	"math"
)

// Present is the state of a fleet's jobs at one moment, as a forecast
// starts from it: what runs, what waits, and what was seen before. Both
// shells make one (the simulator at a backtest's moments, live mode from
// its store), and neither knows how long a job will still run.
type Present struct {
	Now     float64
	Running []PresentJob
	Pending []PresentJob
	Seen    Seen
}

// PresentJob is a job of a present. Job carries its request, team,
// priority class and submit time; its Duration is not read (a forecast
// draws one).
type PresentJob struct {
	Job
	// Key is the shell's number for the job (the simulator's sequence).
	Key      int64
	Priority int32
	// Type and Nodes are where a running job runs; Nodes nil means the
	// shell does not place jobs on nodes.
	Type     string
	Nodes    []int32
	Admitted float64 // quota reserved
	Started  float64 // its last (re)start
	Evicting bool
	// Progress is the useful work done so far (kept across preemptions),
	// in wall seconds on Type, or on the type it last ran on.
	Progress float64
	// Starts counts its earlier starts (a restart pays the restore time).
	Starts int
	// TimeLimit bounds its running time (0: none).
	TimeLimit float64
}

// Seen is what a forecast learns the workload from: the runs that
// completed and the recent submissions and starts.
type Seen struct {
	Runs    []SeenRun
	Submits []Job // as submitted, Duration not read
	Starts  []SeenStart
}

// SeenRun is one completed job: its useful running time in wall seconds
// on the type it ran on.
type SeenRun struct {
	Team, PriorityClass, Class, Type string
	Seconds                          float64
}

// SeenStart is a job's start (a first start or a restart).
type SeenStart struct {
	Time float64
	Team string
}

// Forecast is when a waiting job is expected to start, in seconds from
// the present's Now. A quantile is +Inf when the job did not start within
// the forecast's horizon in enough of the sampled futures.
type Forecast struct {
	Key            int64
	ID             string
	P10, P50, P90  float64
	PStartWithin1h float64
	Reason         string
	// StartsNow says the first cycle admits it, on Type.
	StartsNow bool
	Type      string
}

// forecastJSON is the contract's spelling (spec/cli.md "Forecasts").
type forecastJSON struct {
	ID        string   `json:"id,omitempty"`
	P10       *float64 `json:"start_p10_s"`
	P50       *float64 `json:"start_p50_s"`
	P90       *float64 `json:"start_p90_s"`
	Within1h  float64  `json:"p_start_within_1h"`
	Reason    string   `json:"reason"`
	StartsNow bool     `json:"starts_now"`
	Type      string   `json:"instance_type,omitempty"`
}

// MarshalJSON writes the contract's keys; a start beyond the horizon is
// null.
func (f Forecast) MarshalJSON() ([]byte, error) {
	return json.Marshal(forecastJSON{ID: f.ID, P10: finite(f.P10), P50: finite(f.P50), P90: finite(f.P90),
		Within1h: f.PStartWithin1h, Reason: f.Reason, StartsNow: f.StartsNow, Type: f.Type})
}

// UnmarshalJSON reads what MarshalJSON writes; null is +Inf.
func (f *Forecast) UnmarshalJSON(b []byte) error {
	var v forecastJSON
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*f = Forecast{ID: v.ID, P10: orInf(v.P10), P50: orInf(v.P50), P90: orInf(v.P90), PStartWithin1h: v.Within1h,
		Reason: v.Reason, StartsNow: v.StartsNow, Type: v.Type}
	return nil
}

func finite(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

func orInf(p *float64) float64 {
	if p == nil {
		return math.Inf(1)
	}
	return *p
}
