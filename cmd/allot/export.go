package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/scenarios/export"
	"github.com/spf13/cobra"
)

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export kueue|hyperpod|aws-batch POLICY [-o DIR]",
		Short: "Write a policy as the objects of the engine a team runs (Kueue)",
		Long: `Write POLICY (a scenario or a policy file with a fleet section) as the
objects of another engine, and say what it cannot express.

export kueue writes the Kueue v0.17 objects (kueue.x-k8s.io/v1beta2, built
from Kueue's own API types): a Namespace per team, a ResourceFlavor per
instance type (selecting node.kubernetes.io/instance-type), the
WorkloadPriorityClasses, the Cohorts (nested; a root's own quota holds the
capacity no team's quota covers), a ClusterQueue per team (nominal quota,
borrowing and lending limits per flavor and resource, queueing strategy,
preemption, fair-sharing weight, flavor fungibility) and a LocalQueue in
each team's namespace. Without -o it prints them as YAML; with -o DIR it
writes DIR/objects.yaml (ready for kubectl apply -f), DIR/kueue-config.yaml
(the Configuration fields the policy needs) and DIR/warnings.txt (every
setting dropped). The warnings go to standard error too.

hyperpod and aws-batch are not built yet.`,
		Example: `  allot export kueue scenarios/amazon-search.yaml -o kueue/
  allot export kueue scenarios/hyperpod-teams.yaml | head -40`,
		Args: cobra.ExactArgs(2),
	}
	var outDir string
	cmd.Flags().StringVarP(&outDir, "output", "o", "", "directory for objects.yaml, kueue-config.yaml and warnings.txt")
	cmd.RunE = func(cmd *cobra.Command, args []string) error {
		switch args[0] {
		case "kueue":
		case "hyperpod", "aws-batch":
			return badInput(fmt.Errorf("export %s: not built yet; this build exports to kueue", args[0]))
		default:
			return &usageError{cmd: cmd.CommandPath(), msg: fmt.Sprintf("%q: want kueue, hyperpod or aws-batch", args[0])}
		}
		data, err := os.ReadFile(args[1])
		if err != nil {
			return badInput(err)
		}
		s, err := scenarios.ParseLive(args[1], data, func() (string, error) {
			return "", fmt.Errorf("the export needs the fleet's instance types: give a scenario or a policy file with a fleet section")
		})
		if err != nil {
			return badInput(err)
		}
		k, err := export.ToKueue(s)
		if err != nil {
			return badInput(fmt.Errorf("%s: %w", args[1], err))
		}
		objs, err := k.ObjectsYAML()
		if err != nil {
			return err
		}
		for _, w := range k.Warnings {
			fmt.Fprintln(cmd.ErrOrStderr(), "warning: "+w)
		}
		if outDir == "" {
			_, err := cmd.OutOrStdout().Write(objs)
			return err
		}
		conf, err := k.ConfigYAML()
		if err != nil {
			return err
		}
		if err := os.MkdirAll(outDir, 0o755); err != nil {
			return err
		}
		warnings := strings.Join(k.Warnings, "\n")
		if warnings != "" {
			warnings += "\n"
		}
		for name, body := range map[string][]byte{"objects.yaml": objs, "kueue-config.yaml": conf, "warnings.txt": []byte(warnings)} {
			if err := writeFileAtomic(filepath.Join(outDir, name), body); err != nil {
				return err
			}
		}
		fmt.Fprintf(cmd.ErrOrStderr(), "wrote %s: %d objects; kueue-config.yaml; %d warnings\n", outDir,
			len(k.Namespaces)+len(k.Flavors)+len(k.PriorityClasses)+len(k.Cohorts)+len(k.ClusterQueues)+len(k.LocalQueues), len(k.Warnings))
		return nil
	}
	return cmd
}
