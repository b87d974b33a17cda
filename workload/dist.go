package workload

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// Dist is a distribution of positive values (durations in seconds, or
// dimensionless factors).
type Dist struct {
	Kind   string  // fixed | exponential | lognormal | uniform
	Value  float64 // fixed
	Mean   float64 // exponential
	Median float64 // lognormal
	Sigma  float64 // lognormal
	Min    float64 // uniform
	Max    float64 // uniform
}

// Fixed returns a distribution that always gives v.
func Fixed(v float64) Dist { return Dist{Kind: "fixed", Value: v} }

// Validate checks the parameters of a distribution.
func (d Dist) Validate() error {
	switch d.Kind {
	case "fixed":
		if d.Value < 0 || math.IsNaN(d.Value) {
			return fmt.Errorf("fixed value must be >= 0, got %g", d.Value)
		}
	case "exponential":
		if !(d.Mean > 0) {
			return fmt.Errorf("exponential mean must be > 0, got %g", d.Mean)
		}
	case "lognormal":
		if !(d.Median > 0) || d.Sigma < 0 {
			return fmt.Errorf("lognormal needs median > 0 and sigma >= 0, got median %g sigma %g", d.Median, d.Sigma)
		}
	case "uniform":
		if d.Min < 0 || d.Max < d.Min {
			return fmt.Errorf("uniform needs 0 <= min <= max, got min %g max %g", d.Min, d.Max)
		}
	default:
		return fmt.Errorf("unknown distribution %q (want fixed, exponential, lognormal or uniform)", d.Kind)
	}
	return nil
}

// Sample draws one value.
func (d Dist) Sample(r *rand.Rand) float64 {
	switch d.Kind {
	case "exponential":
		return r.ExpFloat64() * d.Mean
	case "lognormal":
		return d.Median * math.Exp(d.Sigma*r.NormFloat64())
	case "uniform":
		return d.Min + (d.Max-d.Min)*r.Float64()
	}
	return d.Value
}

// Mean returns the expected value.
func (d Dist) MeanValue() float64 {
	switch d.Kind {
	case "exponential":
		return d.Mean
	case "lognormal":
		return d.Median * math.Exp(d.Sigma*d.Sigma/2)
	case "uniform":
		return (d.Min + d.Max) / 2
	}
	return d.Value
}

// Choices is a weighted choice among values; one value means fixed.
type Choices struct {
	Values  []float64
	Weights []float64
	cum     []float64
}

// NewChoices validates and prepares a weighted choice.
func NewChoices(values, weights []float64) (Choices, error) {
	if len(values) == 0 {
		return Choices{}, fmt.Errorf("choices: at least one value is required")
	}
	if weights == nil {
		weights = make([]float64, len(values))
		for i := range weights {
			weights[i] = 1
		}
	}
	if len(weights) != len(values) {
		return Choices{}, fmt.Errorf("choices: %d values but %d weights", len(values), len(weights))
	}
	c := Choices{Values: values, Weights: weights}
	total := 0.0
	for i, w := range weights {
		if w < 0 || math.IsNaN(w) {
			return Choices{}, fmt.Errorf("choices: weight %d is %g, must be >= 0", i, w)
		}
		total += w
		c.cum = append(c.cum, total)
	}
	if total <= 0 {
		return Choices{}, fmt.Errorf("choices: weights sum to zero")
	}
	return c, nil
}

// Sample draws one value.
func (c *Choices) Sample(r *rand.Rand) float64 {
	if len(c.Values) == 1 {
		return c.Values[0]
	}
	u := r.Float64() * c.cum[len(c.cum)-1]
	for i, x := range c.cum {
		if u < x {
			return c.Values[i]
		}
	}
	return c.Values[len(c.Values)-1]
}

// MeanValue returns the expected value.
func (c *Choices) MeanValue() float64 {
	s, w := 0.0, 0.0
	for i, v := range c.Values {
		s += v * c.Weights[i]
		w += c.Weights[i]
	}
	return s / w
}
