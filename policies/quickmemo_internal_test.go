package policies

import (
	"math/rand/v2"
	"testing"
)

// A remembered quick test rests on one rule: among sibling teams, once no
// borrowing team could lose a job to a head, a job leaving some other team
// cannot change that (its share, and its best case, only fall). On random
// busy states, every head that fails the test still fails it after a
// random running job of another team finishes.
func TestAReleaseElsewhereNeverLetsATeamLoseAJobToAHeadThatFoundNone(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 23))
	nR := 1
	checked := 0
	for trial := range 400 {
		c, _ := busyCore(t, rng, false, 16)
		w := &Workload{Name: "head", Seq: 1000, Queue: rng.IntN(4), Priority: int32(rng.IntN(3)),
			Req: Request{Accel: Qty(1+rng.IntN(8)) * Milli}}
		if err := c.Submit(w); err != nil {
			t.Fatal(err)
		}
		f := rng.IntN(2)
		e := &entry{w: w, q: w.Queue, qn: c.tree.qNode[w.Queue], flavor: f,
			usage: []frQty{{f * nR, w.Req.Accel}}, frsNeed: []int{f * nR}}
		strategies := defaultStrategies
		if c.anyFairCandidatePossible(e, c.borrowersOf(e, nil), strategies) {
			continue
		}
		var others []*Workload
		for q := range c.queues {
			if q != w.Queue {
				others = append(others, c.queues[q].admitted...)
			}
		}
		if len(others) == 0 {
			continue
		}
		gone := others[rng.IntN(len(others))]
		c.Finish(gone, 100)
		if c.anyFairCandidatePossible(e, c.borrowersOf(e, nil), strategies) {
			t.Fatalf("trial %d: job %d of team %d finished, and now a team could lose a job to a head of team %d on type %d",
				trial, gone.Seq, gone.Queue, w.Queue, f)
		}
		checked++
	}
	if checked < 100 {
		t.Fatalf("only %d heads failed the quick test: the states do not exercise it", checked)
	}
	t.Logf("%d heads", checked)
}
