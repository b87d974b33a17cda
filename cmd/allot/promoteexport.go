package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/exportfiles"
	"github.com/spf13/cobra"
)

// promoteExport writes the export of the policy at path for another
// engine (--to kueue, hyperpod or aws-batch) as allot export does, and
// with --apply applies the Kueue objects to the cluster.
func promoteExport(cmd *cobra.Command, path string, f *promoteFlags) error {
	if f.export.OutDir == "" {
		return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--to %s writes the export: give -o DIR", f.to)}
	}
	f.export.Engine, f.export.Path = f.to, path
	if code := run(exportfiles.PromoteArgs(f.export), cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
		return &exitCode{code}
	}
	if !f.apply {
		fmt.Fprintf(cmd.OutOrStdout(), "wrote the %s export to %s; apply it with the engine's own tools (docs/export.md), or --apply for kueue\n", f.to, f.export.OutDir)
		return nil
	}
	if f.to != "kueue" {
		return badInput(fmt.Errorf("--apply: only --to kueue applies to a cluster; apply %s's inputs with the AWS CLI", f.to))
	}
	return liveErr(libraryErr(exportfiles.ApplyKueue(cmd.OutOrStdout(), &f.kt.Target, f.export, f.dryRun)))
}
