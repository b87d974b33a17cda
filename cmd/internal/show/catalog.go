package show

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/allot-sim/allot/hardware"
)

// CatalogEntry is an instance type as allot catalog --json writes it.
type CatalogEntry struct {
	Name             string             `json:"name"`
	Accelerator      string             `json:"accelerator"`
	AcceleratorModel string             `json:"accelerator_model"`
	Accelerators     int                `json:"accelerators"`
	AccelMemoryGiB   float64            `json:"accelerator_memory_gib"`
	Resource         string             `json:"resource"`
	VCPUs            float64            `json:"vcpus"`
	MemoryGiB        float64            `json:"memory_gib"`
	PricePerHour     *float64           `json:"price_per_hour"`
	Speed            float64            `json:"speed"`
	SpeedByClass     map[string]float64 `json:"speed_by_class,omitempty"`
	Source           string             `json:"source"`
}

// Catalog is a catalog's instance types in the order of their names, with
// no price where none is published.
func Catalog(c *hardware.Catalog) []CatalogEntry {
	var out []CatalogEntry
	for _, n := range c.Names() {
		t, _ := c.Lookup(n)
		e := CatalogEntry{Name: t.Name, Accelerator: t.Accelerator, AcceleratorModel: t.AcceleratorModel, Accelerators: t.Accelerators,
			AccelMemoryGiB: t.AccelMemoryGiB, Resource: t.Resource, VCPUs: t.VCPUs, MemoryGiB: t.MemoryGiB, Speed: t.Speed,
			SpeedByClass: t.SpeedByClass, Source: t.Source}
		if t.Priced {
			p := t.PricePerHour
			e.PricePerHour = &p
		}
		out = append(out, e)
	}
	return out
}

// CatalogTable prints the entries as allot catalog does: a table, then
// each figure's source.
func CatalogTable(w io.Writer, entries []CatalogEntry) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TYPE\tACCELERATOR\tCOUNT\tMEM/ACC GiB\tRESOURCE\tvCPU\tMEM GiB\tUSD/h\tSPEED")
	for _, e := range entries {
		price := "-"
		if e.PricePerHour != nil {
			price = fmt.Sprintf("%.2f", *e.PricePerHour)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%g\t%s\t%g\t%g\t%s\t%.2f\n", e.Name, e.AcceleratorModel, e.Accelerators, e.AccelMemoryGiB,
			e.Resource, e.VCPUs, e.MemoryGiB, price, e.Speed)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSOURCES")
	for _, e := range entries {
		fmt.Fprintf(w, "  %s: %s\n", e.Name, e.Source)
	}
	return nil
}
