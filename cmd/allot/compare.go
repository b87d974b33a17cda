package main

import (
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
	"golang.org/x/sync/errgroup"
)

func newCompareCmd() *cobra.Command {
	var (
		policies []string
		seeds    int
		outDir   string
		asJSON   bool
		workers  int
		shard    int
		shards   int
		engine   string
	)
	cmd := &cobra.Command{
		Use:   "compare SCENARIO... [--policy KIND|FILE]...",
		Short: "Compare policies or scenarios side by side over several seeds",
		Long: `Run every variant — each scenario under each --policy (or under its own
policy) — over the same seeds, in parallel on all cores, and print the
headline figures with 95% confidence intervals and each variant's difference
to the first (paired by seed). --out writes comparison.json and a report
with overlaid charts.

To spread a comparison over several machines, run the same command on each
with --shards N --shard I (I from 1 to N) and --out: shard I runs every N-th
run and writes shard-I-of-N.json there. 'allot sweep merge' then prints and
writes exactly what one machine would have.`,
		Example: `  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --out cmp/
  allot compare scenarios/hyperpod-teams.yaml scenarios/hyperpod-teams-h2.yaml --seeds 3 --json

  # the same comparison on two machines, then merged
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --shards 2 --shard 1 --out part1/
  allot compare scenarios/amazon-search.yaml --policy fifo --policy quota --seeds 5 --shards 2 --shard 2 --out part2/
  allot sweep merge part1/ part2/ --out cmp/`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if seeds < 1 {
				return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--seeds: must be at least 1, got %d", seeds)}
			}
			k, n := shard, shards
			if n < 1 || k < 1 || k > n {
				return badInput(fmt.Errorf("--shards %d --shard %d: want 1 <= shard <= shards", n, k))
			}
			if n > 1 && outDir == "" {
				return badInput(fmt.Errorf("--shards needs --out: the directory the shard's file goes to"))
			}
			plan, scens, err := planComparison(args, policies, seeds)
			if err != nil {
				return err
			}
			simrun.Warn(cmd.ErrOrStderr(), scens...)
			for i := range scens {
				if scens[i], err = asEngine(cmd, scens[i], engine); err != nil {
					return err
				}
				if engine != "" {
					plan.Variants[i].Name += " (" + engine + ")"
				}
			}
			var owned []int
			for i := range plan.Runs() {
				if reports.Owns(i, k, n) {
					owned = append(owned, i)
				}
			}
			bar := newProgress(cmd.ErrOrStderr(), asJSON, "comparing")
			contribs, err := runComparison(plan, scens, owned, workers, bar)
			bar.done()
			if err != nil {
				return badInput(err)
			}
			if n > 1 {
				s := &reports.Shard{Kind: reports.ShardCompare, Plan: *plan, Index: k, Of: n}
				for j, i := range owned {
					s.Runs = append(s.Runs, reports.ShardRun{Run: i, RunContribution: *contribs[j]})
				}
				path, err := reports.WriteShard(outDir, s)
				if err != nil {
					return err
				}
				if asJSON {
					return printJSON(cmd.OutOrStdout(), map[string]any{"shard": k, "shards": n, "runs": len(owned), "of_runs": plan.Runs(), "file": path})
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "shard %d of %d: %d of %d runs; wrote %s (merge the shards with 'allot sweep merge')\n", k, n, len(owned), plan.Runs(), path)
				return nil
			}
			c, err := reports.Assemble(plan, contribs) // with one shard, every run in plan order
			if err != nil {
				return err
			}
			return showComparison(cmd.OutOrStdout(), cmd.ErrOrStderr(), c, outDir, asJSON)
		},
	}
	cmd.Flags().StringArrayVar(&policies, "policy", nil, "policy kind or policy file; repeat to compare several")
	cmd.Flags().IntVar(&seeds, "seeds", 5, "seeds per variant (the scenario's seed and the ones after it)")
	cmd.Flags().StringVar(&outDir, "out", "", "directory for comparison.json and the report (with --shard: for the shard file)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the comparison as JSON")
	cmd.Flags().IntVar(&workers, "workers", 0, "parallel runs (default: all cores)")
	addEngineFlag(cmd, &engine)
	cmd.Flags().IntVar(&shards, "shards", 1, "split the runs into this many shards (run each with --shard, then 'allot sweep merge')")
	cmd.Flags().IntVar(&shard, "shard", 1, "with --shards: the shard to run, from 1 to --shards; its file goes to --out")
	return cmd
}

// planComparison loads every variant: each scenario under each policy.
func planComparison(paths, policies []string, seeds int) (*reports.ComparePlan, []*scenarios.Scenario, error) {
	plan := &reports.ComparePlan{Seeds: seeds}
	var scens []*scenarios.Scenario
	pols := policies
	if len(pols) == 0 {
		pols = []string{""}
	}
	for _, path := range paths {
		for _, p := range pols {
			s, err := loadScenario(path, p)
			if err != nil {
				return nil, nil, err
			}
			name := s.Name
			switch {
			case len(paths) == 1 && p != "":
				name = p
			case p != "":
				name = s.Name + "/" + p
			}
			digest, err := variantDigest(s, p)
			if err != nil {
				return nil, nil, err
			}
			plan.Variants = append(plan.Variants, reports.PlannedVariant{Name: name, Scenario: s.Name, Policy: s.Policy.Kind,
				BaseSeed: s.Seed, Digest: digest})
			scens = append(scens, s)
		}
	}
	return plan, scens, nil
}

// runComparison runs the given runs of a plan on workers goroutines and
// returns their contributions in the same order.
func runComparison(plan *reports.ComparePlan, scens []*scenarios.Scenario, runs []int, workers int, bar *progress) ([]*reports.RunContribution, error) {
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	out := make([]*reports.RunContribution, len(runs))
	var mu sync.Mutex
	done := 0
	err := parallel(len(runs), workers, func(j int) error {
		i := runs[j]
		s := scens[i/plan.Seeds]
		var err error
		out[j], err = runOne(s, s.Seed+uint64(i%plan.Seeds))
		mu.Lock()
		done++
		bar.update(float64(done)/float64(len(runs)), fmt.Sprintf("%d of %d runs", done, len(runs)))
		mu.Unlock()
		return err
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

func runOne(s *scenarios.Scenario, seed uint64) (*reports.RunContribution, error) {
	return simrun.Contribution(s, seed)
}

// parallel runs f(0..n-1) on workers goroutines; the first error wins.
func parallel(n, workers int, f func(int) error) error {
	var g errgroup.Group
	g.SetLimit(max(1, workers))
	for j := range n {
		g.Go(func() error { return f(j) })
	}
	return g.Wait()
}

// showComparison prints a comparison (table or JSON) and writes its
// files, saying on errW which (as sim --out does).
func showComparison(w, errW io.Writer, c *reports.Comparison, outDir string, asJSON bool) error {
	if outDir != "" {
		if err := reports.WriteComparison(outDir, c); err != nil {
			return err
		}
		if !asJSON {
			fmt.Fprintf(errW, "wrote %s{%s,%s,%s,%s/}\n", dirPrefix(outDir), reports.ComparisonFile, reports.ReportMDFile, reports.ReportHTMLFile, reports.ChartDir)
		}
	}
	if asJSON {
		return printJSON(w, c)
	}
	fmt.Fprintln(w, comparisonTitle(c))
	fmt.Fprintln(w)
	head, rows := c.Table()
	writeTable(w, head, rows)
	seeds := 0
	if len(c.Variants) > 0 {
		seeds = len(c.Variants[0].Seeds)
	}
	fmt.Fprintf(w, "\n%d seeds per variant; ± is the 95%% confidence interval (lo .. hi where a bound such as 0 s or 100%% cuts it); differences are paired by seed; pp = percentage points.\n", seeds)
	if head, rows := c.ObjectivesTable(); len(rows) > 0 {
		fmt.Fprintln(w)
		writeTable(w, head, rows)
	}
	for _, warn := range c.Warnings() {
		fmt.Fprintf(w, "\nwarning: %s\n", warn)
	}
	return nil
}

// writeTable prints a table with its first column aligned left and the
// others right, as figures are.
func writeTable(w io.Writer, head []string, rows [][]string) {
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

// comparisonTitle says what is compared: "amazon-search: fifo against
// quota, 5 seeds, days 7 to 60".
func comparisonTitle(c *reports.Comparison) string {
	var names, scens []string
	for _, v := range c.Variants {
		names = append(names, v.Name)
		if !slices.Contains(scens, v.Scenario) {
			scens = append(scens, v.Scenario)
		}
	}
	t := strings.Join(names, " against ")
	if len(scens) == 1 {
		t = scens[0] + ": " + t
	}
	if len(c.Variants) > 0 {
		v := c.Variants[0]
		t += fmt.Sprintf(", %d seeds", len(v.Seeds))
		if len(v.Summaries) > 0 {
			w := v.Summaries[0].WindowS
			t += fmt.Sprintf(", days %s to %s", trimFloat(w[0]/86400), trimFloat(w[1]/86400))
		}
	}
	return t
}
