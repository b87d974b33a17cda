package replay

import "testing"

// Two decisions the live run took in the other order are a near-tie when
// the simulator took them within the daemon's latency of each other, and
// a disagreement when further apart.
func TestReplayExcusesOnlySwapsCloserThanTheLatency(t *testing.T) {
	sim := &Side{cap: 1, list: []decision{{"admit", 0, 0}, {"admit", 1, 10}, {"admit", 2, 100}}}
	lv := &Side{cap: 1, lat: 0.02, list: []decision{{"admit", 1, 10}, {"admit", 0, 11}, {"admit", 2, 100}}}
	r := Compare(sim, lv, 1000) // 20 ms is 20 s of workload time
	if r.nearTies != 1 || len(r.swapped) != 0 || !r.Agree() {
		t.Errorf("near-ties %d, swapped %v: want 1 and none", r.nearTies, r.swapped)
	}
	r = Compare(sim, lv, 100) // 2 s: 10 s apart is not a tie
	if r.nearTies != 0 || len(r.swapped) != 1 || r.Agree() {
		t.Errorf("near-ties %d, swapped %v: want 0 and one", r.nearTies, r.swapped)
	}
	lv.list = lv.list[:2]
	if r = Compare(sim, lv, 1000); len(r.missing) != 1 || r.Agree() {
		t.Errorf("missing %v: want job 2's admission", r.missing)
	}
}
