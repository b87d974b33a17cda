package replay

import (
	"bytes"
	"errors"
	"os"
	"strings"
	"testing"

	"github.com/allot-sim/allot/cmd/internal/errtext"
	"github.com/allot-sim/allot/live"
)

// Run refuses, before anything runs live: no --speedup as a usage error;
// a scenario a live run cannot follow, or a state directory that holds
// jobs, as the input's.
func TestRunRefusesBeforeRunningLive(t *testing.T) {
	busy := t.TempDir()
	store, err := openStore(busy)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Save([]*live.Job{{ID: "1", Name: "left-over"}}, nil); err != nil {
		t.Fatal(err)
	}
	store.Close()
	for _, c := range []struct {
		path  string
		o     Options
		usage bool
		want  string
	}{
		{"../../../scenarios/live/replay-two-teams.yaml", Options{}, true, "--speedup K is required and must be positive"},
		{"../../../scenarios/amazon-search.yaml", Options{Speedup: 10}, false, "amazon-search: fleet.failures: live replay cannot fail nodes"},
		{"../../../scenarios/live/replay-two-teams.yaml", Options{Speedup: 10, Dir: busy}, false, "--data-dir " + busy + " already holds jobs"},
	} {
		var w, errW bytes.Buffer
		_, err := Run(&w, &errW, c.path, "", c.o)
		var (
			ue *errtext.UsageError
			ie *errtext.InputError
		)
		if c.usage && !errors.As(err, &ue) || !c.usage && !errors.As(err, &ie) || err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%s %+v: %v, want %q (usage %v)", c.path, c.o, err, c.want, c.usage)
		}
		if w.Len() > 0 {
			t.Errorf("%s %+v printed %q", c.path, c.o, w.String())
		}
	}
	if _, err := os.Stat(busy); err != nil {
		t.Errorf("the state directory given was removed: %v", err)
	}
}

// allot live sleepjob takes a number of seconds, at least 0.
func TestSleepJobRefusesWhatIsNotSeconds(t *testing.T) {
	for _, arg := range []string{"abc", "-1", ""} {
		var ie *errtext.InputError
		if err := SleepJob(arg); !errors.As(err, &ie) || err.Error() != `sleepjob: "`+arg+`" is not a number of seconds` {
			t.Errorf("%q: %v", arg, err)
		}
	}
}
