package policies_test

import (
	"fmt"
	"strings"
	"testing"
)

// policy.preemption.min_runtime: a running job cannot be preempted until it
// has run that long since its last start; the plan asks to be called again
// when the first protection ends, and then the preemptor takes the job
// whose protection ended, though candidate order prefers the job admitted
// last, still protected.
func TestProtectedJobIsPreemptedOnlyWhenItsMinRuntimeEnds(t *testing.T) {
	for _, tc := range []struct{ name, teams, policy, preemptor, reason string }{
		{"within the team", "[{name: a, quota: {unit: 2}}]", "", "a", "InClusterQueue"},
		{"reclaimed, fair sharing", "[{name: a, quota: {unit: 1}}, {name: b, quota: {unit: 1}}]", "idle_allocation: fair-share, ", "b", "InCohortReclamation"},
		{"reclaimed, classical", "[{name: a, quota: {unit: 1}}, {name: b, quota: {unit: 1}}]", "idle_allocation: first-come, ", "b", "InCohortReclamation"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, unitFleet(2)+fmt.Sprintf(`
teams: %s
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
policy: {kind: quota, %spreemption: {min_runtime: 10m}}
`, tc.teams, tc.policy))
			f.submit(job{name: "old", team: "a", class: "low", acc: 1})
			f.untilQuiet(0)
			f.submit(job{name: "young", team: "a", class: "low", acc: 1, at: 300})
			f.untilQuiet(300)
			f.submit(job{name: "urgent", team: tc.preemptor, class: "high", acc: 1, at: 400})
			adm, pre := f.step(400)
			eq(t, "admitted at 400 s", adm, nil)
			eq(t, "preempted at 400 s", pre, nil)
			if p := f.core.Schedule(400); !p.Wake || p.WakeAt != 600 {
				t.Fatalf("plan at 400 s: wake %v at %g, want at 600", p.Wake, p.WakeAt)
			}
			_, pre = f.step(599)
			eq(t, "preempted at 599 s", pre, nil)
			_, pre = f.step(600)
			eq(t, "preempted at 600 s", pre, []string{"old:" + tc.reason})
		})
	}
}

// Without min_runtime (or with 0 s) the same job is preempted at once and
// the plan asks for no wake-up.
func TestNoMinRuntimeProtectsNobody(t *testing.T) {
	for _, p := range []string{"", ", preemption: {min_runtime: 0s}"} {
		f := newFixture(t, unitFleet(1)+`
teams: [{name: a, quota: {unit: 1}}]
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
policy: {kind: quota`+p+`}
`)
		f.submit(job{name: "low", team: "a", class: "low", acc: 1})
		f.untilQuiet(0)
		f.submit(job{name: "urgent", team: "a", class: "high", acc: 1, at: 100})
		_, pre := f.step(100)
		eq(t, "preempted"+p, pre, []string{"low:InClusterQueue"})
		if plan := f.core.Schedule(100); plan.Wake {
			t.Errorf("%q: a wake-up at %g with nothing protected", p, plan.WakeAt)
		}
	}
}

// Protection counts from the job's start, not its arrival: a job queued
// at 1 s and started at 100 s is protected until 700 s.
func TestProtectionCountsFromTheJobsStartNotItsArrival(t *testing.T) {
	f := oneUnitTeam(t, "10m")
	first := f.submit(job{name: "first", team: "a", class: "high", acc: 1})
	f.untilQuiet(0)
	f.submit(job{name: "low", team: "a", class: "low", acc: 1, at: 1})
	f.core.Finish(first, 100)
	adm, _ := f.untilQuiet(100)
	eq(t, "admitted at 100 s", adm, []string{"low@unit"})
	f.submit(job{name: "urgent", team: "a", class: "high", acc: 1, at: 650})
	_, pre := f.untilQuiet(650)
	eq(t, "preempted at 650 s", pre, nil)
	_, pre = f.untilQuiet(700)
	eq(t, "preempted at 700 s", pre, []string{"low:InClusterQueue"})
}

// A restart starts the protection again: a job preempted and admitted
// again is protected for min_runtime from its new start.
func TestRestartedJobIsProtectedFromItsNewStart(t *testing.T) {
	f := oneUnitTeam(t, "10m", "mid")
	low := f.submit(job{name: "low", team: "a", class: "low", acc: 1})
	f.untilQuiet(0)
	mid := f.submit(job{name: "mid", team: "a", class: "mid", acc: 1, at: 700})
	_, pre := f.step(700)
	eq(t, "preempted at 700 s", pre, []string{"low:InClusterQueue"})
	f.core.Requeue(low, 700)
	f.untilQuiet(700)
	f.core.Finish(mid, 750)
	adm, _ := f.untilQuiet(750)
	eq(t, "admitted again at 750 s", adm, []string{"low@unit"})
	f.submit(job{name: "urgent", team: "a", class: "high", acc: 1, at: 800})
	_, pre = f.untilQuiet(800)
	eq(t, "preempted at 800 s", pre, nil)
	_, pre = f.untilQuiet(1350)
	eq(t, "preempted at 1350 s", pre, []string{"low:InClusterQueue"})
}

// A job that waits because every job it could take is protected says so,
// with how long the first protection has left.
func TestWaitingJobSaysWhichProtectionItWaitsFor(t *testing.T) {
	f := oneUnitTeam(t, "1h")
	f.submit(job{name: "low", team: "a", class: "low", acc: 1})
	f.untilQuiet(0)
	urgent := f.submit(job{name: "urgent", team: "a", class: "high", acc: 1, at: 1000})
	f.untilQuiet(1000)
	_, why := f.core.Why(urgent)
	if want := "no running job may be preempted for it now (1 running there protected by min_runtime, the first for another 44m)"; !strings.Contains(why, want) {
		t.Errorf("reason %q, want it to contain %q", why, want)
	}
}

// oneUnitTeam is one node of one accelerator, team a's quota, classes high
// and low (and any more given, between them), and min_runtime.
func oneUnitTeam(t *testing.T, minRuntime string, more ...string) *fixture {
	classes := "{name: high, value: 10}, "
	for i, c := range more {
		classes += fmt.Sprintf("{name: %s, value: %d}, ", c, 9-i)
	}
	return newFixture(t, unitFleet(1)+`
teams: [{name: a, quota: {unit: 1}}]
priority_classes: [`+classes+`{name: low, value: 1}]
policy: {kind: quota, preemption: {min_runtime: `+minRuntime+`}}
`)
}
