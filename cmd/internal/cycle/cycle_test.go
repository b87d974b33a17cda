package cycle

import "testing"

// Each run decides afresh on its own load: the same plan each time, one
// timing per run.
func TestRunRepeatsOnAFreshLoad(t *testing.T) {
	sf, res, took, err := Run("../../../docs/examples/snapshot.yaml", 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(took) != 3 {
		t.Errorf("%d timings for 3 runs", len(took))
	}
	if diffs := sf.Expected.Check(res); len(diffs) > 0 {
		t.Errorf("the last run differs from the expected plan: %v", diffs)
	}
	if _, _, _, err := Run("no-such-snapshot.yaml", 1); err == nil {
		t.Error("a missing snapshot gave no error")
	}
}
