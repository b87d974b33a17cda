package scenarios

import "testing"

// Errors in a policy file name the policy file, the line there and the
// key path; errors in the scenario's own sections still name the scenario.
func TestPolicyFileErrorsNameThePolicyFileLineAndKeyPath(t *testing.T) {
	s, err := Parse("scen.yaml", []byte(goodScenario))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, body string
		line       int
		path, msg  string
	}{
		{"unknown policy key", "policy:\n  kind: quota\n  reclam: any\n", 3, "policy.reclam", `did you mean "reclaim"?`},
		{"wrong type", "policy: {kind: quota, backfill_depth: deep}\n", 1, "policy.backfill_depth", `expected a whole number, got "deep"`},
		{"bare borrow limit below one", "policy: {kind: quota}\nteams:\n  - name: a\n    borrow_limit: 0.5\n", 4, "teams[a].borrow_limit", `did you mean "50%"?`},
		{"no policy section", "teams: [{name: a}]\n", 1, "policy", "required in a policy file"},
		{"team defined twice", "policy: {kind: quota}\nteams:\n  - name: a\n  - name: a\n", 4, "teams[a]", `name "a" is defined twice (first at line 3)`},
		{"quota on a type not in the fleet", "policy: {kind: quota}\nteams:\n  - name: a\n    quota: {p4d.24xlarge: 8}\n", 4, "teams[a].quota.p4d.24xlarge", "has no nodes in the fleet"},
		{"unknown cohort", "policy: {kind: quota}\nteams:\n  - {name: a, cohort: ghost}\n", 3, "teams[a].cohort", `unknown cohort "ghost"`},
		{"priority class without a value", "policy: {kind: quota}\npriority_classes:\n  - name: prod\n", 3, "priority_classes[prod].value", "required"},
		{"a whole scenario's other sections are still checked", "policy: {kind: quota}\nsim: {horizon: 30}\n", 2, "sim.horizon", "30h"},
		{"unknown top-level key", "policy: {kind: quota}\nworkloads: {trace: x.csv}\n", 2, "workloads", `did you mean "workload"?`},
		{"tab", "policy:\n\tkind: quota\n", 2, "policy.kind", "indented with a tab"},
		{"negative team weight", "policy: {kind: quota}\nteams:\n  - name: a\n    weight: -2\n", 4, "teams[a].weight", "must be >= 0, got -2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.withPolicyFile("pol.yaml", []byte(tc.body))
			assertPlaced(t, err, "pol.yaml", tc.line, tc.path, tc.msg)
		})
	}
}

func TestPolicyFileSectionsKeepTheirOwnFileInErrors(t *testing.T) {
	s, err := Parse("scen.yaml", []byte(goodScenario))
	if err != nil {
		t.Fatal(err)
	}
	// The policy file drops team a, which the scenario's class still names.
	_, err = s.withPolicyFile("pol.yaml", []byte("policy: {kind: quota}\nteams: [{name: solo}]\n"))
	assertPlaced(t, err, "scen.yaml", 17, "workload.synthetic.classes[c].team", `unknown team "a" (teams: solo)`)
}
