package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/allot-sim/allot/live"
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
			tw := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tTEAM\tCLASS\tACC\tSTATE\tDEVICES\tREASON")
			p := live.Printable
			for _, j := range jobs {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%d\t%s\t%s\t%s\n", p(j.ID), p(j.Name), p(j.Team), p(j.PriorityClass), j.Accelerators, p(j.State),
					p(strings.Join(j.Devices, ",")), p(j.Reason))
			}
			return tw.Flush()
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
			printDescription(cmd.OutOrStdout(), d)
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON object")
	addSocketFlag(cmd, &socket)
	addBackendFlags(cmd, &kt)
	return cmd
}

// printDescription writes describe's text: everything a user named or a
// job said goes through live.Printable.
func printDescription(w io.Writer, d *live.Detail) {
	p := live.Printable
	fmt.Fprintf(w, "job %s (%s): %s\n", p(d.ID), p(d.Name), p(d.State))
	if d.Reason != "" {
		fmt.Fprintf(w, "reason: %s\n", p(d.Reason))
	}
	fmt.Fprintf(w, "team %s, priority class %s, %d accelerators, devices [%s], %d preemptions, %d restarts, owner uid %d\n",
		p(d.Team), strconv.Quote(d.PriorityClass), d.Accelerators, p(strings.Join(d.Devices, ",")), d.Preemptions, d.Restarts, d.UID)
	const stamp = "2006-01-02 15:04:05 MST"
	times := "submitted " + d.Submitted.Local().Format(stamp)
	if d.Started != nil {
		times += ", first started " + d.Started.Local().Format(stamp)
	}
	if d.Ended != nil {
		times += ", ended " + d.Ended.Local().Format(stamp)
	}
	fmt.Fprintln(w, times)
	if d.ExitCode != nil {
		fmt.Fprintf(w, "exit code: %d\n", *d.ExitCode)
	}
	switch {
	case len(d.Command) > 0:
		fmt.Fprintf(w, "command: %s\n", p(strings.Join(d.Command, " ")))
		if d.Dir != "" {
			fmt.Fprintf(w, "directory: %s\n", p(d.Dir))
		}
		if len(d.Env) > 0 {
			var names []string
			for _, e := range d.Env {
				n, _, _ := strings.Cut(e, "=")
				names = append(names, p(n))
			}
			fmt.Fprintf(w, "environment: %s set (values in --json)\n", strings.Join(names, ", "))
		}
	case d.CommandWithheld:
		fmt.Fprintln(w, "command: not shown (only the job's owner and its team's and the machine's admins see it)")
	}
	fmt.Fprintln(w, "history:")
	for i, e := range d.History {
		when := ""
		if d.At != nil {
			when = d.At[i].Local().Format("2006-01-02 15:04:05.000") + "  "
		}
		fmt.Fprintf(w, "  %s%10.3fs  %-10s %s\n", when, e.Time, p(e.Kind), p(e.Detail))
	}
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
