package reports

import (
	"image/color"
	"math"
	"testing"
)

// oklab converts sRGB to OKLab, where Euclidean distance follows how far
// apart people see two colours.
func oklab(c color.NRGBA) [3]float64 {
	lin := func(u uint8) float64 {
		x := float64(u) / 255
		if x <= 0.04045 {
			return x / 12.92
		}
		return math.Pow((x+0.055)/1.055, 2.4)
	}
	r, g, b := lin(c.R), lin(c.G), lin(c.B)
	l := math.Cbrt(0.4122214708*r + 0.5363325363*g + 0.0514459929*b)
	m := math.Cbrt(0.2119034982*r + 0.6806995451*g + 0.1073969566*b)
	s := math.Cbrt(0.0883024619*r + 0.2817188376*g + 0.6299787005*b)
	return [3]float64{0.2104542553*l + 0.7936177850*m - 0.0040720468*s,
		1.9779984951*l - 2.4285922050*m + 0.4505937099*s,
		0.0259040371*l + 0.7827717662*m - 0.8086757660*s}
}

func okDist(a, b color.NRGBA) float64 {
	x, y := oklab(a), oklab(b)
	return math.Sqrt((x[0]-y[0])*(x[0]-y[0]) + (x[1]-y[1])*(x[1]-y[1]) + (x[2]-y[2])*(x[2]-y[2]))
}

// Twenty teams get twenty colours that people tell apart: no two closer
// than 0.1 in OKLab (about ten CIELAB units), none close to the white
// page or to the neutral inks of reference lines.
func TestThePaletteHoldsTwentyWellSeparatedColours(t *testing.T) {
	if len(palette) < 20 {
		t.Fatalf("%d colours, want at least 20", len(palette))
	}
	const minDist = 0.10
	for i := range palette {
		for j := i + 1; j < len(palette); j++ {
			if d := okDist(palette[i], palette[j]); d < minDist {
				t.Errorf("colours %d %s and %d %s are %.3f apart, want >= %.2f", i, hexColour(palette[i]), j, hexColour(palette[j]), d, minDist)
			}
		}
		for _, n := range []color.NRGBA{white, inkBlack, inkGrey, bandGrey} {
			if d := okDist(palette[i], n); d < 0.07 {
				t.Errorf("colour %d %s is %.3f from neutral %s", i, hexColour(palette[i]), d, hexColour(n))
			}
		}
	}
}

func TestTeamsPastThePaletteKeepApartByDashes(t *testing.T) {
	seen := map[string]bool{}
	for i := range 3 * len(palette) {
		lk := teamLook(i)
		key := hexColour(lk.colour) + " " + fmtLengths(lk)
		if seen[key] {
			t.Fatalf("team %d looks like an earlier team (%s)", i, key)
		}
		seen[key] = true
	}
	if teamLook(0).dashes != nil || teamLook(len(palette)).dashes == nil {
		t.Error("the palette's first round should be solid and the second dashed")
	}
}

func fmtLengths(lk look) string {
	s := ""
	for _, d := range lk.dashes {
		s += " " + fmtTick(float64(d), 1)
	}
	return s
}

// Instance types, priority classes and measures take colours from the
// palette's tail, far apart among themselves.
func TestOtherSeriesColoursAreFarApart(t *testing.T) {
	for i := range 4 {
		for j := i + 1; j < 4; j++ {
			if d := okDist(otherLook(i).colour, otherLook(j).colour); d < 0.15 {
				t.Errorf("other colours %d and %d are %.3f apart", i, j, d)
			}
		}
	}
}
