package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/spf13/cobra"
)

func TestEveryCommandHasHelpWithAnExample(t *testing.T) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" || c.Name() == "completion" {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s has no example", c.CommandPath())
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot(os.Stdout, os.Stderr))
	code, out, _ := cli("sim", "--help")
	if code != 0 || !strings.Contains(out, "allot sim scenarios/amazon-search.yaml") {
		t.Errorf("sim --help: exit %d\n%s", code, out)
	}
}

func TestParitySnapshotsPassAllotCycleCheck(t *testing.T) {
	files, _ := filepath.Glob("../../scenarios/testdata/parity/kueue/*.yaml")
	if len(files) < 24 {
		t.Fatalf("%d parity snapshots in scenarios/testdata/parity/kueue, want the 24 shared ones at least", len(files))
	}
	for _, f := range files {
		if code, out, errs := cli("cycle", f, "--check"); code != 0 {
			t.Errorf("%s: exit %d\n%s%s", filepath.Base(f), code, out, errs)
		}
	}
}

// oneQueueSnapshot is a cycle snapshot's head: one queue with 4 CPUs.
const oneQueueSnapshot = `kind: cycle
flavors: [default]
queues:
- name: q
  resource_groups:
  - flavors:
    - flavor: default
      resources: {cpu: {nominal: 4}}`

func TestCycleCheckExitsOneOnADifference(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "snap.yaml", oneQueueSnapshot+`
pending:
- name: small
  queue: q
  podsets: [{name: main, count: 1, per_pod: {cpu: 2}}]
expected:
  admitted: []
  preempted: []
  pending: [{name: small, state: inadmissible}]
`)
	code, out, errs := cli("cycle", p, "--check")
	if code != exitProblem || !strings.Contains(errs, "admitted small, expected not admitted") {
		t.Errorf("exit %d\n%s%s", code, out, errs)
	}
	code, out, _ = cli("cycle", p, "--json")
	var res struct {
		Admitted []struct {
			Name    string
			Flavors map[string]map[string]string
		}
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || code != 0 || len(res.Admitted) != 1 || res.Admitted[0].Flavors["main"]["cpu"] != "default" {
		t.Errorf("cycle --json: exit %d, %v\n%s", code, err, out)
	}
}

func TestWhyPendingNamesTheReason(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "snap.yaml", `
kind: cycle
flavors: [default]
queues:
- name: q
  resource_groups:
  - flavors:
    - flavor: default
      resources: {cpu: {nominal: 4, borrowing_limit: 0}}
pending:
- name: huge
  queue: q
  podsets: [{name: main, count: 1, per_pod: {cpu: 8}}]
`)
	_, out, _ := cli("cycle", p)
	if !strings.Contains(out, "huge") || !strings.Contains(out, "more than the team could ever get") {
		t.Errorf("no reason:\n%s", out)
	}
}

func TestExitCodesAndErrorsNameTheFile(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.yaml", "name: x\nflet: {}\n")
	code, _, errs := cli("sim", bad)
	if code != exitBadInput || !strings.HasPrefix(errs, bad+":2: flet: unknown key \"flet\"") {
		t.Errorf("exit %d, stderr %q", code, errs)
	}
	if code, _, _ := cli("sim"); code != exitBadInput {
		t.Errorf("missing argument: exit %d", code)
	}
	if code, _, _ := cli("sim", "../../scenarios/mm16.yaml", "--bogus"); code != exitBadInput {
		t.Errorf("unknown flag: exit %d", code)
	}
	if code, _, errs := cli("sim", "../../scenarios/mm16.yaml", "--policy", "lottery"); code != exitBadInput || !strings.Contains(errs, "not a policy kind") {
		t.Errorf("bad --policy: exit %d %q", code, errs)
	}
}

func TestTraceGenWritesAReplayableTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates 2,000 days of mm16 twice")
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "jobs.parquet")
	if code, _, errs := cli("trace", "gen", "../../scenarios/hyperpod-teams-h2.yaml", "-o", out); code != exitBadInput || !strings.Contains(errs, "not synthetic") {
		t.Errorf("trace gen on a trace scenario: exit %d %q", code, errs)
	}
	if code, _, errs := cli("trace", "gen", "../../scenarios/mm16.yaml", "-o", out); code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	// A scenario replaying the trace gives the same summary as the generator.
	src := mustRead(t, "../../scenarios/mm16.yaml")
	body := src[:strings.Index(src, "workload:")] + "workload:\n  trace: jobs.parquet\nsim:\n  seed: 1\n  horizon: 2000d\n  warmup: 10d\n  bucket: 1d\n"
	replay := writeFile(t, dir, "replay.yaml", body)
	a := simulate(t, "../../scenarios/mm16.yaml", "", 0, false).sum
	b := simulate(t, replay, "", 0, false).sum
	if a.Jobs != b.Jobs || a.WaitS != b.WaitS || a.Utilization.Mean != b.Utilization.Mean {
		t.Errorf("replay differs:\n%+v %+v\n%+v %+v", a.Jobs, a.WaitS, b.Jobs, b.WaitS)
	}
}

func TestCatalogJSONListsSourcesAndMarksUnpricedTypes(t *testing.T) {
	code, out, _ := cli("catalog", "--json")
	var entries []show.CatalogEntry
	if err := json.Unmarshal([]byte(out), &entries); err != nil || code != 0 || len(entries) < 11 {
		t.Fatalf("exit %d, %v", code, err)
	}
	for _, e := range entries {
		if e.Source == "" {
			t.Errorf("%s has no source", e.Name)
		}
		if e.Name == "p5e.48xlarge" && e.PricePerHour != nil {
			t.Errorf("p5e has a price")
		}
	}
}

func TestCycleStatsReportsTheMedianDecisionTimeAndRefusesZeroRepeats(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, "snap.yaml", "id: snap\n"+oneQueueSnapshot+`
running:
- {name: old, queue: q, podsets: [{name: main, count: 1, per_pod: {cpu: 1}, flavors: {cpu: default}}]}
pending:
- {name: small, queue: q, podsets: [{name: main, count: 1, per_pod: {cpu: 2}}]}
`)
	code, out, errs := cli("cycle", p, "--stats", "--repeat", "3")
	if code != 0 || !strings.Contains(out, "small") {
		t.Fatalf("exit %d\n%s%s", code, out, errs)
	}
	if !regexp.MustCompile(`^BENCH name=snap kind=cycle teams=1 running=1 pending=1 runs=3 ns_per_decision=[0-9]+\n$`).MatchString(errs) {
		t.Errorf("stats line: %q", errs)
	}
	if code, _, errs := cli("cycle", p, "--repeat", "0"); code != exitBadInput || !strings.Contains(errs, "--repeat: must be at least 1, got 0") {
		t.Errorf("--repeat 0: exit %d, %s", code, errs)
	}
}

func TestSimWritesProfilesAndRefusesAnUnwritableProfilePathBeforeRunning(t *testing.T) {
	dir := t.TempDir()
	cpu, mem := filepath.Join(dir, "cpu.prof"), filepath.Join(dir, "mem.prof")
	code, _, errs := cli("sim", "../../scenarios/hyperpod-teams.yaml", "--json", "--cpuprofile", cpu, "--memprofile", mem)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, p := range []string{cpu, mem} {
		if st, err := os.Stat(p); err != nil || st.Size() == 0 {
			t.Errorf("%s: not written (%v)", p, err)
		}
	}
	code, out, errs := cli("sim", "../../scenarios/hyperpod-teams.yaml", "--memprofile", filepath.Join(dir, "missing", "mem.prof"))
	if code != exitBadInput || out != "" || !strings.Contains(errs, "memory profile: open") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, out, errs)
	}
}
