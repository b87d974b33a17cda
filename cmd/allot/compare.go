package main

import (
	"fmt"
	"runtime"
	"sync"
	"text/tabwriter"

	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/sim"
	"github.com/spf13/cobra"
)

func newCompareCmd() *cobra.Command {
	var (
		policies []string
		seeds    int
		outDir   string
		asJSON   bool
		workers  int
	)
	cmd := &cobra.Command{
		Use:   "compare SCENARIO... [--policy KIND|FILE]...",
		Short: "Compare policies or scenarios side by side over several seeds",
		Long: `Run every variant — each scenario under each --policy (or under its own
policy) — over the same seeds, in parallel on all cores, and print the
headline figures with 95% confidence intervals and each variant's difference
to the first (paired by seed). --out writes comparison.json and a report
with overlaid charts.`,
		Example: `  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --out cmp/
  allot compare a.yaml b.yaml --seeds 3 --json`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 {
				return badInput(fmt.Errorf("--seeds must be at least 1"))
			}
			type variant struct {
				s   *scenarios.Scenario
				res *reports.VariantResult
			}
			var vs []variant
			for _, path := range args {
				pols := policies
				if len(pols) == 0 {
					pols = []string{""}
				}
				for _, p := range pols {
					s, err := loadScenario(path, p)
					if err != nil {
						return err
					}
					name := s.Name
					switch {
					case len(args) == 1 && p != "":
						name = p
					case p != "":
						name = s.Name + "/" + p
					}
					vs = append(vs, variant{s, &reports.VariantResult{Name: name, Scenario: s.Name, Policy: s.Policy.Kind}})
				}
			}
			type run struct{ v, seed int }
			var runs []run
			for i := range vs {
				for k := 0; k < seeds; k++ {
					runs = append(runs, run{i, k})
				}
			}
			if workers <= 0 {
				workers = runtime.GOMAXPROCS(0)
			}
			results := make([]*reports.RunData, len(runs))
			errs := make([]error, len(runs))
			bar := newProgress(cmd.ErrOrStderr(), asJSON, "comparing")
			var mu sync.Mutex
			done := 0
			jobs := make(chan int)
			var wg sync.WaitGroup
			for w := 0; w < workers; w++ {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range jobs {
						r := runs[i]
						s := vs[r.v].s
						seed := s.Seed + uint64(r.seed)
						in, err := simInput(s, seed)
						if err != nil {
							errs[i] = err
							continue
						}
						col := reports.NewCollector()
						errs[i] = sim.Run(in, col)
						in.Source.Close()
						if errs[i] == nil {
							results[i] = col.Data()
						}
						mu.Lock()
						done++
						bar.update(float64(done)/float64(len(runs)), fmt.Sprintf("%d of %d runs", done, len(runs)))
						mu.Unlock()
					}
				}()
			}
			for i := range runs {
				jobs <- i
			}
			close(jobs)
			wg.Wait()
			bar.done()
			c := &reports.Comparison{}
			for i, r := range runs {
				if errs[i] != nil {
					return badInput(errs[i])
				}
				vs[r.v].res.AddRun(vs[r.v].s.Seed+uint64(r.seed), results[i])
			}
			for _, v := range vs {
				c.Variants = append(c.Variants, v.res)
			}
			if err := c.Finish(); err != nil {
				return err
			}
			if outDir != "" {
				if err := reports.WriteComparison(outDir, c); err != nil {
					return err
				}
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), c)
			}
			head, rows := c.Table()
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', tabwriter.AlignRight)
			for i, h := range head {
				fmt.Fprint(tw, h, "\t")
				if i == len(head)-1 {
					fmt.Fprintln(tw)
				}
			}
			for _, r := range rows {
				for _, cell := range r {
					fmt.Fprint(tw, cell, "\t")
				}
				fmt.Fprintln(tw)
			}
			tw.Flush()
			fmt.Fprintf(cmd.OutOrStdout(), "\n%d seeds per variant; ± is the 95%% confidence interval; differences are paired by seed.\n", seeds)
			return nil
		},
	}
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "policy kind or policy file; repeat to compare several")
	cmd.Flags().IntVar(&seeds, "seeds", 5, "seeds per variant (the scenario's seed and the ones after it)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for comparison.json and the report")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel runs (default: all cores)")
	return cmd
}
