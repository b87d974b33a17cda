package policies_test

import "testing"

// Teams a and b reclaim their quota from c, which borrows all of it. Both
// heads take c's first candidate, so the head processed second finds it
// claimed by the first; the cycle after, both search again (the victim's
// eviction changed c) and meet the same way. The work counts are those
// of the searches and takes made, whatever the shortcuts remember.
func TestWorkCountsCountTheSearchesAndTheHeadsWhoseVictimsWereClaimed(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  nodes: [{type: p5.48xlarge, count: 2}]
teams:
  - {name: a, quota: {p5.48xlarge: 8}}
  - {name: b, quota: {p5.48xlarge: 8}}
  - {name: c, quota: {p5.48xlarge: 0}}
priority_classes: [{name: normal, value: 1}]
policy: {kind: quota, idle_allocation: fair-share, reclaim: any}
`)
	f.submit(job{name: "c1", team: "c", class: "normal", acc: 8})
	f.submit(job{name: "c2", team: "c", class: "normal", acc: 8})
	f.untilQuiet(0)
	before := f.core.ShortcutCounts().Work
	f.submit(job{name: "a", team: "a", class: "normal", acc: 8, at: 1})
	f.submit(job{name: "b", team: "b", class: "normal", acc: 8, at: 1})
	_, pre := f.step(1)
	eq(t, "preempted", pre, []string{"c1:InCohortReclamation"})
	w := f.core.ShortcutCounts().Work
	got := [4]int64{w.Nominations - before.Nominations, w.Searches - before.Searches, w.Tried - before.Tried, w.Claimed - before.Claimed}
	// Two cycles at t=1, each nominating both heads, each head's search
	// taking c1 alone; in each, the second head finds c1 claimed.
	if want := [4]int64{4, 4, 4, 2}; got != want {
		t.Errorf("nominations, searches, victims tried, claimed before = %v, want %v", got, want)
	}
}
