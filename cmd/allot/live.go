package main

import (
	"errors"
	"os"
	"path/filepath"

	"github.com/allot-sim/allot/live"
	"github.com/spf13/cobra"
)

// needsDaemon marks a command whose help example talks to a running
// daemon: TestEveryHelpExampleRuns skips it (the live tests run a daemon).
const needsDaemon = "needs-daemon"

func defaultDataDir() string {
	if os.Getuid() == 0 {
		return "/var/lib/allot"
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "allot")
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ".allot"
	}
	return filepath.Join(home, ".local", "share", "allot")
}

// socketPath is --socket, else $ALLOT_SOCKET, else the default data
// directory's socket, else (when there is none) the machine's root
// daemon's.
func socketPath(flag string) string {
	if flag != "" {
		return flag
	}
	if s := os.Getenv("ALLOT_SOCKET"); s != "" {
		return s
	}
	own := filepath.Join(defaultDataDir(), "allot.sock")
	if _, err := os.Stat(own); err != nil {
		if _, err := os.Stat(rootSocket); err == nil {
			return rootSocket // the machine's daemon, run as root
		}
	}
	return own
}

// rootSocket is where a daemon run as root with the default data
// directory listens, for every user of the machine to find.
const rootSocket = "/run/allot/allot.sock"

func newLiveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "live",
		Short: "Run a policy on real work: a durable job queue for this machine",
		Long: `Live mode runs the policy core the simulator uses on real processes: a
daemon (allot live serve) keeps a durable queue in its data directory and
starts, preempts and restarts jobs; allot submit, jobs, describe, cancel and
logs talk to it over its Unix socket, and allot live export writes its
history as a run directory that allot report renders.`,
		Example: `  allot live serve --help`,
	}
	cmd.AddCommand(newServeCmd(), newShimCmd(), newLiveSnapshotCmd(), newLiveExportCmd(), newCheckStoreCmd(), newBackupCmd())
	cmd.AddCommand(newReplayCmd(), newSleepJobCmd())
	return cmd
}

// clientErr maps a daemon's answer to an exit code: its refusals of a
// request are bad input (2), as are unknown jobs. What the daemon said
// is printed through live.Printable: it may quote what users named.
func clientErr(err error) error {
	var ae *live.APIError
	if errors.As(err, &ae) {
		return badInput(errors.New(live.Printable(ae.Msg)))
	}
	if err != nil {
		return errors.New(live.Printable(err.Error()))
	}
	return nil
}

func addSocketFlag(cmd *cobra.Command, p *string) {
	cmd.Flags().StringVar(p, "socket", "", "the daemon's socket (default $ALLOT_SOCKET, else the data directory's)")
}
