package export

import (
	"testing"
	"time"

	"github.com/allot-sim/allot/workload"
)

// The handoff is the mean gap from a Finished to the reservation of a
// Workload that waited for it; admissions on arrival, gaps over 10 s and
// a record with fewer than 10 gaps measure nothing.
func TestKueueHandoffIsTheMedianGapFromAFinishToAWaitingAdmission(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	var recs []jobRecord
	// Eleven turnovers: job i finishes at 100i; a job created at 100i-50
	// waits for it and is reserved gap_i later.
	gaps := []float64{0, 1, 1, 1, 2, 2, 2, 2, 3, 3, 4}
	for i, g := range gaps {
		end := 100 * float64(i+1)
		recs = append(recs, jobRecord{job: workload.Job{OrigStatus: "completed"}, created: at(end - 90), start: at(end - 80), end: at(end)})
		recs = append(recs, jobRecord{job: workload.Job{OrigStatus: "running"}, created: at(end - 50), start: at(end + g), end: at(5000)})
	}
	// Noise that must not count: admitted on arrival, and a 30 s gap.
	recs = append(recs, jobRecord{job: workload.Job{OrigStatus: "completed"}, created: at(2000), start: at(2000), end: at(2010)},
		jobRecord{job: workload.Job{OrigStatus: "running"}, created: at(2001), start: at(2040), end: at(5000)})
	if got, want := handoff(recs), 21*time.Second/11; got != want {
		t.Errorf("handoff = %v, want the mean gap %v", got, want)
	}
	if got := handoff(recs[:18]); got != 0 {
		t.Errorf("handoff of 9 turnovers = %v, want 0 (too few to measure)", got)
	}
}
