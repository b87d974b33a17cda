package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/reports"
	"github.com/spf13/cobra"
)

// tuneFlags are tune's flags: the search's options, and where its
// answer goes.
type tuneFlags struct {
	search.TuneOptions
	output   string
	outDir   string
	asJSON   bool
	sharding search.RoundOptions
}

func newTuneCmd() *cobra.Command {
	var f tuneFlags
	cmd := &cobra.Command{
		Use:   "tune SCENARIO --param PATH=RANGE... --maximize|--minimize KEY [--objective EXPR]...",
		Short: "Tune policy settings in simulation for an objective under constraints",
		Long: `Search the policy settings named by --param for the best value of one
summary key (--maximize or --minimize, the mean over seeds) while every
constraint holds on every seed: the scenario's objectives, each
--objective, and 'jobs.unstarted_share <= 1%' unless --allow-unstarted.
Every candidate runs on the same seeds 1..N (common random numbers), so
candidates differ by their settings, not by their luck.

--param takes KEY.PATH=MIN..MAX in the key's own units (a number, a
percentage or a duration) or KEY.PATH=a|b|c, list items named as in error
messages, a glob naming several (teams[*-sweeps].weight=1..8 sets the same
value on each). A range is tried at up to 9 levels (every whole number
when there are fewer).

The search runs in rounds: the middle setting and a spread of others
first, then, from the best setting so far, each setting a step either way,
halving the steps when a round finds nothing better. -o writes the tuned
policy as a policy file that --policy, 'allot compare' and 'allot live
serve --config' take; --out writes a before/after comparison report.
Exit 1 when no candidate meets the constraints.`,
		Example: `  allot tune scenarios/amazon-search.yaml --maximize utilization.p95_bucket \
      --param 'teams[*-sweeps].weight=1..4' --param 'policy.preemption.min_runtime=0s..2h' \
      --seeds 2 --rounds 3 -o tuned.yaml
  allot sim scenarios/amazon-search.yaml --policy tuned.yaml`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runTune(cmd, args[0], &f)
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&f.Params, "param", nil, "PATH=MIN..MAX or PATH=a|b|c: a setting to tune; repeat for several")
	fl.StringVar(&f.Maximize, "maximize", "", "summary key to maximise, e.g. utilization.p95_bucket")
	fl.StringVar(&f.Minimize, "minimize", "", "summary key to minimise, e.g. wait_all_s.p95")
	fl.StringArrayVar(&f.Objectives, "objective", nil, "a constraint, 'SUMMARY.PATH OP VALUE'; repeat for several")
	fl.IntVar(&f.Seeds, "seeds", 3, "seeds per candidate (1..N); constraints must hold on every one")
	fl.StringVarP(&f.output, "output", "o", "", "write the tuned policy file here")
	fl.StringVar(&f.outDir, "out", "", "directory for tune.json and a before/after comparison report")
	fl.BoolVar(&f.asJSON, "json", false, "print the result as one JSON object")
	fl.IntVar(&f.Workers, "workers", 0, "parallel simulations (default: all cores)")
	fl.IntVar(&f.Rounds, "rounds", 10, "rounds of the search at most")
	fl.BoolVar(&f.AnyStarved, "allow-unstarted", false, "do not add 'jobs.unstarted_share <= 1%' to the constraints")
	fl.StringVar(&f.Policy, "policy", "", "policy file to start from (its settings are tuned) instead of the scenario's")
	addRoundFlags(cmd, &f.sharding)
	return cmd
}

func runTune(cmd *cobra.Command, path string, f *tuneFlags) error {
	f.Path = path
	t, err := search.NewTuner(f.TuneOptions)
	if err != nil {
		return badInput(err)
	}
	simrun.Warn(cmd.ErrOrStderr(), t.Scenario())
	digest, err := search.Digest(buildID(), path, t.Source(), t.Scenario().TracePath)
	if err != nil {
		return err
	}
	rounds, err := openRounds(cmd, &f.sharding, "tune", path, digest)
	if err != nil {
		return err
	}
	bar := newProgress(cmd.ErrOrStderr(), f.asJSON, "tuning")
	defer bar.done()
	res, err := t.Run(rounds, bar.update)
	if handled, err := rounds.Finish(err, f.outDir, cmd.OutOrStdout(), cmd.ErrOrStderr()); handled || err != nil {
		return searchError(err)
	}
	if res.Found && f.output != "" {
		pf, err := t.PolicyFile(res)
		if err != nil {
			return err
		}
		if err := writeFileAtomic(f.output, pf); err != nil {
			return err
		}
		res.PolicyFile = f.output
	}
	if f.outDir != "" {
		if err := t.WriteReport(f.outDir, res); err != nil {
			return err
		}
	}
	bar.done()
	if f.asJSON {
		if err := printJSON(cmd.OutOrStdout(), res); err != nil {
			return err
		}
	} else {
		printTune(cmd.OutOrStdout(), res)
	}
	if !res.Found {
		return &problemError{"no candidate meets every constraint on every seed"}
	}
	return nil
}

// writeFileAtomic writes a file whole or not at all.
func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

func printTune(w io.Writer, r *search.TuneResult) {
	verb := "maximise"
	if r.Direction == "minimize" {
		verb = "minimise"
	}
	fmt.Fprintf(w, "%s: %s %s subject to %d constraints on every one of %d seeds (%v)\n\n", r.Scenario, verb, r.Key, len(r.Constraints), len(r.Seeds), r.Seeds)
	if !r.Found {
		fmt.Fprintf(w, "NO candidate meets every constraint; the closest:\n\n")
	}
	rows := [][]string{}
	for _, s := range r.Settings {
		rows = append(rows, []string{s.Path, s.Value})
	}
	writeTable(w, []string{"setting", "tuned value"}, rows)
	fmt.Fprintln(w)
	val := func(path string, f search.TuneFigure) string {
		s := reports.FormatValue(path, f.Value)
		if f.CI95 != nil {
			s += " (" + reports.FormatValue(path, f.CI95[0]) + " .. " + reports.FormatValue(path, f.CI95[1]) + ")"
		}
		return s
	}
	met := func(ok bool) string {
		if ok {
			return "met"
		}
		return "NOT met"
	}
	rows = [][]string{{r.Key + " (" + verb + ")", val(r.Key, r.Shipped), val(r.Key, r.Tuned)}}
	for _, c := range r.Constraints {
		path := strings.Fields(c.Objective)[0]
		rows = append(rows, []string{c.Objective, val(path, c.Shipped) + " " + met(c.ShippedMet), val(path, c.Tuned) + " " + met(c.TunedMet)})
	}
	writeTable(w, []string{"", "shipped policy", "tuned policy"}, rows)
	fmt.Fprintf(w, "\nmeans over seeds (95%% intervals); a constraint is met when it holds on every seed.\n")
	fmt.Fprintf(w, "%d candidates simulated (%d simulations) in %d rounds.\n", r.Candidates, r.Simulations, r.Rounds)
	if r.PolicyFile != "" {
		fmt.Fprintf(w, "wrote %s (use it with --policy %s, or allot live serve --config)\n", r.PolicyFile, r.PolicyFile)
	}
}
