package main

import (
	"encoding/json"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/allot-sim/allot/live"
	"github.com/spf13/cobra"
)

func newJobsCmd() *cobra.Command {
	var kt kubeTarget
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "jobs [--all-teams] [--json]",
		Short: "List your live jobs (--all-teams: everyone's)",
		Example: `  allot jobs
  allot jobs --all-teams --json`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: kt.runE(func(cmd *cobra.Command, args []string, r live.Remote) error {
			jobs, err := r.Jobs(all)
			if err != nil {
				return err
			}
			if asJSON {
				return show.JSON(cmd.OutOrStdout(), jobs)
			}
			return show.Jobs(cmd.OutOrStdout(), jobs)
		}),
	}
	cmd.Flags().BoolVar(&all, "all-teams", false, "every user's jobs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	addRemoteFlags(cmd, &kt)
	return cmd
}

func newDescribeCmd() *cobra.Command {
	var kt kubeTarget
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "describe JOB",
		Short:       "A live job's state, why it is pending, and its history",
		Example:     `  allot describe 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: kt.runE(func(cmd *cobra.Command, args []string, r live.Remote) error {
			d, err := r.Describe(args[0])
			if err != nil {
				return err
			}
			if asJSON {
				if d.Raw != nil {
					return show.JSON(cmd.OutOrStdout(), json.RawMessage(d.Raw))
				}
				return show.JSON(cmd.OutOrStdout(), d.Description)
			}
			show.Description(cmd.OutOrStdout(), d)
			return nil
		}),
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	addRemoteFlags(cmd, &kt)
	return cmd
}

func newCancelCmd() *cobra.Command {
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:         "cancel JOB",
		Short:       "Cancel a live job (a running one gets SIGTERM and its grace period)",
		Example:     `  allot cancel 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: kt.runE(func(cmd *cobra.Command, args []string, r live.Remote) error {
			return r.Cancel(args[0])
		}),
	}
	addRemoteFlags(cmd, &kt)
	return cmd
}

func newLogsCmd() *cobra.Command {
	var kt kubeTarget
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs [-f] JOB",
		Short: "A live job's output (stdout, then stderr, of every run)",
		Example: `  allot logs 1
  allot logs -f 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: kt.runE(func(cmd *cobra.Command, args []string, r live.Remote) error {
			return r.Logs(args[0], follow, cmd.OutOrStdout(), cmd.ErrOrStderr())
		}),
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing stdout as the job writes it, until it ends; then its stderr")
	addRemoteFlags(cmd, &kt)
	return cmd
}
