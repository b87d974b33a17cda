package errtext

import (
	"errors"
	"io"
	"testing"

	"github.com/spf13/pflag"
)

// pflag's errors are said in the flag's terms: the kind of value it
// wants, that it needs one, and an unknown flag as it was typed.
func TestFlagWordsPflagsErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--seeds", "many"}, `--seeds: must be a whole number, got "many"`},
		{[]string{"--every", "soon"}, `--every: must be a duration like 90s, 30m or 1h30m, got "soon"`},
		{[]string{"--seeds"}, "--seeds needs a value"},
		{[]string{"--bogus"}, "unknown flag --bogus"},
		{[]string{"-x"}, "unknown flag -x"},
	} {
		fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
		fs.SetOutput(io.Discard)
		fs.Int("seeds", 1, "")
		fs.Duration("every", 0, "")
		err := fs.Parse(c.args)
		if err == nil {
			t.Fatalf("%v: parsed", c.args)
		}
		if got := Flag(err); got != c.want {
			t.Errorf("%v: %q, want %q", c.args, got, c.want)
		}
	}
	if got := Flag(errors.New("something else")); got != "something else" {
		t.Errorf("another error reads %q", got)
	}
}

// A library's usage error keeps its words; an input error keeps the
// error it marks, and nil stays nil.
func TestUsageAndInputErrorsKeepTheirWords(t *testing.T) {
	var ue *UsageError
	if err := Usagef("--retain %q: want a duration", "100%"); !errors.As(err, &ue) || ue.Msg != `--retain "100%": want a duration` {
		t.Errorf("Usagef: %v", err)
	}
	if Input(nil) != nil {
		t.Error("Input(nil) is not nil")
	}
	base := errors.New("open x.yaml: no such file")
	var ie *InputError
	if err := Input(base); !errors.As(err, &ie) || !errors.Is(err, base) || err.Error() != base.Error() {
		t.Errorf("Input: %v", err)
	}
}
