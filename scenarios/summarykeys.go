package scenarios

import (
	"fmt"
	"slices"
	"strings"
)

// SummaryKeys are the numbers of the run summary (docs/summary.md): the
// paths an objective, or `allot tune --maximize`, may name. {team},
// {class} and {type} stand for a scenario's teams, priority classes and
// instance types. The list lives here so that a file's objectives are
// checked when it loads, not after a whole run; reports'
// TestSummaryKeysAreEveryNumberOfTheSummary holds it to the summary itself.
var SummaryKeys = slices.Concat(
	[]string{"seed", "bucket_s", "capacity.accelerators", "capacity.by_type.{type}"},
	keysUnder("jobs", "submitted", "started", "completed", "failed", "running_at_end", "pending_at_end", "skipped_invalid", "unstarted_share"),
	[]string{"preemptions"},
	keysUnder("preemptions_per_job", "p50", "p95", "max"),
	[]string{"node_failures"},
	keysUnder("utilization", "mean", "p95_bucket", "max_bucket", "by_type.{type}"),
	[]string{"goodput"},
	keysUnder("wait_s", "mean", "p50", "p95", "p99", "max"),
	keysUnder("wait_all_s", "mean", "p50", "p95", "p99", "max", "unstarted"),
	keysUnder("by_team.{team}", slices.Concat(shortWaits, []string{"usage_vs_entitled", "usage_share", "entitled_share",
		"borrowed_mean", "lent_mean", "jobs_completed", "preemptions", "jobs_submitted", "lost_accelerator_hours"})...),
	keysUnder("by_priority_class.{class}", slices.Concat(shortWaits, []string{"jobs_submitted", "jobs_started"})...),
	[]string{"fairness.jain", "cost.usd", "cost.usd_per_useful_accelerator_hour"},
	keysUnder("sim", "events", "cycles", "wall_s"),
	keysUnder("extra", "lost_accelerator_hours", "mean_pending_jobs", "mean_running_jobs", "arrival_rate_per_hour", "mean_runtime_s"),
	[]string{"fidelity.jobs_compared"},
	keysUnder("fidelity.wait_s", compared...),
	keysUnder("fidelity.completion_s", compared...),
	[]string{"fidelity.utilization_mae"},
)

var (
	shortWaits = []string{"wait_s.mean", "wait_s.p95", "wait_s.max", "wait_all_s.mean", "wait_all_s.p95", "wait_all_s.max", "wait_all_s.unstarted"}
	compared   = slices.Concat([]string{"mean_relative_error", "ks_distance"},
		keysUnder("original", "mean", "p50", "p90", "p99"), keysUnder("simulated", "mean", "p50", "p90", "p99"))
)

func keysUnder(prefix string, keys ...string) []string {
	out := make([]string, len(keys))
	for i, k := range keys {
		out[i] = prefix + "." + k
	}
	return out
}

// summaryNames are the names a scenario gives the summary's open levels.
func (s *Scenario) summaryNames() map[string][]string {
	names := map[string][]string{"{class}": {}, "{team}": {}, "{type}": {}}
	for _, t := range s.Teams {
		names["{team}"] = append(names["{team}"], t.Name)
	}
	for _, p := range s.Priority {
		names["{class}"] = append(names["{class}"], p.Name)
	}
	names["{class}"] = append(names["{class}"], "none") // jobs without a class
	for _, g := range s.Fleet.Groups {
		if !slices.Contains(names["{type}"], g.Type) {
			names["{type}"] = append(names["{type}"], g.Type)
		}
	}
	for _, c := range s.Timeline {
		if c.NodeType != "" && !slices.Contains(names["{type}"], c.NodeType) {
			names["{type}"] = append(names["{type}"], c.NodeType)
		}
	}
	return names
}

// levelNoun names an open level's names, one and several.
var levelNoun = map[string][2]string{"{team}": {"team", "teams"}, "{class}": {"priority class", "priority classes"}, "{type}": {"instance type", "instance types"}}

// CheckSummaryPath says whether path names a number of this scenario's run
// summary; `*` stands for every key at its level, and a name may hold dots
// (utilization.by_type.p5.48xlarge). The error says what is wrong and,
// where one is near, which path was meant.
func (s *Scenario) CheckSummaryPath(path string) error { return s.checkSummaryPath(path, nil) }

// checkSummaryPath is CheckSummaryPath with more instance types to accept.
func (s *Scenario) checkSummaryPath(path string, types []string) error {
	parts := strings.Split(path, ".")
	names := s.summaryNames()
	for _, t := range types {
		if !slices.Contains(names["{type}"], t) {
			names["{type}"] = append(names["{type}"], t)
		}
	}
	var below []string // keys below path, when it names a group
	for _, k := range SummaryKeys {
		m := matcher{names: names}
		tmpl := strings.Split(k, ".")
		if m.match(tmpl, parts) {
			return nil
		}
		for _, n := range m.below(tmpl, parts) {
			if !slices.Contains(below, n) {
				below = append(below, n)
			}
		}
	}
	if len(below) > 0 {
		return fmt.Errorf("%q is a group of keys (%s), not a number; name one of them", path, strings.Join(below, ", "))
	}
	// A name at an open level that the scenario does not have?
	for _, k := range SummaryKeys {
		m := matcher{names: names, anyName: true}
		if !m.match(strings.Split(k, "."), parts) || m.unknown == "" {
			continue
		}
		ns := names[m.level]
		noun := levelNoun[m.level]
		msg := fmt.Sprintf("no %s %q in the scenario (its %s: %s)", noun[0], m.unknown, noun[1], strings.Join(ns, ", "))
		if n := closest(m.unknown, ns); n != "" {
			msg += fmt.Sprintf("; did you mean %q?", strings.Replace(path, m.unknown, n, 1))
		}
		return fmt.Errorf("%s", msg)
	}
	msg := fmt.Sprintf("%q is not a number of the run summary (docs/summary.md)", path)
	if near := nearestSummaryPath(path, names); near != "" {
		return fmt.Errorf("%s; did you mean %q?", msg, near)
	}
	var top []string
	for _, k := range SummaryKeys {
		if t, _, _ := strings.Cut(k, "."); !slices.Contains(top, t) {
			top = append(top, t)
		}
	}
	slices.Sort(top)
	return fmt.Errorf("%s; its keys begin with one of: %s", msg, strings.Join(top, ", "))
}

// matcher matches a path's parts against a SummaryKeys entry. An open
// level ({team}, ...) takes `*` or one of its names, which may span
// parts; with anyName it takes any parts too, and the first such is
// recorded as unknown.
type matcher struct {
	names   map[string][]string
	anyName bool
	level   string // the open level of unknown
	unknown string
}

func (m *matcher) match(tmpl, parts []string) bool {
	if len(tmpl) == 0 || len(parts) == 0 {
		return len(tmpl) == 0 && len(parts) == 0
	}
	t := tmpl[0]
	ns, open := m.names[t]
	if !open {
		return (parts[0] == t || parts[0] == "*") && m.match(tmpl[1:], parts[1:])
	}
	if parts[0] == "*" && m.match(tmpl[1:], parts[1:]) {
		return true
	}
	for _, n := range ns {
		np := strings.Split(n, ".")
		if len(np) <= len(parts) && slices.Equal(np, parts[:len(np)]) && m.match(tmpl[1:], parts[len(np):]) {
			return true
		}
	}
	if m.anyName && m.unknown == "" {
		for j := 1; j <= len(parts); j++ {
			if m.match(tmpl[1:], parts[j:]) {
				m.level, m.unknown = t, strings.Join(parts[:j], ".")
				return true
			}
		}
	}
	return false
}

// below lists the keys one level below parts when they name a group of
// tmpl's (an open level lists its names).
func (m *matcher) below(tmpl, parts []string) []string {
	for i := 1; i < len(tmpl); i++ {
		if m.match(tmpl[:i], parts) {
			if ns, open := m.names[tmpl[i]]; open {
				return ns
			}
			return tmpl[i : i+1]
		}
	}
	return nil
}

// nearestSummaryPath is the summary path fewest edits from path, within a
// quarter of its length (at least 3); ties go to the first in SummaryKeys
// order. Open levels take each of the scenario's names, and `*`.
func nearestSummaryPath(path string, names map[string][]string) string {
	best, bestD := "", max(3, len(path)/4)+1
	for _, k := range SummaryKeys {
		for _, c := range instances(strings.Split(k, "."), names) {
			if d := editDistance(path, c); d < bestD {
				best, bestD = c, d
			}
		}
	}
	return best
}

// instances fills a key's open levels with every name they take, and `*`.
func instances(tmpl []string, names map[string][]string) []string {
	out := []string{""}
	for i, t := range tmpl {
		opts := []string{t}
		if ns, open := names[t]; open {
			opts = append(slices.Clone(ns), "*")
		}
		var grown []string
		for _, o := range out {
			for _, p := range opts {
				if i > 0 {
					p = o + "." + p
				}
				grown = append(grown, p)
			}
		}
		out = grown
	}
	return out
}
