package main

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func chromium(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts headless Chromium")
	}
	// Debian's /usr/bin/chromium is a shell wrapper; prefer the binary.
	if _, err := os.Stat("/usr/lib/chromium/chromium"); err == nil {
		return "/usr/lib/chromium/chromium"
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no Chromium on this machine: `make test` installs Debian's chromium (scripts/ensure-chromium.sh)")
	return ""
}

// colouredPixels counts pixels of a clear hue: data lines, bars and areas.
// Axes, grid and labels are grey, so a chart that drew no data has none.
func colouredPixels(img image.Image) int {
	b := img.Bounds()
	n := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			hi, lo := max(r, g, bl), min(r, g, bl)
			if hi-lo > 0x3000 {
				n++
			}
		}
	}
	return n
}

// browser starts headless Chromium, offline; the context ends with the test.
func browser(t *testing.T) (context.Context, context.CancelFunc) {
	t.Helper()
	// A browser that dies while starting (a busy machine, a full /dev/shm)
	// is tried again: the tests are about the pages, not the start-up.
	var err error
	for try := 1; try <= 3; try++ {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("disable-dev-shm-usage", true),
			chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
		actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancel := chromedp.NewContext(actx)
		tctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
		stop := func() { cancelT(); cancel(); cancelA() }
		if err = chromedp.Do(tctx); err == nil { // start the browser
			return tctx, stop
		}
		stop()
		t.Logf("headless Chromium did not start (try %d of 3): %v", try, err)
	}
	t.Fatal(err)
	return nil, nil
}

// checkReportInBrowser opens a report in headless Chromium, fails on
// console errors or exceptions, and checks every chart drew something. The
// page must not load anything from the network.
func checkReportInBrowser(t *testing.T, page string, wantCharts int) {
	t.Helper()
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`(src|href|url)\(?=?"?https?://`).Find(html); m != nil {
		t.Errorf("%s loads something from the network: %s", page, m)
	}
	tctx, cancelT := browser(t)
	defer cancelT()
	consoleProblems := watchConsole(tctx)
	abs, _ := filepath.Abs(page)
	if err := chromedp.Do(tctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	charts, err := chromedp.Run(tctx, chromedp.Nodes(chromedp.CSSAll("section.chart figure")))
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != wantCharts {
		t.Errorf("%s: %d charts, want %d", page, len(charts), wantCharts)
	}
	if full, err := chromedp.Run(tctx, chromedp.FullScreenshot(60)); err == nil {
		os.WriteFile(strings.TrimSuffix(page, ".html")+"-screenshot.jpg", full, 0o644)
	}
	for i, n := range charts {
		checkChartDrawn(t, tctx, fmt.Sprintf("chart %d", i), n, true)
	}
	for _, p := range consoleProblems(cancelT) {
		t.Errorf("%s: %s", page, p)
	}
}

// watchConsole collects a page's console errors and exceptions; the
// function it returns waits for late ones, stops the tab and returns them.
func watchConsole(tctx context.Context) func(stop func()) []string {
	var mu sync.Mutex
	var problems []string
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for m, err := range chromedp.Console(tctx) {
			if err != nil {
				return
			}
			if m.Type == chromedp.ConsoleError || m.IsException() {
				mu.Lock()
				problems = append(problems, fmt.Sprintf("console %s: %s", m.Type, m))
				mu.Unlock()
			}
		}
	}()
	return func(stop func()) []string {
		time.Sleep(200 * time.Millisecond) // let late console messages arrive
		stop()
		<-collected
		mu.Lock()
		defer mu.Unlock()
		return problems
	}
}

// checkChartDrawn screenshots a chart and fails if it looks blank (or,
// with sized, is smaller than 300x100 pixels).
func checkChartDrawn(t *testing.T, tctx context.Context, name string, n *chromedp.Node, sized bool) {
	t.Helper()
	shot, err := chromedp.Run(tctx, chromedp.ScreenshotNodes([]*chromedp.Node{n}, 1))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if b := img.Bounds(); sized && (b.Dx() < 300 || b.Dy() < 100) {
		t.Errorf("%s is %dx%d pixels", name, b.Dx(), b.Dy())
	}
	if n := colouredPixels(img); n < 300 {
		t.Errorf("%s looks blank (%d coloured pixels)", name, n)
	}
}

func TestRunAndComparisonReportsRenderInHeadlessChromium(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	out, cmp := filepath.Join(dir, "out"), filepath.Join(dir, "cmp")
	if code, _, errs := cli("sim", "../../scenarios/amazon-search.yaml", "--out", out); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := cli("compare", "../../scenarios/amazon-search.yaml", "--policy", "fifo", "--policy", "quota", "--seeds", "2", "--out", cmp); code != 0 {
		t.Fatal(errs)
	}
	checkReportInBrowser(t, filepath.Join(out, "report.html"), 8)
	checkReportInBrowser(t, filepath.Join(cmp, "report.html"), 4)
}

func TestReplayReportWithFidelityRendersInHeadlessChromium(t *testing.T) {
	chromium(t)
	dir := t.TempDir()
	if code, _, errs := cli("trace", "import", "--format", "openb", fixtures+"/openb_pods.csv", fixtures+"/openb_nodes.csv", "-o", dir+"/openb.parquet"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := cli("sim", dir+"/openb.yaml", "--out", dir+"/out"); code != 0 {
		t.Fatal(errs)
	}
	html := mustRead(t, dir+"/out/report.html")
	if !strings.Contains(html, "Replay fidelity") {
		t.Error("report.html has no replay fidelity section")
	}
	// The replayed fleet has no prices: no cost chart, a note instead.
	if !strings.Contains(html, `class="chart-omitted" id="chart-cost"`) || strings.Contains(html, "$0.00") {
		t.Error("report.html of an unpriced fleet should leave the cost chart out and show no $0.00")
	}
	checkReportInBrowser(t, filepath.Join(dir, "out", "report.html"), 8)
}

// The report tests below run on a twenty-team week (testdata/twenty-teams.yaml):
// as many teams as the palette must keep apart, simulated in a blink.
const twentyTeams = "testdata/twenty-teams.yaml"

// twentyTeamReports writes the scenario's run report and a FIFO-against-
// quota comparison, and returns their pages.
func twentyTeamReports(t *testing.T) (run, cmp string) {
	t.Helper()
	dir := t.TempDir()
	if code, _, errs := cli("sim", twentyTeams, "--out", dir+"/run"); code != 0 {
		t.Fatal(errs)
	}
	if code, _, errs := cli("compare", twentyTeams, "--policy", "fifo", "--policy", "quota", "--seeds", "2", "--out", dir+"/cmp"); code != 0 {
		t.Fatal(errs)
	}
	return dir + "/run/report.html", dir + "/cmp/report.html"
}

type box struct{ X, Y, W, H float64 }

func (a box) overlaps(b box) bool {
	return a.X < b.X+b.W && b.X < a.X+a.W && a.Y < b.Y+b.H && b.Y < a.Y+a.H
}

// drawn is a series or a legend entry as the browser paints it: the colour
// it declares and every fill and stroke colour of its shapes.
type drawn struct {
	Name, Colour, Role string
	Paint              []string
}

type panelFacts struct {
	DataArea box
	Legend   *box
	Series   []drawn
	Entries  []drawn
}

type chartFacts struct {
	Chart  string
	Panels []panelFacts
}

// chartFactsJS reads every chart of the page: each panel's data area and
// legend boxes as laid out, and the computed colours of each series and
// legend swatch.
const chartFactsJS = `(() => {
  const box = el => { const r = el.getBoundingClientRect(); return {X: r.left, Y: r.top, W: r.width, H: r.height}; };
  const paint = el => {
    const out = new Set();
    for (const p of el.querySelectorAll('path, rect')) {
      const cs = getComputedStyle(p);
      for (const v of [cs.fill, cs.stroke]) if (v && v !== 'none') out.add(v);
    }
    return [...out];
  };
  const item = el => ({Name: el.dataset.series, Colour: el.dataset.colour, Role: el.dataset.role || '', Paint: paint(el)});
  return [...document.querySelectorAll('svg.allot-chart')].map(svg => ({
    Chart: svg.dataset.chart,
    Panels: [...svg.querySelectorAll('g.panel')].map(p => ({
      DataArea: box(p.querySelector('rect.data-area')),
      Legend: p.querySelector('g.legend') ? box(p.querySelector('g.legend')) : null,
      Series: [...p.querySelectorAll('g.series')].map(item),
      Entries: [...p.querySelectorAll('g.legend-entry')].map(item),
    })),
  }));
})()`

// readCharts opens a report and reads its charts.
func readCharts(t *testing.T, page string) []chartFacts {
	t.Helper()
	ctx, stop := browser(t)
	defer stop()
	abs, _ := filepath.Abs(page)
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+abs), chromedp.WaitReady(chromedp.CSS("body"))); err != nil {
		t.Fatal(err)
	}
	facts, err := chromedp.Run(ctx, chromedp.Evaluate[[]chartFacts](chartFactsJS))
	if err != nil {
		t.Fatal(err)
	}
	if len(facts) == 0 {
		t.Fatalf("%s: no charts found", page)
	}
	return facts
}

// rgb writes "#rrggbb" as the browser's computed style does.
func rgb(hex string) string {
	var r, g, b int
	if _, err := fmt.Sscanf(hex, "#%02x%02x%02x", &r, &g, &b); err != nil {
		return hex
	}
	return fmt.Sprintf("rgb(%d, %d, %d)", r, g, b)
}

// checkColours fails when two series of a chart share a colour: neither
// the colour a series declares nor the colours its shapes are painted in
// (white edges aside) may belong to another series of the same chart, and
// each legend swatch wears its series' colour.
func checkColours(t *testing.T, page string, facts []chartFacts) {
	t.Helper()
	for _, c := range facts {
		owner := map[string]string{} // painted colour -> series
		declared := map[string]string{}
		var series, entries []drawn
		for _, p := range c.Panels {
			series, entries = append(series, p.Series...), append(entries, p.Entries...)
		}
		for _, s := range series {
			want := rgb(s.Colour)
			if other, ok := declared[want]; ok {
				t.Errorf("%s, chart %s: %q and %q are both %s", page, c.Chart, other, s.Name, s.Colour)
			}
			declared[want] = s.Name
			if !slices.Contains(s.Paint, want) {
				t.Errorf("%s, chart %s: %q declares %s but is painted %v", page, c.Chart, s.Name, s.Colour, s.Paint)
			}
		}
		for _, s := range series {
			for _, col := range s.Paint {
				if col == "rgb(255, 255, 255)" {
					continue
				}
				if other, ok := declared[col]; ok && other != s.Name {
					t.Errorf("%s, chart %s: %q is painted in %q's colour %s", page, c.Chart, s.Name, other, col)
				}
				owner[col] = s.Name
			}
		}
		legend := map[string]string{}
		for _, e := range entries {
			legend[e.Name] = e.Colour
			if !slices.Contains(e.Paint, rgb(e.Colour)) {
				t.Errorf("%s, chart %s: legend swatch of %q is painted %v, not %s", page, c.Chart, e.Name, e.Paint, e.Colour)
			}
		}
		for _, s := range series {
			if col, ok := legend[s.Name]; !ok || col != s.Colour {
				t.Errorf("%s, chart %s: %q is %s but its legend entry is %q", page, c.Chart, s.Name, s.Colour, col)
			}
		}
	}
}

func TestNoTwoTeamsShareAColourInTheRunReport(t *testing.T) {
	chromium(t)
	run, _ := twentyTeamReports(t)
	facts := readCharts(t, run)
	checkColours(t, run, facts)
	// A team keeps its colour from chart to chart, and all twenty show.
	colour := map[string]string{}
	for _, c := range facts {
		for _, p := range c.Panels {
			for _, s := range p.Series {
				if s.Role != "team" {
					continue
				}
				if prev, ok := colour[s.Name]; ok && prev != s.Colour {
					t.Errorf("team %s is %s in one chart and %s in chart %s", s.Name, prev, s.Colour, c.Chart)
				}
				colour[s.Name] = s.Colour
			}
		}
	}
	if len(colour) != 20 {
		t.Errorf("%d teams drawn in colour, want 20", len(colour))
	}
}

func TestNoTwoVariantsShareAColourInTheComparisonReport(t *testing.T) {
	chromium(t)
	_, cmp := twentyTeamReports(t)
	checkColours(t, cmp, readCharts(t, cmp))
}

// Legends sit beside the data, never on it: no legend box meets the data
// area of any panel of its chart.
func TestLegendsSitOutsideTheDataArea(t *testing.T) {
	chromium(t)
	run, cmp := twentyTeamReports(t)
	for _, page := range []string{run, cmp} {
		for _, c := range readCharts(t, page) {
			legends := 0
			for _, p := range c.Panels {
				if p.Legend == nil {
					continue
				}
				legends++
				for j, q := range c.Panels {
					if p.Legend.overlaps(q.DataArea) {
						t.Errorf("%s, chart %s: legend %+v covers the data area of panel %d %+v", page, c.Chart, *p.Legend, j, q.DataArea)
					}
				}
			}
			if legends == 0 {
				t.Errorf("%s, chart %s has no legend", page, c.Chart)
			}
		}
	}
}

func TestTwentyTeamReportsRenderInHeadlessChromium(t *testing.T) {
	chromium(t)
	run, cmp := twentyTeamReports(t)
	checkReportInBrowser(t, run, 8)
	checkReportInBrowser(t, cmp, 4)
}
