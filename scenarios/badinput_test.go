package scenarios

import (
	"errors"
	"fmt"
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

// badCase is goodScenario with one edit, and where the error must point.
type badCase struct {
	name     string
	old, new string // old is replaced by new, once
	line     int
	path     string
	msg      string // a part of the message
}

// assertPlaced checks that err's first line is FILE:LINE: PATH: message
// and that the FileError behind it says the same.
func assertPlaced(t *testing.T, err error, file string, line int, path, msg string) {
	t.Helper()
	if err == nil {
		t.Fatal("accepted")
	}
	first, _, _ := strings.Cut(err.Error(), "\n")
	want := fmt.Sprintf("%s:%d: %s: ", file, line, path)
	if !strings.HasPrefix(first, want) {
		t.Errorf("error %q\n does not start %q", first, want)
	}
	if !strings.Contains(first, msg) {
		t.Errorf("error %q\n does not say %q", first, msg)
	}
	var fe *FileError
	if !errors.As(err, &fe) || fe.File != file || fe.Line != line || fe.Path != path {
		t.Errorf("not a FileError{%s %d %s}: %#v", file, line, path, err)
	}
}

func runBad(t *testing.T, cases []badCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(goodScenario, tc.old) {
				t.Fatalf("fixture text %q not found", tc.old)
			}
			src := strings.Replace(goodScenario, tc.old, tc.new, 1)
			_, err := Parse("bad.yaml", []byte(src))
			assertPlaced(t, err, "bad.yaml", tc.line, tc.path, tc.msg)
		})
	}
}

func TestGoodScenarioLoads(t *testing.T) {
	if _, err := Parse("good.yaml", []byte(goodScenario)); err != nil {
		t.Fatal(err)
	}
}

func TestWrongTypeNamesTheKeyPathAndWhatWasExpected(t *testing.T) {
	runBad(t, []badCase{
		{"text for a count", "count: 2}", "count: sixteen}", 4, "fleet.nodes[0].count", `expected a whole number, got "sixteen"`},
		{"text for a priority value", "value: 10}", "value: high}", 9, "priority_classes[prod].value", `expected a whole number, got "high"`},
		{"negative seed", "  horizon: 2d\n", "  horizon: 2d\n  seed: -1\n", 24, "sim.seed", `expected a whole number >= 0, got "-1"`},
		{"text for sigma", "sigma: 0.5", "sigma: wide", 20, "workload.synthetic.classes[c].duration.sigma", `expected a number, got "wide"`},
		{"text for a quota", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: eight}", 7, "teams[a].quota.p5.48xlarge", `expected a number, got "eight"`},
		{"text in a quota mapping", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: {accelerators: 8, vcpus: lots}}", 7, "teams[a].quota.p5.48xlarge.vcpus", `expected a number, got "lots"`},
		{"list for accelerators", "accelerators: 8\n", "accelerators: [8]\n", 21, "workload.synthetic.classes[c].accelerators", "expected a number or {choices: [...], weights: [...]}, got a list"},
		{"word for a flag", "  kind: quota\n", "  kind: quota\n  backfill: maybe\n", 12, "policy.backfill", `expected true or false, got "maybe"`},
		{"list for a section", "  kind: quota\n", "  kind: quota\n  preemption: [1, 2]\n", 12, "policy.preemption", "expected a mapping, got a list"},
		{"mapping for a name", "      - name: c\n", "      - name: {c: 1}\n", 16, "workload.synthetic.classes[0].name", "expected a single value, got a mapping"},
	})
}

func TestMissingRequiredKeyIsPlacedAtItsSection(t *testing.T) {
	runBad(t, []badCase{
		{"scenario name", "name: ok\n", "description: x\n", 1, "name", "required"},
		{"policy kind", "  kind: quota\n", "  backfill: true\n", 10, "policy.kind", "required: one of fifo, priority, fairshare, quota"},
		{"horizon", "  horizon: 2d\n", "  warmup: 1h\n", 22, "sim.horizon", "required"},
		{"class duration", "        duration: {dist: lognormal, median: 1h, sigma: 0.5}\n", "", 16, "workload.synthetic.classes[c].duration", "required"},
		{"arrival rate", "arrival: {rate_per_hour: 1}", "arrival: {process: poisson}", 19, "workload.synthetic.classes[c].arrival.rate_per_hour", "required"},
		{"node count", "{type: p5.48xlarge, count: 2}", "{type: p5.48xlarge}", 4, "fleet.nodes[0].count", "required"},
		{"lognormal median", "median: 1h, ", "", 20, "workload.synthetic.classes[c].duration.median", "required for dist lognormal"},
	})
}

func TestNegativeValueSaysSoRatherThanRequired(t *testing.T) {
	cases := []badCase{
		{"arrival rate", "rate_per_hour: 1}", "rate_per_hour: -1}", 19, "workload.synthetic.classes[c].arrival.rate_per_hour", "must be >= 0, got -1"},
		{"node count", "count: 2}", "count: -2}", 4, "fleet.nodes[0].count", "must be a positive number of nodes, got -2"},
		{"team weight", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    weight: -1\n", 8, "teams[a].weight", "must be >= 0, got -1"},
		{"quota", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: -8}", 7, "teams[a].quota.p5.48xlarge", "accelerators must be >= 0, got -8"},
		{"duration", "median: 1h", "median: -1h", 20, "workload.synthetic.classes[c].duration.median", `duration "-1h" is negative`},
		{"max retries", "  kind: quota\n", "  kind: quota\n  preemption: {max_retries: -5}\n", 12, "policy.preemption.max_retries", "-1 (unlimited) or >= 0, got -5"},
		{"synthetic count", "    until: 1d\n", "    until: 1d\n    count: -3\n", 15, "workload.synthetic.count", "must be > 0, got -3"},
	}
	runBad(t, cases)
	for _, tc := range cases {
		src := strings.Replace(goodScenario, tc.old, tc.new, 1)
		if _, err := Parse("bad.yaml", []byte(src)); err != nil && strings.Contains(err.Error(), "required") {
			t.Errorf("%s: a present value is called missing: %v", tc.name, err)
		}
	}
}

func TestDurationWithoutUnitNamesTheKeyAndAsksForOne(t *testing.T) {
	runBad(t, []badCase{
		{"horizon", "  horizon: 2d\n", "  horizon: 30\n", 23, "sim.horizon", `duration "30" needs a unit: s, m, h or d (e.g. 30s, 30m, 30h or 30d)`},
		{"until", "    until: 1d\n", "    until: 5\n", 14, "workload.synthetic.until", `duration "5" needs a unit`},
		{"median", "median: 1h", "median: 60", 20, "workload.synthetic.classes[c].duration.median", `duration "60" needs a unit`},
		{"grace period", "  kind: quota\n", "  kind: quota\n  preemption:\n    grace_period: 30\n", 13, "policy.preemption.grace_period", `duration "30" needs a unit`},
		{"word for a duration", "  horizon: 2d\n", "  horizon: two days\n", 23, "sim.horizon", `"two days" is not a number followed by s, m, h or d`},
	})
}

func TestBadPercentageNamesTheKey(t *testing.T) {
	add := func(line string) (string, string) {
		return "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n" + line + "\n"
	}
	o1, n1 := add("    borrow_limit: 50 percent")
	o2, n2 := add("    lending_limit: abc%")
	o3, n3 := add("    lending_limit: 150%")
	o4, n4 := add("    borrow_limit: -5%")
	o5, n5 := add("    lending_limit: 0.5")
	runBad(t, []badCase{
		{"words", o1, n1, 8, "teams[a].borrow_limit", `expected a number >= 0 or a percentage like 50%, got "50 percent"`},
		{"not a number", o2, n2, 8, "teams[a].lending_limit", `bad percentage "abc%"`},
		{"above 100", o3, n3, 8, "teams[a].lending_limit", "a percentage from 0% to 100%, got 150%"},
		{"negative", o4, n4, 8, "teams[a].borrow_limit", `percentage "-5%" is negative`},
		{"bare lending limit", o5, n5, 8, "teams[a].lending_limit", "a percentage from 0% to 100%, got the bare number 0.5"},
		{"bare compute reservation", "  kind: quota\n", "  kind: quota\n  compute_reservation: 0.2\n", 12, "policy.compute_reservation", "got the bare number 0.2"},
	})
}

func TestTabIsReportedOnItsOwnLineWithTheKeyPath(t *testing.T) {
	runBad(t, []badCase{
		{"team key", "    quota: {p5.48xlarge: 8}\n", "\tquota: {p5.48xlarge: 8}\n", 7, "teams[a].quota", "indented with a tab"},
		{"section key", "  kind: quota\n", "\tkind: quota\n", 11, "policy.kind", "indented with a tab"},
		{"class key", "        team: a\n", "\t\tteam: a\n", 17, "workload.synthetic.classes[c].team", "indented with a tab"},
		{"added key", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n\tweight: 2\n", 8, "teams[a].weight", "indented with a tab"},
		{"top-level key", "sim:\n", "\tsim:\n", 22, "sim", "indented with a tab"},
	})
}

func TestMisindentedLineNamesTheKeyItFitsAs(t *testing.T) {
	runBad(t, []badCase{
		{"one space short", "        team: a\n", "       team: a\n", 17, "workload.synthetic.classes[c].team", "indented by 7 spaces"},
		{"under a list", "    quota: {p5.48xlarge: 8}\n", "   quota: {p5.48xlarge: 8}\n", 7, "teams[a].quota", "indented by 3 spaces"},
	})
}

func TestUnknownKeyInAListItemNamesTheItem(t *testing.T) {
	runBad(t, []badCase{
		{"team", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    weigth: 2\n", 8, "teams[a].weigth", `unknown key "weigth" in teams[a]; did you mean "weight"?`},
		{"class arrival", "arrival: {rate_per_hour: 1}", "arrival: {rate_per_hour: 1, burst: 3}", 19, "workload.synthetic.classes[c].arrival.burst", `unknown key "burst"`},
		{"node group", "{type: p5.48xlarge, count: 2}", "{type: p5.48xlarge, count: 2, zone: a}", 4, "fleet.nodes[0].zone", `unknown key "zone" in fleet.nodes[0]`},
		{"priority class", "{name: prod, value: 10}", "{name: prod, value: 10, color: red}", 9, "priority_classes[prod].color", `unknown key "color"`},
		{"quota mapping", "quota: {p5.48xlarge: 8}", "quota: {p5.48xlarge: {accelerators: 8, gpus: 1}}", 7, "teams[a].quota.p5.48xlarge.gpus", "known keys: accelerators, memory_gib, vcpus"},
		{"class duration", "sigma: 0.5}", "sigma: 0.5, mode: 3}", 20, "workload.synthetic.classes[c].duration.mode", `unknown key "mode"`},
		{"top level", "name: ok\n", "name: ok\nflet: {}\n", 2, "flet", `unknown key "flet" in the top level; did you mean "fleet"?`},
	})
}

func TestBareBorrowLimitBelowOneIsAnErrorSuggestingPercent(t *testing.T) {
	for v, pct := range map[string]string{"0.5": "50%", "0.25": "25%", "0.125": "12.5%"} {
		src := strings.Replace(goodScenario, "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    borrow_limit: "+v+"\n", 1)
		_, err := Parse("scen.yaml", []byte(src))
		want := v + ` is between 0 and 1; a bare number is accelerators (0 or at least 1): did you mean "` + pct + `"?`
		assertPlaced(t, err, "scen.yaml", 8, "teams[a].borrow_limit", want)
		if err != nil && err.Error() != "scen.yaml:8: teams[a].borrow_limit: "+want {
			t.Errorf("got %q", err)
		}
	}
}

func TestBareBorrowLimitOfZeroOrAtLeastOneIsAccelerators(t *testing.T) {
	for v, want := range map[string]float64{"0": 0, "1": 1, "2": 2, "16": 16} {
		src := strings.Replace(goodScenario, "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    borrow_limit: "+v+"\n", 1)
		s, err := Parse("scen.yaml", []byte(src))
		if err != nil {
			t.Fatalf("borrow_limit: %s: %v", v, err)
		}
		if tm := s.Teams[0]; tm.BorrowLimit != want || tm.BorrowLimitPct {
			t.Errorf("borrow_limit: %s read as %g (percent %v)", v, tm.BorrowLimit, tm.BorrowLimitPct)
		}
	}
}

func TestNamesAndKeysDefinedTwiceAreRejected(t *testing.T) {
	runBad(t, []badCase{
		{"team", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n  - name: a\n", 8, "teams[a]", `name "a" is defined twice (first at line 6)`},
		{"priority class", "  - {name: prod, value: 10}\n", "  - {name: prod, value: 10}\n  - {name: prod, value: 5}\n", 10, "priority_classes[prod]", "defined twice"},
		{"class", "        accelerators: 8\n", "        accelerators: 8\n      - {name: c, team: a, arrival: {rate_per_hour: 1}, duration: {dist: fixed, value: 1h}, accelerators: 1}\n", 22, "workload.synthetic.classes[c]", "defined twice (first at line 16)"},
		{"key", "name: ok\n", "name: ok\nname: again\n", 2, "name", "this key appears twice (first at line 1)"},
	})
}

func TestReferenceToAnUndeclaredNameIsRejected(t *testing.T) {
	runBad(t, []badCase{
		{"class names unknown team", "        team: a\n", "        team: zz\n", 17, "workload.synthetic.classes[c].team", `unknown team "zz" (teams: a)`},
		{"class names unknown priority class", "priority_class: prod\n", "priority_class: urgent\n", 18, "workload.synthetic.classes[c].priority_class", `unknown priority class "urgent"`},
		{"team names unknown cohort", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    cohort: ghost\n", 8, "teams[a].cohort", `unknown cohort "ghost"`},
		{"quota on a type not in the fleet", "quota: {p5.48xlarge: 8}", "quota: {p4d.24xlarge: 8}", 7, "teams[a].quota.p4d.24xlarge", "has no nodes in the fleet"},
		{"unknown instance type in the fleet", "{type: p5.48xlarge, count: 2}", "{type: p9.huge, count: 2}", 4, "fleet.nodes[0].type", `unknown instance type "p9.huge"`},
		{"timeline for unknown team", "sim:\n", "timeline:\n  - {at: 1d, team: ghost, quota: {p5.48xlarge: 4}}\nsim:\n", 23, "timeline[0].team", `unknown team "ghost"`},
		{"class instance type", "        accelerators: 8\n", "        accelerators: 8\n        instance_types: [p5.48xlarge, p9.huge]\n", 22, "workload.synthetic.classes[c].instance_types[1]", `unknown instance type "p9.huge"`},
		{"unknown policy kind", "  kind: quota\n", "  kind: lottery\n", 11, "policy.kind", `"lottery" is not one of fifo, priority, fairshare, quota`},
	})
}

func TestOtherMalformedScenariosNameFileLineAndKeyPath(t *testing.T) {
	runBad(t, []badCase{
		{"zero node count", "count: 2}", "count: 0}", 4, "fleet.nodes[0].count", "must be a positive number of nodes, got 0"},
		{"job too big for the fleet", "        accelerators: 8\n", "        accelerators: 64\n", 21, "workload.synthetic.classes[c].accelerators", "can never run"},
		{"fraction above one", "        accelerators: 8\n", "        accelerators: 1.5\n", 21, "workload.synthetic.classes[c].accelerators", "1.5 is not allowed"},
		{"warmup not shorter than horizon", "  horizon: 2d\n", "  horizon: 2d\n  warmup: 3d\n", 24, "sim.warmup", "must be shorter than sim.horizon"},
		{"both trace and synthetic", "workload:\n", "workload:\n  trace: x.csv\n", 12, "workload", "exactly one of trace or synthetic"},
		{"unknown distribution", "dist: lognormal", "dist: pareto", 20, "workload.synthetic.classes[c].duration.dist", `unknown distribution "pareto"`},
		{"profile of wrong length", "arrival: {rate_per_hour: 1}", "arrival: {rate_per_hour: 1, profile: {hourly: [1, 2]}}", 19, "workload.synthetic.classes[c].arrival.profile.hourly", "24 factors, got 2"},
		{"bad preemption policy", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}\n    preempt_within_team: always\n", 8, "teams[a].preempt_within_team", `"always" is not one of`},
		{"objective with unknown operator", "policy:\n", "objectives: [\"wait_s.p95 == 1h\"]\npolicy:\n", 10, "objectives[0]", `operator "==" is not one of`},
		{"zero lognormal median", "median: 1h", "median: 0s", 20, "workload.synthetic.classes[c].duration.median", "must be > 0"},
	})
}

func TestListItemsAreNamedByNameElseByIndex(t *testing.T) {
	// A team without a name is named by its index, a node group always.
	src := strings.Replace(goodScenario, "  - name: a\n", "  - cohort: default\n", 1)
	_, err := Parse("bad.yaml", []byte(src))
	assertPlaced(t, err, "bad.yaml", 6, "teams[0].name", "required")
}

func TestMalformedYAMLNamesTheLineWhereItBreaks(t *testing.T) {
	for _, tc := range []struct {
		name, old, new string
		line           int
	}{
		{"unclosed flow mapping", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8\n", 7},
		{"stray closing brace", "    quota: {p5.48xlarge: 8}\n", "    quota: {p5.48xlarge: 8}}\n", 7},
		{"unclosed quote", "  kind: quota\n", "  kind: \"quota\n", 11},
	} {
		t.Run(tc.name, func(t *testing.T) {
			src := strings.Replace(goodScenario, tc.old, tc.new, 1)
			_, err := Parse("bad.yaml", []byte(src))
			var fe *FileError
			if !errors.As(err, &fe) || fe.File != "bad.yaml" || fe.Line != tc.line || !strings.Contains(fe.Msg, "malformed YAML") {
				t.Errorf("want bad.yaml:%d: ... malformed YAML, got %v", tc.line, err)
			}
		})
	}
}

func TestAliasesThatExpandTooFarAreRejected(t *testing.T) {
	var v struct {
		A []int           `yaml:"a"`
		B [][]int         `yaml:"b"`
		C [][][]int       `yaml:"c"`
		D [][][][]int     `yaml:"d"`
		E [][][][][]int   `yaml:"e"`
		F [][][][][][]int `yaml:"f"`
	}
	ten := func(ref string) string { return "[" + strings.Repeat(ref+", ", 9) + ref + "]" }
	doc := "a: &a " + ten("1") + "\nb: &b " + ten("*a") + "\nc: &c " + ten("*b") + "\nd: &d " + ten("*c") + "\ne: &e " + ten("*d") + "\nf: " + ten("*e") + "\n"
	_, err := decodeStrict("laughs.yaml", []byte(doc), &v)
	if err == nil || !strings.Contains(err.Error(), "aliases here expand to too many values") {
		t.Errorf("got %v", err)
	}
}

func TestShippedScenariosLoad(t *testing.T) {
	files, _ := filepath.Glob("*.yaml")
	more, _ := filepath.Glob("bench/*.yaml")
	stress, _ := filepath.Glob("bench/stress/*.yaml")
	more = append(more, stress...)
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
