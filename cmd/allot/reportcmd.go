package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Re-render the report of a run or a comparison from its files",
		Long: `Read a run directory written by 'allot sim --out DIR' (summary.json,
timeseries.parquet, jobs.parquet) or a comparison directory written by
'allot compare --out DIR' (comparison.json), and write report.md,
report.html and the charts again.`,
		Example: `  allot sim scenarios/amazon-search.yaml --out out/
  allot report out/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if _, err := os.Stat(filepath.Join(dir, reports.ComparisonFile)); err == nil {
				c, err := reports.LoadComparison(dir)
				if err != nil {
					return badInput(err)
				}
				if err := reports.RenderComparison(dir, c); err != nil {
					return err
				}
			} else {
				d, err := reports.LoadRun(dir)
				if err != nil {
					return badInput(fmt.Errorf("%s: not a run directory: %w", dir, err))
				}
				if err := reports.RenderRun(dir, d); err != nil {
					return err
				}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s and %s\n", filepath.Join(dir, reports.ReportMDFile), filepath.Join(dir, reports.ReportHTMLFile))
			return nil
		},
	}
}
