package live

import (
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// What one request may carry.
const (
	// MaxBody is the most a request body may hold.
	MaxBody = 1 << 20
	// MaxArgvBytes is the most a job's command and environment may hold
	// together (bytes of every argument and NAME=VALUE); MaxArgs the most
	// arguments and variables together.
	MaxArgvBytes = 256 << 10
	MaxArgs      = 4096
	// MaxNameBytes is the longest job name.
	MaxNameBytes = 128
)

// CheckRequest refuses what no daemon takes, whatever its configuration:
// a name with control characters (it is printed on others' terminals) or
// over MaxNameBytes, a command and environment over MaxArgvBytes or
// MaxArgs, a NUL byte where exec cannot carry one, an environment entry
// that is not NAME=VALUE with a portable NAME, or one naming what the
// daemon sets itself. The client checks too, to say so before sending.
func CheckRequest(req *Request) error {
	if !utf8.ValidString(req.Name) {
		return &RequestError{fmt.Sprintf("job name %q is not UTF-8", req.Name)}
	}
	if len(req.Name) > MaxNameBytes {
		return &RequestError{fmt.Sprintf("job name of %d bytes: at most %d", len(req.Name), MaxNameBytes)}
	}
	if r, ok := controlIn(req.Name); ok {
		return &RequestError{fmt.Sprintf("job name %q has a control character (%s): names are shown on other users' terminals", req.Name, strings.Trim(strconv.QuoteRune(r), "'"))}
	}
	if n := len(req.Command) + len(req.Env); n > MaxArgs {
		return &RequestError{fmt.Sprintf("%d arguments and environment variables: at most %d", n, MaxArgs)}
	}
	total := 0
	for _, a := range req.Command {
		total += len(a) + 1
		if strings.IndexByte(a, 0) >= 0 {
			return &RequestError{fmt.Sprintf("argument %q has a NUL byte, which no command line can carry", a)}
		}
	}
	for _, e := range req.Env {
		total += len(e) + 1
		if err := CheckEnv(e); err != nil {
			return err
		}
	}
	if total > MaxArgvBytes {
		return &RequestError{fmt.Sprintf("command and environment of %d bytes: at most %d (256 KiB)", total, MaxArgvBytes)}
	}
	if strings.IndexByte(req.Dir, 0) >= 0 || len(req.Dir) > 4096 {
		return &RequestError{fmt.Sprintf("working directory %q: not a path", req.Dir)}
	}
	if len(req.RequestID) > 128 || strings.ContainsFunc(req.RequestID, func(r rune) bool {
		return !(r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '-' || r == '_' || r == '.')
	}) {
		return &RequestError{fmt.Sprintf("request id %q: want at most 128 letters, digits, '-', '_' or '.'", req.RequestID)}
	}
	return nil
}

// CheckEnv checks one NAME=VALUE of a job's environment: NAME is a
// portable name (a letter or '_', then letters, digits and '_'), not one
// the daemon sets (ALLOT_*, the device variables), and neither has a
// control character.
func CheckEnv(e string) error {
	name, value, ok := strings.Cut(e, "=")
	if !ok {
		return &RequestError{fmt.Sprintf("environment entry %q: want NAME=VALUE", e)}
	}
	if err := CheckEnvName(name); err != nil {
		return err
	}
	if r, bad := controlIn(value); bad {
		return &RequestError{fmt.Sprintf("environment variable %s: its value has a control character (%s)", name, strings.Trim(strconv.QuoteRune(r), "'"))}
	}
	return nil
}

// CheckEnvName checks the NAME of a job's environment entry.
func CheckEnvName(name string) error {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool {
		return !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	}) || name[0] >= '0' && name[0] <= '9' {
		return &RequestError{fmt.Sprintf("environment variable name %q: want a letter or '_', then letters, digits or '_'", name)}
	}
	if strings.HasPrefix(name, "ALLOT_") || name == "CUDA_VISIBLE_DEVICES" || name == "NVIDIA_VISIBLE_DEVICES" || name == "NEURON_RT_VISIBLE_CORES" {
		return &RequestError{fmt.Sprintf("environment variable %s is set by the daemon (the job's id, run and devices)", name)}
	}
	return nil
}

// controlIn finds the first control or other unprintable character of
// s: what a terminal would act on or hide (escapes, bidirectional
// overrides), not ordinary Unicode letters and spaces.
func controlIn(s string) (rune, bool) {
	for _, r := range s {
		if r != ' ' && !unicode.IsGraphic(r) {
			return r, true
		}
	}
	return 0, false
}

// Printable is s made safe to print to a terminal: control and other
// unprintable characters (ESC, newlines, bidirectional overrides, bytes
// that are not UTF-8) are written as Go escapes (\x1b, \n, \u202e,
// \xff); ordinary Unicode is kept. Every command that prints what users
// named or the daemon said prints it through Printable.
func Printable(s string) string {
	if _, bad := controlIn(s); !bad && utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == ' ' || unicode.IsGraphic(r):
			b.WriteString(s[i : i+n])
		default:
			q := strconv.QuoteRune(r)
			b.WriteString(q[1 : len(q)-1])
		}
		i += n
	}
	return b.String()
}
