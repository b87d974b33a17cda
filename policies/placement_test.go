package policies_test

import (
	"strings"
	"testing"

	"github.com/allot-sim/allot/policies"
)

const twoNodes = `
name: t
fleet:
  instance_types:
    - {name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}
  nodes: [{type: eight, count: 3}]
teams: [{name: a}]
policy: {kind: fifo}
`

func TestJobOfAtLeastOneNodeTakesWholeNodes(t *testing.T) {
	f := newFixture(t, twoNodes)
	w := f.submit(job{name: "j12", team: "a", acc: 12})
	adm, _ := f.step(0)
	eq(t, "admitted", adm, []string{"j12@eight"})
	if got := w.Held(); got != 16*policies.Milli {
		t.Errorf("a 12-accelerator job on 8-accelerator nodes holds %d/1000, want 16 (two whole nodes)", got)
	}
	if n := len(w.Nodes()); n != 2 {
		t.Errorf("nodes %d, want 2", n)
	}
}

func TestSmallJobsPackOntoPartlyUsedNodeBeforeBreakingAFreeOne(t *testing.T) {
	f := newFixture(t, twoNodes)
	a := f.submit(job{name: "a", team: "a", acc: 4})
	b := f.submit(job{name: "b", team: "a", acc: 2})
	c := f.submit(job{name: "c", team: "a", acc: 2})
	f.step(0)
	if a.Nodes()[0] != b.Nodes()[0] || b.Nodes()[0] != c.Nodes()[0] {
		t.Errorf("4+2+2 accelerators spread over nodes %v %v %v, want one node", a.Nodes(), b.Nodes(), c.Nodes())
	}
	d := f.submit(job{name: "d", team: "a", acc: 8})
	f.step(1)
	if d.Nodes()[0] == a.Nodes()[0] {
		t.Errorf("an 8-accelerator job was put on the full node")
	}
}

func TestGangStartsWholeOrNotAtAll(t *testing.T) {
	f := newFixture(t, twoNodes)
	small := f.submit(job{name: "small", team: "a", acc: 1})
	f.step(0)
	f.submit(job{name: "gang", team: "a", acc: 24}) // needs all 3 nodes; one is partly used
	adm, _ := f.step(1)
	eq(t, "admitted with one node partly used", adm, nil)
	f.core.Finish(small, 2)
	adm, _ = f.step(2)
	eq(t, "admitted once all three nodes are free", adm, []string{"gang@eight"})
}

func TestPlacementDependsOnNodeStateNotHistory(t *testing.T) {
	// The lowest-numbered free node is used, however the nodes got free.
	f := newFixture(t, twoNodes)
	x := f.submit(job{name: "x", team: "a", acc: 8})
	y := f.submit(job{name: "y", team: "a", acc: 8})
	f.step(0)
	f.core.Finish(y, 1)
	f.core.Finish(x, 1)
	z := f.submit(job{name: "z", team: "a", acc: 8})
	f.step(2)
	if z.Nodes()[0] != 0 {
		t.Errorf("node %d, want 0", z.Nodes()[0])
	}
}

// A job no node of its types could hold waits, with that as its reason,
// while the others go on: here a GPU job whose one type has no GPUs.
func TestAJobNoNodeOfItsTypesCouldHoldWaitsWithThatReason(t *testing.T) {
	f := newFixture(t, `
name: t
fleet:
  instance_types:
    - {name: eight, accelerators: 8, vcpus: 64, memory_gib: 512}
    - {name: cpu, accelerators: 0, vcpus: 64, memory_gib: 512}
  nodes: [{type: eight, count: 1}, {type: cpu, count: 1}]
teams: [{name: a, quota: {eight: 8, cpu: 0}}]
policy: {kind: quota}
`)
	stuck := f.submit(job{name: "stuck", team: "a", acc: 1, types: []string{"cpu"}})
	f.submit(job{name: "fits", team: "a", acc: 1})
	adm, _ := f.step(0)
	eq(t, "admitted", adm, []string{"fits@eight"})
	if state, why := f.core.Why(stuck); !strings.Contains(why, "cpu: the job does not fit on one of its nodes") {
		t.Errorf("the stuck job is %s: %q", state, why)
	}
}

func TestAWorkloadGivenADoneOnesSpareWritesItsNodesThere(t *testing.T) {
	f := newFixture(t, twoNodes)
	a := f.submit(job{name: "a", team: "a", acc: 16})
	f.step(0)
	first := a.Nodes()
	f.core.Finish(a, 1)
	b := &policies.Workload{Name: "b", Seq: 100, Queue: f.s.TeamIndex("a"), Req: policies.Request{Accel: policies.ToQty(16)}}
	b.Reuse(a.Spare())
	if err := f.core.Submit(b); err != nil {
		t.Fatal(err)
	}
	f.names[b] = "b"
	adm, _ := f.step(2)
	eq(t, "admitted", adm, []string{"b@eight"})
	if got := b.Nodes(); len(got) != 2 || &got[0] != &first[0] {
		t.Errorf("nodes %v in a new list, want two in the done job's", got)
	}
}
