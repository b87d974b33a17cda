package exportfiles

import (
	"context"
	"fmt"
	"io"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/live/kube"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
)

// Options are allot export's: the engine, the policy and where its
// export goes.
type Options struct {
	Engine     string // kueue, hyperpod or aws-batch
	Path       string // the scenario or policy file with a fleet section
	OutDir     string // the directory for the files ("": standard output)
	Kueue      export.KueueOptions
	ClusterARN string             // hyperpod: the cluster the inputs are for
	Batch      export.BatchTarget // aws-batch
}

// Export is allot export: the policy at o.Path as o.Engine's objects or
// inputs, written into o.OutDir or printed on w (Kueue's as YAML, the
// AWS inputs as one JSON object). errW gets each warning, then what was
// written. What it refuses is a usage error (errtext.UsageError) or the
// input's (errtext.InputError).
func Export(w, errW io.Writer, o Options) error {
	switch o.Engine {
	case "kueue", "hyperpod", "aws-batch":
	default:
		return errtext.Usagef("%q: want kueue, hyperpod or aws-batch", o.Engine)
	}
	if o.Engine == "hyperpod" && o.ClusterARN == "" {
		return errtext.Usagef("export hyperpod needs --cluster-arn ARN: the HyperPod cluster the inputs are for")
	}
	s, err := export.Load(o.Path)
	if err != nil {
		return errtext.Input(err)
	}
	switch o.Engine {
	case "hyperpod":
		return exportHyperPod(w, errW, s, o)
	case "aws-batch":
		return exportBatch(w, errW, s, o)
	}
	return exportKueue(w, errW, s, o)
}

// exportKueue writes or prints the Kueue objects.
func exportKueue(w, errW io.Writer, s *scenarios.Scenario, o Options) error {
	k, err := export.ToKueue(s, o.Kueue)
	if err != nil {
		return errtext.Input(fmt.Errorf("%s: %w", o.Path, err))
	}
	objs, err := k.ObjectsYAML()
	if err != nil {
		return err
	}
	warn(errW, k.Warnings)
	if o.OutDir == "" {
		_, err := w.Write(objs)
		return err
	}
	if err := Kueue(o.OutDir, k, objs); err != nil {
		return err
	}
	fmt.Fprintf(errW, "wrote %s: %d objects; kueue-config.yaml; %d warnings\n", o.OutDir, KueueObjects(k), len(k.Warnings))
	return nil
}

// exportHyperPod writes or prints the HyperPod task governance inputs.
func exportHyperPod(w, errW io.Writer, s *scenarios.Scenario, o Options) error {
	h, err := export.ToHyperPod(s, o.ClusterARN)
	if err != nil {
		return errtext.Input(fmt.Errorf("%s: %w", o.Path, err))
	}
	warn(errW, h.Warnings)
	if o.OutDir == "" {
		all, err := HyperPodJSON(h)
		if err != nil {
			return err
		}
		return show.JSON(w, all)
	}
	return writeAWS(errW, o.OutDir, HyperPod(h), h.Warnings, "compute-quota-*.json")
}

// exportBatch writes or prints the AWS Batch inputs.
func exportBatch(w, errW io.Writer, s *scenarios.Scenario, o Options) error {
	b, err := export.ToBatch(s, o.Batch)
	if err != nil {
		return errtext.Input(fmt.Errorf("%s: %w", o.Path, err))
	}
	warn(errW, b.Warnings)
	files := Batch(b)
	if o.OutDir == "" {
		all, err := JSON(files)
		if err != nil {
			return err
		}
		return show.JSON(w, all)
	}
	return writeAWS(errW, o.OutDir, files, b.Warnings, "quota-share-*.json")
}

// warn prints an export's warnings on errW.
func warn(errW io.Writer, warnings []string) {
	for _, w := range warnings {
		fmt.Fprintln(errW, "warning: "+w)
	}
}

// writeAWS writes AWS inputs and their warnings into outDir (AWS) and
// says so on errW.
func writeAWS(errW io.Writer, outDir string, files map[string]any, warnings []string, perTeam string) error {
	if err := AWS(outDir, files, warnings, perTeam, errW); err != nil {
		return err
	}
	fmt.Fprintf(errW, "wrote %s: %d inputs; %d warnings\n", outDir, len(files), len(warnings))
	return nil
}

// PromoteArgs is the allot export command line that allot promote --to
// o.Engine runs: the policy at o.Path, -o o.OutDir, and the flags of o
// that are set.
func PromoteArgs(o Options) []string {
	args := []string{"export", o.Engine, o.Path, "-o", o.OutDir}
	for flag, v := range map[string]string{"cluster-arn": o.ClusterARN, "region": o.Batch.Region, "account-id": o.Batch.Account,
		"compute-environment": o.Batch.ComputeEnvironment, "service-environment": o.Batch.ServiceEnvironment} {
		if v != "" {
			args = append(args, "--"+flag, v)
		}
	}
	if o.Kueue.AcceleratorsOnly {
		args = append(args, "--accelerators-only")
	}
	return args
}

// ApplyKueue server-side applies the Kueue objects of the policy at
// o.Path to the cluster of t: each as a dry run first, its changes on w,
// then for real unless dryRun.
func ApplyKueue(w io.Writer, t *kube.Target, o Options, dryRun bool) error {
	s, err := export.Load(o.Path)
	if err != nil {
		return errtext.Input(err)
	}
	k, err := export.ToKueue(s, o.Kueue)
	if err != nil {
		return errtext.Input(err)
	}
	dyn, err := t.Dynamic()
	if err != nil {
		return err
	}
	return k.Apply(context.Background(), dyn, w, dryRun)
}
