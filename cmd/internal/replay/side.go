package replay

import (
	"slices"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/allot-sim/allot/workload"
)

// decision is an admission or a preemption of job Job (an index into the
// replayed jobs) at T, in workload seconds.
type decision struct {
	Kind string // "admit" or "preempt"
	Job  int
	T    float64
}

// Side is one side of a replay: the decisions of the simulator or of the
// live daemon, and how busy it kept the fleet.
type Side struct {
	list   []decision // in the order they were taken
	busy   float64    // accelerator-seconds held by runs
	end    float64    // when the last run ended
	cap    float64    // accelerators in the fleet
	wall   float64    // seconds the live run took
	lat    float64    // live: measured scheduling latency, in wall seconds
	lags   []float64  // live: how much longer than planned each run that ran to its end held its devices
	failed []string   // live: jobs that did not succeed
}

func (d *Side) count(kind string) int {
	n := 0
	for _, x := range d.list {
		if x.Kind == kind {
			n++
		}
	}
	return n
}

func (d *Side) util(window float64) float64 { return 100 * d.busy / (d.cap * window) }

// Simulate simulates the jobs with no restore and no checkpoint save
// time: a preempted job keeps its progress and gives its nodes back at
// once, as the sleeping jobs do.
func Simulate(s *scenarios.Scenario, jobs []workload.Job) (*Side, error) {
	in, err := simrun.Input(s, s.Seed)
	if err != nil {
		return nil, err
	}
	in.Source.Close()
	in.Source, in.ReadAhead, in.Skipped = workload.NewSliceSource(slices.Clone(jobs), nil), false, nil
	in.Preemption.Restore, in.Preemption.CheckpointSave = 0, 0
	in.Warmup = 0
	in.Horizon = jobs[len(jobs)-1].Submit + 1
	for _, j := range jobs {
		f, _ := speed(s.Build().Flavors, &j)
		in.Horizon += j.Duration * f
	}
	in.Horizon = max(in.Horizon, s.Horizon)
	col := &simCollector{index: map[string]int{}, seqJob: map[int64]int{}, started: map[int64]float64{}}
	for i, j := range jobs {
		col.index[j.ID] = i
	}
	if err := sim.Run(in, col); err != nil {
		return nil, simrun.PlaceJobError(s, err)
	}
	d := &col.d
	d.cap = fleetAccelerators(s)
	return d, nil
}

// simCollector keeps the decisions of a simulation.
type simCollector struct {
	d       Side
	index   map[string]int // job id -> index
	seqJob  map[int64]int  // sim seq -> index, learnt from submit order
	started map[int64]float64
	next    int
}

func (c *simCollector) Begin(*workload.RunInfo) error { return nil }
func (c *simCollector) Job(*workload.JobRecord)       {}
func (c *simCollector) End(*workload.RunEnd) error    { return nil }
func (c *simCollector) Event(e *workload.Event) {
	switch e.Kind {
	case workload.EvSubmit:
		// Jobs arrive in the order they were given.
		c.seqJob[e.Job] = c.next
		c.next++
	case workload.EvStart:
		c.d.list = append(c.d.list, decision{"admit", c.seqJob[e.Job], e.Time})
		c.started[e.Job] = e.Time
	case workload.EvPreempt:
		c.d.list = append(c.d.list, decision{"preempt", c.seqJob[e.Job], e.Time})
	case workload.EvStop:
		c.d.busy += e.Requested * (e.Time - c.started[e.Job])
		c.d.end = max(c.d.end, e.Time)
	}
}
