// Command allot simulates and runs fair-share GPU/Trainium fleet scheduling
// policies. Run `allot --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
	"github.com/spf13/cobra"
)

// Exit codes (spec/cli.md).
const (
	exitOK       = 0
	exitProblem  = 1 // the command ran and found a problem
	exitBadInput = 2 // bad input or usage
)

// problemError is a finding (a --check difference, an unmet objective).
type problemError struct{ msg string }

func (e *problemError) Error() string { return e.msg }

// inputError is bad input or usage.
type inputError struct{ err error }

func (e *inputError) Error() string { return e.err.Error() }
func (e *inputError) Unwrap() error { return e.err }

func badInput(err error) error {
	if err == nil {
		return nil
	}
	return &inputError{err}
}

// libraryErr marks what a library blames on its input (a search's or a
// simulation's InputError) as bad input.
func libraryErr(err error) error {
	var (
		se *search.InputError
		re *simrun.InputError
	)
	if errors.As(err, &se) || errors.As(err, &re) {
		return badInput(err)
	}
	return err
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	root := newRoot(stdout, stderr)
	root.SetArgs(args)
	cmd, err := root.ExecuteC()
	if err == nil {
		return exitOK
	}
	var ec *exitCode
	if errors.As(err, &ec) { // a command run in process said why already
		return ec.code
	}
	fmt.Fprintln(stderr, report(cmd, err))
	var pe *problemError
	if errors.As(err, &pe) {
		return exitProblem
	}
	return exitBadInput
}

// report is what stderr shows for an error. Its first line is
// FILE:LINE: key.path: message where a file is at fault (FILE: row N:
// column COL: message for a trace row), COMMAND: message and a hint for a
// command line cobra rejects, and allot: message otherwise.
func report(cmd *cobra.Command, err error) string {
	var (
		ue *usageError
		fe *scenarios.FileError
		re *workload.FieldError
	)
	if !errors.As(err, &ue) {
		ue = cobraUsage(cmd, err)
	}
	switch {
	case ue != nil:
		return ue.Error() + "\n(see '" + ue.cmd + " --help')"
	case errors.As(err, &fe):
		return fe.Error()
	case errors.As(err, &re):
		return re.Error()
	}
	msg := strings.TrimPrefix(err.Error(), "allot: ")
	out := "allot: " + firstLine(msg)
	if rest := moreLines(msg); rest != "" {
		out += "\n" + rest
	}
	return out
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

func moreLines(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[i+1:])
	}
	return ""
}

func newRoot(stdout, stderr io.Writer) *cobra.Command {
	root := &cobra.Command{
		Use:   "allot",
		Short: "Simulate, compare and run fair-share scheduling policies for GPU and Trainium fleets",
		Long: `allot decides who gets the accelerators of a shared fleet — fair share,
priorities, team quotas that lend and borrow, preemption with checkpoints —
and predicts what that decision does before anyone runs it.`,
		Example: `  allot sim scenarios/amazon-search.yaml
  allot sim scenarios/amazon-search.yaml --policy fifo --json
  allot cycle docs/examples/snapshot.yaml --check
  allot catalog`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       versionString(),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newSimCmd(), newCompareCmd(), newReportCmd(), newCatalogCmd(), newTraceCmd(), newCycleCmd(), newSweepCmd(), newVersionCmd(), newPlanCmd(), newTuneCmd(), newPromoteCmd(), newExportCmd())
	root.AddCommand(newLiveCmd(), newSubmitCmd(), newJobsCmd(), newDescribeCmd(), newCancelCmd(), newLogsCmd(), newTopCmd())
	checkArgsAsUsage(root)
	return root
}
