package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/policies"
	"github.com/allot-sim/allot/scenarios"
	"github.com/spf13/cobra"
)

func newCycleCmd() *cobra.Command {
	var asJSON, check bool
	cmd := &cobra.Command{
		Use:   "cycle SNAPSHOT",
		Short: "Run one scheduling cycle on a snapshot and explain the plan",
		Long: `Load a snapshot (spec/snapshot.md: instance types as flavors, teams as
queues with quotas, cohorts, running and pending jobs), run the policy core
on it, and print what is admitted (and on which flavor), what is preempted
(and why), and why every other job is still pending. --check compares the
plan with the snapshot's expected section and exits 1 on a difference.`,
		Example: `  allot cycle ../shared/parity/kueue/p01-preempt-lowest-priority.yaml
  allot cycle snapshot.yaml --json
  allot cycle snapshot.yaml --check`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			sf, err := scenarios.LoadSnapshot(args[0])
			if err != nil {
				return badInput(err)
			}
			res, err := policies.RunSnapshot(sf.Snapshot)
			if err != nil {
				return badInput(fmt.Errorf("%s: %w", args[0], err))
			}
			if asJSON {
				if err := printJSON(cmd.OutOrStdout(), res); err != nil {
					return err
				}
			} else {
				printCycle(cmd, sf, res)
			}
			if check {
				if sf.Expected == nil {
					return badInput(fmt.Errorf("%s: --check needs an expected section", args[0]))
				}
				if diffs := sf.Expected.Check(res); len(diffs) > 0 {
					return &problemError{fmt.Sprintf("%s: %d difference(s) from expected:\n  %s", args[0], len(diffs), strings.Join(diffs, "\n  "))}
				}
				if !asJSON {
					fmt.Fprintf(cmd.OutOrStdout(), "\n%s: matches the expected plan\n", args[0])
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the plan as one JSON object")
	cmd.Flags().BoolVar(&check, "check", false, "compare with the snapshot's expected plan; exit 1 on a difference")
	return cmd
}

func printCycle(cmd *cobra.Command, sf *scenarios.SnapshotFile, res *policies.CycleResult) {
	w := cmd.OutOrStdout()
	if sf.Title != "" {
		fmt.Fprintf(w, "%s\n\n", sf.Title)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "JOB\tDECISION\tDETAIL")
	for _, a := range res.Admitted {
		var parts []string
		for ps, byRes := range a.Flavors {
			for r, f := range byRes {
				parts = append(parts, fmt.Sprintf("%s/%s on %s", ps, r, f))
			}
		}
		sortStrings(parts)
		fmt.Fprintf(tw, "%s\tadmitted\t%s\n", a.Name, strings.Join(parts, ", "))
	}
	for _, p := range res.Preempted {
		fmt.Fprintf(tw, "%s\tpreempted\t%s\n", p.Name, p.Reason)
	}
	for _, p := range res.Pending {
		fmt.Fprintf(tw, "%s\t%s\t%s\n", p.Name, p.State, p.Reason)
	}
	if len(res.PopOrder) > 0 {
		fmt.Fprintf(tw, "\t\npop order\t%s\t\n", strings.Join(res.PopOrder, ", "))
	}
	tw.Flush()
}
