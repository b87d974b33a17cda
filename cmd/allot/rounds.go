package main

import (
	"fmt"
	"os"
	"slices"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// roundFlagNames are left out of the command a shard or merge repeats.
var roundFlagNames = []string{"shards", "shard", "state", "replay-only", "emit", "image", "claim", "mount", "out", "json", "workers"}

// addRoundFlags adds the flags of a plan or tune spread over machines
// (search.Rounds).
func addRoundFlags(cmd *cobra.Command, f *search.RoundOptions) {
	fl := cmd.Flags()
	fl.IntVar(&f.Shards, "shards", 1, "split each round's runs into this many shards (each run with --shard, then 'allot sweep merge --state')")
	fl.IntVar(&f.Shard, "shard", 0, "with --shards: the shard to run, 1 to --shards (default: JOB_COMPLETION_INDEX + 1)")
	fl.StringVar(&f.State, "state", "", "directory holding the results of the rounds already merged (state.json)")
	fl.BoolVar(&f.ReplayOnly, "replay-only", false, "simulate nothing: replay the search from --state and say what the next round needs")
	fl.StringVar(&f.Emit, "emit", "", "kubernetes: print the next round as an Indexed Job (one completion per shard) and its merge Job, and run nothing")
	fl.StringVar(&f.Image, "image", "ghcr.io/allot-sim/allot:latest", "with --emit: the container image with allot in it (make image)")
	fl.StringVar(&f.Claim, "claim", "allot-sweep", "with --emit: the PersistentVolumeClaim holding the scenario files, the state and the shards")
	fl.StringVar(&f.Mount, "mount", "/sweep", "with --emit: where the claim is mounted; the commands run there")
	_ = fl.MarkHidden("replay-only")
}

// searchArgs is the command a shard or a merge repeats: its name, its
// arguments and every flag set, but the round flags, in a fixed order.
func searchArgs(cmd *cobra.Command, pos []string) []string {
	out := append([]string{cmd.Name()}, pos...)
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if slices.Contains(roundFlagNames, f.Name) {
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				out = append(out, "--"+f.Name, v)
			}
			return
		}
		out = append(out, "--"+f.Name+"="+f.Value.String())
	})
	return out
}

// openRounds reads --state for a search of the scenario at path (nil
// when no round flag is set).
func openRounds(cmd *cobra.Command, f *search.RoundOptions, kind, path, digest string) (*search.Rounds, error) {
	r, err := search.OpenRounds(*f, kind, searchArgs(cmd, []string{path}), digest, os.Getenv("JOB_COMPLETION_INDEX"), cmd.ErrOrStderr())
	return r, libraryErr(err)
}

// mergeRounds adds a round's shards to the state and replays the search:
// the next round's instructions, or the answer.
func mergeRounds(cmd *cobra.Command, paths []string, state, outDir string, asJSON bool) error {
	args, err := search.MergeRounds(paths, state)
	if err != nil {
		return libraryErr(err)
	}
	if asJSON {
		args = append(args, "--json")
	}
	if outDir != "" {
		args = append(args, "--out", outDir)
	}
	if code := run(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
		return &exitCode{code}
	}
	return nil
}

// exitCode passes on the exit code of a command run in process.
type exitCode struct{ code int }

func (e *exitCode) Error() string { return fmt.Sprintf("exit %d", e.code) }
