package show

import (
	"bytes"
	"strings"
	"testing"

	"github.com/allot-sim/allot/workload"
)

// The first column is aligned left, the figures right, by runes (not
// bytes), each column two spaces from the one before.
func TestTableAlignsNamesLeftAndFiguresRight(t *testing.T) {
	var b bytes.Buffer
	Table(&b, []string{"team", "usage ÷ entitled"}, [][]string{{"a", "1.00"}, {"longer", "0.5"}})
	want := "  team    usage ÷ entitled\n" +
		"  a                   1.00\n" +
		"  longer               0.5\n"
	if got := b.String(); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The frontier shown keeps its ends, spreads the rest evenly, and puts
// the answer's row in place of the nearest kept one.
func TestEvenlyKeepsTheEndsAndTheAnswer(t *testing.T) {
	var rows [][]string
	for i := range 20 {
		rows = append(rows, []string{string(rune('a' + i))})
	}
	var got []string
	for _, r := range evenly(rows, 5, 6) {
		got = append(got, r[0])
	}
	if s := strings.Join(got, ""); s != "agjot" {
		t.Errorf("kept %q, want %q", s, "agjot")
	}
}

// Whole sizes are listed one by one, fractions in quarter-GPU bins placed
// before the first whole size.
func TestSizeRowsBinsFractionsBeforeWholeSizes(t *testing.T) {
	rows := sizeRows([]workload.SizeCount{{Accelerators: 0.1, Jobs: 2}, {Accelerators: 0.2, Jobs: 1}, {Accelerators: 0.6, Jobs: 4}, {Accelerators: 1, Jobs: 5}, {Accelerators: 8, Jobs: 3}})
	var got []string
	for _, r := range rows {
		got = append(got, r.label+"="+string(rune('0'+r.jobs)))
	}
	if s := strings.Join(got, " "); s != "(0, 0.25]=3 (0.5, 0.75]=4 1=5 8=3" {
		t.Errorf("rows %s", s)
	}
}
