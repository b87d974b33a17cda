package main

import (
	"encoding/json"

	"github.com/allot-sim/allot/cmd/internal/show"
	"github.com/spf13/cobra"
)

func newJobsCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var all, asJSON bool
	cmd := &cobra.Command{
		Use:   "jobs [--all-teams] [--json]",
		Short: "List your live jobs (--all-teams: everyone's)",
		Example: `  allot jobs
  allot jobs --all-teams --json`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			jobs, err := r.Jobs(all)
			if err != nil {
				return liveErr(err)
			}
			if asJSON {
				return printJSON(cmd.OutOrStdout(), jobs)
			}
			return show.Jobs(cmd.OutOrStdout(), jobs)
		},
	}
	cmd.Flags().BoolVar(&all, "all-teams", false, "every user's jobs")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newDescribeCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var asJSON bool
	cmd := &cobra.Command{
		Use:         "describe JOB",
		Short:       "A live job's state, why it is pending, and its history",
		Example:     `  allot describe 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			d, err := r.Describe(args[0])
			if err != nil {
				return liveErr(err)
			}
			if asJSON {
				if d.Raw != nil {
					return printJSON(cmd.OutOrStdout(), json.RawMessage(d.Raw))
				}
				return printJSON(cmd.OutOrStdout(), d.Description)
			}
			show.Description(cmd.OutOrStdout(), d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newCancelCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:         "cancel JOB",
		Short:       "Cancel a live job (a running one gets SIGTERM and its grace period)",
		Example:     `  allot cancel 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			return liveErr(r.Cancel(args[0]))
		},
	}
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

func newLogsCmd() *cobra.Command {
	var socket string
	var kt kubeTarget
	var follow bool
	cmd := &cobra.Command{
		Use:   "logs [-f] JOB",
		Short: "A live job's output (stdout, then stderr, of every run)",
		Example: `  allot logs 1
  allot logs -f 1`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r, _, err := kt.remote(cmd, socket)
			if err != nil {
				return err
			}
			return liveErr(r.Logs(args[0], follow, cmd.OutOrStdout(), cmd.ErrOrStderr()))
		},
	}
	cmd.Flags().BoolVarP(&follow, "follow", "f", false, "keep printing stdout as the job writes it, until it ends; then its stderr")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}
