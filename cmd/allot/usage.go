package main

import (
	"errors"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/spf13/cobra"
)

// usageError is a command line that cobra rejects: an unknown flag or
// command, a bad flag value, the wrong number of arguments.
type usageError struct {
	cmd string // the command path, e.g. "allot sim"
	msg string
	err error // cobra's or pflag's own error
}

func (e *usageError) Error() string { return e.cmd + ": " + e.msg }
func (e *usageError) Unwrap() error { return e.err }

// flagError rewrites pflag's errors in the flag's own terms.
func flagError(c *cobra.Command, err error) error {
	return &usageError{cmd: c.CommandPath(), msg: errtext.Flag(err), err: err}
}

// checkArgsAsUsage makes every command's argument check report a usage
// error in the command's own words.
func checkArgsAsUsage(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &usageError{cmd: cmd.CommandPath(), msg: errtext.Args(cmd.Use, cmd.Name(), args, err.Error()), err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		checkArgsAsUsage(sub)
	}
}

// cobraUsage recognises the usage errors cobra returns on its own (an
// unknown command, a required flag left out) and those a library returns
// (errtext.UsageError).
func cobraUsage(c *cobra.Command, err error) *usageError {
	var lu *errtext.UsageError
	if errors.As(err, &lu) {
		return &usageError{cmd: c.CommandPath(), msg: lu.Msg, err: err}
	}
	msg, ok := errtext.UnknownCommand(c.CommandPath(), err.Error())
	if !ok {
		msg, ok = errtext.RequiredFlags(err.Error())
	}
	if !ok {
		return nil
	}
	return &usageError{cmd: c.CommandPath(), msg: msg, err: err}
}
