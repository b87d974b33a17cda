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
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

func chromium(t *testing.T) string {
	t.Helper()
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
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(chromium(t)), chromedp.NoSandbox, chromedp.DisableGPU,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(1280, 900))
	actx, cancelA := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancelA()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	tctx, cancelT := context.WithTimeout(ctx, 90*time.Second)
	defer cancelT()
	if err := chromedp.Do(tctx); err != nil { // start the browser
		t.Fatal(err)
	}
	messages := chromedp.Console(tctx)
	var mu sync.Mutex
	var problems []string
	collected := make(chan struct{})
	go func() {
		defer close(collected)
		for m, err := range messages {
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
		shot, err := chromedp.Run(tctx, chromedp.ScreenshotNodes([]*chromedp.Node{n}, 1))
		if err != nil {
			t.Fatalf("chart %d: %v", i, err)
		}
		img, err := png.Decode(bytes.NewReader(shot))
		if err != nil {
			t.Fatalf("chart %d: %v", i, err)
		}
		b := img.Bounds()
		if b.Dx() < 300 || b.Dy() < 100 {
			t.Errorf("chart %d is %dx%d pixels", i, b.Dx(), b.Dy())
		}
		if n := colouredPixels(img); n < 300 {
			t.Errorf("chart %d looks blank (%d coloured pixels)", i, n)
		}
	}
	time.Sleep(200 * time.Millisecond) // let late console messages arrive
	cancelT()
	<-collected
	mu.Lock()
	defer mu.Unlock()
	for _, p := range problems {
		t.Errorf("%s: %s", page, p)
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
	checkReportInBrowser(t, filepath.Join(dir, "out", "report.html"), 9)
}
