package reports

import (
	"strings"
	"testing"

	"gonum.org/v1/plot"
)

func labels(ts []plot.Tick) string {
	var out []string
	for _, t := range ts {
		if t.Label != "" {
			out = append(out, t.Label)
		}
	}
	return strings.Join(out, " ")
}

func TestTickLabelsHaveNoNeedlessDecimals(t *testing.T) {
	for _, c := range []struct {
		name   string
		ticks  plot.Ticker
		lo, hi float64
		want   string
	}{
		{"sixty days", linearTicks{Target: 10}, 0, 60, "0 10 20 30 40 50 60"},
		{"a week", linearTicks{Target: 10}, 0, 7, "0 1 2 3 4 5 6 7"},
		{"a day in hours", linearTicks{Target: 10, Steps: []float64{1, 2, 3, 6, 12, 24}}, 0, 24, "0 3 6 9 12 15 18 21 24"},
		{"half days", linearTicks{Target: 5}, 0, 2, "0 0.5 1 1.5 2"},
		{"fractions", linearTicks{Target: 5}, 0, 1, "0 0.2 0.4 0.6 0.8 1"},
		{"utilisation", linearTicks{Target: 5, Suffix: "%"}, 0, 100, "0% 20% 40% 60% 80% 100%"},
		{"accelerators", linearTicks{Target: 5}, 0, 1500, "0 500 1000 1500"},
		{"thousands alike", linearTicks{Target: 5}, 0, 25000, "0 5,000 10,000 15,000 20,000 25,000"},
		{"off zero", linearTicks{Target: 5}, 3.2, 9.9, "4 6 8"},
		{"hours, log", logTicks{}, -2, 3, "0.01 0.1 1 10 100 1000"},
		{"jobs, log", logTicks{}, -1, 5, "0.1 1 10 100 1,000 10,000 100,000"},
		{"under a decade", logTicks{}, 0.1, 0.9, "2 5"},
		{"a minute to hours", logTicks{}, -1.78, 0.8, "0.02 0.05 0.1 0.2 0.5 1 2 5"},
	} {
		if got := labels(c.ticks.Ticks(c.lo, c.hi)); got != c.want {
			t.Errorf("%s: ticks %q, want %q", c.name, got, c.want)
		}
	}
}

func TestFmtTickRoundsToTheStepAndTrimsZeros(t *testing.T) {
	for _, c := range []struct {
		v, step float64
		want    string
	}{
		{10, 10, "10"}, {2.5, 0.5, "2.5"}, {3, 0.5, "3"}, {0.30000000000000004, 0.1, "0.3"},
		{-1e-12, 0.1, "0"}, {0.05, 0.05, "0.05"}, {7, 1, "7"},
	} {
		if got := fmtTick(c.v, c.step); got != c.want {
			t.Errorf("fmtTick(%v, %v) = %q, want %q", c.v, c.step, got, c.want)
		}
	}
}

func TestNiceStepsAreOneTwoOrFiveTimesAPowerOfTen(t *testing.T) {
	for _, c := range []struct {
		span   float64
		target int
		want   float64
	}{{60, 10, 10}, {7, 10, 1}, {100, 5, 20}, {1, 5, 0.2}, {1234, 5, 500}, {0.03, 5, 0.01}} {
		if got := niceStep(c.span, c.target); got != c.want {
			t.Errorf("niceStep(%v, %d) = %v, want %v", c.span, c.target, got, c.want)
		}
	}
}
