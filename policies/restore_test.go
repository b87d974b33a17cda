package policies_test

import (
	"testing"

	"github.com/allot-sim/allot/policies"
)

// A core rebuilt after a restart must not hand out nodes its running jobs
// already hold: AddPlaced puts them back on the very nodes they had.
func TestAddPlacedKeepsARestoredJobsNodesTaken(t *testing.T) {
	f := newFixture(t, twoNodes)
	a := f.submit(job{name: "a", team: "a", acc: 4})
	big := f.submit(job{name: "big", team: "a", acc: 16})
	f.step(0)
	nodesA, nodesBig := append([]int32(nil), a.Nodes()...), append([]int32(nil), big.Nodes()...)

	g := newFixture(t, twoNodes)
	ra := &policies.Workload{Name: "a", Queue: 0, Req: policies.Request{Accel: 4 * policies.Milli}}
	rb := &policies.Workload{Name: "big", Seq: 1, Queue: 0, Req: policies.Request{Accel: 16 * policies.Milli}}
	if err := g.core.AddPlaced(ra, 0, nodesA, 0, false); err != nil {
		t.Fatal(err)
	}
	if err := g.core.AddPlaced(rb, 0, nodesBig, 0, false); err != nil {
		t.Fatal(err)
	}
	g.names[ra], g.names[rb] = "a", "big"
	fits := g.submit(job{name: "four", team: "a", acc: 4, at: 1})
	g.submit(job{name: "whole", team: "a", acc: 8, at: 1})
	adm, _ := g.step(1)
	eq(t, "admitted beside the restored jobs (no node is free for a whole one)", adm, []string{"four@eight"})
	if fits.Nodes()[0] != nodesA[0] {
		t.Errorf("a 4-accelerator job went to node %d, want %d (the rest of a's node)", fits.Nodes()[0], nodesA[0])
	}
	if err := g.core.AddPlaced(&policies.Workload{Name: "x", Queue: 0, Req: policies.Request{Accel: 8 * policies.Milli}}, 0, nodesA[:1], 2, false); err == nil {
		t.Error("placing an 8-accelerator job on a full node was accepted")
	}
}
