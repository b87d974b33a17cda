package main

import (
	"fmt"

	"github.com/allot-sim/allot/cmd/internal/buildinfo"
	"github.com/spf13/cobra"
)

// version and commit are set at link time by make (-ldflags "-X
// main.version=v1.2.3 -X main.commit=abc"); without them, what Go stamped
// into the binary is used.
var version, commit = "", ""

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print the version and the commit it was built from",
		Example: "  allot version\n  allot --version",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			_, err := fmt.Fprintln(cmd.OutOrStdout(), buildinfo.Version(version, commit))
			return err
		},
	}
}
