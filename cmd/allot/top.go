package main

import (
	"errors"
	"time"

	"github.com/allot-sim/allot/cmd/internal/top"
	"github.com/spf13/cobra"
)

func newTopCmd() *cobra.Command {
	var once bool
	var every time.Duration
	var kt kubeTarget
	cmd := &cobra.Command{
		Use:   "top [--once] [--interval D]",
		Short: "The live machine at a glance: utilisation, teams, jobs (--once: one frame)",
		Long: `Utilisation now and over the last minutes; per team the devices allocated
against its quota, borrowed from others' idle quota and lent to them, with
its pending, running and preempted jobs; mean wait (submit to first start)
and runtime; then the jobs not yet done, running first. On a terminal it
redraws every --interval until q, Esc or Ctrl-C; piped, it prints a plain
frame every --interval; --once prints one plain frame and exits.`,
		Example: `  allot top --once
  allot top --interval 5s`,
		Annotations: map[string]string{needsDaemon: "talks to one"},
		Args:        cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if every <= 0 {
				return &usageError{cmd: cmd.CommandPath(), msg: "--interval must be positive"}
			}
			r, where, err := kt.remote(cmd)
			if err != nil {
				return err
			}
			err = top.Run(cmd.OutOrStdout(), cmd.InOrStdin(), top.Options{Remote: r, Where: where, Every: every, Once: once})
			var le *top.LookError
			if errors.As(err, &le) {
				return clientErr(le.Err)
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&once, "once", false, "print one plain frame and exit")
	cmd.Flags().DurationVar(&every, "interval", time.Second, "time between refreshes")
	addRemoteFlags(cmd, &kt)
	addPolicyFlag(cmd, &kt)
	return cmd
}
