package main

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
	var (
		inv *pflag.InvalidValueError
		req *pflag.ValueRequiredError
		nx  *pflag.NotExistError
	)
	msg := err.Error()
	switch {
	case errors.As(err, &inv):
		f := inv.GetFlag()
		msg = fmt.Sprintf("--%s: must be %s, got %q", f.Name, flagKind(f.Value.Type()), inv.GetValue())
	case errors.As(err, &req):
		msg = fmt.Sprintf("--%s needs a value", req.GetFlag().Name)
	case errors.As(err, &nx):
		if short := nx.GetSpecifiedShortnames(); short != "" {
			msg = fmt.Sprintf("unknown flag -%c", nx.GetSpecifiedName()[0])
		} else {
			msg = "unknown flag --" + nx.GetSpecifiedName()
		}
	}
	return &usageError{cmd: c.CommandPath(), msg: msg, err: err}
}

func flagKind(typ string) string {
	switch typ {
	case "uint", "uint8", "uint16", "uint32", "uint64":
		return "a whole number >= 0"
	case "int", "int8", "int16", "int32", "int64", "count":
		return "a whole number"
	case "float32", "float64":
		return "a number"
	case "bool":
		return "true or false"
	case "duration":
		return "a duration like 90s, 30m or 1h30m"
	}
	return "a valid " + typ
}

// checkArgsAsUsage makes every command's argument check report a usage
// error in the command's own words.
func checkArgsAsUsage(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return &usageError{cmd: cmd.CommandPath(), msg: argsMessage(cmd, args, err), err: err}
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		checkArgsAsUsage(sub)
	}
}

// argsMessage words cobra's argument-count errors with the command's
// synopsis (the words after its name in Use).
func argsMessage(c *cobra.Command, args []string, err error) string {
	synopsis := strings.TrimSpace(strings.TrimPrefix(c.Use, c.Name()))
	if synopsis != "" {
		synopsis = " (" + synopsis + ")"
	}
	msg := err.Error()
	var want, got int
	switch {
	case scan(msg, "accepts %d arg(s), received %d", &want, &got):
		if want == 0 {
			return fmt.Sprintf("takes no arguments, got %d", got)
		}
		return fmt.Sprintf("expected %s%s, got %d", plural(want, "argument"), synopsis, got)
	case scan(msg, "requires at least %d arg(s), only received %d", &want, &got):
		return fmt.Sprintf("expected at least %s%s, got %d", plural(want, "argument"), synopsis, got)
	case scan(msg, "accepts at most %d arg(s), received %d", &want, &got):
		return fmt.Sprintf("expected at most %s%s, got %d", plural(want, "argument"), synopsis, got)
	case strings.HasPrefix(msg, "unknown command ") && len(args) > 0: // cobra.NoArgs
		return fmt.Sprintf("takes no arguments, got %q", args[0])
	}
	return msg
}

func scan(s, format string, a ...any) bool {
	n, err := fmt.Sscanf(s, format, a...)
	return err == nil && n == len(a)
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

var quoted = regexp.MustCompile(`"([^"]+)"`)

// cobraUsage recognises the usage errors cobra returns on its own: an
// unknown command, a required flag left out.
func cobraUsage(c *cobra.Command, err error) *usageError {
	msg := err.Error()
	switch {
	case strings.HasPrefix(msg, "unknown command "):
		first, rest, _ := strings.Cut(msg, "\n")
		out := strings.TrimSuffix(first, fmt.Sprintf(" for %q", c.CommandPath()))
		var tips []string
		for _, l := range strings.Split(rest, "\n") {
			if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, "?") {
				tips = append(tips, "'"+l+"'")
			}
		}
		if len(tips) > 0 {
			out += "; did you mean " + strings.Join(tips, " or ") + "?"
		}
		return &usageError{cmd: c.CommandPath(), msg: out, err: err}
	case strings.HasPrefix(msg, "required flag(s) "):
		var flags []string
		for _, m := range quoted.FindAllStringSubmatch(msg, -1) {
			flags = append(flags, "--"+m[1])
		}
		verb := " is required"
		if len(flags) > 1 {
			verb = " are required"
		}
		return &usageError{cmd: c.CommandPath(), msg: strings.Join(flags, " and ") + verb, err: err}
	}
	return nil
}
