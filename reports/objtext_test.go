package reports

import "testing"

func TestObjectivesReadInTheirOwnUnits(t *testing.T) {
	for _, c := range []struct {
		o    ObjectiveResult
		want string
	}{
		{ObjectiveResult{"wait_s.p95 <= 6h", 2.1 * 3600, true}, "p95 wait 2.1 h ≤ 6 h: met"},
		{ObjectiveResult{"by_priority_class.production.wait_s.p95 <= 1h", 3 * 3600, false}, "production p95 wait 3 h ≤ 60 min: not met"},
		{ObjectiveResult{"utilization.p95_bucket >= 0.8", 0.918, true}, "peak utilisation 91.8% ≥ 80%: met"},
		{ObjectiveResult{"utilization.mean >= 75%", 0.7, false}, "mean utilisation 70% ≥ 75%: not met"},
		{ObjectiveResult{"jobs.unstarted_share <= 1%", 0.02, false}, "share of jobs never started 2% ≤ 1%: not met"},
		{ObjectiveResult{"cost.usd_per_useful_accelerator_hour < 6", 5.94, true}, "cost per useful accelerator-hour $5.94 < $6.00: met"},
		{ObjectiveResult{"preemptions <= 100", 555, false}, "preemptions 555 ≤ 100: not met"},
		{ObjectiveResult{"fairness.jain >= 0.9", 0.819, false}, "fairness (Jain) 0.819 ≥ 0.9: not met"},
		{ObjectiveResult{"by_team.ads.wait_all_s.mean < 2d", 86400, true}, "ads mean wait (all jobs) 24 h < 48 h: met"},
	} {
		if got := objectiveText(c.o); got != c.want {
			t.Errorf("%s: %q, want %q", c.o.Objective, got, c.want)
		}
	}
}
