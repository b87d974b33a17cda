package reports

import (
	"fmt"
	"io"
)

// WriteDashboard writes the page a live daemon serves: how the machine
// stands now (the now tiles, first), then the report of its history so
// far, reloading itself every refreshS seconds. It is one self-contained
// page: charts inline, no script, nothing fetched.
func WriteDashboard(w io.Writer, d *RunData, title string, now [][2]string, refreshS int) error {
	charts, err := RunCharts(d)
	if err != nil {
		return err
	}
	p := runPage(d, charts)
	p.Title = title
	p.Sub = fmt.Sprintf("History since the daemon first started, %s ago; %s buckets; reloads every %ds.",
		FmtDuration(d.Summary.WindowS[1]), fmtDur(d.Summary.BucketS), refreshS)
	p.KPIs = append(append([][2]string(nil), now...), p.KPIs...)
	p.Refresh = refreshS
	return p.writeHTML(w)
}
