package errtext

import (
	"errors"
	"fmt"

	"github.com/spf13/pflag"
)

// UsageError is a command line a library refuses (a flag's value, a flag
// left out, flags that do not go together): the command line reports it
// as it does cobra's own, "COMMAND: Msg" and a hint to see its help.
type UsageError struct{ Msg string }

func (e *UsageError) Error() string { return e.Msg }

// Usagef is a UsageError of a message formatted as fmt.Sprintf does.
func Usagef(format string, a ...any) error {
	return &UsageError{fmt.Sprintf(format, a...)}
}

// InputError is an error a library blames on what it was given (a file,
// a flag's value, a directory in use), not on itself or the machine.
type InputError struct{ Err error }

func (e *InputError) Error() string { return e.Err.Error() }
func (e *InputError) Unwrap() error { return e.Err }

// Input marks err (when not nil) as the input's fault: an InputError.
func Input(err error) error {
	if err == nil {
		return nil
	}
	return &InputError{err}
}

// Flag words pflag's error of a bad flag in the flag's own terms: the
// kind of value it wants, that it needs one, that it is unknown; another
// error as it reads.
func Flag(err error) string {
	var (
		inv *pflag.InvalidValueError
		req *pflag.ValueRequiredError
		nx  *pflag.NotExistError
	)
	switch {
	case errors.As(err, &inv):
		f := inv.GetFlag()
		return fmt.Sprintf("--%s: must be %s, got %q", f.Name, FlagKind(f.Value.Type()), inv.GetValue())
	case errors.As(err, &req):
		return fmt.Sprintf("--%s needs a value", req.GetFlag().Name)
	case errors.As(err, &nx):
		if short := nx.GetSpecifiedShortnames(); short != "" {
			return fmt.Sprintf("unknown flag -%c", nx.GetSpecifiedName()[0])
		}
		return "unknown flag --" + nx.GetSpecifiedName()
	}
	return err.Error()
}
