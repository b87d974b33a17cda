package main

import (
	"context"
	"fmt"

	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

// promoteExport writes the export of the policy at path for another
// engine (--to kueue, hyperpod or aws-batch) as allot export does, and
// with --apply applies the Kueue objects to the cluster.
func promoteExport(cmd *cobra.Command, path string, f *promoteFlags) error {
	if f.outDir == "" {
		return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("--to %s writes the export: give -o DIR", f.to)}
	}
	args := []string{"export", f.to, path, "-o", f.outDir}
	for flag, v := range map[string]string{"cluster-arn": f.et.clusterARN, "region": f.et.batch.Region, "account-id": f.et.batch.Account,
		"compute-environment": f.et.batch.ComputeEnvironment, "service-environment": f.et.batch.ServiceEnvironment} {
		if v != "" {
			args = append(args, "--"+flag, v)
		}
	}
	if f.kopt.AcceleratorsOnly {
		args = append(args, "--accelerators-only")
	}
	if code := run(args, cmd.OutOrStdout(), cmd.ErrOrStderr()); code != 0 {
		return &exitCode{code}
	}
	if !f.apply {
		fmt.Fprintf(cmd.OutOrStdout(), "wrote the %s export to %s; apply it with the engine's own tools (docs/export.md), or --apply for kueue\n", f.to, f.outDir)
		return nil
	}
	if f.to != "kueue" {
		return badInput(fmt.Errorf("--apply: only --to kueue applies to a cluster; apply %s's inputs with the AWS CLI", f.to))
	}
	s, err := export.Load(path)
	if err != nil {
		return badInput(err)
	}
	k, err := export.ToKueue(s, f.kopt)
	if err != nil {
		return badInput(err)
	}
	dyn, err := f.kt.Dynamic()
	if err != nil {
		return liveErr(err)
	}
	return liveErr(k.Apply(context.Background(), dyn, cmd.OutOrStdout(), f.dryRun))
}
