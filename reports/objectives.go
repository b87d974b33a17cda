package reports

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
)

// Lookup finds a value in the summary by a dotted path of its JSON keys,
// e.g. "by_priority_class.production.wait_s.p95".
func Lookup(s *Summary, path string) (float64, error) {
	if strings.Contains(path, "*") {
		return 0, fmt.Errorf("%s: a wildcard path names several values; use LookupAll", path)
	}
	vs, err := LookupAll(s, path)
	if err != nil {
		return 0, err
	}
	return vs[0].Value, nil
}

// PathValue is one value of the summary and the key path it was read from.
type PathValue struct {
	Path  string
	Value float64
}

// LookupAll finds every value a dotted path names; a `*` part matches every
// key at that level (by_team.*.usage_vs_entitled). Matches come in key
// order. A wildcard skips keys whose subtree lacks the rest of the path
// (a team entitled to nothing has no usage_vs_entitled); a plain path must
// exist.
func LookupAll(s *Summary, path string) ([]PathValue, error) {
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m any
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	var out []PathValue
	if err := walkPath(m, strings.Split(path, "."), "", path, &out); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no key of the run summary matches", path)
	}
	return out, nil
}

func walkPath(cur any, parts []string, at, full string, out *[]PathValue) error {
	if len(parts) == 0 {
		v, ok := cur.(float64)
		if !ok {
			return fmt.Errorf("%s: %s is not a number", full, at)
		}
		*out = append(*out, PathValue{Path: at, Value: v})
		return nil
	}
	obj, ok := cur.(map[string]any)
	if !ok {
		return fmt.Errorf("%s: %q is not inside an object", full, parts[0])
	}
	join := func(k string) string {
		if at == "" {
			return k
		}
		return at + "." + k
	}
	if parts[0] != "*" {
		// A key may hold dots (an instance type: p5.48xlarge): the
		// fewest parts that name one.
		for n := 1; n <= len(parts); n++ {
			k := strings.Join(parts[:n], ".")
			if next, ok := obj[k]; ok {
				return walkPath(next, parts[n:], join(k), full, out)
			}
		}
		return fmt.Errorf("%s: no key %q in the run summary", full, parts[0])
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		var sub []PathValue
		if err := walkPath(obj[k], parts[1:], join(k), full, &sub); err != nil {
			continue // this key lacks the rest of the path
		}
		*out = append(*out, sub...)
	}
	return nil
}

// Worst picks, of a wildcard objective's matches, the one furthest on the
// wrong side: the largest for an upper bound, the smallest for a lower one.
// Ties go to the first in key order.
func Worst(vs []PathValue, op string) PathValue {
	w := vs[0]
	upper := op == "<=" || op == "<"
	for _, v := range vs[1:] {
		if (upper && v.Value > w.Value) || (!upper && v.Value < w.Value) {
			w = v
		}
	}
	return w
}

// Unit is how a summary key's values read: a duration in seconds, a
// fraction shown as a percentage, money, or a plain number.
type Unit int

const (
	UnitNumber Unit = iota
	UnitSeconds
	UnitFraction
	UnitUSD
)

// UnitOf says how the values at a summary path read.
func UnitOf(path string) Unit {
	parts := strings.Split(path, ".")
	last := parts[len(parts)-1]
	for _, p := range parts {
		if p == "wait_s" || p == "wait_all_s" || p == "window_s" {
			if last == "unstarted" {
				return UnitNumber
			}
			return UnitSeconds
		}
	}
	switch {
	case strings.HasSuffix(last, "_s"):
		return UnitSeconds
	case parts[0] == "utilization", parts[0] == "goodput", strings.HasSuffix(last, "_share"):
		return UnitFraction
	case parts[0] == "cost" && last != "unpriced_types":
		return UnitUSD
	}
	return UnitNumber
}

// FormatValue writes a value in its path's unit, as a person would.
func FormatValue(path string, v float64) string {
	switch UnitOf(path) {
	case UnitSeconds:
		return HumanDuration(v)
	case UnitFraction:
		if v == 0 {
			return "0%"
		}
		return fmt.Sprintf("%.1f%%", 100*v)
	case UnitUSD:
		return "$" + Thousands(v, 2)
	}
	if math.Abs(v) >= 100 || v == math.Trunc(v) {
		return Thousands(v, 0)
	}
	return trimZero(fmt.Sprintf("%.3g", v))
}

// FormatObjective writes a checked objective in words and its own units:
// "production p95 wait (all jobs) 2.1 h ≤ 6 h: met".
func FormatObjective(o ObjectiveResult) string {
	path, limit := o.Path, o.Target
	sym := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[o.Op]
	verdict := "met"
	if !o.Met {
		verdict = "NOT met"
	}
	if o.Error != "" {
		return fmt.Sprintf("%s %s %s: NOT met (%s)", metricName(path), sym, FormatTarget(path, limit), o.Error)
	}
	at := ""
	if o.At != "" && o.At != path {
		at = " (worst: " + o.At + ")"
	}
	return fmt.Sprintf("%s %s %s %s: %s%s", metricName(path), FormatValue(path, o.Value), sym, FormatTarget(path, limit), verdict, at)
}

// FormatTarget writes an objective's bound as a person wrote it: 80%, 6 h.
func FormatTarget(path string, v float64) string {
	s := FormatValue(path, v)
	if UnitOf(path) == UnitFraction {
		return strings.Replace(s, ".0%", "%", 1)
	}
	return s
}

// HumanDuration writes seconds in the largest unit that reads well:
// 45 s, 12.5 min, 2.1 h, 3.4 d.
func HumanDuration(s float64) string {
	div, unit := durationUnit(s)
	return trimZero(Thousands(s/div, 1)) + " " + unit
}

func durationUnit(s float64) (float64, string) {
	switch a := math.Abs(s); {
	case a < 120:
		return 1, "s"
	case a < 3600:
		return 60, "min"
	case a < 2*86400:
		return 3600, "h"
	}
	return 86400, "d"
}

// Thousands writes x with the given decimals and commas between thousands.
func Thousands(x float64, decimals int) string {
	s := fmt.Sprintf("%.*f", decimals, x)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	whole, frac := s, ""
	if i := strings.IndexByte(s, '.'); i >= 0 {
		whole, frac = s[:i], s[i:]
	}
	var b strings.Builder
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	out := b.String() + frac
	if neg {
		out = "-" + out
	}
	return out
}

// trimZero drops a fractional ".0".
func trimZero(s string) string { return strings.TrimSuffix(s, ".0") }

// metricName says what a summary path measures, in words.
func metricName(path string) string {
	parts := strings.Split(path, ".")
	prefix := ""
	if len(parts) > 2 && (parts[0] == "by_priority_class" || parts[0] == "by_team") {
		prefix, parts = parts[1]+" ", parts[2:]
		if prefix == "* " {
			prefix = map[string]string{"by_team": "every team's ", "by_priority_class": "every class's "}[path[:strings.IndexByte(path, '.')]]
		}
	}
	if len(parts) > 2 && parts[1] == "by_type" { // a type's name may hold dots
		switch parts[0] {
		case "utilization":
			return strings.Join(parts[2:], ".") + " utilisation"
		case "capacity":
			return strings.Join(parts[2:], ".") + " accelerators"
		}
	}
	key := strings.Join(parts, ".")
	names := map[string]string{
		"utilization.mean":                     "mean utilisation",
		"utilization.p95_bucket":               "peak utilisation",
		"utilization.max_bucket":               "highest bucket utilisation",
		"goodput":                              "goodput",
		"fairness.jain":                        "fairness (Jain)",
		"cost.usd":                             "cost",
		"cost.usd_per_useful_accelerator_hour": "cost per useful accelerator-hour",
		"jobs.unstarted_share":                 "share of jobs never started",
		"wait_all_s.unstarted":                 "jobs never started",
		"preemptions":                          "preemptions",
	}
	if n, ok := names[key]; ok {
		return prefix + n
	}
	if len(parts) == 2 && (parts[0] == "wait_s" || parts[0] == "wait_all_s") {
		n := parts[1] + " wait"
		if parts[0] == "wait_all_s" {
			n += " (all jobs)"
		}
		return prefix + n
	}
	return prefix + strings.NewReplacer(".", " ", "_", " ").Replace(key)
}
