package reports

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/allot-sim/allot/workload"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// replayRun feeds a replay check: one type of one 8-accelerator node,
// teams a and b, classes "" and high.
type replayRun struct {
	c      *ReplayChecker
	events []workload.Event
}

func newReplayRun(t *testing.T) *replayRun {
	c := NewReplayChecker()
	require.NoError(t, c.Begin(&workload.RunInfo{Types: []workload.TypeInfo{{Name: "p5.48xlarge", Accelerators: 8, Nodes: 1}},
		Teams: []workload.TeamInfo{{Name: "a"}, {Name: "b"}}, PriorityClasses: []string{"", "high"}}))
	return &replayRun{c: c}
}

// result sends the events in time order, as a run does, and returns the
// check.
func (r *replayRun) result() *ReplayCheck {
	slices.SortStableFunc(r.events, func(a, b workload.Event) int { return cmpFloat(a.Time, b.Time) })
	for i := range r.events {
		r.c.Event(&r.events[i])
	}
	return r.c.Result()
}

// job records a job that ran [simStart, simEnd) in the replay (NaN: never
// started) and [origStart, origEnd) in the record.
func (r *replayRun) job(team, class int32, submit, acc, origStart, origEnd, simStart, simEnd float64, status string) {
	if !math.IsNaN(simStart) {
		r.events = append(r.events, workload.Event{Time: simStart, Kind: workload.EvStart, Team: team, Requested: acc},
			workload.Event{Time: simEnd, Kind: workload.EvStop, Team: team, Requested: acc})
	}
	wait := simStart - submit
	if math.IsNaN(simStart) {
		wait = 1000 - submit // open, to the end of the run
	}
	r.c.Job(&workload.JobRecord{Team: team, Class: class, Submit: submit, FirstStart: simStart, End: simEnd, Wait: wait,
		Accelerators: acc, OrigStart: origStart, OrigEnd: origEnd, OrigStatus: status})
}

// Sorted by recorded start, the replay's starts read 0, 30, 10, 20, 40:
// the longest run that keeps the recorded order is 0, 10, 20, 40, so one
// job of five is out of order.
func TestReplayCheckSameOrderShareIsTheLongestRunKeptInRecordedOrder(t *testing.T) {
	r := newReplayRun(t)
	for i, sim := range []float64{0, 30, 10, 20, 40} {
		orig := float64(10 * i)
		r.job(0, 0, 0, 1, orig, orig+5, sim, sim+5, "completed")
	}
	rc := r.result()
	assert.InDelta(t, 0.8, rc.All.SameOrderShare, 1e-12)
	assert.Equal(t, 1, rc.All.OutOfOrder)
}

// Jobs the record started in the same second may start in any order in
// the replay, and jobs the replay starts together keep any recorded
// order: neither counts as out of order.
func TestReplayCheckTiesOnEitherSideKeepTheOrder(t *testing.T) {
	r := newReplayRun(t)
	for i, sim := range []float64{3, 1, 2} { // recorded together at 5
		r.job(0, 0, 0, 1, 5, 6, sim, sim+1, "completed")
		r.job(1, 0, 0, 1, float64(10+i), 20, 9, 10, "completed") // started together at 9 in the replay
	}
	rc := r.result()
	assert.Equal(t, 1.0, rc.All.SameOrderShare)
	assert.Equal(t, 0, rc.All.OutOfOrder)
}

// Order is compared within each team's queue: team b's jobs overtaking
// team a's count for nothing; within team a, its low job at 2 overtaking
// the two before it costs one job. A class counts its jobs' order within
// each team: team a's two unclassed jobs are swapped.
func TestReplayCheckComparesTheOrderWithinEachTeamsQueue(t *testing.T) {
	r := newReplayRun(t)
	r.job(0, 0, 0, 1, 0, 1, 20, 21, "completed")
	r.job(0, 1, 0, 1, 1, 2, 30, 31, "completed")
	r.job(0, 0, 0, 1, 2, 3, 10, 11, "completed")
	r.job(1, 1, 0, 1, 3, 4, 0, 1, "completed")
	r.job(1, 0, 0, 1, 4, 5, 5, 6, "completed")
	rc := r.result()
	assert.InDelta(t, 2.0/3, rc.ByTeam["a"].SameOrderShare, 1e-12)
	assert.Equal(t, 1, rc.ByTeam["a"].OutOfOrder)
	assert.Equal(t, 1.0, rc.ByTeam["b"].SameOrderShare)
	assert.InDelta(t, 0.8, rc.All.SameOrderShare, 1e-12)
	assert.InDelta(t, 2.0/3, rc.ByPriorityClass["none"].SameOrderShare, 1e-12)
	assert.Equal(t, 1.0, rc.ByPriorityClass["high"].SameOrderShare)
}

// A job the replay never started comes after every started job and waits
// to the end of the run (a lower bound), counted apart.
func TestReplayCheckJobNeverStartedInTheReplayComesLastAndWaitsToTheRunsEnd(t *testing.T) {
	r := newReplayRun(t)
	r.job(0, 0, 0, 8, 0, 100, math.NaN(), math.NaN(), "completed")
	r.job(0, 0, 0, 8, 100, 200, 0, 100, "completed")
	rc := r.result()
	assert.Equal(t, 1, rc.All.NotStartedInReplay)
	assert.Equal(t, 1, rc.All.OutOfOrder)
	assert.Equal(t, 500.0, rc.All.Wait.Simulated.Mean) // (1000 + 0) / 2
	assert.Equal(t, 50.0, rc.All.Wait.Recorded.Mean)
	assert.InDelta(t, 9.0, *rc.All.Wait.MeanRelativeError, 1e-12)
}

// Utilisation is over the record, [first submit, last recorded time]. A
// job still running when the record was taken (orig_status running)
// counts in waits and order, and is in use up to the record's end; the
// replay's use is taken over the same period.
func TestReplayCheckCountsAJobStillRunningInTheRecordUpToTheRecordsEnd(t *testing.T) {
	r := newReplayRun(t)
	r.job(0, 0, 0, 4, 0, 100, 0, 100, "completed")
	r.job(1, 1, 50, 4, 100, 200, 120, 300, "running") // recorded end: when the record was taken
	r.job(1, 0, 60, 4, math.NaN(), math.NaN(), 130, 140, "")
	rc := r.result()
	assert.Equal(t, [2]float64{0, 200}, rc.RecordS)
	assert.Equal(t, 2, rc.Jobs)
	assert.Equal(t, 1, rc.RunningInRecord)
	assert.Equal(t, 1, rc.NotStartedInRecord)
	// Recorded: 4 × 100 + 4 × 100 of 8 × 200. Replay: 4 × 100 + 4 × 80
	// + 4 × 10 (the job the record never started).
	assert.InDelta(t, 0.5, rc.Utilization.Recorded, 1e-12)
	assert.InDelta(t, 0.475, rc.Utilization.Simulated, 1e-12)
	b := rc.ByTeam["b"]
	assert.Equal(t, 1, b.Jobs)
	assert.Equal(t, WaitQuantiles{Mean: 50, P50: 50, P95: 50}, b.Wait.Recorded)
	assert.Equal(t, WaitQuantiles{Mean: 70, P50: 70, P95: 70}, b.Wait.Simulated)
	assert.InDelta(t, 0.4, *b.Wait.MeanRelativeError, 1e-12)
	assert.Nil(t, rc.ByTeam["a"].Wait.MeanRelativeError, "a recorded mean of 0 has no relative error")
}

// Without a recorded start there is nothing to compare.
func TestReplayCheckWithoutRecordedStartsIsNil(t *testing.T) {
	r := newReplayRun(t)
	r.job(0, 0, 0, 8, math.NaN(), math.NaN(), 0, 10, "")
	assert.Nil(t, r.result())
}

// The patience sort agrees with counting the longest non-decreasing run
// by brute force, on random orders with ties and unstarted jobs.
func TestReplayCheckSameOrderMatchesTheLongestRunByBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	for range 200 {
		n := 1 + rng.IntN(40)
		r := newReplayRun(t)
		type pair struct{ orig, sim float64 }
		var ps []pair
		for range n {
			p := pair{float64(rng.IntN(15)), float64(rng.IntN(15))}
			if rng.IntN(10) == 0 {
				p.sim = math.Inf(1)
			}
			ps = append(ps, p)
			sim := p.sim
			if math.IsInf(sim, 1) {
				sim = math.NaN()
			}
			r.job(0, 0, 0, 1, p.orig, p.orig+1, sim, sim+1, "completed")
		}
		// best[i]: the longest chain ending at i, each step later or tied
		// in both orders (equal pairs chained by index), relaxed to a
		// fixed point.
		best, want := make([]int, n), 0
		for i := range best {
			best[i] = 1
		}
		for changed := true; changed; {
			changed = false
			for i := range ps {
				for j := range ps {
					if j != i && ps[j].orig <= ps[i].orig && ps[j].sim <= ps[i].sim &&
						(ps[j].orig < ps[i].orig || ps[j].sim < ps[i].sim || j < i) && best[j]+1 > best[i] {
						best[i], changed = best[j]+1, true
					}
				}
			}
		}
		for _, b := range best {
			want = max(want, b)
		}
		assert.Equal(t, n-want, r.result().All.OutOfOrder, "%v", ps)
	}
}
