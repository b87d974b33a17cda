package scenarios

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodScenario = `name: ok
fleet:
  nodes:
    - {type: p5.48xlarge, count: 2}
teams:
  - name: a
    quota: {p5.48xlarge: 8}
priority_classes:
  - {name: prod, value: 10}
policy:
  kind: quota
workload:
  synthetic:
    until: 1d
    classes:
      - name: c
        team: a
        priority_class: prod
        arrival: {rate_per_hour: 1}
        duration: {dist: lognormal, median: 1h, sigma: 0.5}
        accelerators: 8
sim:
  horizon: 2d
`

func TestGoodScenarioLoads(t *testing.T) {
	if _, err := Parse("good.yaml", []byte(goodScenario)); err != nil {
		t.Fatal(err)
	}
}

// Every malformed input is rejected with the file, the line and the field.
func TestMalformedScenariosAreRejectedWithFileLineAndField(t *testing.T) {
	cases := []struct {
		name    string
		old     string // replaced in goodScenario
		new     string
		wantMsg []string // substrings of the error
	}{
		{"unknown top-level key", "name: ok\n", "name: ok\nflet: {}\n", []string{"bad.yaml:2:", `unknown key "flet"`}},
		{"unknown nested key", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    weigth: 2\n", []string{"bad.yaml:8:", `unknown key "weigth"`, "teams[0]"}},
		{"malformed YAML", "  kind: quota\n", "  kind: [quota\n", []string{"bad.yaml:", "malformed YAML"}},
		{"duration without unit", "  horizon: 2d\n", "  horizon: 48\n", []string{"bad.yaml:23:", "needs a unit"}},
		{"negative duration", "median: 1h", "median: -1h", []string{"bad.yaml:20:", "negative"}},
		{"unknown instance type in fleet", "{type: p5.48xlarge, count: 2}", "{type: p9.huge, count: 2}", []string{"bad.yaml:4:", "fleet.nodes[0].type", `"p9.huge"`}},
		{"zero node count", "{type: p5.48xlarge, count: 2}", "{type: p5.48xlarge, count: 0}", []string{"bad.yaml:4:", "count"}},
		{"class names unknown team", "        team: a\n", "        team: zz\n", []string{"bad.yaml:16:", "team", `"zz"`}},
		{"class names unknown priority class", "priority_class: prod\n        arrival", "priority_class: urgent\n        arrival", []string{"bad.yaml:16:", "priority_class", `"urgent"`}},
		{"unknown policy kind", "  kind: quota\n", "  kind: lottery\n", []string{"bad.yaml:", "policy.kind", `"lottery"`}},
		{"quota on unknown type", "quota: {p5.48xlarge: 8}", "quota: {p4d.24xlarge: 8}", []string{"bad.yaml:7:", "has no nodes in the fleet"}},
		{"bad percentage", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    borrow_limit: 50 percent\n", []string{"bad.yaml:8:", "percentage"}},
		{"missing horizon", "  horizon: 2d\n", "  warmup: 1h\n", []string{"bad.yaml:", "sim.horizon"}},
		{"warmup not shorter than horizon", "  horizon: 2d\n", "  horizon: 2d\n  warmup: 3d\n", []string{"bad.yaml:24:", "warmup"}},
		{"job too big for the fleet", "        accelerators: 8\n", "        accelerators: 64\n", []string{"bad.yaml:16:", "can never run"}},
		{"fraction above one", "        accelerators: 8\n", "        accelerators: 1.5\n", []string{"bad.yaml:21:", "1.5"}},
		{"both trace and synthetic", "workload:\n", "workload:\n  trace: x.csv\n", []string{"bad.yaml:", "exactly one of trace or synthetic"}},
		{"unknown distribution", "dist: lognormal", "dist: pareto", []string{"bad.yaml:20:", "pareto"}},
		{"profile of wrong length", "arrival: {rate_per_hour: 1}", "arrival: {rate_per_hour: 1, profile: {hourly: [1, 2]}}", []string{"bad.yaml:19:", "24 factors"}},
		{"duplicate team", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n  - name: a\n", []string{"bad.yaml:8:", "defined twice"}},
		{"unknown cohort", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    cohort: ghost\n", []string{"bad.yaml:6:", "unknown cohort"}},
		{"negative weight", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    weight: -1\n", []string{"bad.yaml:6:", "weight"}},
		{"bad preemption policy", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    preempt_within_team: always\n", []string{"bad.yaml:6:", "preempt_within_team"}},
		{"objective with unknown operator", "policy:\n", "objectives: [\"wait_s.p95 == 1h\"]\npolicy:\n", []string{"bad.yaml:10:", "operator"}},
		{"timeline for unknown team", "sim:\n", "timeline:\n  - {at: 1d, team: ghost, quota: {p5.48xlarge: 4}}\nsim:\n", []string{"bad.yaml:23:", "unknown team"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(goodScenario, tc.old) {
				t.Fatalf("fixture text %q not found", tc.old)
			}
			src := strings.Replace(goodScenario, tc.old, tc.new, 1)
			_, err := Parse("bad.yaml", []byte(src))
			if err == nil {
				t.Fatalf("accepted:\n%s", src)
			}
			for _, w := range tc.wantMsg {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
}

func TestMalformedSnapshotsAreRejected(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown-key.yaml":   "kind: cycle\nflavors: [a]\nqueus: []\n",
		"bad-kind.yaml":      "kind: weekly\nflavors: [a]\n",
		"bad-quantity.yaml":  "kind: cycle\nflavors: [a]\nqueues:\n- name: q\n  resource_groups:\n  - flavors:\n    - flavor: a\n      resources: {cpu: {nominal: lots}}\n",
		"unknown-queue.yaml": "kind: cycle\nflavors: [a]\npending:\n- name: j\n  queue: nowhere\n  podsets: [{name: main, count: 1, per_pod: {cpu: 1}}]\n",
	} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(body), 0o644)
		if _, err := LoadSnapshot(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("%s: error %v should name the file", name, err)
		}
	}
}

func TestShippedScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	more, _ := filepath.Glob("bench/*.yaml")
	for _, f := range append(files, more...) {
		if _, err := Load(f); err != nil {
			t.Errorf("%s: %v", f, err)
		}
	}
	if len(files) < 4 {
		t.Errorf("only %d shipped scenarios", len(files))
	}
}

func TestPolicyOverrideKeepsTheScenarioPolicySettings(t *testing.T) {
	s, err := Load("amazon-search.yaml")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.WithPolicy("fifo")
	if err != nil {
		t.Fatal(err)
	}
	if f.Policy.Kind != "fifo" || f.Policy.Preemption.CheckpointSave != s.Policy.Preemption.CheckpointSave || f.Policy.Reservations != "hard" {
		t.Errorf("override: %+v", f.Policy)
	}
	if _, err := s.WithPolicy("nosuchkind"); err == nil || !strings.Contains(err.Error(), "not a policy kind") {
		t.Errorf("unknown kind: %v", err)
	}
	pf := filepath.Join(t.TempDir(), "p.yaml")
	os.WriteFile(pf, []byte("policy: {kind: priority, backfill: true}\nteams: [{name: solo}]\n"), 0o644)
	if _, err := s.WithPolicy(pf); err == nil || !strings.Contains(err.Error(), "unknown team") {
		t.Errorf("policy file dropping the scenario's teams should fail on the classes' teams: %v", err)
	}
}
