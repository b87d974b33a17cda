package reports

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot/vg"
)

// palette is a qualitative palette of 24 colours, picked greedily in OKLab
// (each the sRGB colour farthest from those already taken), from colours of
// lightness 0.45 to 0.76 and chroma 0.07 to 0.19, with white, black and two
// greys taken from the start: dark enough to read on white, never grey
// (greys are for reference lines) and never neon. Earlier entries are the
// farthest apart, so small fleets get the most distinct colours.
var palette = []color.NRGBA{
	{0x26, 0x66, 0xcc, 0xff}, // blue
	{0xd9, 0x40, 0x4d, 0xff}, // red
	{0x26, 0x99, 0x1a, 0xff}, // green
	{0xe6, 0x80, 0xf2, 0xff}, // pink
	{0x8c, 0x1a, 0x80, 0xff}, // purple
	{0xff, 0x8c, 0x00, 0xff}, // orange
	{0xa6, 0xbf, 0x1a, 0xff}, // lime
	{0x00, 0xa6, 0xff, 0xff}, // sky
	{0x00, 0xcc, 0xb3, 0xff}, // turquoise
	{0x99, 0x26, 0x00, 0xff}, // rust
	{0x99, 0x59, 0xcc, 0xff}, // violet
	{0x26, 0x66, 0x00, 0xff}, // forest
	{0xa6, 0x73, 0x00, 0xff}, // ochre
	{0xff, 0x80, 0x99, 0xff}, // salmon
	{0x00, 0x8c, 0xa6, 0xff}, // teal
	{0xa6, 0xa6, 0xf2, 0xff}, // lavender
	{0xd9, 0x59, 0xa6, 0xff}, // rose
	{0x66, 0x33, 0xb3, 0xff}, // indigo
	{0xa6, 0x4d, 0x80, 0xff}, // plum
	{0x80, 0x80, 0xff, 0xff}, // periwinkle
	{0x40, 0xa6, 0x80, 0xff}, // sea green
	{0xbf, 0x99, 0x26, 0xff}, // gold
	{0x1a, 0x59, 0x8c, 0xff}, // navy
	{0x26, 0x80, 0x59, 0xff}, // jade
}

// otherOrder picks colours for series that are not teams (instance types,
// priority classes, measures) from the palette's tail, far apart among
// themselves, so that in fleets of up to a dozen teams they never wear a
// team's colour.
var otherOrder = []int{22, 21, 18, 23, 14, 17}

// Inks for reference lines (fleet, installed, peak): neutral, so they never
// read as a team.
var (
	inkBlack = color.NRGBA{0x1d, 0x23, 0x30, 0xff}
	inkGrey  = color.NRGBA{0x6b, 0x72, 0x80, 0xff}
	bandGrey = color.NRGBA{0xe4, 0xe6, 0xea, 0xff}
	white    = color.NRGBA{0xff, 0xff, 0xff, 0xff}
)

// dashCycles tell apart series whose colour repeats once the palette runs
// out: the first round is solid, later rounds dashed.
var dashCycles = [][]vg.Length{
	nil,
	{vg.Points(6), vg.Points(3)},
	{vg.Points(2), vg.Points(2)},
	{vg.Points(8), vg.Points(3), vg.Points(2), vg.Points(3)},
}

// look is how one series is told apart: a colour and, past the palette, a
// dash pattern.
type look struct {
	colour color.NRGBA
	dashes []vg.Length
}

// teamLook is the i-th team's look; a team keeps it in every chart.
func teamLook(i int) look {
	n := len(palette)
	return look{colour: palette[i%n], dashes: dashCycles[(i/n)%len(dashCycles)]}
}

// variantLook is the i-th variant's look in a comparison (no team is drawn
// in colour there).
func variantLook(i int) look { return teamLook(i) }

// otherLook is the i-th non-team series' look.
func otherLook(i int) look {
	if i < len(otherOrder) {
		return look{colour: palette[otherOrder[i]]}
	}
	return teamLook(i - len(otherOrder))
}

// teamLooks maps each team, in scenario order, to its look.
func teamLooks(teams []string) map[string]look {
	m := make(map[string]look, len(teams))
	for i, t := range teams {
		m[t] = teamLook(i)
	}
	return m
}

func hexColour(c color.Color) string {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	return fmt.Sprintf("#%02x%02x%02x", n.R, n.G, n.B)
}
