package reports

import (
	"math"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
)

// linearTicks puts about Target labelled ticks on 1, 2 or 5 × 10^k steps
// (or the smallest of Steps that will do, such as 6 and 12 for hours) and
// writes each without needless decimals (0, 10, 20; 0.5, 1, 1.5).
type linearTicks struct {
	Target int
	Suffix string // e.g. "%"
	Steps  []float64
}

// niceStep is the smallest 1, 2 or 5 × 10^k step that cuts span into at
// most target pieces.
func niceStep(span float64, target int) float64 {
	if span <= 0 || math.IsInf(span, 0) || math.IsNaN(span) || target < 1 {
		return 1
	}
	raw := span / float64(target)
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-9) {
			return m * mag
		}
	}
	return 10 * mag
}

func (t linearTicks) Ticks(lo, hi float64) []plot.Tick {
	target := t.Target
	if target <= 0 {
		target = 5
	}
	step := niceStep(hi-lo, target)
	for _, s := range t.Steps {
		if s*float64(target) >= (hi-lo)*(1-1e-9) {
			step = s
			break
		}
	}
	var out []plot.Tick
	// Multiples of the step, not running sums, so labels stay exact.
	for i := math.Ceil(lo/step - 1e-9); i*step <= hi+step*1e-9; i++ {
		v := i * step
		out = append(out, plot.Tick{Value: v, Label: fmtTick(v, step)})
	}
	if len(out) > 0 {
		groupLabels(out, math.Max(math.Abs(out[0].Value), math.Abs(out[len(out)-1].Value)) >= 1e4)
	}
	for i := range out {
		out[i].Label += t.Suffix
	}
	return out
}

// groupLabels groups thousands in every label of an axis that reaches
// 10,000 (big), so its labels stay alike: 5,000 beside 10,000, not 5000.
func groupLabels(ts []plot.Tick, big bool) {
	if big {
		for i := range ts {
			ts[i].Label = groupThousands(ts[i].Label)
		}
	}
}

// fmtTick writes v with as many decimals as the step needs, then drops
// trailing zeros.
func fmtTick(v, step float64) string {
	dec := 0
	if step > 0 && step < 1 {
		dec = int(math.Ceil(-math.Log10(step) - 1e-9))
	}
	v = math.Round(v*math.Pow(10, float64(dec))) / math.Pow(10, float64(dec))
	if v == 0 {
		v = 0 // no "-0"
	}
	s := strconv.FormatFloat(v, 'f', dec, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// groupThousands puts commas between the thousands of a number's whole
// part.
func groupThousands(s string) string {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac, hasFrac := strings.Cut(s, ".")
	if len(whole) > 3 {
		var b strings.Builder
		for i, r := range whole {
			if i > 0 && (len(whole)-i)%3 == 0 {
				b.WriteByte(',')
			}
			b.WriteRune(r)
		}
		whole = b.String()
	}
	if neg {
		whole = "-" + whole
	}
	if hasFrac {
		return whole + "." + frac
	}
	return whole
}

// logTicks marks a linear axis whose values are powers of ten (a value v
// stands for 10^v): gonum's own log scale places axis labels at the
// arithmetic midpoint and squeezes the data area, so log charts plot
// log10 of their data instead. The powers of ten are labelled (and 2 and 5
// times them when the range holds fewer than three powers), with
// unlabelled minor ticks between.
type logTicks struct{}

func (logTicks) Ticks(lo, hi float64) []plot.Tick {
	if !(hi > lo) || math.IsInf(lo, 0) || math.IsInf(hi, 0) {
		return nil
	}
	k0, k1 := int(math.Floor(lo)), int(math.Ceil(hi))
	powers := 0
	for k := k0; k <= k1; k++ {
		if v := float64(k); v >= lo-1e-9 && v <= hi+1e-9 {
			powers++
		}
	}
	var out []plot.Tick
	for k := k0; k <= k1; k++ {
		p := math.Pow(10, float64(k))
		for m := 1; m <= 9; m++ {
			e := float64(k) + math.Log10(float64(m))
			if e < lo-1e-9 || e > hi+1e-9 {
				continue
			}
			label := ""
			if m == 1 || (powers < 3 && (m == 2 || m == 5)) {
				label = fmtTick(float64(m)*p, p)
			}
			out = append(out, plot.Tick{Value: e, Label: label})
		}
	}
	groupLabels(out, hi >= 4-1e-9)
	return out
}

// log10At is log10(max(v, floor)), where log charts put a value.
func log10At(v, floor float64) float64 { return math.Log10(math.Max(v, floor)) }
