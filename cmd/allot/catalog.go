package main

import (
	"fmt"
	"text/tabwriter"

	"github.com/allot-sim/allot/hardware"
	"github.com/spf13/cobra"
)

type catalogEntry struct {
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

func newCatalogCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "catalog",
		Short: "List the built-in instance types",
		Long: `List the built-in instance types: accelerators per node, accelerator memory,
vCPUs, host memory, on-demand price (us-east-1, Linux; "-" where none is
published) and relative training speed (A100 = 1.0), with the source of
each figure.`,
		Example: `  allot catalog
  allot catalog --json | jq '.[] | select(.accelerator=="h100")'`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			c := hardware.Builtin()
			var out []catalogEntry
			for _, n := range c.Names() {
				t, _ := c.Lookup(n)
				e := catalogEntry{Name: t.Name, Accelerator: t.Accelerator, AcceleratorModel: t.AcceleratorModel, Accelerators: t.Accelerators,
					AccelMemoryGiB: t.AccelMemoryGiB, Resource: t.Resource, VCPUs: t.VCPUs, MemoryGiB: t.MemoryGiB, Speed: t.Speed,
					SpeedByClass: t.SpeedByClass, Source: t.Source}
				if t.Priced {
					p := t.PricePerHour
					e.PricePerHour = &p
				}
				out = append(out, e)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), out)
			}
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "TYPE\tACCELERATOR\tCOUNT\tMEM/ACC GiB\tRESOURCE\tvCPU\tMEM GiB\tUSD/h\tSPEED")
			for _, e := range out {
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
			w := cmd.OutOrStdout()
			fmt.Fprintln(w, "\nSOURCES")
			for _, e := range out {
				fmt.Fprintf(w, "  %s: %s\n", e.Name, e.Source)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as a JSON array")
	return cmd
}
