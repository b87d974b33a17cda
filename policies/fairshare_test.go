package policies_test

import (
	"fmt"
	"testing"

	"github.com/allot-sim/allot/policies"
)

// unitFleet is n one-accelerator nodes.
func unitFleet(n int) string {
	return fmt.Sprintf(`
name: t
fleet:
  instance_types: [{name: unit, accelerators: 1, vcpus: 8, memory_gib: 64}]
  nodes: [{type: unit, count: %d}]
`, n)
}

// countAdmitted tallies admissions by team.
func (f *fixture) countAdmitted(adm []string) map[string]int {
	out := map[string]int{}
	for _, a := range adm {
		for w, n := range f.names {
			if n+"@unit" == a {
				out[f.s.Teams[w.Queue].Name]++
			}
		}
	}
	return out
}

// runRounds finishes everything running and schedules again, n times,
// and counts admissions per team.
func (f *fixture) runRounds(n int) map[string]int {
	total := map[string]int{}
	for r := 0; r < n; r++ {
		now := float64(r * 3600)
		for w := range f.names {
			if w.Admitted() {
				f.core.Finish(w, now)
			}
		}
		for team, k := range f.countAdmitted(f.stepNames(now)) {
			total[team] += k
		}
	}
	return total
}

func (f *fixture) stepNames(now float64) []string {
	adm, _ := f.step(now)
	return adm
}

func (f *fixture) backlog(team string, n int, acc float64) {
	for i := 0; i < n; i++ {
		f.submit(job{name: fmt.Sprintf("%s-%d", team, i), team: team, acc: acc, at: float64(i) * 1e-3})
	}
}

// AWS Batch B1(a): weightFactor 0.125 vs 1 gives 8:1 (allot weight 8 vs 1).
func TestFairShareWeightsSplitSaturatedCapacityByWeight(t *testing.T) {
	f := newFixture(t, unitFleet(90)+`
teams: [{name: x, weight: 8}, {name: y, weight: 1}]
policy: {kind: fairshare, share_decay: 0s}
`)
	f.backlog("x", 2000, 1)
	f.backlog("y", 2000, 1)
	got := f.runRounds(10)
	if got["x"] != 800 || got["y"] != 100 {
		t.Errorf("jobs started x=%d y=%d, want 800 and 100 (8:1)", got["x"], got["y"])
	}
}

// AWS Batch B1(b): equal weights, A jobs half the size of B jobs: two A
// jobs start for every B job.
func TestFairShareEqualWeightsGiveEqualCapacityNotEqualJobs(t *testing.T) {
	f := newFixture(t, unitFleet(12)+`
teams: [{name: a}, {name: b}]
policy: {kind: fairshare}
`)
	f.backlog("a", 100, 1)
	f.backlog("b", 100, 2)
	got := f.countAdmitted(f.stepNames(0))
	if got["a"] != 6 || got["b"] != 3 {
		t.Errorf("started a=%d b=%d, want 6 and 3", got["a"], got["b"])
	}
}

// AWS Batch B2(a): computeReservation r holds r^active of capacity back.
func TestComputeReservationHoldsBackRToTheActiveShares(t *testing.T) {
	for _, tc := range []struct {
		r      string
		active int
		want   int // of 64 accelerators
	}{
		{"50%", 1, 32}, {"50%", 2, 48}, {"50%", 3, 56},
		{"25%", 1, 48}, {"25%", 2, 60}, {"25%", 3, 63},
	} {
		f := newFixture(t, unitFleet(64)+fmt.Sprintf(`
teams: [{name: s1}, {name: s2}, {name: s3}]
policy: {kind: fairshare, compute_reservation: "%s"}
`, tc.r))
		for i := 1; i <= tc.active; i++ {
			f.backlog(fmt.Sprintf("s%d", i), 100, 1)
		}
		adm, _ := f.step(0)
		if len(adm) != tc.want {
			t.Errorf("reservation %s with %d active shares: %d accelerators used, want %d", tc.r, tc.active, len(adm), tc.want)
		}
	}
}

// AWS Batch B2(b): the CDK sequence with computeReservation 75.
func TestComputeReservationSequenceAsSharesBecomeActive(t *testing.T) {
	f := newFixture(t, unitFleet(64)+`
teams: [{name: a, weight: 1}, {name: b, weight: 2}, {name: c, weight: 0.5}]
policy: {kind: fairshare, compute_reservation: "75%"}
`)
	used := 0
	steps := []struct {
		team string
		want int // accelerators in use after the step
	}{
		{"a", 16}, // 75% held for others
		{"b", 28}, // 56.25%
		{"a", 28}, // still two distinct active shares
		{"c", 37}, // 42.1875%
	}
	for i, s := range steps {
		for k := 0; k < 64; k++ {
			f.submit(job{name: fmt.Sprintf("%s-%d-%d", s.team, i, k), team: s.team, acc: 1, at: float64(i)})
		}
		adm, _ := f.step(float64(i))
		used += len(adm)
		if used != s.want {
			t.Errorf("step %d (%s): %d in use, want %d", i, s.team, used, s.want)
		}
	}
}

// AWS Batch B4 (the seed tutorial): with no usage yet, the share with the
// larger weight (smaller weightFactor) goes first.
func TestFairShareTieGoesToTheLargerWeight(t *testing.T) {
	f := newFixture(t, unitFleet(1)+`
teams: [{name: lowpri, weight: 0.2}, {name: midpri, weight: 0.3333}, {name: highpri, weight: 1}]
priority_classes: [{name: p5, value: 5}, {name: p3, value: 3}, {name: p1, value: 1}]
policy: {kind: fairshare, share_decay: 1h}
`)
	l := f.submit(job{name: "L", team: "lowpri", class: "p5", acc: 1, at: 0})
	m := f.submit(job{name: "M", team: "midpri", class: "p3", acc: 1, at: 0})
	adm, _ := f.step(0)
	eq(t, "t0", adm, []string{"M@unit"})
	f.submit(job{name: "H", team: "highpri", class: "p1", acc: 1, at: 60})
	f.step(60)
	f.core.Finish(m, 3600)
	adm, _ = f.step(3600)
	eq(t, "when capacity frees", adm, []string{"H@unit"})
	_ = l
}

// AWS Batch B5: a capacity of 50 instances runs five 10-instance jobs.
func TestCapacityLimitRunsFiveOfSixTenInstanceJobs(t *testing.T) {
	f := newFixture(t, unitFleet(50)+`
teams: [{name: a}]
policy: {kind: fairshare}
`)
	f.backlog("a", 6, 10)
	adm, _ := f.step(0)
	if len(adm) != 5 {
		t.Errorf("%d jobs started, want 5", len(adm))
	}
}

// Share decay: a running job's usage fades with its age (half-life); with
// no decay only current usage counts.
func TestShareDecayFadesLongRunningUsage(t *testing.T) {
	for _, tc := range []struct{ decay, want string }{{"30m", "a1@unit"}, {"0s", "b1@unit"}} {
		f := newFixture(t, unitFleet(4)+`
teams: [{name: a}, {name: b}]
policy: {kind: fairshare, share_decay: `+tc.decay+`}
`)
		f.submit(job{name: "a0", team: "a", acc: 2})
		f.step(0)
		f.submit(job{name: "b0", team: "b", acc: 1, at: 7200})
		f.step(7200)
		// At 7300 s a's 2 accelerators, 2 h old, count 2·2^-4 ≈ 0.12; b's 1,
		// 100 s old, counts ≈ 0.96. Without decay: 2 against 1.
		f.submit(job{name: "a1", team: "a", acc: 1, at: 7300})
		f.submit(job{name: "b1", team: "b", acc: 1, at: 7300})
		adm, _ := f.step(7300)
		eq(t, "decay "+tc.decay, adm, []string{tc.want})
	}
}

var _ = policies.Milli
