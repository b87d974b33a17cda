package main

import (
	"fmt"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/cmd/internal/traces"
	"github.com/allot-sim/allot/workload/importers"
	"github.com/spf13/cobra"
)

func newTraceImportCmd() *cobra.Command {
	var (
		format, out, scenario, policy string
		noScenario                    bool
		opt                           importers.Options
	)
	var formats []string
	for _, f := range importers.Formats() {
		formats = append(formats, fmt.Sprintf("  %-13s %s\n  %-13s inputs: %s", f.Name, f.Summary, "", f.Inputs))
	}
	cmd := &cobra.Command{
		Use:   "import --format NAME IN... -o FILE",
		Short: "Turn a public GPU-cluster trace into a canonical trace and a runnable scenario",
		Long: `Read a public trace in one of the formats below and write the canonical
trace (spec/trace.md; .parquet or .csv by the name of FILE), keeping the
original start, end and status where the trace has them. Beside it, a
scenario (--scenario, default FILE with .yaml) with the trace's fleet, teams
and priority classes, ready for allot sim. Rows that cannot become jobs are
counted by reason; the mapping and its choices are printed and written into
the scenario's description.

Formats:
` + strings.Join(formats, "\n"),
		Example: `  allot trace import --format openb \
      ../shared/traces/alibaba-gpu-v2023-openb/csv/openb_pod_list_default.csv \
      ../shared/traces/alibaba-gpu-v2023-openb/csv/openb_node_list_all_node.csv -o openb.parquet
  allot trace import --format gavel-philly ../shared/traces/gavel-philly-derived/seed=0/*.trace \
      --vc-nodes ../shared/traces/helios-sensetime/philly_vc.csv -o philly.parquet
  allot trace import --format alibaba-dlrm \
      ../shared/traces/alibaba-gpu-v2025-dlrm/disaggregated_DLRM_trace.csv -o dlrm.parquet`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return badInput(fmt.Errorf("trace import: -o FILE is required"))
			}
			im := traces.Import{Format: format, Inputs: args, Options: opt, Out: out, Scenario: scenario, Policy: policy, NoScenario: noScenario}
			res, written, err := im.Run()
			if err != nil {
				return badInput(err)
			}
			show.Import(cmd.ErrOrStderr(), res, out, written)
			return nil
		},
	}
	cmd.Flags().StringVar(&format, "format", "", "trace format (see above)")
	cmd.Flags().StringVarP(&out, "output", "o", "", "canonical trace to write (.parquet or .csv)")
	cmd.Flags().StringVar(&scenario, "scenario", "", "scenario file to write beside it (default: the trace's name with .yaml)")
	cmd.Flags().StringVar(&policy, "policy", "quota", "policy kind the scenario starts with")
	cmd.Flags().BoolVar(&noScenario, "no-scenario", false, "write the trace only, no scenario beside it (for a trace a shipped scenario already replays)")
	cmd.Flags().StringVar(&opt.Throughputs, "throughputs", "", "gavel-philly: simulation_throughputs.json (default: beside the traces)")
	cmd.Flags().StringVar(&opt.ClusterSpec, "cluster-spec", "", "gavel-philly: cluster_specs.json, V100:P100:K80 GPUs (default: beside the throughputs)")
	cmd.Flags().StringVar(&opt.VCNodes, "vc-nodes", "", "gavel-philly: philly_vc.csv (vc, node num): quotas in proportion to it")
	cmd.Flags().IntVar(&opt.GPUsPerNode, "gpus-per-node", 8, "gavel-philly: GPUs per node")
	cmd.MarkFlagRequired("format")
	return cmd
}
