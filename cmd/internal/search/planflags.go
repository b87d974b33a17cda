package search

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/hardware"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim/planner"
)

// readPrices sets every fleet type's price per node-hour: --price, else
// on-demand less --discount, blended with the spot share.
func (pl *Planner) readPrices(f *PlanOptions) error {
	given := map[string]float64{}
	for _, p := range f.Prices {
		typ, usd, ok := strings.Cut(p, "=")
		v, err := parseFloat(usd)
		if !ok || err != nil || v < 0 {
			return fmt.Errorf("--price %q: want TYPE=USD per node-hour, e.g. p5.48xlarge=38.5", p)
		}
		if _, ok := pl.base.Catalog.Lookup(typ); !ok {
			return fmt.Errorf("--price %q: unknown instance type %q", p, typ)
		}
		given[typ] = v
	}
	off := 0.0
	if f.Discount != "" {
		var err error
		if off, err = parsePercent("--discount", f.Discount); err != nil {
			return err
		}
	}
	spotOff, err := pl.readSpot(f)
	if err != nil {
		return err
	}
	for _, t := range pl.base.Fleet.Types() {
		od, basis := t.PricePerHour, "on-demand"
		if !t.Priced {
			od, basis = 0, "unpriced"
		}
		if v, ok := given[t.Name]; ok {
			od, basis = v, "--price"
		} else if off > 0 && t.Priced {
			od, basis = od*(1-off), fmt.Sprintf("on-demand less %s", f.Discount)
		}
		price := od
		if pl.spot > 0 && t.Priced {
			spot := t.PricePerHour * (1 - spotOff)
			price = (1-pl.spot)*od + pl.spot*spot
			basis += fmt.Sprintf(", %s spot at %s off", f.SpotShare, f.SpotOff)
		}
		pl.price[t.Name] = price
		pl.prices = append(pl.prices, reports.PlanPrice{Type: t.Name, PerNodeHour: price, Basis: basis})
		if basis == "unpriced" {
			pl.warnings = append(pl.warnings, fmt.Sprintf("%s has no price: its nodes add nothing to the cost", t.Name))
		}
	}
	return nil
}

// readSpot reads the spot share, its interruptions, and its discount,
// which it returns.
func (pl *Planner) readSpot(f *PlanOptions) (spotOff float64, err error) {
	if f.SpotShare == "" {
		return 0, nil
	}
	if pl.spot, err = parsePercent("--spot-share", f.SpotShare); err != nil {
		return 0, err
	}
	if f.SpotOff == "" || f.SpotMTBF == "" {
		return 0, fmt.Errorf("--spot-share needs --spot-discount (its price) and --spot-interruptions (its interruption rate)")
	}
	if spotOff, err = parsePercent("--spot-discount", f.SpotOff); err != nil {
		return 0, err
	}
	mtbf, err := scenarios.ParseDuration(f.SpotMTBF)
	if err != nil || mtbf <= 0 {
		return 0, fmt.Errorf("--spot-interruptions %q: want the mean time between interruptions of a node, e.g. 20d", f.SpotMTBF)
	}
	repl, err := scenarios.ParseDuration(f.SpotReplace)
	if err != nil || repl < 0 {
		return 0, fmt.Errorf("--spot-replace %q: want a duration, e.g. 1h", f.SpotReplace)
	}
	pl.spotFail = hardware.Failures{MTBF: mtbf, Repair: repl}
	return spotOff, nil
}

func parseFloat(s string) (float64, error) {
	var v float64
	_, err := fmt.Sscanf(s, "%g", &v)
	return v, err
}

// parseVary reads TYPE=MIN..MAX[/STEP].
func parseVary(s string) (planner.Dim, error) {
	typ, rng, ok := strings.Cut(s, "=")
	if !ok || typ == "" {
		return planner.Dim{}, fmt.Errorf("--vary %q: want TYPE=MIN..MAX or TYPE=MIN..MAX/STEP", s)
	}
	step := 1
	if r, st, ok := strings.Cut(rng, "/"); ok {
		n, err := strconv.Atoi(st)
		if err != nil || n < 1 {
			return planner.Dim{}, fmt.Errorf("--vary %q: step %q is not a whole number >= 1", s, st)
		}
		rng, step = r, n
	}
	lo, hi, ok := strings.Cut(rng, "..")
	a, errA := strconv.Atoi(lo)
	b, errB := strconv.Atoi(hi)
	if !ok || errA != nil || errB != nil {
		return planner.Dim{}, fmt.Errorf("--vary %q: want TYPE=MIN..MAX with whole node counts", s)
	}
	if a < 0 || b < a {
		return planner.Dim{}, fmt.Errorf("--vary %q: want 0 <= MIN <= MAX", s)
	}
	if (b-a)%step != 0 {
		return planner.Dim{}, fmt.Errorf("--vary %q: MAX - MIN (%d) is not a multiple of the step %d", s, b-a, step)
	}
	return planner.Dim{Type: typ, Min: a, Max: b, Step: step}, nil
}

// parsePercent reads "15%" as 0.15.
func parsePercent(flag, s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
	if !strings.HasSuffix(s, "%") || err != nil || v < 0 || v > 100 {
		return 0, fmt.Errorf("%s %q: want a percentage from 0%% to 100%%, e.g. 15%%", flag, s)
	}
	return v / 100, nil
}

// demandScales reads --demand-growth and --quarters, or --demand-scales.
func demandScales(f *PlanOptions) ([]float64, string, error) {
	switch {
	case f.Growth != "" && f.Scales != "":
		return nil, "", fmt.Errorf("--demand-growth and --demand-scales: give one or the other")
	case f.Growth != "":
		rate, per, _ := strings.Cut(f.Growth, "/")
		if per != "" && per != "quarter" {
			return nil, "", fmt.Errorf("--demand-growth %q: want a percentage per quarter, e.g. 15%%/quarter", f.Growth)
		}
		g, err := strconv.ParseFloat(strings.TrimSuffix(rate, "%"), 64)
		if !strings.HasSuffix(rate, "%") || err != nil || g <= -100 {
			return nil, "", fmt.Errorf("--demand-growth %q: want a percentage per quarter, e.g. 15%%/quarter", f.Growth)
		}
		if f.Quarters < 1 {
			return nil, "", fmt.Errorf("--quarters: must be at least 1, got %d", f.Quarters)
		}
		out := make([]float64, f.Quarters+1)
		for q := range out {
			out[q] = math.Pow(1+g/100, float64(q))
		}
		return out, fmt.Sprintf("%s per quarter over %d quarters", rate, f.Quarters), nil
	case f.Scales != "":
		var out []float64
		for _, p := range strings.Split(f.Scales, ",") {
			v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
			if err != nil || !(v > 0) {
				return nil, "", fmt.Errorf("--demand-scales %q: %q is not a positive number", f.Scales, p)
			}
			out = append(out, v)
		}
		return out, "demand scales " + f.Scales, nil
	}
	return nil, "", nil
}
