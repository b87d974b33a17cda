package live

import (
	"io"
	"net/http/httptest"
	"strings"
	"testing"
)

// /metrics carries spec/cli.md's names and labels: a reclaim shows as a
// preemption of the borrower with its reason, its devices as borrowed by
// one team and lent by the other.
func TestMetricsShowBorrowingLendingAndPreemptions(t *testing.T) {
	h := newHarness(t)
	m := NewMetrics(h.c)
	low := h.submit("a", "low", 4)
	h.submit("b", "high", 2)
	scrape := func() string {
		rec := httptest.NewRecorder()
		m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		body, _ := io.ReadAll(rec.Body)
		return string(body)
	}
	out := scrape()
	for _, want := range []string{
		`allot_team_allocated_accelerators{instance_type="dev",team="a"} 4`,
		`allot_team_borrowed_accelerators{instance_type="dev",team="a"} 2`,
		`allot_team_lent_accelerators{instance_type="dev",team="b"} 2`,
		`allot_team_quota_accelerators{instance_type="dev",team="b"} 2`,
		`allot_utilization{instance_type="dev"} 1`,
		`allot_jobs{state="running",team="a"} 1`,
		`allot_jobs{state="pending",team="b"} 1`,
		`allot_admissions_total{team="a"} 1`,
		`allot_preemptions_total{reason="InCohortReclamation",team="a"} 1`,
		`allot_wait_seconds_count{team="a"} 1`,
	} {
		if !strings.Contains(out, want+"\n") {
			t.Errorf("no %s in\n%s", want, out)
		}
	}
	h.be.exits[low] = &Exit{Code: 143}
	h.advance(0)
	if out := scrape(); !strings.Contains(out, `allot_admissions_total{team="b"} 1`+"\n") || !strings.Contains(out, `allot_jobs{state="preempted",team="a"} 1`+"\n") {
		t.Errorf("after the reclaim:\n%s", out)
	}
}
