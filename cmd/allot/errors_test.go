package main

import (
	"strings"
	"testing"
)

// badBorrowScenario has a bare borrow_limit of 0.5 on line 8.
const badBorrowScenario = `name: ok
fleet:
  nodes:
    - {type: p5.48xlarge, count: 2}
teams:
  - name: research
    quota: {p5.48xlarge: 8}
    borrow_limit: 0.5
policy:
  kind: quota
workload:
  synthetic:
    until: 1d
    classes:
      - {name: c, team: research, arrival: {rate_per_hour: 1}, duration: {dist: fixed, value: 1h}, accelerators: 8}
sim:
  horizon: 2d
`

func firstStderrLine(s string) string {
	first, _, _ := strings.Cut(s, "\n")
	return first
}

func TestFileErrorFirstLineIsFileLineKeyPathMessageWithExitTwo(t *testing.T) {
	dir := t.TempDir()
	scen := writeFile(t, dir, "scen.yaml", badBorrowScenario)
	good := writeFile(t, dir, "good.yaml", strings.Replace(badBorrowScenario, "borrow_limit: 0.5", "borrow_limit: 50%", 1))
	pol := writeFile(t, dir, "pol.yaml", "policy:\n  kind: quota\n  reclaim: sometimes\n")
	snap := writeFile(t, dir, "snap.yaml", oneQueueSnapshot+"\npending:\n- {name: j, queue: nowhere, podsets: [{name: main, count: 1, per_pod: {cpu: 1}}]}\n")
	trace := writeFile(t, dir, "trace.csv", "job_id,submit_time,team,accelerators,duration_s\na,0,t,1,60\nb,5,t,1,-10\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sim", scen}, scen + `:8: teams[research].borrow_limit: 0.5 is between 0 and 1; a bare number is accelerators (0 or at least 1): did you mean "50%"?`},
		{[]string{"sim", good, "--policy", pol}, pol + `:3: policy.reclaim: "sometimes" is not one of any, lower-priority, never`},
		{[]string{"cycle", snap}, snap + `:10: pending[j].queue: unknown queue "nowhere"`},
		{[]string{"trace", "stats", trace}, trace + ": row 3: column duration_s: negative duration -10"},
	} {
		code, _, errs := cli(tc.args...)
		if code != exitBadInput {
			t.Errorf("%v: exit %d, want %d", tc.args, code, exitBadInput)
		}
		if got := firstStderrLine(errs); got != tc.want {
			t.Errorf("%v: first line of stderr\n got %q\nwant %q", tc.args, got, tc.want)
		}
	}
}

func TestSeedOfMinusOneSaysWhatASeedIs(t *testing.T) {
	code, out, errs := cli("sim", "../../scenarios/mm16.yaml", "--seed", "-1")
	want := "allot sim: --seed: must be a whole number >= 0, got \"-1\"\n(see 'allot sim --help')\n"
	if code != exitBadInput || out != "" || errs != want {
		t.Errorf("exit %d, stdout %q, stderr\n got %q\nwant %q", code, out, errs, want)
	}
}

func TestUsageErrorsNameTheCommandAndPointToItsHelp(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		first string
	}{
		{[]string{"sim", "../../scenarios/mm16.yaml", "--bogus"}, "allot sim: unknown flag --bogus"},
		{[]string{"sim"}, "allot sim: expected 1 argument (SCENARIO), got 0"},
		{[]string{"sim", "a.yaml", "b.yaml"}, "allot sim: expected 1 argument (SCENARIO), got 2"},
		{[]string{"compare"}, "allot compare: expected at least 1 argument (SCENARIO... [--policy KIND|FILE]...), got 0"},
		{[]string{"catalog", "extra"}, `allot catalog: takes no arguments, got "extra"`},
		{[]string{"compare", "a.yaml", "--seeds", "many"}, `allot compare: --seeds: must be a whole number, got "many"`},
		{[]string{"sim", "a.yaml", "--seed"}, "allot sim: --seed needs a value"},
		{[]string{"smi"}, `allot: unknown command "smi"; did you mean 'sim'?`},
		{[]string{"compare", "../../scenarios/mm16.yaml", "--seeds", "0"}, "allot compare: --seeds: must be at least 1, got 0"},
		{[]string{"cycle", "../../docs/examples/snapshot.yaml", "--repeat", "0"}, "allot cycle: --repeat: must be at least 1, got 0"},
		// refused by a library under cmd (errtext.UsageError), said alike
		{[]string{"submit", "--priority", "low", "--", "true"}, "allot submit: --team is required"},
		{[]string{"submit", "--team", "a", "--time-limit", "soon", "--", "true"}, `allot submit: --time-limit "soon": want a duration such as 90m or 2h`},
		{[]string{"live", "serve"}, "allot live serve: --config FILE is required"},
		{[]string{"live", "replay", "../../scenarios/live/replay-two-teams.yaml"}, "allot live replay: --speedup K is required and must be positive"},
		{[]string{"export", "slurm", "../../scenarios/mm16.yaml"}, `allot export: "slurm": want kueue, hyperpod or aws-batch`},
	} {
		code, _, errs := cli(tc.args...)
		cmdPath := tc.first[:strings.Index(tc.first, ":")]
		want := tc.first + "\n(see '" + cmdPath + " --help')\n"
		if code != exitBadInput || errs != want {
			t.Errorf("%v: exit %d, stderr\n got %q\nwant %q", tc.args, code, errs, want)
		}
	}
}

func TestOtherErrorsArePrefixedOnce(t *testing.T) {
	code, _, errs := cli("sim", "../../scenarios/mm16.yaml", "--policy", "lottery")
	if code != exitBadInput || !strings.HasPrefix(errs, `allot: --policy "lottery": not a policy kind`) || strings.Contains(errs, "allot: allot") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
}

func TestSeedHelpShowsOneDefault(t *testing.T) {
	_, out, _ := cli("sim", "--help")
	for _, l := range strings.Split(out, "\n") {
		if strings.Contains(l, "--seed uint") && strings.Count(l, "(default") != 1 {
			t.Errorf("--seed help: %q", l)
		}
	}
}
