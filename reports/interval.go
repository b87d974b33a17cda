package reports

import (
	"math"
	"strings"

	"gonum.org/v1/gonum/stat"
	"gonum.org/v1/gonum/stat/distuv"
)

// Bounds is the range a summary key's values can take.
type Bounds struct{ Lo, Hi float64 }

// BoundsOf is the range of a summary key (spec/summary.md): fractions and
// Jain's index lie in [0, 1]; a relative error of a mean is at least -1;
// every other figure (waits, counts, money, ratios) is at least 0.
func BoundsOf(path string) Bounds {
	last := path[strings.LastIndexByte(path, '.')+1:]
	switch {
	case UnitOf(path) == UnitFraction, path == "fairness.jain":
		return Bounds{0, 1}
	case last == "mean_relative_error":
		return Bounds{-1, math.Inf(1)}
	}
	return Bounds{0, math.Inf(1)}
}

// Diff is the range of the difference of two values within b.
func (b Bounds) Diff() Bounds { return Bounds{b.Lo - b.Hi, b.Hi - b.Lo} }

// Clamp cuts x to the bounds.
func (b Bounds) Clamp(x float64) float64 { return math.Min(math.Max(x, b.Lo), b.Hi) }

// MeanCI95 is the mean of xs with its Student-t 95% interval cut at the
// key's bounds, so that no interval holds a wait below 0 s or a share
// above 100% (nil for fewer than two values). Cutting loses no coverage:
// the part cut off holds no possible mean. A t-interval on a log or logit
// scale would respect the bounds too, but is undefined at the zeros these
// figures often are (a p95 wait of 0 s, no job left unstarted) and is
// centred on another mean than the one printed.
func MeanCI95(b Bounds, xs []float64) (float64, *[2]float64) {
	m, sd := stat.MeanStdDev(xs, nil)
	if len(xs) < 2 {
		return m, nil
	}
	h := distuv.StudentsT{Mu: 0, Sigma: 1, Nu: float64(len(xs) - 1)}.Quantile(0.975) * sd / math.Sqrt(float64(len(xs)))
	return m, &[2]float64{b.Clamp(m - h), b.Clamp(m + h)}
}
