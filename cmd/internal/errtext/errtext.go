// Package errtext words the errors allot prints on standard error: what
// cobra and pflag say of a bad command line, in allot's own terms (the
// kind of value a flag wants, the arguments a command expects with its
// synopsis, an unknown command with the suggestions, the required flags
// left out), and any other error as its report. It reads messages and
// errors only; the command line wires it to cobra. UsageError and
// InputError are how the libraries under cmd say that a command line, or
// what it named, is at fault.
package errtext

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/allot-sim/allot/scenarios"
	"github.com/allot-sim/allot/workload"
)

// FlagKind is what a value of a flag of pflag's type typ must be.
func FlagKind(typ string) string {
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

// Args words cobra's argument-count error msg for a command (use is its
// Use line, name its name) given args, with the command's synopsis (the
// words after its name in use).
func Args(use, name string, args []string, msg string) string {
	synopsis := strings.TrimSpace(strings.TrimPrefix(use, name))
	if synopsis != "" {
		synopsis = " (" + synopsis + ")"
	}
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

// UnknownCommand words cobra's "unknown command" error msg of the
// command at path, its suggestions as "did you mean"; ok is false for
// another message.
func UnknownCommand(path, msg string) (_ string, ok bool) {
	if !strings.HasPrefix(msg, "unknown command ") {
		return "", false
	}
	first, rest, _ := strings.Cut(msg, "\n")
	out := strings.TrimSuffix(first, fmt.Sprintf(" for %q", path))
	var tips []string
	for _, l := range strings.Split(rest, "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.HasSuffix(l, "?") {
			tips = append(tips, "'"+l+"'")
		}
	}
	if len(tips) > 0 {
		out += "; did you mean " + strings.Join(tips, " or ") + "?"
	}
	return out, true
}

var quoted = regexp.MustCompile(`"([^"]+)"`)

// RequiredFlags words cobra's error msg of required flags left out; ok
// is false for another message.
func RequiredFlags(msg string) (_ string, ok bool) {
	if !strings.HasPrefix(msg, "required flag(s) ") {
		return "", false
	}
	var flags []string
	for _, m := range quoted.FindAllStringSubmatch(msg, -1) {
		flags = append(flags, "--"+m[1])
	}
	verb := " is required"
	if len(flags) > 1 {
		verb = " are required"
	}
	return strings.Join(flags, " and ") + verb, true
}

// Report is what standard error shows for an error that is not a usage
// error: FILE:LINE: key.path: message where a file is at fault (FILE: row
// N: column COL: message for a trace row), else allot: message, its
// further lines below.
func Report(err error) string {
	var (
		fe *scenarios.FileError
		re *workload.FieldError
	)
	switch {
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
