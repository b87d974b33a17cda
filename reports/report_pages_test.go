package reports

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tinyRun is a two-team, one-type run of four six-hour buckets, the first
// of them warm-up; price 0 leaves the fleet unpriced.
func tinyRun(price float64) *RunData {
	const nB = 4
	flat := func(v float64) []float64 {
		out := make([]float64, nB)
		for k := range out {
			out[k] = v + float64(k)
		}
		return out
	}
	d := &RunData{Types: []string{"p5.48xlarge"}, Teams: []string{"a", "b"},
		Installed: [][]float64{flat(16)},
		Allocated: [][][]float64{{flat(4), flat(6)}}, Borrowed: [][][]float64{{flat(0), flat(1)}},
		Lent: [][][]float64{{flat(1), flat(0)}}, Quota: [][][]float64{{flat(8), flat(8)}},
		Pending: [][]float64{flat(1), flat(2)}, Running: [][]float64{flat(2), flat(3)}, Demand: [][]float64{flat(8), flat(16)},
		Preempts: flat(0), LostAccH: flat(0), Goodput: flat(9), Price: []float64{price}, PerNode: []float64{8},
		WaitsByTeam:  map[string][]float64{"a": {0, 60, 7200}, "b": {30, 600}},
		WaitsByClass: map[string][]float64{"production": {0, 30, 60, 600, 7200}},
	}
	for k := range nB {
		d.Start, d.End = append(d.Start, float64(k)*21600), append(d.End, float64(k+1)*21600)
	}
	s := &Summary{Scenario: "tiny", Policy: "quota", Seed: 1, WindowS: [2]float64{21600, 86400}, BucketS: 21600,
		Capacity:   Capacity{Accelerators: 16, ByType: map[string]int{"p5.48xlarge": 16}},
		ByTeam:     map[string]TeamStats{"a": {}, "b": {}},
		Objectives: []ObjectiveResult{{Objective: "wait_s.p95 <= 6h", Path: "wait_s.p95", Op: "<=", Target: 6 * 3600, Value: 7200, Met: true}},
	}
	if price > 0 {
		s.Cost = Cost{USD: 100, USDPerUsefulAcceleratorHour: 5.5}
	} else {
		s.Cost = Cost{UnpricedTypes: []string{"p5.48xlarge"}}
	}
	d.Summary = s
	return d
}

func renderTiny(t *testing.T, d *RunData) (dir, html, md string) {
	t.Helper()
	dir = t.TempDir()
	if err := RenderRun(dir, d); err != nil {
		t.Fatal(err)
	}
	h, err := os.ReadFile(filepath.Join(dir, ReportHTMLFile))
	if err != nil {
		t.Fatal(err)
	}
	m, err := os.ReadFile(filepath.Join(dir, ReportMDFile))
	if err != nil {
		t.Fatal(err)
	}
	return dir, string(h), string(m)
}

func TestAnUnpricedFleetReadsUnpricedAndHasNoCostChart(t *testing.T) {
	dir, html, md := renderTiny(t, tinyRun(0))
	for name, page := range map[string]string{"html": html, "md": md} {
		if strings.Contains(page, "$0.00") {
			t.Errorf("%s shows $0.00 for an unpriced fleet", name)
		}
		if !strings.Contains(page, "unpriced") || !strings.Contains(page, "no cost chart") {
			t.Errorf("%s does not say the fleet is unpriced", name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ChartDir, "cost.svg")); !os.IsNotExist(err) {
		t.Errorf("charts/cost.svg written for an unpriced fleet (%v)", err)
	}
	if strings.Contains(html, `id="chart-cost"><h2>Cost per useful accelerator-hour</h2><figure>`) {
		t.Error("report.html draws a cost chart")
	}

	_, html, _ = renderTiny(t, tinyRun(55))
	if !strings.Contains(html, "$5.50") || !strings.Contains(html, `data-chart="cost"`) {
		t.Error("a priced fleet lost its cost figure or chart")
	}
}

func TestObjectivesComeBeforeTheCharts(t *testing.T) {
	_, html, md := renderTiny(t, tinyRun(0))
	const want = "p95 wait 2 h ≤ 6 h: met"
	for name, page := range map[string]string{"html": html, "md": md} {
		i, j := strings.Index(page, want), strings.Index(page, "Utilisation over time")
		if i < 0 || j < 0 || i > j {
			t.Errorf("%s: objective %q not before the first chart (at %d, chart at %d)", name, want, i, j)
		}
	}
}

// The same run renders to the same bytes, charts included.
func TestReportsRenderByteForByteTheSame(t *testing.T) {
	a, _, _ := renderTiny(t, tinyRun(55))
	b, _, _ := renderTiny(t, tinyRun(55))
	for _, f := range []string{ReportHTMLFile, ReportMDFile, "charts/utilization.svg", "charts/teams.svg", "charts/wait-team.svg"} {
		x, err1 := os.ReadFile(filepath.Join(a, f))
		y, err2 := os.ReadFile(filepath.Join(b, f))
		if err1 != nil || err2 != nil || !bytes.Equal(x, y) {
			t.Errorf("%s differs between two renderings (%v, %v)", f, err1, err2)
		}
	}
}

func TestWaitsOrdersOfMagnitudeApartGoOnALogAxis(t *testing.T) {
	for _, c := range []struct {
		v    []float64
		want bool
	}{
		{[]float64{800, 2}, true},
		{[]float64{800, 0}, true},
		{[]float64{10, 5, 1}, false},
		{[]float64{0, 0}, false},
		{[]float64{0.001, 0}, false}, // all under the floor
	} {
		if got := needsLog(c.v, waitFloor); got != c.want {
			t.Errorf("needsLog(%v) = %v, want %v", c.v, got, c.want)
		}
	}
}

func TestComparisonCardsShowEachVariantAndTheDifference(t *testing.T) {
	run := func(util, wait float64) *Summary {
		return &Summary{Utilization: Utilization{Mean: util, P95Bucket: util}, Goodput: util, WaitS: WaitStats{P95: wait}, WaitAllS: WaitAllStats{P95: wait},
			ByPriorityClass: map[string]ClassStats{"production": {WaitS: ShortWait{P95: wait}, WaitAllS: ShortWaitAll{P95: wait}}},
			Cost:            Cost{UnpricedTypes: []string{"p5e.48xlarge"}}}
	}
	c := &Comparison{Variants: []*VariantResult{
		{Name: "fifo", Summaries: []*Summary{run(0.3, 800*3600), run(0.32, 790*3600)}},
		{Name: "quota", Summaries: []*Summary{run(0.8, 2*3600), run(0.82, 2.2*3600)}},
	}}
	cards := c.cards()
	if len(cards) != 7 {
		t.Fatalf("%d cards, want 7: %+v", len(cards), cards)
	}
	for _, cd := range cards {
		if len(cd.Rows) != 2 || cd.Rows[0].Name != "fifo" || cd.Rows[1].Name != "quota" {
			t.Errorf("%s: rows %+v", cd.Label, cd.Rows)
		}
	}
	if r := cards[0].Rows[1]; r.Diff == "" || r.Tone != "better" {
		t.Errorf("mean utilisation, quota: %+v, want a better difference", r)
	}
	if r := cards[2].Rows[1]; r.Tone != "better" || !strings.HasPrefix(r.Diff, "−") {
		t.Errorf("production p95 wait, quota: %+v, want a shorter wait", r)
	}
	if r := cards[6].Rows[1]; r.Value != "unpriced" {
		t.Errorf("cost of an unpriced fleet: %+v", r)
	}
}
