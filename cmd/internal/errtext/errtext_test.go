package errtext

import (
	"errors"
	"testing"
)

// cobra's argument counts are said with the command's synopsis.
func TestArgsNamesTheSynopsis(t *testing.T) {
	for _, c := range []struct{ msg, want string }{
		{"accepts 1 arg(s), received 2", "expected 1 argument (SCENARIO), got 2"},
		{"requires at least 2 arg(s), only received 0", "expected at least 2 arguments (SCENARIO), got 0"},
		{"accepts at most 1 arg(s), received 3", "expected at most 1 argument (SCENARIO), got 3"},
		{"something else", "something else"},
	} {
		if got := Args("sim SCENARIO", "sim", nil, c.msg); got != c.want {
			t.Errorf("Args(%q) = %q, want %q", c.msg, got, c.want)
		}
	}
	if got := Args("catalog", "catalog", []string{"x"}, `unknown command "x" for "allot catalog"`); got != `takes no arguments, got "x"` {
		t.Errorf("NoArgs: %q", got)
	}
	if got := Args("catalog", "catalog", nil, "accepts 0 arg(s), received 1"); got != "takes no arguments, got 1" {
		t.Errorf("ExactArgs(0): %q", got)
	}
}

// An unknown command keeps cobra's suggestions; required flags are
// listed as flags.
func TestUnknownCommandAndRequiredFlags(t *testing.T) {
	got, ok := UnknownCommand("allot", "unknown command \"simm\" for \"allot\"\n\nDid you mean this?\n\tsim\n")
	if want := `unknown command "simm"; did you mean 'sim'?`; !ok || got != want {
		t.Errorf("UnknownCommand = %q, %v; want %q", got, ok, want)
	}
	if _, ok := UnknownCommand("allot", "required flag(s) \"to\" not set"); ok {
		t.Error("UnknownCommand took a required-flag error")
	}
	got, ok = RequiredFlags(`required flag(s) "format", "to" not set`)
	if want := "--format and --to are required"; !ok || got != want {
		t.Errorf("RequiredFlags = %q, %v; want %q", got, ok, want)
	}
	if FlagKind("uint64") != "a whole number >= 0" || FlagKind("string") != "a valid string" {
		t.Error("FlagKind")
	}
}

// Another error reads "allot: " once, its further lines trimmed below.
func TestReportPrefixesAllotOnceAndKeepsFurtherLines(t *testing.T) {
	for _, c := range []struct{ err, want string }{
		{"boom", "allot: boom"},
		{"allot: boom", "allot: boom"},
		{"3 differences:\n  a\n  b\n", "allot: 3 differences:\na\n  b"},
	} {
		if got := Report(errors.New(c.err)); got != c.want {
			t.Errorf("Report(%q) = %q, want %q", c.err, got, c.want)
		}
	}
}
