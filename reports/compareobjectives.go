package reports

import (
	"fmt"
	"strings"
)

// VariantObjective is one objective over a variant's seeds.
type VariantObjective struct {
	Objective string  `json:"objective"`
	Path      string  `json:"path"`
	Op        string  `json:"op"`
	Target    float64 `json:"target"`
	Value     Stat    `json:"value"`     // the measured value over seeds
	Met       bool    `json:"met"`       // met on every seed
	MetSeeds  int     `json:"met_seeds"` // on how many seeds it was met
	// MissedSeeds are the seeds it was not met on, in run order.
	MissedSeeds []uint64 `json:"missed_seeds"`
}

// variantObjectives gathers the objectives of a variant's runs, in the
// order the scenario lists them.
func variantObjectives(runs []*Summary) []VariantObjective {
	if len(runs) == 0 {
		return nil
	}
	var out []VariantObjective
	for i, o := range runs[0].Objectives {
		vo := VariantObjective{Objective: o.Objective, Path: o.Path, Op: o.Op, Target: o.Target, Met: true, MissedSeeds: []uint64{}}
		var xs []float64
		for _, s := range runs {
			if i >= len(s.Objectives) {
				continue
			}
			r := s.Objectives[i]
			xs = append(xs, r.Value)
			if r.Met {
				vo.MetSeeds++
			} else {
				vo.Met = false
				vo.MissedSeeds = append(vo.MissedSeeds, s.Seed)
			}
		}
		vo.Value = meanCI(BoundsOf(o.Path), xs)
		out = append(out, vo)
	}
	return out
}

// Verdict says on which of n seeds the objective was met, naming the
// seeds it missed: "met on 4 of 5 seeds; not met on seed 3".
func (o VariantObjective) Verdict(n int) string {
	switch {
	case o.Met:
		return "met"
	case n == 1:
		return "not met"
	case o.MetSeeds == 0:
		return fmt.Sprintf("not met on any of %d seeds", n)
	}
	v := fmt.Sprintf("met on %d of %d seeds", o.MetSeeds, n)
	if len(o.MissedSeeds) > 0 { // absent from comparisons written before it was recorded
		v += "; not met on " + SeedList(o.MissedSeeds)
	}
	return v
}

// SeedList names seeds in words: "seed 3", "seeds 2 and 5", "seeds 1, 2
// and 5".
func SeedList(seeds []uint64) string {
	parts := make([]string, len(seeds))
	for i, s := range seeds {
		parts[i] = fmt.Sprint(s)
	}
	if len(parts) == 1 {
		return "seed " + parts[0]
	}
	return "seeds " + strings.Join(parts[:len(parts)-1], ", ") + " and " + parts[len(parts)-1]
}
