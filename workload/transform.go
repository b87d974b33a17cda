package workload

import (
	"fmt"
	"io"
	"math"
	"math/rand/v2"
)

// Transform reshapes a trace for what-if questions ("twice the demand",
// "only the busy month"). Zero values leave a property alone.
type Transform struct {
	// From and To keep jobs submitted in [From, To) and shift every time
	// by -From; To <= 0 means no end.
	From, To float64
	// ArrivalScale > 1 compresses the gaps between arrivals by that factor
	// (2 = twice the arrival rate over half the time).
	ArrivalScale float64
	// SizeScale multiplies each job's accelerators (CPU-only jobs: their
	// vCPUs); whole-accelerator jobs stay whole (rounded, at least 1).
	SizeScale float64
	// DurationScale multiplies running times.
	DurationScale float64
	// Copies > 1 submits each job that many times (IDs get #2, #3, ...).
	Copies int
	// Sample in (0, 1) keeps each job with that probability (Seed fixes
	// which).
	Sample float64
	Seed   uint64
}

// Check rejects meaningless settings.
func (t *Transform) Check() error {
	switch {
	case t.From < 0:
		return fmt.Errorf("window start %g is negative", t.From)
	case t.To > 0 && t.To <= t.From:
		return fmt.Errorf("window end %g is not after its start %g", t.To, t.From)
	case t.ArrivalScale < 0 || t.SizeScale < 0 || t.DurationScale < 0:
		return fmt.Errorf("scale factors must be positive")
	case t.Copies < 0:
		return fmt.Errorf("copies must be at least 1")
	case t.Sample < 0 || t.Sample > 1:
		return fmt.Errorf("sample must be in (0, 1], got %g", t.Sample)
	}
	return nil
}

// RetimesOriginal says whether original start/end times stop meaning
// anything after the transform (they are then dropped).
func (t *Transform) RetimesOriginal() bool {
	return (t.ArrivalScale > 0 && t.ArrivalScale != 1) || (t.DurationScale > 0 && t.DurationScale != 1) ||
		(t.SizeScale > 0 && t.SizeScale != 1) || t.Copies > 1
}

// Apply wraps a source with the transform; the result streams.
func (t Transform) Apply(src Source) Source {
	x := &transformed{src: src, t: t}
	if t.Sample > 0 && t.Sample < 1 {
		x.rng = StreamSeed(t.Seed, "transform-sample")
	}
	return x
}

type transformed struct {
	src     Source
	t       Transform
	rng     *rand.Rand
	pending []Job
	done    bool
}

func (x *transformed) ExtraColumns() []string { return x.src.ExtraColumns() }
func (x *transformed) Close() error           { return x.src.Close() }

func (x *transformed) Next() (Job, error) {
	for len(x.pending) == 0 {
		if x.done {
			return Job{}, io.EOF
		}
		j, err := x.src.Next()
		if err == io.EOF {
			x.done = true
			continue
		}
		if err != nil {
			return j, err
		}
		if j.Submit < x.t.From {
			continue
		}
		if x.t.To > 0 && j.Submit >= x.t.To {
			x.done = true // the source is in submit order
			continue
		}
		if x.rng != nil && x.rng.Float64() >= x.t.Sample {
			continue
		}
		x.reshape(&j)
		n := max(1, x.t.Copies)
		for k := 1; k <= n; k++ {
			c := j
			if k > 1 {
				c.ID = fmt.Sprintf("%s#%d", j.ID, k)
			}
			x.pending = append(x.pending, c)
		}
	}
	j := x.pending[0]
	x.pending = x.pending[1:]
	return j, nil
}

func (x *transformed) reshape(j *Job) {
	t := &x.t
	shift := func(v float64) float64 { return v - t.From }
	j.Submit = shift(j.Submit)
	j.OrigStart, j.OrigEnd = shift(j.OrigStart), shift(j.OrigEnd)
	if t.ArrivalScale > 0 {
		j.Submit /= t.ArrivalScale
	}
	if t.DurationScale > 0 {
		j.Duration *= t.DurationScale
	}
	if t.SizeScale > 0 {
		switch {
		case j.Accelerators == 0:
			j.VCPUs *= t.SizeScale
		case j.Accelerators >= 1:
			j.Accelerators = math.Max(1, math.Round(j.Accelerators*t.SizeScale))
		default:
			j.Accelerators = math.Min(1, j.Accelerators*t.SizeScale)
		}
	}
	if t.RetimesOriginal() {
		j.OrigStart, j.OrigEnd = math.NaN(), math.NaN()
	}
}
