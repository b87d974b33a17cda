// Command allot simulates and runs fair-share GPU/Trainium fleet scheduling
// policies. Run `allot --help` for the commands.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/allot-sim/allot/cmd/internal/buildinfo"
	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/cmd/internal/search"
	"github.com/allot-sim/allot/cmd/internal/simrun"
	"github.com/allot-sim/allot/scenarios"
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

// libraryErr marks what a library blames on its input (a search's, a
// simulation's or errtext's InputError) as bad input.
func libraryErr(err error) error {
	var (
		se *search.InputError
		re *simrun.InputError
		ie *errtext.InputError
	)
	if errors.As(err, &se) || errors.As(err, &re) || errors.As(err, &ie) {
		return badInput(err)
	}
	return err
}

// loadScenario loads a scenario and applies a --policy override
// (simrun.Load); what it refuses is bad input.
func loadScenario(path, policy string) (*scenarios.Scenario, error) {
	s, err := simrun.Load(path, policy)
	if err != nil {
		return nil, badInput(err)
	}
	return s, nil
}

// dirPrefix is a directory as the start of a path: "out/" for "out" and for
// "out/", never "out//".
func dirPrefix(dir string) string { return strings.TrimSuffix(dir, "/") + "/" }

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

// report is what stderr shows for an error: for a command line cobra
// rejects, COMMAND: message and a hint; otherwise errtext.Report.
func report(cmd *cobra.Command, err error) string {
	var ue *usageError
	if !errors.As(err, &ue) {
		ue = cobraUsage(cmd, err)
	}
	if ue != nil {
		return ue.Error() + "\n(see '" + ue.cmd + " --help')"
	}
	return errtext.Report(err)
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
		Version:       buildinfo.Version(version, commit),
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(flagError)
	root.AddCommand(newSimCmd(), newCompareCmd(), newReportCmd(), newCatalogCmd(), newTraceCmd(), newCycleCmd(), newSweepCmd(), newVersionCmd(), newPlanCmd(), newTuneCmd(), newPromoteCmd(), newExportCmd(), newImportCmd())
	root.AddCommand(newLiveCmd(), newSubmitCmd(), newJobsCmd(), newDescribeCmd(), newCancelCmd(), newLogsCmd(), newTopCmd())
	checkArgsAsUsage(root)
	return root
}
