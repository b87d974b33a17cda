package workload

import (
	"errors"
	"io"
	"math"
	"testing"
)

func drain(t *testing.T, s Source) []Job {
	t.Helper()
	var out []Job
	for {
		j, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, j)
	}
}

func mustChoices(t *testing.T, v, w []float64) Choices {
	c, err := NewChoices(v, w)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestSyntheticWorkloadIsDeterministicPerSeed(t *testing.T) {
	s := &Synthetic{Until: 10 * 86400, Classes: []Class{
		{Name: "a", Team: "t", Arrival: Arrival{RatePerHour: 5}, Duration: Dist{Kind: "exponential", Mean: 3600}, Accelerators: mustChoices(t, []float64{1, 8}, []float64{3, 1})},
		{Name: "b", Team: "u", Arrival: Arrival{RatePerHour: 2}, Duration: Fixed(60), Accelerators: mustChoices(t, []float64{4}, nil)},
	}}
	a, b, c := drain(t, s.Source(7)), drain(t, s.Source(7)), drain(t, s.Source(8))
	if len(a) != len(b) || len(a) == 0 {
		t.Fatal("lengths differ")
	}
	for i := range a {
		if a[i].ID != b[i].ID || a[i].Submit != b[i].Submit || a[i].Duration != b[i].Duration || a[i].Accelerators != b[i].Accelerators {
			t.Fatalf("job %d differs between runs of one seed", i)
		}
	}
	if len(c) == len(a) && c[0].Submit == a[0].Submit {
		t.Error("another seed gave the same workload")
	}
	for i := 1; i < len(a); i++ {
		if a[i].Submit < a[i-1].Submit {
			t.Fatal("arrivals out of order")
		}
	}
}

func TestPoissonArrivalsMatchTheirRateAndTheProfile(t *testing.T) {
	hourly := make([]float64, 24)
	for h := range hourly {
		hourly[h] = 0.5
		if h >= 9 && h < 17 {
			hourly[h] = 2
		}
	}
	s := &Synthetic{Until: 200 * 86400, Classes: []Class{
		{Name: "a", Team: "t", Arrival: Arrival{RatePerHour: 10, Hourly: hourly}, Duration: Fixed(1), Accelerators: mustChoices(t, []float64{1}, nil)},
	}}
	jobs := drain(t, s.Source(1))
	day, night := 0, 0
	for _, j := range jobs {
		if h := int(math.Mod(j.Submit/3600, 24)); h >= 9 && h < 17 {
			day++
		} else {
			night++
		}
	}
	// Expected per day: 8 h × 20 + 16 h × 5 = 240.
	if got := float64(len(jobs)) / 200; math.Abs(got-240)/240 > 0.02 {
		t.Errorf("%.1f arrivals a day, want 240 ± 2%%", got)
	}
	if r := float64(day) / float64(night); math.Abs(r-2) > 0.1 {
		t.Errorf("day/night arrivals %.2f, want 2 (160/80)", r)
	}
}

func TestDurationDistributionsHaveTheirMeans(t *testing.T) {
	for _, d := range []Dist{{Kind: "exponential", Mean: 100}, {Kind: "lognormal", Median: 100, Sigma: 0.5}, {Kind: "uniform", Min: 50, Max: 150}, Fixed(100)} {
		r := StreamSeed(3, d.Kind)
		sum := 0.0
		n := 200000
		for i := 0; i < n; i++ {
			sum += d.Sample(r)
		}
		if m := sum / float64(n); math.Abs(m-d.MeanValue())/d.MeanValue() > 0.01 {
			t.Errorf("%s: mean %.2f, want %.2f", d.Kind, m, d.MeanValue())
		}
	}
}
