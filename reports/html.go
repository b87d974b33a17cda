package reports

import (
	"fmt"
	"html/template"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
)

// page is what the HTML and Markdown templates see.
type page struct {
	Title      string
	Sub        string
	Objectives []objectiveLine
	Warnings   []string // what a reader must not miss, shown near the top
	KPIs       [][2]string
	Cards      []card
	Tables     []table
	Charts     []Chart
	Notes      []string
	Fidelity   []string
	Refresh    int // seconds between reloads of a live page; 0 = none
}

type objectiveLine struct {
	Text string
	Met  bool
}

type table struct {
	Title string
	Head  []string
	Rows  [][]string
}

// FmtDuration formats seconds for people.
func FmtDuration(s float64) string {
	switch {
	case math.IsNaN(s):
		return "-"
	case s < 120:
		return fmt.Sprintf("%.0f s", s)
	case s < 7200:
		return fmt.Sprintf("%.1f min", s/60)
	case s < 3*86400:
		return fmt.Sprintf("%.1f h", s/3600)
	}
	return fmt.Sprintf("%.1f d", s/86400)
}

func pct(x float64) string { return fmt.Sprintf("%.1f%%", 100*x) }

// th writes a count with thousands separators.
func th(n int) string { return Thousands(float64(n), 0) }

// runPage lays out a run report.
func runPage(d *RunData, charts []Chart) *page {
	s := d.Summary
	p := &page{Title: fmt.Sprintf("%s — policy %s, seed %d", s.Scenario, s.Policy, s.Seed),
		Sub: fmt.Sprintf("Days %.1f to %.1f; %s accelerators; %s buckets.", days(s.WindowS[0]), days(s.WindowS[1]), th(s.Capacity.Accelerators), fmtDur(s.BucketS))}
	preempted := 0
	for _, t := range s.ByTeam {
		preempted += t.Preemptions
	}
	p.KPIs = [][2]string{
		{"utilisation, mean", pct(s.Utilization.Mean)},
		{"utilisation, peak (p95 bucket)", pct(s.Utilization.P95Bucket)},
		{"goodput", pct(s.Goodput)},
		{"jobs submitted / completed", th(s.Jobs.Submitted) + " / " + th(s.Jobs.Completed)},
		{"running / pending at the end", th(s.Jobs.RunningAtEnd) + " / " + th(s.Jobs.PendingAtEnd)},
		{"preemptions", th(s.Preemptions)},
		{"wait, all jobs: mean / p95", FmtDuration(s.WaitAllS.Mean) + " / " + FmtDuration(s.WaitAllS.P95)},
		{"jobs never started", th(s.WaitAllS.Unstarted) + " (" + pct(s.Jobs.UnstartedShare) + ")"},
		{"runtime, mean", "-"},
		{"fairness (Jain)", fmt.Sprintf("%.3f", s.Fairness.Jain)},
		{"cost per useful accelerator-hour", fmt.Sprintf("$%.2f", s.Cost.USDPerUsefulAcceleratorHour)},
	}
	if unpricedFleet(d) {
		p.KPIs[10][1] = "unpriced"
	}
	for _, o := range s.Objectives {
		p.Objectives = append(p.Objectives, objectiveLine{Text: FormatObjective(o), Met: o.Met})
	}
	if w := UnstartedWarning(s); w != "" {
		p.Warnings = append(p.Warnings, w)
	}
	if s.Extra != nil {
		p.KPIs[8][1] = FmtDuration(s.Extra.MeanRuntimeS)
	}
	teams := slices.Sorted(maps.Keys(s.ByTeam))
	tt := table{Title: "Teams", Head: []string{"team", "usage", "entitled", "usage ÷ entitled", "borrowed (accelerators, mean)", "lent (accelerators, mean)", "jobs done",
		"wait mean (all jobs)", "wait p95 (all jobs)", "wait p95 (started)", "never started", "preempted"}}
	for _, n := range teams {
		t := s.ByTeam[n]
		ratio := "-"
		if t.UsageVsEntitled != nil {
			ratio = fmt.Sprintf("%.2f", *t.UsageVsEntitled)
		}
		tt.Rows = append(tt.Rows, []string{n, pct(t.UsageShare), pct(t.EntitledShare), ratio, fmt.Sprintf("%.1f", t.BorrowedMean), fmt.Sprintf("%.1f", t.LentMean),
			th(t.JobsCompleted), FmtDuration(t.WaitAllS.Mean), FmtDuration(t.WaitAllS.P95), FmtDuration(t.WaitS.P95), th(t.WaitAllS.Unstarted), th(t.Preemptions)})
	}
	ct := table{Title: "Priority classes", Head: []string{"class", "jobs", "started", "wait mean (all jobs)", "wait p95 (all jobs)", "wait max (all jobs)", "wait p95 (started)", "never started"}}
	for _, n := range slices.Sorted(maps.Keys(s.ByPriorityClass)) {
		c := s.ByPriorityClass[n]
		ct.Rows = append(ct.Rows, []string{n, th(c.JobsSubmitted), th(c.JobsStarted), FmtDuration(c.WaitAllS.Mean), FmtDuration(c.WaitAllS.P95),
			FmtDuration(c.WaitAllS.Max), FmtDuration(c.WaitS.P95), th(c.WaitAllS.Unstarted)})
	}
	ut := table{Title: "Instance types", Head: []string{"type", "accelerators", "utilisation"}}
	for _, n := range slices.Sorted(maps.Keys(s.Utilization.ByType)) {
		ut.Rows = append(ut.Rows, []string{n, th(s.Capacity.ByType[n]), pct(s.Utilization.ByType[n])})
	}
	p.Tables = []table{tt, ct, ut}
	if len(s.Cost.UnpricedTypes) > 0 && !unpricedFleet(d) {
		p.Notes = append(p.Notes, "Left out of cost (no published price): "+strings.Join(s.Cost.UnpricedTypes, ", ")+".")
	}
	if f := d.Fidelity; f != nil {
		p.Fidelity = fidelityLines(f)
	}
	p.Charts = charts
	return p
}

func fidelityLines(f *Fidelity) []string {
	return []string{
		fmt.Sprintf("Jobs compared: %d (those with original start and end times).", f.Jobs),
		fmt.Sprintf("Wait: original mean %s, simulated %s (relative error %+.0f%%); medians %s and %s; KS distance %.3f.",
			FmtDuration(f.Wait.Orig.Mean), FmtDuration(f.Wait.Sim.Mean), 100*f.Wait.MeanErr, FmtDuration(f.Wait.Orig.P50), FmtDuration(f.Wait.Sim.P50), f.Wait.KS),
		fmt.Sprintf("Completion time (end − submit): original mean %s, simulated %s (%+.0f%%); medians %s and %s; KS distance %.3f.",
			FmtDuration(f.Complete.Orig.Mean), FmtDuration(f.Complete.Sim.Mean), 100*f.Complete.MeanErr, FmtDuration(f.Complete.Orig.P50), FmtDuration(f.Complete.Sim.P50), f.Complete.KS),
		fmt.Sprintf("Accelerators in use per bucket: mean absolute difference %.1f%% of the fleet.", 100*f.UtilizationMAE),
	}
}

const htmlTemplate = `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title>
{{if .Refresh}}<meta http-equiv="refresh" content="{{.Refresh}}">{{end}}
<style>
body{font-family:-apple-system,"Segoe UI",Helvetica,Arial,sans-serif;margin:0;color:#1d2330;background:#f6f7f9}
header{background:#1d2330;color:#fff;padding:18px 32px}
header h1{margin:0;font-size:22px}
header p{margin:4px 0 0;color:#c9ced8}
main{max-width:1180px;margin:0 auto;padding:20px 32px}
.kpis{display:grid;grid-template-columns:repeat(auto-fill,minmax(210px,1fr));gap:10px;margin-bottom:20px}
.kpi{background:#fff;border-radius:6px;padding:12px 14px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
.kpi .v{font-size:22px;font-weight:600}
.kpi .k{font-size:12px;color:#5b6475;text-transform:uppercase;letter-spacing:.03em}
section{background:#fff;border-radius:6px;padding:14px 18px;margin-bottom:18px;box-shadow:0 1px 2px rgba(0,0,0,.08)}
h2{font-size:17px;margin:0 0 8px}
table{border-collapse:collapse;width:100%;font-size:13px}
th,td{padding:5px 8px;border-bottom:1px solid #e3e6eb;text-align:right}
th:first-child,td:first-child{text-align:left}
th{color:#5b6475;font-weight:600}
figure{margin:0}
figure svg{width:100%;height:auto}
figcaption{font-size:12px;color:#5b6475;margin-top:4px}
.note{font-size:13px;color:#5b6475}
.objectives ul{list-style:none;margin:0;padding:0;display:flex;flex-wrap:wrap;gap:8px}
.objectives li{padding:6px 10px;border-radius:4px;font-size:14px;font-weight:600}
.objectives li.met{background:#e6f4ea;color:#1e6b34}
.objectives li.missed{background:#fbe9e9;color:#a12a2a}
.cards{display:grid;grid-template-columns:repeat(auto-fill,minmax(340px,1fr));gap:10px;margin-bottom:20px}
.card table{font-size:14px;margin-top:6px}
.card td{border:0;padding:2px 6px 2px 0}
.card td.v{font-weight:600;font-size:17px}
.diff.better{color:#1e6b34}
.diff.worse{color:#a12a2a}
.diff.same{color:#5b6475}
.warning{background:#fff4d6;border-left:4px solid #c98a00;padding:8px 12px;border-radius:4px;font-size:14px}
</style></head>
<body>
<header><h1>{{.Title}}</h1><p>{{.Sub}}</p></header>
<main>
{{range .Warnings}}<p class="warning">{{.}}</p>{{end}}
{{if .Objectives}}<section class="objectives"><h2>Objectives</h2><ul>{{range .Objectives}}<li class="{{if .Met}}met{{else}}missed{{end}}">{{.Text}}</li>{{end}}</ul></section>{{end}}
{{if .KPIs}}<div class="kpis">{{range .KPIs}}<div class="kpi"><div class="k">{{index . 0}}</div><div class="v">{{index . 1}}</div></div>{{end}}</div>{{end}}
{{if .Cards}}<div class="cards">{{range .Cards}}<div class="kpi card"><div class="k">{{.Label}}</div><table>{{range .Rows}}<tr><td>{{.Name}}</td><td class="v">{{.Value}}</td><td class="diff {{.Tone}}">{{.Diff}}</td></tr>{{end}}</table></div>{{end}}</div>{{end}}
{{range .Charts}}{{if .SVG}}<section class="chart" id="chart-{{.ID}}"><h2>{{.Title}}</h2><figure>{{svg .SVG}}{{if .Note}}<figcaption>{{.Note}}</figcaption>{{end}}</figure></section>
{{else}}<section class="chart-omitted" id="chart-{{.ID}}"><h2>{{.Title}}</h2><p class="note">{{.Note}}</p></section>
{{end}}{{end}}
{{if .Fidelity}}<section id="fidelity"><h2>Replay fidelity</h2>{{range .Fidelity}}<p class="note">{{.}}</p>{{end}}</section>{{end}}
{{range .Tables}}<section><h2>{{.Title}}</h2><table><tr>{{range .Head}}<th>{{.}}</th>{{end}}</tr>
{{range .Rows}}<tr>{{range .}}<td>{{.}}</td>{{end}}</tr>
{{end}}</table></section>
{{end}}
{{range .Notes}}<p class="note">{{.}}</p>{{end}}
<p class="note">Made by allot. Self-contained: no network needed to read it.</p>
</main></body></html>
`

var htmlTmpl = template.Must(template.New("report").Funcs(template.FuncMap{
	"svg": func(s string) template.HTML { return template.HTML(s) },
}).Parse(htmlTemplate))

func (p *page) writeHTML(w io.Writer) error { return htmlTmpl.Execute(w, p) }

// writeMarkdown writes the same report as Markdown, with charts as files.
func (p *page) writeMarkdown(w io.Writer, chartDir string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n%s\n\n", p.Title, p.Sub)
	for _, w := range p.Warnings {
		fmt.Fprintf(&b, "> **Warning:** %s\n\n", w)
	}
	if len(p.Objectives) > 0 {
		b.WriteString("## Objectives\n\n")
		for _, o := range p.Objectives {
			fmt.Fprintf(&b, "- %s\n", o.Text)
		}
		b.WriteString("\n")
	}
	if len(p.KPIs) > 0 {
		b.WriteString("| | |\n|---|---|\n")
		for _, k := range p.KPIs {
			fmt.Fprintf(&b, "| %s | %s |\n", k[0], k[1])
		}
		b.WriteString("\n")
	}
	if len(p.Cards) > 0 {
		b.WriteString("## Headline\n\n")
	}
	for _, c := range p.Cards {
		fmt.Fprintf(&b, "- **%s**:", c.Label)
		for i, r := range c.Rows {
			sep := " "
			if i > 0 {
				sep = "; "
			}
			fmt.Fprintf(&b, "%s%s %s", sep, r.Name, r.Value)
			if r.Diff != "" {
				fmt.Fprintf(&b, " (%s)", r.Diff)
			}
		}
		b.WriteString("\n")
	}
	if len(p.Cards) > 0 {
		b.WriteString("\n")
	}
	for _, c := range p.Charts {
		if c.SVG == "" {
			fmt.Fprintf(&b, "## %s\n\n%s\n\n", c.Title, c.Note)
			continue
		}
		fmt.Fprintf(&b, "## %s\n\n![%s](%s/%s.svg)\n\n", c.Title, c.Title, chartDir, c.ID)
		if c.Note != "" {
			fmt.Fprintf(&b, "%s\n\n", c.Note)
		}
	}
	if len(p.Fidelity) > 0 {
		b.WriteString("## Replay fidelity\n\n")
		for _, l := range p.Fidelity {
			fmt.Fprintf(&b, "- %s\n", l)
		}
		b.WriteString("\n")
	}
	for _, t := range p.Tables {
		fmt.Fprintf(&b, "## %s\n\n| %s |\n|%s\n", t.Title, strings.Join(t.Head, " | "), strings.Repeat("---|", len(t.Head)))
		for _, r := range t.Rows {
			fmt.Fprintf(&b, "| %s |\n", strings.Join(r, " | "))
		}
		b.WriteString("\n")
	}
	for _, n := range p.Notes {
		fmt.Fprintf(&b, "%s\n\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
