package policies_test

import (
	"fmt"
	"math"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// HyperPod H3: with first-come idle allocation, whoever asks first may take
// all the idle compute.
func TestFirstComeIdleAllocationLetsOneTeamTakeAllIdleCompute(t *testing.T) {
	f := newFixture(t, unitFleet(4)+`
teams: [{name: a, quota: {unit: 2}}, {name: b, quota: {unit: 2}}]
policy: {kind: quota, idle_allocation: first-come}
`)
	f.backlog("a", 10, 1)
	f.untilQuiet(0)
	if got := f.running("a"); got != 4 {
		t.Errorf("team a holds %d, want all 4", got)
	}
}

// HyperPod H4: a gang (a Ray cluster of head + 7 workers) is admitted whole
// or not at all.
func TestGangIsNotAdmittedUntilTheWholeGangFits(t *testing.T) {
	f := newFixture(t, unitFleet(8)+`
teams: [{name: a, quota: {unit: 8}, borrow: false}]
policy: {kind: quota}
`)
	other := f.submit(job{name: "other", team: "a", acc: 2})
	f.untilQuiet(0)
	f.submit(job{name: "ray", team: "a", acc: 8, at: 1})
	adm, _ := f.untilQuiet(1)
	eq(t, "with 6 free", adm, nil)
	f.core.Finish(other, 2)
	adm, _ = f.untilQuiet(2)
	eq(t, "with 8 free", adm, []string{"ray@unit"})
}

// HyperPod H5: a quota given in accelerators gets vCPUs and memory in the
// same ratio; one given in memory gets vCPUs by that ratio and no
// accelerators.
func TestQuotaGivenInOneResourceGetsTheOthersByRatio(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  nodes: [{type: p5.48xlarge, count: 4}]
teams:
  - {name: acc, quota: {p5.48xlarge: {accelerators: 16}}}
  - {name: mem, quota: {p5.48xlarge: {memory_gib: 4096}}}
policy: {kind: quota}
`)
	m := f.b.Model
	fl := f.b.FlavorIndex("p5.48xlarge")
	q := func(team string, res string) float64 {
		g := m.Queues[f.s.TeamIndex(team)].Groups[0]
		for _, fq := range g.Flavors {
			if fq.Flavor == fl {
				return float64(fq.Quotas[m.ResourceIndex(res)].Nominal) / 1000
			}
		}
		return math.NaN()
	}
	for _, c := range []struct {
		team, res string
		want      float64
	}{
		{"acc", "nvidia.com/gpu", 16}, {"acc", "cpu", 384}, {"acc", "memory", 4096},
		{"mem", "nvidia.com/gpu", 0}, {"mem", "cpu", 384}, {"mem", "memory", 4096},
	} {
		if got := q(c.team, c.res); got != c.want {
			t.Errorf("%s %s quota %g, want %g", c.team, c.res, got, c.want)
		}
	}
}

// Among victims the rules rank equally, prefer_least_lost_work takes the
// one that loses least since its last checkpoint.
func TestPreferLeastLostWorkPicksTheRecentlyCheckpointedVictim(t *testing.T) {
	for _, tc := range []struct {
		prefer bool
		want   string
	}{{false, "fresh:InClusterQueue"}, {true, "checkpointed:InClusterQueue"}} {
		f := newFixture(t, unitFleet(2)+fmt.Sprintf(`
teams: [{name: a, quota: {unit: 2}}]
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
policy: {kind: quota, preemption: {prefer_least_lost_work: %v}}
`, tc.prefer))
		// Admitted at 0 with 1 h checkpoints: at 3700 s it would lose 100 s.
		f.submit(job{name: "checkpointed", team: "a", class: "low", acc: 1, ckpt: 3600})
		f.step(0)
		// Admitted later, no checkpoints: it would lose 2700 s.
		f.submit(job{name: "fresh", team: "a", class: "low", acc: 1, at: 1000})
		f.step(1000)
		f.submit(job{name: "urgent", team: "a", class: "high", acc: 1, at: 3700})
		_, pre := f.step(3700)
		eq(t, fmt.Sprintf("prefer=%v", tc.prefer), pre, []string{tc.want})
	}
}

// oneTeamTwoTypes is one node of each of two types, both in team a's quota.
const oneTeamTwoTypes = `
name: t
fleet:
  nodes: [{type: p5.48xlarge, count: 1}, {type: p4d.24xlarge, count: 1}]
teams: [{name: a, quota: {p5.48xlarge: 8, p4d.24xlarge: 8}}]
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
`

// Fallback: when the preferred instance type is saturated, a job runs on
// the next compatible one rather than waiting or preempting.
func TestJobFallsBackToTheNextCompatibleInstanceType(t *testing.T) {
	f := newFixture(t, oneTeamTwoTypes+"policy: {kind: quota, fallback: try-next-type}\n")
	f.submit(job{name: "first", team: "a", class: "low", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}})
	f.submit(job{name: "second", team: "a", class: "high", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}, at: 1})
	adm, pre := f.untilQuiet(1)
	eq(t, "admitted", adm, []string{"second@p5.48xlarge", "first@p4d.24xlarge"})
	eq(t, "preempted", pre, nil)
}

// A type where the job would have to preempt never beats a later type in
// its list where it fits: under try-next-type the job runs on the second
// type and nobody is preempted, with or without fair sharing.
func TestATypeWhereTheJobFitsBeatsAnEarlierTypeThatNeedsPreemption(t *testing.T) {
	for _, idle := range []string{"fair-share", "first-come"} {
		f := newFixture(t, oneTeamTwoTypes+"policy: {kind: quota, fallback: try-next-type, idle_allocation: "+idle+"}\n")
		f.submit(job{name: "low", team: "a", class: "low", acc: 8, types: []string{"p5.48xlarge"}})
		f.untilQuiet(0)
		f.submit(job{name: "high", team: "a", class: "high", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}, at: 1})
		adm, pre := f.step(1)
		eq(t, idle+" admitted", adm, []string{"high@p4d.24xlarge"})
		eq(t, idle+" preempted", pre, nil)
	}
}

// The same with preempt-first: preempting within quota on the preferred
// type is chosen over running elsewhere by borrowing.
func TestPreemptFirstPrefersPreemptingOnThePreferredType(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  nodes: [{type: p5.48xlarge, count: 1}, {type: p4d.24xlarge, count: 1}]
teams:
  - {name: a, quota: {p5.48xlarge: 8}}
  - {name: b, quota: {p4d.24xlarge: 8}}
priority_classes: [{name: high, value: 10}, {name: low, value: 1}]
policy: {kind: quota, fallback: preempt-first, idle_allocation: first-come}
`)
	f.submit(job{name: "low", team: "a", class: "low", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}})
	f.untilQuiet(0)
	f.submit(job{name: "high", team: "a", class: "high", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}, at: 1})
	_, pre := f.step(1)
	eq(t, "preempted", pre, []string{"low:InClusterQueue"})
}

var _ = policies.Milli

// Between two types where the job can only get in by taking other teams'
// jobs, the one that leaves it borrowing less wins; at the same level the
// earlier type in its list wins (Kueue's flavor preference). So a later
// type is worth searching only if it could leave the job within quota.
func TestAnEarlierTypeThatReclaimsWinsUnlessALaterOneKeepsTheJobWithinQuota(t *testing.T) {
	for _, tc := range []struct {
		name       string
		p4dNodes   int
		quotaP4d   int
		wantVictim string
	}{
		// a's 8 GPUs borrow on either type: the first, p5, wins.
		{"both borrow", 1, 4, "b-p5:InCohortFairSharing"},
		// On p4d they fit a's own quota: p4d wins, though it comes second.
		{"second within quota", 2, 8, "b-p4d-1:InCohortReclamation"},
	} {
		f := newFixture(t, fmt.Sprintf(`
name: t
fleet:
  nodes: [{type: p5.48xlarge, count: 1}, {type: p4d.24xlarge, count: %d}]
teams:
  - {name: a, quota: {p5.48xlarge: 4, p4d.24xlarge: %d}}
  - {name: b, quota: {p5.48xlarge: 4, p4d.24xlarge: %d}}
priority_classes: [{name: normal, value: 1}]
policy: {kind: quota, fallback: try-next-type, idle_allocation: fair-share, reclaim: any}
`, tc.p4dNodes, tc.quotaP4d, tc.quotaP4d))
		f.submit(job{name: "b-p5", team: "b", class: "normal", acc: 8, types: []string{"p5.48xlarge"}})
		for i := 1; i <= tc.p4dNodes; i++ {
			f.submit(job{name: fmt.Sprintf("b-p4d-%d", i), team: "b", class: "normal", acc: 8, types: []string{"p4d.24xlarge"}})
		}
		f.untilQuiet(0)
		f.submit(job{name: "a", team: "a", class: "normal", acc: 8, types: []string{"p5.48xlarge", "p4d.24xlarge"}, at: 1})
		_, pre := f.step(1)
		eq(t, tc.name, pre, []string{tc.wantVictim})
	}
}
