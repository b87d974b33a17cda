package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/traces"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

func newTraceTransformCmd() *cobra.Command {
	var (
		out, window string
		t           workload.Transform
	)
	cmd := &cobra.Command{
		Use:   "transform FILE -o OUT",
		Short: "Scale a trace's load or cut a time window from it, for what-if runs",
		Long: `Write a changed copy of a canonical trace:
  --window 120d:150d     keep jobs submitted in [120d, 150d), shifted to start at 0
  --arrival-scale 2      arrivals twice as fast (gaps halved): twice the demand rate
  --copies 2             every job submitted twice: twice the demand, same timing
  --size-scale 2         twice the accelerators per job (whole jobs stay whole)
  --duration-scale 0.5   jobs run half as long
  --sample 0.5           keep half the jobs, chosen by --seed
The window applies first, then sampling, then the scales. Original start and
end times are kept under a window (shifted) and dropped by anything that
re-times or resizes jobs, since they no longer describe the same work.`,
		Example: `  allot trace gen scenarios/amazon-search.yaml -o jobs.parquet
  allot trace transform jobs.parquet --window 30d:60d -o jobs-last30d.parquet
  allot trace transform jobs.parquet --arrival-scale 2 -o jobs-2x.parquet`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("trace transform: -o OUT is required"))
			}
			if window != "" {
				if err := traces.Window(&t, window); err != nil {
					return badInput(fmt.Errorf("--window %w", err))
				}
			}
			if err := t.Check(); err != nil {
				return badInput(fmt.Errorf("trace transform: %w", err))
			}
			n, err := traces.Transform(args[0], out, &t)
			if err != nil {
				return badInput(err)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d jobs to %s\n", n, out)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVarP(&out, "output", "o", "", "trace file to write (.parquet or .csv)")
	f.StringVar(&window, "window", "", "keep jobs submitted in START:END (durations like 120d), shifted to 0")
	f.Float64Var(&t.ArrivalScale, "arrival-scale", 0, "divide the time between arrivals by this factor")
	f.Float64Var(&t.SizeScale, "size-scale", 0, "multiply each job's accelerators by this factor")
	f.Float64Var(&t.DurationScale, "duration-scale", 0, "multiply running times by this factor")
	f.IntVar(&t.Copies, "copies", 0, "submit every job this many times")
	f.Float64Var(&t.Sample, "sample", 0, "keep each job with this probability")
	f.Uint64Var(&t.Seed, "seed", 1, "random seed for --sample")
	return cmd
}
