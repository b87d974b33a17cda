package reports

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// objectiveText writes an objective and its outcome in the metric's own
// units, e.g. "production p95 wait 2.1 h ≤ 6 h: met" or "peak utilisation
// 91.8% ≥ 80%: met". A stand-in until reports.FormatObjective lands.
func objectiveText(o ObjectiveResult) string {
	verdict := "met"
	if !o.Met {
		verdict = "not met"
	}
	f := strings.Fields(o.Objective)
	if len(f) != 3 {
		return fmt.Sprintf("%s (measured %.4g): %s", o.Objective, o.Value, verdict)
	}
	path, op, want := f[0], f[1], f[2]
	format := unitOf(path)
	target := want
	if x, ok := parseThreshold(want); ok {
		target = format(x)
	}
	sym := map[string]string{"<=": "≤", ">=": "≥", "<": "<", ">": ">"}[op]
	if sym == "" {
		sym = op
	}
	return fmt.Sprintf("%s %s %s %s: %s", metricName(path), format(o.Value), sym, target, verdict)
}

// parseThreshold reads an objective's value as the scenario writes it: a
// number, a percentage (80%) or a duration (90s, 30m, 6h, 2d).
func parseThreshold(s string) (float64, bool) {
	if s == "" {
		return 0, false
	}
	if p, ok := strings.CutSuffix(s, "%"); ok {
		x, err := strconv.ParseFloat(p, 64)
		return x / 100, err == nil
	}
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return x, true
	}
	units := map[byte]float64{'s': 1, 'm': 60, 'h': 3600, 'd': 86400}
	if u, ok := units[s[len(s)-1]]; ok {
		if x, err := strconv.ParseFloat(s[:len(s)-1], 64); err == nil {
			return x * u, true
		}
	}
	return 0, false
}

// unitOf picks how a summary path's values read: durations, percentages,
// dollars, counts or plain numbers.
func unitOf(path string) func(float64) string {
	parts := strings.Split(path, ".")
	for _, p := range parts {
		if strings.HasSuffix(p, "_s") {
			return trimmedDuration
		}
	}
	last := parts[len(parts)-1]
	switch {
	case parts[0] == "utilization" || path == "goodput" || strings.HasSuffix(last, "_share") || strings.HasPrefix(last, "entitled"):
		return func(x float64) string { return trimZero(fmt.Sprintf("%.1f", 100*x)) + "%" }
	case path == "cost.usd":
		return func(x float64) string { return "$" + fmtTick(math.Round(x), 1) }
	case strings.HasPrefix(path, "cost."):
		return func(x float64) string { return fmt.Sprintf("$%.2f", x) }
	case parts[0] == "jobs" || last == "preemptions" || last == "node_failures" || last == "jobs_completed" || last == "unstarted":
		return func(x float64) string { return fmtTick(x, 1) }
	}
	return func(x float64) string { return trimZero(fmt.Sprintf("%.3f", x)) }
}

// trimmedDuration is FmtDuration without a needless ".0" (6 h, 2.1 h).
func trimmedDuration(s float64) string {
	num, unit, _ := strings.Cut(FmtDuration(s), " ")
	return trimZero(num) + " " + unit
}

func trimZero(s string) string {
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

// metricName says what a summary path measures, in words.
func metricName(path string) string {
	parts := strings.Split(path, ".")
	prefix := ""
	if len(parts) > 2 && (parts[0] == "by_priority_class" || parts[0] == "by_team") {
		prefix, parts = parts[1]+" ", parts[2:]
	}
	if len(parts) > 2 && parts[0] == "utilization" && parts[1] == "by_type" {
		return parts[2] + " utilisation"
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
