package scenarios

import (
	"slices"
	"strings"
	"testing"
)

// withObjective is goodScenario with one objective, on line 10.
func withObjective(text string) badCase {
	return badCase{old: "policy:\n", new: "objectives: [\"" + text + "\"]\npolicy:\n", line: 10, path: "objectives[0]"}
}

func TestObjectivePathsAreCheckedWhenTheFileLoads(t *testing.T) {
	var cases []badCase
	for _, c := range []struct{ name, objective, msg string }{
		{"misspelt key, with the nearest path", "utilisation.p95_bucket >= 80%",
			`objective "utilisation.p95_bucket >= 80%": "utilisation.p95_bucket" is not a number of the run summary (docs/summary.md); did you mean "utilization.p95_bucket"?`},
		{"misspelt key under a team", "by_team.a.wait.p95 <= 1h", `did you mean "by_team.a.wait_s.p95"?`},
		{"misspelt key under a wildcard", "by_team.*.usage_vs_entitld >= 0.8", `did you mean "by_team.*.usage_vs_entitled"?`},
		{"a team the scenario lacks", "by_team.aa.wait_s.p95 <= 1h",
			`objective "by_team.aa.wait_s.p95 <= 1h": no team "aa" in the scenario (its teams: a); did you mean "by_team.a.wait_s.p95"?`},
		{"a class the scenario lacks", "by_priority_class.batch.wait_all_s.p95 <= 1h", `no priority class "batch" in the scenario (its priority classes: prod, none)`},
		{"a type the fleet lacks", "utilization.by_type.p4d.24xlarge >= 50%", `no instance type "p4d.24xlarge" in the scenario (its instance types: p5.48xlarge)`},
		{"a group, not a number", "wait_s <= 1h", `"wait_s" is a group of keys (mean, p50, p95, p99, max), not a number; name one of them`},
		{"nothing near", "p95 <= 1h", `"p95" is not a number of the run summary (docs/summary.md); its keys begin with one of: bucket_s, by_priority_class, by_team,`},
	} {
		bc := withObjective(c.objective)
		bc.name, bc.msg = c.name, c.msg
		cases = append(cases, bc)
	}
	runBad(t, cases)
}

func TestObjectivePathsOfTheSummaryLoad(t *testing.T) {
	for _, path := range []string{
		"utilization.p95_bucket", "jobs.unstarted_share", "wait_all_s.unstarted",
		"by_team.a.usage_vs_entitled", "by_team.*.wait_all_s.p95",
		"by_priority_class.prod.wait_s.max", "by_priority_class.none.jobs_started", // jobs without a class
		"utilization.by_type.p5.48xlarge", "capacity.by_type.*", // a type's name holds dots
		"wait_s.*", "*.p95", "fidelity.wait_s.original.p90",
	} {
		src := strings.Replace(goodScenario, "policy:\n", "objectives: [\""+path+" >= 0\"]\npolicy:\n", 1)
		if _, err := Parse("ok.yaml", []byte(src)); err != nil {
			t.Errorf("%s: %v", path, err)
		}
	}
}

func TestAQuotaBeyondTheFleetLoadsWithAWarning(t *testing.T) {
	for _, c := range []struct{ name, old, new, want string }{
		{"a team's quota", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: 20}",
			"bad.yaml:7: teams[a].quota.p5.48xlarge: team a's quota of 20 p5.48xlarge accelerators is more than the fleet's 16 (2 nodes of 8): it can never be used in full"},
		{"a quota of the whole fleet", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: 16}", ""},
		{"a cohort's quota", "teams:\n", "cohorts:\n  - {name: org, quota: {p5.48xlarge: 24}}\nteams:\n",
			"bad.yaml:6: cohorts[org].quota.p5.48xlarge: cohort org's quota of 24 p5.48xlarge accelerators is more than the fleet's 16 (2 nodes of 8): it can never be used in full"},
		{"a timeline quota after nodes leave", "sim:\n", "timeline:\n  - {at: 1d, nodes: {type: p5.48xlarge, count: -1}}\n  - {at: 2d, team: a, quota: {p5.48xlarge: 12}}\nsim:\n",
			"bad.yaml:24: timeline[1].quota.p5.48xlarge: team a's quota of 12 p5.48xlarge accelerators is more than the fleet's 8 (1 node of 8): it can never be used in full"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := Parse("bad.yaml", []byte(strings.Replace(goodScenario, c.old, c.new, 1)))
			if err != nil {
				t.Fatal(err)
			}
			var want []string
			if c.want != "" {
				want = []string{c.want}
			}
			if !slices.Equal(s.Warnings, want) {
				t.Errorf("warnings %q, want %q", s.Warnings, want)
			}
		})
	}
}

// A fleet resized to no nodes of a type (allot plan) keeps an objective
// on that type: its summary lacks the key, and the objective is missed.
func TestAnObjectiveOnATypeOutlivesAResizeToNoneOfIt(t *testing.T) {
	src := strings.Replace(goodScenario, "    - {type: p5.48xlarge, count: 2}\n", "    - {type: p5.48xlarge, count: 2}\n    - {type: p4d.24xlarge, count: 2}\n", 1)
	src = strings.Replace(src, "policy:\n", "objectives: [\"utilization.by_type.p4d.24xlarge >= 50%\"]\npolicy:\n", 1)
	s, err := Parse("ok.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.WithFleet(map[string]int{"p4d.24xlarge": 0}, QuotasScale); err != nil {
		t.Fatal(err)
	}
}
