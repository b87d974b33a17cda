package policies_test

import (
	"fmt"
	"testing"
)

// running counts a team's admitted accelerators.
func (f *fixture) running(team string) int {
	n := 0
	for w := range f.names {
		if w.Admitted() && f.s.Teams[w.Queue].Name == team {
			n += int(w.Held() / 1000)
		}
	}
	return n
}

// releasePreempted completes the evictions of a plan (the victims stop).
func (f *fixture) settle(now float64, preempted []string) {
	for w, n := range f.names {
		for _, p := range preempted {
			if len(p) > len(n) && p[:len(n)+1] == n+":" {
				f.core.Requeue(w, now)
			}
		}
	}
}

// untilQuiet schedules and completes evictions until nothing changes.
func (f *fixture) untilQuiet(now float64) (admitted, preempted []string) {
	for i := 0; i < 100; i++ {
		a, p := f.step(now)
		admitted = append(admitted, a...)
		preempted = append(preempted, p...)
		if len(a) == 0 && len(p) == 0 {
			return
		}
		f.settle(now, p)
	}
	return
}

const p4Fleet = `
name: t
fleet:
  instance_types: [{name: p4, accelerators: 1, vcpus: 96, memory_gib: 1152}]
  nodes: [{type: p4, count: 100}]
`

// AWS Batch Q1 (Amazon Search figure 1): ProdExp1 borrows ProdExp2's idle
// 15 and runs on 75; when ProdExp2 needs its 40, ProdExp1 goes back to 60.
func TestQuotaShareBorrowsIdleThenIsReclaimedToItsLimit(t *testing.T) {
	f := newFixture(t, p4Fleet+`
teams:
  - {name: prodexp1, quota: {p4: 60}}
  - {name: prodexp2, quota: {p4: 40}}
policy: {kind: fairshare, quota_shares: true}
`)
	for i := 0; i < 25; i++ {
		f.submit(job{name: fmt.Sprintf("e2-%d", i), team: "prodexp2", acc: 1})
	}
	for i := 0; i < 100; i++ {
		f.submit(job{name: fmt.Sprintf("e1-%d", i), team: "prodexp1", acc: 1, at: 1})
	}
	f.untilQuiet(1)
	if a, b := f.running("prodexp1"), f.running("prodexp2"); a != 75 || b != 25 {
		t.Fatalf("after borrowing: prodexp1 %d, prodexp2 %d; want 75 and 25", a, b)
	}
	for i := 25; i < 40; i++ {
		f.submit(job{name: fmt.Sprintf("e2-%d", i), team: "prodexp2", acc: 1, at: 2})
	}
	_, pre := f.untilQuiet(2)
	if a, b := f.running("prodexp1"), f.running("prodexp2"); a != 60 || b != 40 {
		t.Errorf("after reclaim: prodexp1 %d, prodexp2 %d; want 60 and 40", a, b)
	}
	if len(pre) != 15 {
		t.Errorf("%d preemptions, want 15", len(pre))
	}
}

// AWS Batch Q2 (figure 2): a share at its limit preempts its own
// lowest-priority job for a higher-priority one.
func TestQuotaShareInSharePreemptionTakesTheLowestPriority(t *testing.T) {
	f := newFixture(t, p4Fleet+`
teams:
  - {name: prodexp1, quota: {p4: 60}}
  - {name: prodexp2, quota: {p4: 40}}
priority_classes: [{name: p90, value: 90}, {name: p80, value: 80}, {name: p50, value: 50}, {name: p30, value: 30}, {name: p10, value: 10}]
policy: {kind: fairshare, quota_shares: true}
`)
	for _, c := range []string{"p80", "p50", "p30", "p10"} {
		f.submit(job{name: c, team: "prodexp1", class: c, acc: 15})
	}
	f.submit(job{name: "other", team: "prodexp2", acc: 40})
	f.untilQuiet(0)
	f.submit(job{name: "E", team: "prodexp1", class: "p90", acc: 15, at: 1})
	adm, pre := f.untilQuiet(1)
	eq(t, "preempted", pre, []string{"p10:InClusterQueue"})
	eq(t, "admitted", adm, []string{"E@p4"})
	if got := f.running("prodexp1"); got != 60 {
		t.Errorf("prodexp1 holds %d, want 60", got)
	}
}

// AWS Batch Q3(a): borrowLimit 200% lets a share use up to 3× its limit.
func TestQuotaShareBorrowLimitIsAShareOfItsOwnLimit(t *testing.T) {
	f := newFixture(t, p4Fleet+`
teams:
  - {name: s, quota: {p4: 10}, borrow_limit: 200%}
  - {name: idle, quota: {p4: 90}}
policy: {kind: fairshare, quota_shares: true}
`)
	f.backlog("s", 100, 1)
	f.untilQuiet(0)
	if got := f.running("s"); got != 30 {
		t.Errorf("share holds %d, want 30 (10 + 200%%)", got)
	}
}

// AWS Batch Q3(b): RESERVE neither lends nor borrows, LEND lends but does
// not borrow, LEND_AND_BORROW borrows what LEND shares lend.
func TestQuotaShareStrategiesGovernLendingAndBorrowing(t *testing.T) {
	f := newFixture(t, p4Fleet+`
teams:
  - {name: reserve, quota: {p4: 30}, lend: false, borrow: false}
  - {name: lender, quota: {p4: 30}, lend: true, borrow: false}
  - {name: both, quota: {p4: 40}}
policy: {kind: fairshare, quota_shares: true}
`)
	f.backlog("both", 200, 1)
	f.untilQuiet(0)
	if got := f.running("both"); got != 70 {
		t.Errorf("LEND_AND_BORROW share holds %d, want 70 (its 40 + the lender's 30, not the reserve's)", got)
	}
	f.backlog("lender", 100, 1)
	f.untilQuiet(1)
	if got := f.running("lender"); got != 30 {
		t.Errorf("LEND share holds %d, want its own 30 and no more", got)
	}
}

// AWS Batch Q4(b): lowering a limit makes the excess preemptible; it is
// preempted when another share needs the capacity.
func TestLoweredQuotaMakesTheExcessPreemptible(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  instance_types: [{name: p4, accelerators: 1, vcpus: 96, memory_gib: 1152}]
  nodes: [{type: p4, count: 32}]
teams:
  - {name: a, quota: {p4: 20}}
  - {name: b, quota: {p4: 12}}
policy: {kind: fairshare, quota_shares: true}
`)
	f.backlog("a", 20, 1)
	f.untilQuiet(0)
	a, fl := f.s.TeamIndex("a"), f.b.FlavorIndex("p4")
	b := f.s.TeamIndex("b")
	f.core.SetQuota(a, fl, f.b.Model.Flavors[fl].AccelResource, 12000)
	f.core.SetQuota(b, fl, f.b.Model.Flavors[fl].AccelResource, 20000)
	// b claims its raised limit: a's excess is preempted.
	for i := 0; i < 20; i++ {
		f.submit(job{name: fmt.Sprintf("b-%d", i), team: "b", acc: 1, at: 2})
	}
	_, pre := f.untilQuiet(2)
	if len(pre) != 8 || f.running("a") != 12 || f.running("b") != 20 {
		t.Errorf("preempted %d; a holds %d, b %d; want 8, 12 and 20", len(pre), f.running("a"), f.running("b"))
	}
	// a, at its lowered limit with nothing idle, starts nothing new.
	f.submit(job{name: "a-new", team: "a", acc: 1, at: 3})
	adm, _ := f.untilQuiet(3)
	eq(t, "admitted", adm, nil)
}
