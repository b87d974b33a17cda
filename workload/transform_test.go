package workload

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func jobsAt(submits ...float64) []Job {
	var out []Job
	for i, s := range submits {
		out = append(out, Job{ID: string(rune('a' + i)), Submit: s, Team: "t", Accelerators: 2, Duration: 100,
			OrigStart: s + 5, OrigEnd: s + 105})
	}
	return out
}

func transform(t *testing.T, x Transform, jobs []Job) []Job {
	t.Helper()
	require.NoError(t, x.Check())
	out, err := ReadAll(x.Apply(NewSliceSource(jobs, nil)))
	require.NoError(t, err)
	return out
}

func TestWindowKeepsSubmitsInRangeShiftedToZeroWithOriginalTimes(t *testing.T) {
	out := transform(t, Transform{From: 100, To: 300}, jobsAt(50, 100, 250, 300, 400))
	require.Len(t, out, 2)
	assert.Equal(t, []float64{0, 150}, []float64{out[0].Submit, out[1].Submit})
	assert.Equal(t, 5.0, out[0].OrigStart, "original times shift with the window")
	assert.Equal(t, 255.0, out[1].OrigEnd)
}

func TestArrivalScaleCompressesGapsAndDropsOriginalTimes(t *testing.T) {
	out := transform(t, Transform{ArrivalScale: 2}, jobsAt(0, 100, 300))
	assert.Equal(t, []float64{0, 50, 150}, []float64{out[0].Submit, out[1].Submit, out[2].Submit})
	assert.True(t, math.IsNaN(out[1].OrigStart), "re-timed jobs no longer match the original schedule")
	assert.Equal(t, 100.0, out[1].Duration)
}

func TestSizeScaleKeepsWholeJobsWholeAndFractionsBelowOne(t *testing.T) {
	jobs := []Job{{ID: "w", Accelerators: 3, Duration: 1, Team: "t"}, {ID: "f", Accelerators: 0.4, Duration: 1, Team: "t"},
		{ID: "c", VCPUs: 4, Duration: 1, Team: "t"}, {ID: "s", Accelerators: 1, Duration: 1, Team: "t"}}
	out := transform(t, Transform{SizeScale: 0.5}, jobs)
	assert.Equal(t, 2.0, out[0].Accelerators, "1.5 rounds to 2")
	assert.Equal(t, 0.2, out[1].Accelerators)
	assert.Equal(t, 2.0, out[2].VCPUs, "CPU-only jobs scale their vCPUs")
	assert.Equal(t, 1.0, out[3].Accelerators, "never below one whole accelerator")
	out = transform(t, Transform{SizeScale: 4}, jobs)
	assert.Equal(t, 1.0, out[1].Accelerators, "a shared GPU grows to at most one")
}

func TestCopiesAndSampleChangeDemandDeterministically(t *testing.T) {
	out := transform(t, Transform{Copies: 3}, jobsAt(0, 10))
	assert.Equal(t, []string{"a", "a#2", "a#3", "b", "b#2", "b#3"}, []string{out[0].ID, out[1].ID, out[2].ID, out[3].ID, out[4].ID, out[5].ID})
	var many []float64
	for i := 0; i < 1000; i++ {
		many = append(many, float64(i))
	}
	a := transform(t, Transform{Sample: 0.3, Seed: 7}, jobsAt(many...))
	b := transform(t, Transform{Sample: 0.3, Seed: 7}, jobsAt(many...))
	assert.Equal(t, a, b, "same seed, same sample")
	assert.InDelta(t, 300, len(a), 50)
}

func TestTransformRejectsMeaninglessSettings(t *testing.T) {
	for _, x := range []Transform{{From: -1}, {From: 10, To: 5}, {ArrivalScale: -2}, {Sample: 1.5}, {Copies: -1}} {
		assert.Error(t, x.Check(), "%+v", x)
	}
}

func TestDescribeCountsWorkSizesAndArrivals(t *testing.T) {
	jobs := []Job{
		{ID: "a", Submit: 0, Team: "x", Accelerators: 8, Duration: 3600, PriorityClass: "p", OrigStart: 10, OrigEnd: 3610, OrigStatus: "completed"},
		{ID: "b", Submit: 1800, Team: "y", Accelerators: 0.5, Duration: 7200, OrigStart: math.NaN(), OrigEnd: math.NaN()},
		{ID: "c", Submit: 7200, Team: "x", VCPUs: 4, Duration: 60, OrigStart: 7300, OrigEnd: 7360, OrigStatus: "failed"},
	}
	s, err := Describe(NewSliceSource(jobs, nil), 30)
	require.NoError(t, err)
	assert.Equal(t, 3, s.Jobs)
	assert.Equal(t, 9.0, s.AcceleratorHours, "8 x 1 h + 0.5 x 2 h")
	assert.Equal(t, 1, s.CPUOnlyJobs)
	assert.Equal(t, 1, s.FractionalJobs)
	assert.Equal(t, map[string]int{"x": 2, "y": 1}, s.Teams)
	assert.Equal(t, []SizeCount{{0, 1}, {0.5, 1}, {8, 1}}, s.Sizes)
	assert.Equal(t, 600.0, s.PeriodS, "2 h span in at most 30 periods: 10 minutes")
	assert.Equal(t, 1, s.Arrivals[0])
	assert.Equal(t, 1, s.Arrivals[3])
	assert.Equal(t, 1, s.Arrivals[12])
	require.NotNil(t, s.Orig)
	assert.Equal(t, 2, s.Orig.Jobs)
	assert.Equal(t, 55.0, s.Orig.Wait.Mean)
	assert.Equal(t, map[string]int{"completed": 1, "failed": 1}, s.Orig.Statuses)
	assert.Equal(t, 3600.0, s.Duration.P50)
}

func TestParquetTraceKeepsAnOriginalStartAtTimeZero(t *testing.T) {
	p := t.TempDir() + "/a.parquet"
	w, err := CreateTrace(p, nil)
	require.NoError(t, err)
	require.NoError(t, w.Write(&Job{ID: "a", Team: "t", Accelerators: 1, Duration: 5, OrigStart: 0, OrigEnd: 5}))
	require.NoError(t, w.Write(&Job{ID: "b", Team: "t", Accelerators: 1, Duration: 5, OrigStart: math.NaN(), OrigEnd: math.NaN()}))
	require.NoError(t, w.Close())
	r, err := OpenTrace(p, TraceOptions{})
	require.NoError(t, err)
	defer r.Close()
	jobs, err := ReadAll(r)
	require.NoError(t, err)
	assert.Equal(t, 0.0, jobs[0].OrigStart, "0 is a time, not a missing value")
	assert.True(t, math.IsNaN(jobs[1].OrigStart))
}
