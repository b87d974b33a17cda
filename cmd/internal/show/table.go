package show

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"unicode/utf8"
)

// Table prints a table with its first column aligned left and the others
// right, as figures are.
func Table(w io.Writer, head []string, rows [][]string) {
	width := utf8.RuneCountInString(head[0])
	for _, r := range rows {
		width = max(width, utf8.RuneCountInString(r[0]))
	}
	pad := func(s string) string { return s + strings.Repeat(" ", width-utf8.RuneCountInString(s)) }
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	for _, r := range append([][]string{head}, rows...) {
		fmt.Fprint(tw, pad(r[0]), "\t")
		for _, cell := range r[1:] {
			fmt.Fprint(tw, cell, "\t")
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}

// TrimFloat writes a number with one decimal, without a needless ".0".
func TrimFloat(x float64) string { return strings.TrimSuffix(fmt.Sprintf("%.1f", x), ".0") }

// Days formats simulated seconds as days.
func Days(s float64) string { return fmt.Sprintf("%.1fd", s/86400) }

// JSON prints v as indented JSON, as every --json does.
func JSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
