package main

import (
	"github.com/allot-sim/allot/cmd/internal/atomicfile"
	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/simrun"
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
	digest, err := t.Digest()
	if err != nil {
		return err
	}
	rounds, err := openRounds(cmd, &f.sharding, "tune", path, digest)
	if err != nil {
		return err
	}
	bar := show.NewProgress(cmd.ErrOrStderr(), f.asJSON, "tuning")
	defer bar.Done()
	res, err := t.Run(rounds, bar.Update)
	if handled, err := rounds.Finish(err, f.outDir, cmd.OutOrStdout(), cmd.ErrOrStderr()); handled || err != nil {
		return libraryErr(err)
	}
	if res.Found && f.output != "" {
		pf, err := t.PolicyFile(res)
		if err != nil {
			return err
		}
		if err := atomicfile.Write(f.output, pf); err != nil {
			return err
		}
		res.PolicyFile = f.output
	}
	if f.outDir != "" {
		if err := t.WriteReport(f.outDir, res); err != nil {
			return err
		}
	}
	bar.Done()
	if f.asJSON {
		if err := show.JSON(cmd.OutOrStdout(), res); err != nil {
			return err
		}
	} else {
		show.Tune(cmd.OutOrStdout(), res)
	}
	if !res.Found {
		return &problemError{"no candidate meets every constraint on every seed"}
	}
	return nil
}
