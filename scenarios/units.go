package scenarios

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Duration is a length of time in seconds, written with a unit: 90s, 30m,
// 36h, 7d (fractions allowed: 1.5h). A bare 0 is accepted.
type Duration struct {
	Seconds float64
	Set     bool
}

func (Duration) selfChecked() {}

// ParseDuration parses a duration string with an s, m, h or d unit.
func ParseDuration(s string) (float64, error) {
	s = strings.TrimSpace(s)
	if s == "0" {
		return 0, nil
	}
	if s == "" {
		return 0, fmt.Errorf("empty duration: expected a number with a unit: s, m, h or d (e.g. 90m, 36h, 30d)")
	}
	units := map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
	u, ok := units[s[len(s)-1]]
	if !ok {
		if _, err := strconv.ParseFloat(s, 64); err == nil {
			return 0, fmt.Errorf("duration %q needs a unit: s, m, h or d (e.g. %ss, %sm, %sh or %sd)", s, s, s, s, s)
		}
		return 0, fmt.Errorf("duration %q needs a unit: s, m, h or d (e.g. 90m, 36h, 30d)", s)
	}
	v, err := strconv.ParseFloat(strings.TrimSpace(s[:len(s)-1]), 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, fmt.Errorf("duration %q is not a number followed by s, m, h or d", s)
	}
	if v < 0 {
		return 0, fmt.Errorf("duration %q is negative: expected 0 or more", s)
	}
	return v * u, nil
}

func (d *Duration) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("expected a duration like 90m, got %s", describe(n))
	}
	v, err := ParseDuration(n.Value)
	if err != nil {
		return err
	}
	d.Seconds, d.Set = v, true
	return nil
}

// Amount is a number, or a percentage written "50%".
type Amount struct {
	Value   float64 // the number, or the fraction (0.5 for 50%)
	Percent bool
	Set     bool
}

func (Amount) selfChecked() {}

var errAmount = errors.New("expected a number >= 0 or a percentage like 50%")

func (a *Amount) UnmarshalYAML(n *yaml.Node) error {
	if n.Kind != yaml.ScalarNode {
		return fmt.Errorf("%w, got %s", errAmount, describe(n))
	}
	s := strings.TrimSpace(n.Value)
	if num, ok := strings.CutSuffix(s, "%"); ok {
		v, err := strconv.ParseFloat(strings.TrimSpace(num), 64)
		if err != nil || math.IsNaN(v) {
			return fmt.Errorf("bad percentage %q: expected a number followed by %%, like 50%%", s)
		}
		if v < 0 {
			return fmt.Errorf("percentage %q is negative: expected 0%% or more", s)
		}
		a.Value, a.Percent, a.Set = v/100, true, true
		return nil
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) {
		return fmt.Errorf("%w, got %q", errAmount, s)
	}
	if v < 0 {
		return fmt.Errorf("%g is negative: %w", v, errAmount)
	}
	a.Value, a.Set = v, true
	return nil
}
