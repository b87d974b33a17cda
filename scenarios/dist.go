package scenarios

import (
	"math"
	"strconv"
	"strings"

	"github.com/allot-sim/allot/workload"
)

// dist converts a distribution; durations need units when dur is true.
func (b *builder) dist(d *distYAML, where string, dur bool) (workload.Dist, error) {
	val := func(v numOrDur, key string) (float64, error) {
		at := where + "." + key
		if !v.Set {
			return 0, b.errAt(at, "required for dist %s", d.Dist)
		}
		if dur {
			x, err := ParseDuration(v.Raw)
			if err != nil {
				return 0, b.wrapAt(at, err, "%v", err)
			}
			return x, nil
		}
		x, err := strconv.ParseFloat(strings.TrimSpace(v.Raw), 64)
		if err != nil || math.IsNaN(x) {
			return 0, b.errAt(at, "expected a number, got %q", v.Raw)
		}
		return x, nil
	}
	out := workload.Dist{Kind: d.Dist, Sigma: d.Sigma}
	var err error
	switch d.Dist {
	case "fixed":
		if out.Value, err = val(d.Value, "value"); err == nil && out.Value < 0 {
			err = b.errAt(where+".value", "must be >= 0, got %s", d.Value.Raw)
		}
	case "exponential":
		if out.Mean, err = val(d.Mean, "mean"); err == nil && !(out.Mean > 0) {
			err = b.errAt(where+".mean", "must be > 0, got %s", d.Mean.Raw)
		}
	case "lognormal":
		switch out.Median, err = val(d.Median, "median"); {
		case err != nil:
		case !(out.Median > 0):
			err = b.errAt(where+".median", "must be > 0, got %s", d.Median.Raw)
		case d.Sigma < 0:
			err = b.errAt(where+".sigma", "must be >= 0, got %g", d.Sigma)
		}
	case "uniform":
		if out.Min, err = val(d.Min, "min"); err == nil && out.Min < 0 {
			err = b.errAt(where+".min", "must be >= 0, got %s", d.Min.Raw)
		} else if err == nil {
			if out.Max, err = val(d.Max, "max"); err == nil && out.Max < out.Min {
				err = b.errAt(where+".max", "must be at least min (%s), got %s", d.Min.Raw, d.Max.Raw)
			}
		}
	case "":
		return out, b.errAt(where+".dist", "required (fixed, exponential, lognormal or uniform)")
	default:
		return out, b.errAt(where+".dist", "unknown distribution %q (want fixed, exponential, lognormal or uniform)", d.Dist)
	}
	if err != nil {
		return out, err
	}
	if err := out.Validate(); err != nil {
		return out, b.wrapAt(where, err, "%v", err)
	}
	return out, nil
}
