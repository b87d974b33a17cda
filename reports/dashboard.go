package reports

import (
	"fmt"
	"io"
)

// Now is how a live machine stands at the moment of the page: tiles, and
// a table of its teams (a header row, then one row per team).
type Now struct {
	Tiles [][2]string
	Teams [][]string
}

// WriteDashboard writes the page a live daemon serves: how the machine
// stands now, first, then the report of its history so far, reloading
// itself every refreshS seconds. It is one self-contained page: charts
// inline, no script, nothing fetched.
func WriteDashboard(w io.Writer, d *RunData, title string, now Now, refreshS int) error {
	charts, err := RunCharts(d)
	if err != nil {
		return err
	}
	p := runPage(d, charts)
	p.Title = title
	p.Sub = fmt.Sprintf("History since the daemon first started, %s ago; %s buckets; reloads every %ds.",
		FmtDuration(d.Summary.WindowS[1]), fmtDur(d.Summary.BucketS), refreshS)
	p.KPIs = append(append([][2]string(nil), now.Tiles...), p.KPIs...)
	// A card per team, above the charts: what an administrator looks for first.
	for _, row := range now.Teams[min(1, len(now.Teams)):] {
		c := card{Label: "team " + row[0] + " now"}
		for i := 1; i < len(row) && i < len(now.Teams[0]); i++ {
			c.Rows = append(c.Rows, cardRow{Name: now.Teams[0][i], Value: row[i]})
		}
		p.Cards = append(p.Cards, c)
	}
	p.Refresh = refreshS
	return p.writeHTML(w)
}
