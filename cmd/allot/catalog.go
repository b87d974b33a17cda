package main

import (
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/hardware"
	"github.com/spf13/cobra"
)

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
			out := show.Catalog(hardware.Builtin())
			if asJSON {
				return show.JSON(cmd.OutOrStdout(), out)
			}
			return show.CatalogTable(cmd.OutOrStdout(), out)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the catalog as a JSON array")
	return cmd
}
